"""The opening book: every entry legal, consistent with its neighbours, and equal to a search."""

from __future__ import annotations

import json
import random

import pytest

from slimetrail import get_game
from slimetrail.games.trail.solver import book, solve
from slimetrail.games.trail.solver.book import (
    book_path,
    lookup,
    play_book_path,
    positions,
    winning_move,
)

GAME = get_game("slimetrail")
BOOK = json.loads(book_path(GAME).read_text(encoding="utf-8"))
ENTRIES: dict[str, dict[str, list]] = BOOK["positions"]


def test_the_book_covers_every_position_of_its_plies() -> None:
    assert {s.fen() for s in positions(GAME, BOOK["plies"])} == set(ENTRIES)


def test_every_entry_lists_exactly_the_legal_moves() -> None:
    for fen, moves in ENTRIES.items():
        state = GAME.state_from_fen(fen)
        assert sorted(moves) == sorted(state.legal_move_strs()), fen
        assert all(value in ("win", "loss") and plies > 0 for value, plies in moves.values())


def test_entries_agree_with_the_entries_after_each_move() -> None:
    """A move wins in n plies exactly when the position after it loses in n - 1."""
    checked = 0
    for fen, moves in ENTRIES.items():
        state = GAME.state_from_fen(fen)
        for text, (value, plies) in moves.items():
            state.push_str(text)
            child = lookup(state)
            if child is not None:
                assert value == {"win": "loss", "loss": "win"}[child.value], (fen, text)
                assert plies == child.plies + 1, (fen, text)
                checked += 1
            state.pop()
    assert checked > 300


@pytest.mark.parametrize("seed", range(4))
def test_entries_equal_a_fresh_search(seed: int) -> None:
    # The deepest entries are the quickest to search again (about a second each).
    deepest = [fen for fen in ENTRIES if fen.count("x") == BOOK["plies"]]
    fen = random.Random(seed).choice(deepest)
    state = GAME.state_from_fen(fen)
    searched = solve(state, distance=True, book=False)
    booked = solve(state, distance=True)
    assert booked.nodes == 0 and searched.nodes > 0
    assert booked.value == searched.value and booked.plies == searched.plies
    assert booked.move_values == searched.move_values
    assert booked.move_plies == searched.move_plies


def test_solve_answers_the_start_from_the_book() -> None:
    state = GAME.new_state()
    result = solve(state)
    assert result.nodes == 0 and result.plies is None and result.move_plies == {}
    assert result.value == "win" and len(result.winning_moves) == 8
    with_distance = solve(state, distance=True)
    assert with_distance.plies == min(with_distance.move_plies.values())


def test_positions_outside_the_book_are_searched() -> None:
    state = GAME.new_state()
    for text in ("c3", "c4", "b3", "a4", "a5", "b6")[: BOOK["plies"] + 1]:
        state.push_str(text)  # one ply deeper than the book
    assert not state.is_over() and lookup(state) is None
    assert solve(state).nodes > 0
    assert lookup(get_game("slimetrail", start="e5").new_state()) is None


# -- play books ------------------------------------------------------------------------

PLAY_GAMES = [get_game("slimetrail", rules=rules) for rules in ("rastros", "taylor")]


def transposed(fen: str) -> str:
    """The fen of the mirror image in the a1 diagonal, written out square by square."""
    board, side = fen.split()
    rows = []
    for text in board.split("/"):
        row = []
        for ch in text:
            row += ["."] * int(ch) if ch.isdigit() else [ch]
        rows.append(row)
    rows.reverse()  # rows[rank][file], rank 0 = 1
    n = len(rows)
    mirrored = [[rows[f][r] for f in range(n)] for r in range(n)]  # rank r, file f <- (r, f)
    out = []
    for row in reversed(mirrored):
        text, run = "", 0
        for ch in row:
            if ch == ".":
                run += 1
                continue
            text += (str(run) if run else "") + ch
            run = 0
        out.append(text + (str(run) if run else ""))
    return f"{'/'.join(out)} {side}"


