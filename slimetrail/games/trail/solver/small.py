"""Small positions solved in plain Python, so that they need neither numpy nor the kernel.

Loading numba and the compiled kernel costs a fresh process about half a second; a position
whose snail can reach only a few cells takes this search a few milliseconds.  ``solve`` uses
it only until the kernel is loaded (a cold ``slimetrail solve``), then the kernel is faster.
Same rules and scores as the kernel (without its shortcuts, which small regions do not
need): minimax with a memo keyed on the reachable region, stopping at the first win when
distances do not matter.
A node budget keeps a position that turns out bigger than it looks from costing more than
the kernel would: :func:`solve_small` then gives up and the kernel solves it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.bits import cells_of
from slimetrail.core.game import Move

if TYPE_CHECKING:
    from slimetrail.core.game import SolveResult
    from slimetrail.games.trail.game import TrailState

SMALL_CELLS = 16  # regions (without the snail's cell) this search is tried on
BUDGET = 20_000  # nodes before it gives up
MATE = 1000
ILLEGAL = 20_000


class OverBudget(Exception):
    pass


class SmallSearch:
    def __init__(self, game, distance: bool, budget: int) -> None:
        self.neighbours = game.board.neighbours
        self.goal_mask = game.goal_mask
        self.goals = (1 << game.goals[1], 1 << game.goals[2])
        self.taylor = game.rules == "taylor"
        self.distance = distance
        self.win = MATE if distance else 1
        self.budget = budget
        self.nodes = 0
        self.memo: dict[tuple[int, int, int], int] = {}

    def back_up(self, score: int) -> int:
        """A child's score seen from the parent, one ply further from the end."""
        s = -score
        if self.distance and s:
            s -= 1 if s > 0 else -1
        return s

    def region(self, free: int, snail: int) -> int:
        """The cells of ``free`` the snail can walk to (a goal corner ends a walk)."""
        neighbours, region, frontier = self.neighbours, 0, 1 << snail
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            new = neighbours[low.bit_length() - 1] & free & ~region
            region |= new
            frontier |= new & ~self.goal_mask
        return region

    def score(self, free: int, snail: int, side: int) -> int:
        """The mover's score (``ILLEGAL`` where Taylor's rule forbids the snail's cell)."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise OverBudget
        win, mine, theirs = self.win, self.goals[side], self.goals[1 - side]
        steps = self.neighbours[snail] & free
        if steps & mine:
            return win - 1 if self.distance else win
        region = self.region(free, snail)
        if self.taylor and not region & (mine | theirs):
            return ILLEGAL
        key = (region, snail, side)
        if key in self.memo:
            return self.memo[key]
        best = None
        if steps & theirs:
            best = self.back_up(win)  # stepping into their corner loses at once
        for move in cells_of(steps & ~theirs):
            raw = self.score(region & ~(1 << move), move, 1 - side)
            if raw == ILLEGAL:
                continue
            value = self.back_up(raw)
            if best is None or value > best:
                best = value
                if not self.distance and best == win:
                    break  # nothing beats a win when its length does not matter
        if best is None:  # stuck
            best = 0 if self.taylor else -win
        self.memo[key] = best
        return best


def solve_small(state: TrailState, distance: bool, budget: int = BUDGET) -> SolveResult | None:
    """:func:`slimetrail.games.trail.solver.solve`'s answer for a position whose region has
    at most :data:`SMALL_CELLS` cells, or ``None`` (too big, over ``budget`` nodes, or the
    game is over: ``solve`` answers that itself)."""
    from slimetrail.games.trail.solver import goal_move_score, result_from_scores

    if state.outcome() is not None:
        return None
    game = state.game
    search = SmallSearch(game, distance, budget)
    if search.region(state.free, state.snail).bit_count() > SMALL_CELLS:
        return None
    side = state.to_move - 1
    scores: dict[Move, int] = {}
    try:
        for move in cells_of(state.legal_mask()):  # legal_moves(), as cells
            score = goal_move_score(state, move, distance)
            if score is None:
                raw = search.score(state.free & ~(1 << move), move, 1 - side)
                score = search.back_up(raw)  # never ILLEGAL: the move is legal
            scores[move] = score
    except OverBudget:
        return None
    nodes = search.nodes + 1  # the root too: 0 nodes means an answer from the book
    return result_from_scores(scores, state.to_move, MATE if distance else None, nodes)
