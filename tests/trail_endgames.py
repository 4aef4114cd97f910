"""Random Slime Trail endgames for the solver tests."""

from __future__ import annotations

import random

from slimetrail.games.trail.solver import reachable


def playout_until(game, rng: random.Random, cells: int):
    """A random playout's first position whose region (the cells the snail can still reach)
    has at most ``cells`` cells (not over), or ``None`` if the game ended first."""
    state = game.new_state()
    while state.outcome() is None:
        if reachable(game, state.free, state.snail).bit_count() <= cells:
            return state
        state.push(rng.choice(state.legal_moves()))
    return None
