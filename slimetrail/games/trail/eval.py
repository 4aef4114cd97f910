"""Heuristic evaluation of Slime Trail positions, for the generic alpha-beta search.

The value is for the side to move, in [-1, 1].  What matters in these games:

* a player whose own goal corner is free and next to the snail on their turn wins at once;
* a step next to the opponent's free goal corner loses at once (they step in), so those
  cells are poison for the mover; a player whose every step is poison has lost;
* otherwise it is a race: the player nearer their own goal (counted through free cells, not
  through the goals themselves), with the right parity, stands better;
* when no goal can be reached any more, Rastros rules are decided by who runs out of room
  first (approximated by the parity of the reachable region), Taylor rules are a draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

WIN_NOW = 0.99  # own goal next to the snail: a proven win one move away
LOST_NOW = -0.98  # every step is poison: lost on the opponent's next move


def evaluate(state: TrailState) -> float:
    game = state.game
    board = game.board
    me = state.to_move
    my_goal, their_goal = game.goals[me], game.goals[3 - me]
    free = state.free
    steps = board.neighbours[state.snail] & free
    if steps >> my_goal & 1:
        return WIN_NOW
    poison = board.neighbours[their_goal] if free >> their_goal & 1 else 0
    safe = steps & ~poison & ~(1 << their_goal)
    if steps and not safe:
        return LOST_NOW

    my_dist, their_dist, region = _race(state)
    if my_dist is None and their_dist is None:
        if game.rules == "taylor":
            return 0.0
        # Rastros: the snail wanders until someone is stuck; with an odd number of cells
        # left to fill, the side to move tends to make the last step.
        return 0.4 if region % 2 == 1 else -0.4
    mobility = 0.02 * (safe.bit_count() - 2)
    if my_dist is None:
        return max(-0.9, -0.6 - 0.02 * (their_dist or 0) + mobility)
    if their_dist is None:
        return min(0.9, 0.6 - 0.02 * my_dist + mobility)
    value = 0.1 * (their_dist - my_dist) + mobility
    # Arriving next to one's own goal on the opponent's step wins; an odd distance gives
    # the mover that tempo on the straight route.
    value += 0.05 if my_dist % 2 == 1 else -0.05
    return max(-0.9, min(0.9, value))


def _race(state: TrailState) -> tuple[int | None, int | None, int]:
    """Steps from the snail to the mover's goal and to the opponent's goal, and room left.

    Distances go through free non-goal cells; ``None`` means that goal cannot be reached.
    ``region`` is the number of free non-goal cells reachable from the snail.
    """
    game = state.game
    board = game.board
    me = state.to_move
    my_goal, their_goal = game.goals[me], game.goals[3 - me]
    free = state.free
    passable = free & ~game.goal_mask
    my_bit = (1 << my_goal) & free
    their_bit = (1 << their_goal) & free
    my_dist = their_dist = None
    frontier = seen = 1 << state.snail
    depth = 0
    while frontier:
        depth += 1
        grown = board.dilate(frontier)
        if my_dist is None and grown & my_bit:
            my_dist = depth
        if their_dist is None and grown & their_bit:
            their_dist = depth
        frontier = grown & passable & ~seen
        seen |= frontier
    return my_dist, their_dist, seen.bit_count() - 1
