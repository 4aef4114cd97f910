"""Perft: count the legal move sequences of exactly ``depth`` plies from a position.

As in chess, a game that ends earlier (goal entered, player stuck) contributes nothing at
greater depths.  :func:`perft` works for any :class:`~slimetrail.core.game.State`; Slime
Trail positions take a fast path on the bitboards (checked against the generic walk by the
tests), and :func:`perft_generic` forces the interface-only walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.game import State

if TYPE_CHECKING:
    from slimetrail.games.trail.board import Board
    from slimetrail.games.trail.game import TrailState


def perft(state: State, depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies; ``state`` is left unchanged."""
    _check_depth(depth)
    from slimetrail.games.trail.game import TrailState

    if isinstance(state, TrailState):
        return _trail_perft(state, depth)
    return perft_generic(state, depth)


def perft_generic(state: State, depth: int) -> int:
    """:func:`perft` through the public State interface only (push/pop on a copy)."""
    _check_depth(depth)
    return _generic(state.copy(), depth)


def divide(state: State, depth: int) -> dict[str, int]:
    """Perft split by first move: canonical move text -> sequences of ``depth`` plies."""
    _check_depth(depth)
    if depth == 0:
        return {}
    work = state.copy()
    out: dict[str, int] = {}
    for move in work.legal_moves():
        text = work.move_str(move)
        work.push(move)
        out[text] = perft(work, depth - 1)
        work.pop()
    return out


def _check_depth(depth: int) -> None:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"perft depth must be a whole number >= 0, not {depth!r}")


def _generic(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        state.push(move)
        total += _generic(state, depth - 1)
        state.pop()
    return total


def _trail_perft(state: TrailState, depth: int) -> int:
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
