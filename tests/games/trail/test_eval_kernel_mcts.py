"""The compiled MCTS-Solver of the big Slime Trail boards against readable references.

The playout policy must be that of :func:`slimetrail.games.trail.playout.policy`; a compiled
playout must be a legal game that the policy could have played, ending with the game's own
result; a value the tree proves must be the exact solver's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from slimetrail.core.registry import get_game
from slimetrail.games.trail import mcts_kernel, search_kernel, solver
from slimetrail.games.trail.playout import policy

PAIRS = [("slimetrail", size, rules) for size in ("9", "11") for rules in ("rastros", "taylor")] + [
    ("slimetrail-hex", size, rules) for size in ("10", "11") for rules in ("rastros", "taylor")
]
VERDICTS = {mcts_kernel.P_WIN: "win", mcts_kernel.P_LOSS: "loss"}


def random_positions(game, count: int, seed: int):
    """Positions with a legal move from random games (every ply of each game)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_state()
        while state.legal_moves() and len(found) < count:
            found.append(state.copy())
            state.push(rng.choice(state.legal_moves()))
    return found


def compiled_policy(state) -> tuple[str | None, set[int]]:
    c = search_kernel.compiled(state.game)
    lo, hi = c.words(state.free)
    st_lo, st_hi = search_kernel.legal_steps(lo, hi, c.dense[state.snail], c.nbr, c.goals, c.taylor)
    verdict, c_lo, c_hi = mcts_kernel.policy_words(
        np.uint64(st_lo), np.uint64(st_hi), lo, hi, state.to_move - 1, c.nbr, c.goals
    )
    dense = int(c_lo) | int(c_hi) << 64
    cells = {c.board_of[k] for k in range(len(c.board_of)) if dense >> k & 1}
    return VERDICTS.get(int(verdict)), cells


@pytest.mark.parametrize(("game_id", "size", "rules"), PAIRS)
def test_compiled_policy_equals_the_reference(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    for state in random_positions(game, 300, seed=7):
        verdict, cells = policy(state)
        if verdict == "stuck":  # no step at all: the kernel reports the mover's loss
            verdict = "loss"
        assert compiled_policy(state) == (verdict, cells), state.fen()


@pytest.mark.parametrize(("game_id", "size", "rules"), PAIRS)
def test_compiled_playouts_are_games_the_policy_plays(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(13)
    starts = [*rng.sample(random_positions(game, 400, seed=3), 30), game.new_state()]
    for index, start in enumerate(starts):
        winner, steps = mcts_kernel.playout_trace(start, seed=index)
        state = start.copy()
        for step in steps:
            verdict, cells = policy(state)
            if verdict == "win":
                assert step == game.goals[state.to_move]
            else:
                assert verdict is None and step in cells, (start.fen(), step)
            state.push(step)
        verdict, _ = policy(state)
        outcome = state.outcome()
        if outcome is not None:
            assert winner == (outcome.winner or 0)
        elif verdict == "stuck" and rules == "taylor":
            assert winner == 0
        else:  # the policy gave up: only steps into or next to the opponent's goal are left
            assert verdict in ("loss", "stuck") and winner == 3 - state.to_move


def test_the_tree_takes_a_win_in_one_and_sees_a_lost_position():
    game = get_game("slimetrail", size="9")
    state = game.state_from_fen("9/9/9/9/9/9/9/1o7/9 1")  # b2, player 1 to move: a1 wins
    found = mcts_kernel.search(state, 5.0)
    assert state.move_str(found.move) == "a1" and found.proven == "win"
    # Snail on h7, player 1 to move: a step next to i9 (h8, i8) lets player 2 in.
    state = game.state_from_fen("9/9/7o1/9/9/9/9/9/9 1")
    found = mcts_kernel.search(state, 0.3, seed=1)
    assert state.move_str(found.move) not in ("h8", "i8", "i9")


@pytest.mark.parametrize(
    ("game_id", "size", "rules"),
    [("slimetrail", "9", "taylor"), ("slimetrail-hex", "10", "rastros")],
)
def test_values_the_tree_proves_are_the_solvers(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(21)
    checked = 0
    for state in random_positions(game, 3000, seed=17):
        region = game.board.reachable(1 << state.snail, state.free).bit_count() - 1
        if region > 24 or rng.random() < 0.5:
            continue
        found = mcts_kernel.search(state, 10.0, iterations=20_000, seed=checked)
        assert found.move in state.legal_moves()
        if found.proven is None:
            continue
        exact = solver.solve(state, book=False)
        assert found.proven == exact.value, state.fen()
        if found.proven == "win":
            assert found.move in exact.winning_moves, state.fen()
        checked += 1
        if checked == 40:
            break
    assert checked == 40
