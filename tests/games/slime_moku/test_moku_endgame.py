"""The exact endgame search of the big Slime-Moku boards (endgame.py) against two references:
the 64-bit exact solver on the boards it takes, and a plain negamax over the game's own rules
(``MokuState``) on 9x9; and its use by the top level at the root."""

from __future__ import annotations

import random

import pytest

from slimetrail.core.registry import get_game
from slimetrail.games.moku import endgame, mcts
from slimetrail.games.moku.solver import SOLVER

NUMBERS = {"win": 1, "draw": 0, "loss": -1}

# Game 15 of the 9x9 k=5 run of session 33 (bench/RESULTS.md): the top level, Black, played
# e7 at ply 52 (28 empty cells) and lost; f5 draws.
LOST_9X9 = (
    "d5 c5 c6 c7 c8 d9 c9 b9 a9 a8 b8 a7 a6 a5 a4 a3 a2 b1 a1 b2 c1 d1 c2 d2 d3 c4 b3 b4 b5 "
    "b6 b7 f1 g1 h1 i1 i2 i3 i4 h3 h4 g3 g2 h2 i9 i8 i7 i6 h7 g7 f7 f6 e6"
)


def endgames(n: int, k: int, games: int, seed: int, most: int, least: int = 2):
    """Running positions of random games with ``least`` to ``most`` empty cells."""
    game = get_game("slime-moku", size=n, k=k)
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if least <= state.empty.bit_count() <= most:
                yield state
            state.push(rng.choice(state.legal_moves()))


def move_value(state, move) -> int:
    """The value of ``move`` for the side to move, by the rules alone (small endgames only)."""
    child = state.copy()
    child.push(move)
    outcome = child.outcome()
    if outcome is None:
        return -max(move_value(child, reply) for reply in child.legal_moves())
    return 0 if outcome.winner is None else 1 if outcome.winner == state.to_move else -1


def exact(bounds: endgame.MoveBounds) -> dict[int, int]:
    """The settled moves' values (a winning move ends the search: the rest stay open)."""
    return {m: low for m, (low, high) in bounds.bounds.items() if low == high}


@pytest.mark.parametrize(("n", "k"), [(5, 4), (6, 4), (7, 4), (6, 5)])
def test_each_moves_value_is_the_64_bit_solvers(n: int, k: int) -> None:
    seen = set()
    for state in endgames(n, k, 30, n * k, 16):
        found = endgame.move_bounds(state, 60.0)
        expected = {m: NUMBERS[v] for m, v in SOLVER.solve(state).move_values.items()}
        assert set(found.bounds) == set(expected), state.fen()
        settled = exact(found)
        assert all(expected[m] == v for m, v in settled.items()), state.fen()
        if found.winning() is None:
            assert settled == expected, state.fen()  # no win: every move settled
        else:
            assert expected[found.winning()] == 1, state.fen()
        seen.update(expected.values())
    assert seen == {-1, 0, 1}


def test_the_values_on_9x9_are_the_rules_own() -> None:
    seen = set()
    for state in endgames(9, 5, 80, 7, 8):
        found = exact(endgame.move_bounds(state, 60.0))
        for move, value in found.items():
            expected = move_value(state, move)
            assert value == expected, (state.fen(), move)
            seen.add(value)
    assert seen == {-1, 0, 1}


def test_a_search_cut_short_claims_only_what_it_proved() -> None:
    game = get_game("slime-moku", size=9, k=5)
    state = game.new_state()
    for move in LOST_9X9.split():
        state.push_str(move)
    table = endgame.board_table(9, 5, bits=16)
    short = endgame.move_bounds(state, 60.0, nodes=5_000, table=table)
    assert short.nodes <= 5_000
    assert any(low != high for low, high in short.bounds.values())
    full = endgame.move_bounds(state, 60.0, table=endgame.board_table(9, 5, bits=18))
    values = exact(full)
    assert {state.move_str(m): v for m, v in values.items()} == {
        "d6": -1,
        "e7": -1,
        "d7": -1,
        "f5": 0,
    }
    for move, (low, high) in short.bounds.items():
        assert low <= values[move] <= high


def test_the_top_level_keeps_the_draw_it_threw_away() -> None:
    state = get_game("slime-moku", size=9, k=5).new_state()
    for move in LOST_9X9.split():
        state.push_str(move)
    assert state.empty.bit_count() <= mcts.ENDGAME_SOLVE_EMPTIES
    solved = mcts.solve_root(state, 60.0)
    assert solved.verdict == "draw"
    assert {state.move_str(m) for m in solved.losing} == {"d6", "e7", "d7"}
    found = mcts.search(state, 0.5, seed=1)
    assert state.move_str(found.move) == "f5"
    # Early the endgame search is not asked: the tree keeps the whole move.
    start = get_game("slime-moku", size=9, k=5).new_state()
    assert mcts.solve_root(start, 60.0) == mcts.RootSolve()
