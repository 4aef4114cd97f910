"""The exact solver Slime-Moku offers (``exact_solver()``, ``slimetrail solve``), against a
brute-force search written here: plain negamax over the game's own states, no pruning."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from numba_cache import loads_in_a_new_process

from slimetrail.core.game import GameError, SolveTimeout, State
from slimetrail.core.registry import get_game
from slimetrail.games.moku.solver import SOLVER

VALUES = {"win": 1, "draw": 0, "loss": -1}


def brute_force(state: State, seen: dict[str, int]) -> int:
    """The value for the side to move (+1, 0, -1), every line played out (positions met
    again by another order of moves are looked up, not searched twice)."""
    outcome = state.outcome()
    if outcome is not None:
        return VALUES[outcome.for_player(state.to_move)]
    key = state.fen()
    if key not in seen:
        best = -1
        for move in state.legal_moves():
            state.push(move)
            best = max(best, -brute_force(state, seen))
            state.pop()
        seen[key] = best
    return seen[key]


def brute_move_values(state: State) -> dict[object, int]:
    values = {}
    seen: dict[str, int] = {}
    for move in state.legal_moves():
        state.push(move)
        values[move] = -brute_force(state, seen)
        state.pop()
    return values


# kinds: how many of win, draw and loss must turn up (random 5x5 games seldom leave room for
# a row of five: draws only).
@pytest.mark.parametrize(
    ("n", "k", "games", "kinds"), [(4, 4, 12, 3), (5, 4, 8, 3), (5, 5, 8, 1), (6, 4, 8, 3)]
)
def test_every_move_value_matches_brute_force_late_in_random_games(
    n: int, k: int, games: int, kinds: int
) -> None:
    game = get_game("slime-moku", size=n, k=k)
    solver = game.exact_solver()
    assert solver is SOLVER
    rng = random.Random(f"moku solver {n} {k}")
    seen = set()
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if state.empty.bit_count() <= 8:
                result = solver.solve(state)
                expected = brute_move_values(state)
                got = {move: VALUES[value] for move, value in result.move_values.items()}
                assert got == expected, state.fen()
                assert VALUES[result.value] == max(expected.values())
                assert set(result.winning_moves) == {m for m, v in expected.items() if v == 1}
                assert set(result.drawing_moves) == {m for m, v in expected.items() if v == 0}
                seen.add(result.value)
            state.push(rng.choice(state.legal_moves()))
    assert len(seen) >= kinds, seen


def test_the_4x4_start_matches_brute_force() -> None:
    state = get_game("slime-moku", size=4, k=4).new_state()
    state.push_str("b2")  # White to move, 14 empty cells: small enough to play out
    result = SOLVER.solve(state)
    expected = brute_move_values(state)
    assert {m: VALUES[v] for m, v in result.move_values.items()} == expected
    assert result.value == "draw"


def run_solve(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "slimetrail", "solve", "--game", "slime-moku", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_solve_answers_on_the_command_line() -> None:
    run = run_solve("--size", "5")
    assert run.returncode == 0, run.stderr
    assert "player 1 (Black) to move: DRAW" in run.stdout
    run = run_solve("--json", "--size", "4", "--k", "4", "b2", "a1")
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    state = get_game("slime-moku", size=4, k=4).new_state()
    state.push_str("b2")
    state.push_str("a1")
    expected = brute_move_values(state)
    words = {1: "win", 0: "draw", -1: "loss"}
    assert answer["move_values"] == {state.move_str(m): words[v] for m, v in expected.items()}


def test_limits() -> None:
    assert get_game("slime-moku", size=7, k=4).exact_solver() is SOLVER
    assert get_game("slime-moku", size=8, k=4).exact_solver() is None
    assert get_game("slime-moku").exact_solver() is None  # 15x15
    with pytest.raises(GameError, match="up to 7x7"):
        SOLVER.solve(get_game("slime-moku", size=9).new_state())
    with pytest.raises(GameError, match="game lengths"):
        SOLVER.solve(get_game("slime-moku", size=4, k=4).new_state(), distance=True)
    with pytest.raises(SolveTimeout):
        SOLVER.solve(get_game("slime-moku", size=7, k=4).new_state(), time_limit=0.05)
    over = get_game("slime-moku", size=4, k=4).state_from_fen("xxxx/ooo1/2@1/4 2")
    result = SOLVER.solve(over)
    assert result.over and result.value == "loss"


def test_the_search_is_compiled_by_the_games_warm_up():
    """``slimetrail compile`` (the game's warm-up) puts the search in numba's cache: a new
    process's first solve compiles nothing."""
    get_game("slime-moku").warm_up()
    lines = loads_in_a_new_process(
        "from slimetrail.games.moku.game import SlimeMokuGame; SlimeMokuGame.warm_up()",
        "slimetrail.games.moku.solver",
        ["value"],
    )
    assert lines == ["value 1 1 0"]
