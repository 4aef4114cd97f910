"""The plain-Python search for small regions (no numpy, no kernel: the cold start of
``slimetrail solve``) against the reference solver, and its budget."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import reachable, solve
from slimetrail.games.trail.solver.reference import reference_solve
from slimetrail.games.trail.solver.small import SMALL_CELLS, solve_small

CONFIGS = [
    ("slimetrail", "7", "rastros"),
    ("slimetrail", "7", "taylor"),
    ("slimetrail-hex", "10", "taylor"),
    ("slimetrail-hex", "10", "rastros"),
]


@pytest.mark.parametrize(("game_id", "size", "rules"), CONFIGS)
def test_small_search_agrees_with_reference(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(f"small {game_id} {size} {rules}")
    checked = 0
    while checked < 150:
        state = game.new_state()
        while state.outcome() is None and (
            reachable(game, state.free, state.snail).bit_count() > rng.randrange(2, SMALL_CELLS)
        ):
            state.push(rng.choice(state.legal_moves()))
        if state.outcome() is not None:
            continue
        distance = checked % 2 == 0
        got = solve_small(state, distance)
        if got is None:
            continue  # over its budget
        expected = reference_solve(state, distance=distance)
        assert (got.value, got.move_values, got.move_plies, got.plies) == (
            expected.value,
            expected.move_values,
            expected.move_plies,
            expected.plies,
        ), state.fen()
        assert got.nodes >= 1  # never 0, which means "from the book"
        checked += 1


def test_small_search_refuses_big_regions_and_gives_up_over_budget():
    game = get_game("slimetrail")
    assert solve_small(game.new_state(), False) is None  # 48 cells in reach
    state = game.state_from_fen("7/7/xxxxxx1/x4x1/xox2x1/xxx2x1/3xxx1 1")  # 11 cells
    assert solve_small(state, True, budget=3) is None
    assert solve_small(state, True).move_values == solve(state, distance=True).move_values


def test_a_small_position_is_solved_without_numpy():
    """``slimetrail solve`` on a small position imports neither numpy nor numba."""
    code = (
        "import sys; from slimetrail.cli.main import main; "
        "main(['solve', '--size', '5', '--fen', '5/5/xxx2/1ox2/2x2 1']); "
        "assert 'numpy' not in sys.modules and 'numba' not in sys.modules, 'loaded'"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "WIN" in out.stdout and "winning moves: a1 b1 a2" in out.stdout
