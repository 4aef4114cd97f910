"""The opening book: every entry legal, consistent with its neighbours, and equal to a search."""

from __future__ import annotations

import json
import random

import pytest

from slimetrail import get_game
from slimetrail.games.trail.solver import solve
from slimetrail.games.trail.solver.book import book_path, lookup, positions

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
