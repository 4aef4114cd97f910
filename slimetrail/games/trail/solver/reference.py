"""A readable pure-Python solver: plain negamax over the :class:`State` interface with a memo.

It knows nothing of regions, matchings or pruning, so it is the yardstick the compiled
solver is tested and benchmarked against.  Scores use the convention of the fast solver:
1 / 0 / -1 for win / draw / loss, or with ``distance=True`` ``MATE - plies`` for a win in
``plies`` plies and ``-(MATE - plies)`` for a loss.
"""

from __future__ import annotations

import time

from slimetrail.core.game import Move, State
from slimetrail.games.trail.solver import SolveResult, result_from_scores

MATE = 1000


class ReferenceSolver:
    def __init__(self, distance: bool = False) -> None:
        self.distance = distance
        self.memo: dict[tuple[int, int], int] = {}
        self.nodes = 0

    def score(self, state: State) -> int:
        """The exact score of ``state`` for the side to move."""
        self.nodes += 1
        win = MATE if self.distance else 1
        outcome = state.outcome()
        if outcome is not None:
            return {"win": win, "draw": 0, "loss": -win}[outcome.for_player(state.to_move)]
        key = (state.key(), state.to_move)
        if key in self.memo:
            return self.memo[key]
        best = -2 * win
        for move in state.legal_moves():
            state.push(move)
            value = self.back_up(self.score(state))
            state.pop()
            if value > best:
                best = value
                if not self.distance and best == win:
                    break  # nothing beats a win when its length does not matter
        self.memo[key] = best
        return best

    def back_up(self, child: int) -> int:
        """A child's score seen from its parent: negated, and one ply longer."""
        value = -child
        if self.distance and value:
            value -= 1 if value > 0 else -1
        return value


def reference_solve(state: State, *, distance: bool = False) -> SolveResult:
    """The same answer as :func:`slimetrail.games.trail.solver.solve`, the slow and obvious way."""
    start = time.monotonic()
    solver = ReferenceSolver(distance)
    state = state.copy()
    outcome = state.outcome()
    if outcome is not None:
        return SolveResult(
            value=outcome.for_player(state.to_move),
            to_move=state.to_move,
            plies=0 if distance else None,
            over=True,
        )
    scores: dict[Move, int] = {}
    for move in state.legal_moves():
        state.push(move)
        scores[move] = solver.back_up(solver.score(state))
        state.pop()
    result = result_from_scores(scores, state.to_move, MATE if distance else None, solver.nodes)
    result.seconds = time.monotonic() - start
    return result
