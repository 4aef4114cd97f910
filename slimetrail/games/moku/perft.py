"""Perft on the Slime-Moku bitboards: the fast path of :meth:`MokuState.perft`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slimetrail.games.moku.board import MokuBoard
    from slimetrail.games.moku.game import MokuState


def perft(state: MokuState, depth: int) -> int:
    if depth == 0:
        return 1
    if state.outcome() is not None:
        return 0
    mine, theirs = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    return _fast(state.game.board, mine, theirs, state.empty, state.slime, depth)


def _fast(board: MokuBoard, mine: int, theirs: int, empty: int, slime: int, depth: int) -> int:
    moves = board.neighbours[slime] & empty or empty
    if depth == 1:
        return moves.bit_count()
    # Every move writes the mover's stone on the slime's cell, so one row test serves all of
    # them: a row ends the game after any move, and no move has a continuation.
    mine |= 1 << slime
    if board.makes_row(mine, slime):
        return 0
    total = 0
    while moves:
        low = moves & -moves
        moves ^= low
        if empty ^ low:  # a full board is a draw
            total += _fast(board, theirs, mine, empty ^ low, low.bit_length() - 1, depth - 1)
    return total
