"""The big boards' opening book of long searches: its entries legal, played by the top level,
never a move the solver quickly proves lost; built by the play book's builder."""

from __future__ import annotations

import json

import pytest

from slimetrail import get_game
from slimetrail.games.trail import mcts_kernel, strong
from slimetrail.games.trail.solver import book

NINE = get_game("slimetrail", size="9", start="e5")
# A short refutation budget for the tests (the builder's is REFUTE_NODES): what the kernel
# proves within it, the builder's bigger budget proves too.
TEST_REFUTE_NODES = 100_000


def searched_entries() -> dict[str, str]:
    return json.loads(book.play_book_path(NINE).read_text(encoding="utf-8"))["searched"]


def test_the_9x9_book_covers_both_colours_from_the_start() -> None:
    entries = searched_entries()
    start = NINE.new_state()
    assert book.book_move(start) == (start.parse_move(entries[book.canonical(start)[0]]), False)
    # The baseline as Green opens d4: our Red reply is in the book.
    start.push_str("d4")
    assert book.book_move(start) is not None
    assert len(entries) >= 6


def test_searched_entries_are_legal_and_what_the_top_level_plays() -> None:
    strong.forget()
    for fen, text in searched_entries().items():
        state = NINE.state_from_fen(fen)
        assert book.canonical(state) == (fen, False), fen  # kept in one orientation
        assert text in state.legal_move_strs(), fen
        played = strong.play(state, 0.5, seed=1, iterations=1000)
        assert (state.move_str(played.move), played.proven) == (text, None), fen
        assert played.info["search"] == "opening book (long searches)"
        assert book.winning_move(state) is None  # not a proof


def test_the_top_level_plays_the_mirror_image_of_an_entry() -> None:
    # An entry whose position is not its own mirror image (the start and d4 are).
    fen, text = next(
        (fen, text)
        for fen, text in sorted(searched_entries().items())
        if book.mirror_state(NINE.state_from_fen(fen)).fen() != fen
    )
    state = NINE.state_from_fen(fen)
    mirror = book.mirror_state(state)
    col, row = NINE.board.coords(state.parse_move(text))
    played = strong.play(mirror, 0.5, seed=1, iterations=1000)
    assert played.move == NINE.board.index(row, col)


def test_no_searched_move_is_proven_lost_by_a_short_solve() -> None:
    for fen, text in searched_entries().items():
        state = NINE.state_from_fen(fen)
        state.push_str(text)
        assert state.is_over() or mcts_kernel.prove(state, TEST_REFUTE_NODES) != "win", fen


def test_a_long_search_is_the_same_for_the_same_seed() -> None:
    job = (NINE.spec, "9/9/9/9/3ox4/9/9/9/9 2", 3000, 5)
    first = book.searched_moves(job)
    assert book.searched_moves(job) == first
    assert 2000 < sum(visits for visits, _, _ in first.values()) <= 3000


# A 9x9 position (from a random game) where e6 and e8 win and g6 and g7 lose, all four
# proven by the solver's kernel within a few thousand nodes.
MIDDLE = "d4 c3 b2 c1 d1 d2 e2 e3 d3 e4 f3 g4 g5 h4 i4 i5 i6 h7 g8 h8 h9 g9 f8 e7 f6 f7"


def middle():
    state = get_game("slimetrail", size="9").new_state()
    for cell in MIDDLE.split():
        state.push_str(cell)
    return state


def refuted(state, move: str) -> bool:
    child = state.copy()
    child.push_str(move)
    return not child.is_over() and mcts_kernel.prove(child, book.REFUTE_NODES) == "win"


def builder_in(tmp_path, monkeypatch) -> book.PlayBookBuilder:
    monkeypatch.setattr(book, "BOOK_DIR", tmp_path)
    book.reload()
    return book.PlayBookBuilder(get_game("slimetrail", size="9"), log=lambda text: None)


def test_the_builder_skips_a_most_visited_move_the_solver_proves_lost(
    tmp_path, monkeypatch
) -> None:
    builder = builder_in(tmp_path, monkeypatch)
    state = middle()
    assert refuted(state, "g6") and not refuted(state, "e6")
    builder.enter_search(state, [{"g6": (900, 0.9, None), "e6": (50, 0.5, None)}])
    builder.save()
    try:
        assert book.book_move(state) == (state.parse_move("e6"), False)
        # A move a search proved lost is never booked, a proven win is booked as proven.
        builder.enter_search(state, [{"e6": (900, 0.9, "loss"), "e8": (10, 0.5, None)}])
        builder.save()
        assert book.book_move(state) == (state.parse_move("e8"), False)
        builder.enter_search(state, [{"e6": (1, 1.0, "win")}])
        builder.save()
        assert book.book_move(state) == (state.parse_move("e6"), True)
        assert book.winning_move(state) == state.parse_move("e6")
    finally:
        book.reload()


def test_a_searched_entry_naming_no_cell_is_a_clear_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(book, "BOOK_DIR", tmp_path)
    state = NINE.new_state()
    document = {"positions": {}, "searched": {book.canonical(state)[0]: "k12"}}
    book.play_book_path(NINE).write_text(json.dumps(document), encoding="utf-8")
    book.reload()
    try:
        with pytest.raises(ValueError, match="names no cell of its board: 'k12'"):
            book.book_move(state)
    finally:
        book.reload()
