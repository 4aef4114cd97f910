"""The playout policy of the big boards' tree search, readable (the reference of
:func:`slimetrail.games.trail.mcts_kernel.policy_words`).

A playout should end the way a game between players who see one move ahead ends, not the way
two random walkers end it:

* a player whose own goal corner is a legal step takes it (a decisive move);
* a player never steps into the opponent's goal corner, nor next to it (the opponent would step
  in), while any other step is legal (anti-decisive moves); a player left with only such
  steps has lost;
* otherwise the step is drawn uniformly among the remaining candidates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.bits import cells_of

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState


def policy(state: TrailState) -> tuple[str | None, set[int]]:
    """``("win" | "loss" | "stuck", set())`` when the policy ends the game for the player to
    move (``stuck``: no legal step at all), else ``(None, candidate steps)``."""
    game = state.game
    me = state.to_move
    mine, theirs = game.goals[me], game.goals[3 - me]
    steps = set(cells_of(state.legal_mask()))  # legal_moves(), as cells
    if not steps:
        return "stuck", set()
    if mine in steps:
        return "win", set()
    steps.discard(theirs)
    if not steps:
        return "loss", set()
    next_to_theirs = game.board.neighbours[theirs]
    safe = {cell for cell in steps if not next_to_theirs >> cell & 1}
    return None, safe or steps
