"""The playout policy of the top level's tree search, readable (the reference of
:func:`slimetrail.games.moku.mcts.policy`, which the tests compare with it).

A playout should end the way a game between players who see a move ahead ends, not the way
two random walkers end it.  The mover's stone lands on the slime's cell ``S`` whatever the
move, and the step ``P`` chosen is where the opponent writes next; the opponent then walks on
to a neighbour ``Q`` of ``P``, where the mover writes.  So:

* a mover whose stone on ``S`` completes a row has won, whatever the step;
* with one empty cell left the step fills the board: a draw;
* a step onto a gap of the opponent (a cell completing their row) is never taken, it gives
  them the row (blocking the immediate win); a mover left with only such steps has lost;
* a safe step whose every empty neighbour is the mover's gap wins (the opponent has to walk
  into one), when the board keeps an empty cell after the opponent's reply;
* otherwise the step is drawn uniformly among the safe ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.bits import cells_of

if TYPE_CHECKING:
    from slimetrail.games.moku.board import MokuBoard
    from slimetrail.games.moku.game import MokuState

WIN, LOSS, DRAW = "win", "loss", "draw"


def policy(state: MokuState) -> tuple[str | None, set[int]]:
    """``(verdict, cells)`` for the player to move of a running game: ``("win", set())`` when
    their stone on the slime's cell completes a row, ``("win", the winning steps)``,
    ``("loss", set())`` or ``("draw", set())`` when the policy ends the game, else
    ``(None, the safe steps)``."""
    board = state.game.board
    mine, theirs = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    slime, empty = state.slime, state.empty
    written = mine | 1 << slime
    if board.makes_row(written, slime):
        return WIN, set()
    if empty.bit_count() == 1:
        return DRAW, set()
    safe = {p for p in cells_of(state.legal_mask()) if not board.makes_row(theirs | 1 << p, p)}
    if not safe:
        return LOSS, set()
    if empty.bit_count() >= 3:
        winning = {p for p in safe if forces_row(board, written, empty & ~(1 << p), p)}
        if winning:
            return WIN, winning
    return None, safe


def forces_row(board: MokuBoard, written: int, after: int, step: int) -> bool:
    """Whether every reply to ``step`` (an empty neighbour; a stuck slime's lift is not
    looked at) walks onto a cell completing a row of ``written``."""
    replies = board.neighbours[step] & after
    return bool(replies) and all(board.makes_row(written | 1 << q, q) for q in cells_of(replies))


def safe_steps(state: MokuState) -> set[int]:
    """The steps of the compiled safe random playout (:func:`slimetrail.games.moku.mcts.
    random_playout`): the legal moves not onto a gap of the opponent, or every legal move
    when each is one (the mover has lost)."""
    board = state.game.board
    theirs = state.white if state.to_move == 1 else state.black
    legal = set(cells_of(state.legal_mask()))
    return {p for p in legal if not board.makes_row(theirs | 1 << p, p)} or legal
