"""The fast Slither search (one table entry per eight images, forced replies to a threat)
against the plain reference search: every first turn of 4x4, random 4x4 middle games and
random 5x5 endgames, in both games."""

from __future__ import annotations

import random
from typing import cast

import brute
import pytest

from slimetrail.core.registry import get_game
from slimetrail.games.slither.game import SlitherState
from slimetrail.games.slither.solver import SlitherSolver


def agree(state: SlitherState) -> tuple[int, int]:
    """Both searches give every turn the same value; their node counts."""
    fast, reference = SlitherSolver(), SlitherSolver(reference=True)
    quick, plain = fast.solve(state), reference.solve(state)
    assert quick.move_values == plain.move_values, state.fen()
    assert quick.value == plain.value
    return quick.nodes, plain.nodes


@pytest.mark.slow
@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_every_first_turn_of_4x4_and_fewer_nodes(game_id):
    state = get_game(game_id, size="4", pie="off").new_state()
    for first in ("a1", "b2"):
        state.push_str(first)
        quick, plain = agree(state)
        assert quick < plain
        state.pop()


def middle_games(game_id: str, n: int, plies: int, seeds: range) -> list[SlitherState]:
    """Positions after ``plies`` random turns (pie off), the game not yet over."""
    found: list[SlitherState] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = cast(SlitherState, get_game(game_id, size=str(n), pie="off").new_state())
        while len(state.move_stack) < plies and not state.is_over():
            state.push(rng.choice(state.legal_moves()))
        if not state.is_over():
            found.append(state)
    return found


@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_random_4x4_middle_games(game_id):
    positions = middle_games(game_id, 4, 4, range(4))
    assert len(positions) >= 3
    for state in positions:
        agree(state)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_random_5x5_endgames(game_id):
    checked = 0
    for back in (2, 3):
        for state in brute.late_positions(game_id, 5, range(6), back):
            if not state.is_over():
                agree(state)
                checked += 1
    assert checked >= 10
