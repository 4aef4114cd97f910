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


def replayed(n: int, k: int, moves: str):
    """The position after ``moves`` (space-separated) from the start of an n x n game."""
    state = get_game("slime-moku", size=n, k=k).new_state()
    for move in moves.split():
        state.push_str(move)
    return state


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
    state = replayed(9, 5, LOST_9X9)
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
    state = replayed(9, 5, LOST_9X9)
    assert state.empty.bit_count() <= mcts.ENDGAME_SOLVE_EMPTIES
    solved = mcts.solve_root(state, 60.0)
    assert solved.verdict == "draw"
    assert {state.move_str(m) for m in solved.losing} == {"d6", "e7", "d7"}
    found = mcts.search(state, 0.5, seed=1)
    assert state.move_str(found.move) == "f5"
    # Early the endgame search is not asked: the tree keeps the whole move.
    start = get_game("slime-moku", size=9, k=5).new_state()
    assert mcts.solve_root(start, 60.0) == mcts.RootSolve()


# Game 14 of the 15x15 1 s run of session 50 (bench/RESULTS.md, session 51): the top level,
# White, drew it; at ply 191 (33 empty cells) d5 wins, proven in some 300,000 nodes, while
# c3's draw takes millions.
DRAWN_15X15 = (
    "g8 f8 f9 f10 f11 f12 f13 f14 g15 f15 e15 d15 c15 b15 a15 a14 a13 a12 a11 a10 a9 a8 a7 a6 "
    "a5 a4 a3 a2 b1 a1 b2 c1 d1 e1 f1 g1 h1 i1 j1 k1 l1 m1 m2 n1 o1 o2 o3 o4 o5 o6 o7 o8 o9 o10 "
    "o11 o12 o13 o14 n15 o15 n14 m15 l15 k15 j15 i15 h15 g14 h14 g13 g12 h12 g11 h10 g10 g9 h9 "
    "i9 j9 k9 l9 l10 k10 j10 k11 l11 m12 n11 n12 n13 m13 m14 l14 k14 l13 k13 l12 m11 n10 n9 n8 "
    "n7 n6 m7 m8 m9 m10 i14 j14 i13 j13 i12 h13 k12 j12 j11 i10 h11 i11 l2 k2 j2 i2 h2 i3 j3 j4 "
    "i4 h4 h3 g2 f2 g3 f3 f4 f5 e4 d3 e2 e3 d2 c2 b3 b4 b5 b6 b7 b8 c8 b9 b10 b11 c10 c9 d10 "
    "e11 d11 c11 c12 d13 c14 b14 b13 c13 b12 l8 l7 k6 l6 k5 l5 k4 k3 l3 m4 n5 m5 m6 d9 e10 e9 "
    "e8 e7 d8 d7 c6 d6 e5 d4 c5 c4"
)


def drawn_15x15():
    return replayed(15, 5, DRAWN_15X15)


def test_a_cheap_win_is_not_left_behind_a_costly_move() -> None:
    # The questions go round the moves in growing rounds: asked move by move (does c3 lose?
    # then does d5?) a million nodes went into c3 and d5 stayed open.
    state = drawn_15x15()
    found = endgame.move_bounds(state, 600.0, nodes=1_000_000, table=endgame.new_table(15, 5))
    assert found.winning() is not None
    assert state.move_str(found.winning()) == "d5"
    assert found.nodes <= 1_000_000


def test_the_15x15_top_level_asks_the_endgame_search_from_42_empty_cells() -> None:
    state = drawn_15x15()
    assert mcts.ENDGAME_SOLVE_EMPTIES < state.empty.bit_count() <= mcts.endgame_solve_empties(15)
    assert mcts.endgame_solve_empties(9) == mcts.ENDGAME_SOLVE_EMPTIES
    assert mcts.solve_root(state, 60.0).win is not None
    assert state.move_str(mcts.search(state, 3.0, seed=1).move) == "d5"


# Game 22 of the 15x15 1 s run of session 54 (drawn), 38 empty cells before its end.
OTHER_15X15 = (
    "i7 j6 j5 j4 j3 j2 k1 l1 m1 n1 o2 o1 n2 o3 o4 o5 o6 o7 o8 o9 o10 o11 o12 o13 o14 o15 n15 "
    "m15 l15 k15 j15 i15 h15 g15 f15 e15 d15 c15 c14 b15 a15 a14 a13 a12 a11 a10 a9 a8 a7 a6 "
    "a5 a4 a3 a2 b1 a1 b2 c1 d1 e1 d2 c2 b3 c3 b4 c4 d3 e3 f2 f1 g1 h1 i1 j1 i2 h2 g2 f3 e2 "
    "b14 c13 d14 e14 f14 g14 h14 i14 j14 k14 j13 i13 h13 h12 i12 i11 i10 j9 k8 j7 i6 i5 i4 "
    "h3 g3 h4 i3 j12 k12 l12 k13 l14 m13 n14 m14 n13 n12 n11 n10 m10 l9 k10 k9 l8 m8 n9 m9 "
    "n8 n7 n6 n5 n4 m3 l2 k3 k2 l3 k4 l4 m5 m4 n3 m2 m7 m6 l5 k5 k6 l7 k7 j8 i9 j10 j11 k11 "
    "l10 l11 m11 m12 l13 d13 c12 b13 b12 b11 b10 b9 b8 c8 d9 e10 f11 g12 g13 f13 e13 e12 f12 "
    "e11 f10 g10 h11 h10 g9 f8 e9 d10"
)


def test_an_earlier_search_leaves_the_next_positions_search_as_from_an_empty_table() -> None:
    # Within a node budget the search is deterministic; what another game's search left in
    # the table (its entries, its cut-offs' history) must not reorder this one's moves.
    state = drawn_15x15()
    other = replayed(15, 5, OTHER_15X15)
    fresh = endgame.move_bounds(state, 600.0, nodes=200_000, table=endgame.new_table(15, 5))
    used = endgame.new_table(15, 5)
    endgame.move_bounds(other, 600.0, nodes=300_000, table=used)
    assert used.history.any()
    again = endgame.move_bounds(state, 600.0, nodes=200_000, table=used)
    assert (again.bounds, again.nodes) == (fresh.bounds, fresh.nodes)