def play_entries(game) -> dict[str, str]:
    return json.loads(play_book_path(game).read_text(encoding="utf-8"))["positions"]


@pytest.mark.parametrize("game", PLAY_GAMES, ids=lambda g: g.rules)
def test_play_book_entries_are_legal_moves_kept_in_one_orientation(game) -> None:
    entries = play_entries(game)
    assert entries
    for fen, text in entries.items():
        assert fen <= transposed(fen), fen  # the orientation that sorts first
        assert text in game.state_from_fen(fen).legal_move_strs(), fen


@pytest.mark.parametrize("game", PLAY_GAMES, ids=lambda g: g.rules)
def test_play_book_answers_mirror_images(game) -> None:
    fen, text = sorted(play_entries(game).items())[0]
    state = game.state_from_fen(fen)
    assert state.move_str(winning_move(state)) == text
    mirror = game.state_from_fen(transposed(fen))
    file, rank = text[0], int(text[1])
    assert (
        mirror.move_str(winning_move(mirror)) == f"{'abcdefg'[rank - 1]}{'abcdefg'.index(file) + 1}"
    )


@pytest.mark.parametrize("game", PLAY_GAMES, ids=lambda g: g.rules)
@pytest.mark.parametrize("seed", range(2))
def test_play_book_moves_win_by_a_fresh_solve(game, seed: int) -> None:
    # Sampled among the deepest entries: the quickest to solve again.
    entries = play_entries(game)
    deepest = sorted(entries, key=lambda fen: -fen.count("x"))[:20]
    fen = random.Random(seed).choice(deepest)
    state = game.state_from_fen(fen)
    assert solve(state, book=False, first_win=True).value == "win"
    state.push_str(entries[fen])
    assert state.is_over() or solve(state, book=False).value == "loss"


@pytest.mark.slow
@pytest.mark.parametrize("game", PLAY_GAMES, ids=lambda g: g.rules)
def test_play_book_sampled_entries_win_by_a_fresh_solve(game) -> None:
    entries = play_entries(game)
    for fen in random.Random(7).sample(sorted(entries), min(4, len(entries))):
        state = game.state_from_fen(fen)
        state.push_str(entries[fen])
        assert state.is_over() or solve(state, book=False).value == "loss", fen


def test_play_book_builder_covers_every_defence(tmp_path, monkeypatch) -> None:
    """With no position left to the solver, the winner's book moves from a start win against
    every defence, and the first player's losing first moves are answered too."""
    monkeypatch.setattr(book, "BOOK_DIR", tmp_path)
    game = get_game("slimetrail", size=5)
    builder = book.PlayBookBuilder(game, fast=0.0, log=lambda text: None)
    builder.cover_start("b3")
    book.reload()
    start = get_game("slimetrail", size=5, start="b3").new_state()
    assert book.start_values(game)["b3"] == book.start_values(game)["c2"] == "win"
    seen = 0

    def walk(state, winner: int) -> None:
        nonlocal seen
        if state.is_over():
            assert state.outcome().winner == winner
            return
        if state.to_move == winner:
            move = winning_move(state)
            assert move is not None, state.fen()
            state.push(move)
            walk(state, winner)
            state.pop()
            seen += 1
            return
        for reply in state.legal_moves():
            state.push(reply)
            walk(state, winner)
            state.pop()

    walk(start, 1)
    for first in start.legal_moves():
        start.push(first)
        if winning_move(start) is not None:  # a losing first move: the second player wins
            walk(start, 2)
        start.pop()
    assert seen > 10
    book.reload()


def test_a_play_book_entry_naming_no_cell_is_a_clear_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(book, "BOOK_DIR", tmp_path)
    game = get_game("slimetrail", size=5)
    state = get_game("slimetrail", size=5, start="b3").new_state()
    key, _ = book.canonical(state)
    play_book_path(game).write_text(json.dumps({"positions": {key: "z9"}}), encoding="utf-8")
    book.reload()
    try:
        with pytest.raises(ValueError, match="names no cell of its board: 'z9'"):
            winning_move(state)
    finally:
        book.reload()
