"""The exact solver against brute force over the engine's rules (tiny positions), the pie,
and what it refuses."""

from __future__ import annotations

import contextlib

import brute
import pytest
from numba_cache import loads_in_a_new_process

from slimetrail.core.game import GameError, SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.slither import solver
from slimetrail.games.slither.solver import SOLVER


def test_small_boards_have_the_solver_and_big_ones_not():
    assert get_game("slither", size="5").exact_solver() is SOLVER
    assert get_game("slither-advanced", size="4").exact_solver() is SOLVER
    assert get_game("slither", size="6").exact_solver() is None
    with pytest.raises(GameError, match="up to 5x5"):
        SOLVER.solve(get_game("slither", size="7").new_state())
    with pytest.raises(GameError, match="not in how many plies"):
        SOLVER.solve(get_game("slither", size="4").new_state(), distance=True)


@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_values_agree_with_brute_force(game_id):
    checked = 0
    for back in (2, 3):
        for state in brute.late_positions(game_id, 4, range(4), back):
            try:
                wins = brute.mover_wins(state, 1_000)
            except brute.OverBudget:
                continue
            result = SOLVER.solve(state)
            assert result.value == ("win" if wins else "loss"), state.fen()
            assert set(result.move_values) == set(state.legal_moves())
            for move, value in result.move_values.items():
                if brute.wins_at_once(state, move):
                    assert value == "win"
                    continue
                state.push(move)
                with contextlib.suppress(brute.OverBudget):  # too big: the value above did
                    assert value == ("loss" if brute.mover_wins(state, 1_000) else "win")
                state.pop()
            assert set(result.winning_moves) == {
                m for m, v in result.move_values.items() if v == "win"
            }
            checked += 1
    assert checked >= 6


def test_with_the_pie_the_answer_to_the_first_turn_wins():
    state = get_game("slither", size="4").new_state()
    state.push_str("b2")
    result = SOLVER.solve(state)
    assert result.value == "win" and result.to_move == 2
    # Black's side wins 4x4 after any first turn (solved): the swap is the winning answer.
    assert result.move_values["swap"] == "win"


def test_a_finished_game_and_the_time_limit():
    state = get_game("slither", size="4", pie="off").new_state()
    for text in ("a1", "d1", "a2", "d2", "b4", "d3", "b4-a3/a4"):
        state.push_str(text)
    assert SOLVER.solve(state).over
    fresh = get_game("slither", size="5", pie="off").new_state()
    with pytest.raises(SolveTimeout):
        SOLVER.solve(fresh, time_limit=0.05)


def test_a_new_process_loads_both_searches_from_numbas_cache():
    """The recursive searches are cached (one overload each: a literal argument in their
    recursion made more, which crashed on loading), and the game's warm-up (``slimetrail
    compile``) loads them: a second process compiles nothing."""
    solver.SEARCHES.run()  # compiled into the cache here if it is not yet there
    lines = loads_in_a_new_process(
        "from slimetrail.games.slither.game import SlitherGame; SlitherGame.warm_up()",
        "slimetrail.games.slither.solver",
        ["mover_wins", "fast_mover_wins"],
    )
    assert lines == ["mover_wins 1 1 0", "fast_mover_wins 1 1 0"]
