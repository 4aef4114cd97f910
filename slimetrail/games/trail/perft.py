"""Perft on the Slime Trail bitboards: the fast path of :meth:`TrailState.perft`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slimetrail.games.trail.board import Board
    from slimetrail.games.trail.game import TrailState


def perft(state: TrailState, depth: int) -> int:
    game = state.game
    board = game.board
    if depth == 0:
        return 1
    if game.goal_mask >> state.snail & 1:
        return 0
    return _fast(board, game.goal_mask, state.free, state.snail, depth, game.rules == "taylor")


def _fast(board: Board, goals: int, free: int, snail: int, depth: int, taylor: bool) -> int:
    steps = board.neighbours[snail] & free
    if taylor and steps:
        # A free cell can reach a goal through free cells exactly when it lies in the same
        # component of the free cells as a goal, so one flood fill from the goals decides
        # Taylor's restriction for every step at once.
        steps &= board.reachable(goals & free, free)
    if depth == 1:
        return steps.bit_count()
    total = 0
    # Entering a goal ends the game: such moves count only at depth 1.
    steps &= ~goals
    while steps:
        low = steps & -steps
        steps ^= low
        total += _fast(board, goals, free ^ low, low.bit_length() - 1, depth - 1, taylor)
    return total
