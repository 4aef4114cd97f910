"""The plain-Python Slime-Moku solver (research/moku/pysolver.py), the baseline of the
compiled one, checked by brute force on the independent model (moku_model.py)."""

from __future__ import annotations

import random

import pytest
from moku_model import from_fen, minimax, name

from research.moku import pysolver as solver
from slimetrail.core.game import GameOptionError, SolveTimeout
from slimetrail.core.registry import get_game

VALUES = {"win": 1, "draw": 0, "loss": -1}


@pytest.mark.parametrize(("n", "games"), [(4, 20), (5, 10)])
def test_solver_values_match_brute_force_near_the_end(n: int, games: int) -> None:
    game = get_game("slime-moku", size=n, k=4)
    rng = random.Random(10 + n)
    seen = {"win": 0, "draw": 0, "loss": 0}
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if state.empty.bit_count() <= 6:
                result = solver.solve(state)
                model = from_fen(n, 4, state.fen())
                values = {}
                for move, value in result.move_values.items():
                    child = model.copy()
                    child.play(next(c for c in child.legal() if name(c) == state.move_str(move)))
                    values[move] = -minimax(child)
                    assert VALUES[value] == values[move]
                assert VALUES[result.value] == max(values.values())
                seen[result.value] += 1
            state.push(rng.choice(state.legal_moves()))
    assert all(seen.values())


def test_the_4x4_boards_are_draws() -> None:
    for k in (4, 5):
        result = solver.solve(get_game("slime-moku", size=4, k=k).new_state())
        assert result.value == "draw" and result.winning_moves == []
        assert len(result.drawing_moves) == 8


def test_solver_limits() -> None:
    with pytest.raises(GameOptionError):
        solver.solve(get_game("slime-moku", size=7, k=4).new_state())
    with pytest.raises(GameOptionError):
        solver.solve(get_game("slime-moku", size=4, k=4).new_state(), distance=True)
    with pytest.raises(SolveTimeout):
        solver.solve(get_game("slime-moku", size=6, k=4).new_state(), time_limit=0.05)
    assert solver.can_solve(get_game("slime-moku", size=6, k=4))
    assert not solver.can_solve(get_game("slime-moku"))
    over = get_game("slime-moku", size=4, k=4).state_from_fen("xxxx/ooo1/2@1/4 2")
    assert solver.solve(over).over and solver.solve(over).value == "loss"
