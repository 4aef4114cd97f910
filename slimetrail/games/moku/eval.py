"""Heuristic evaluation of Slime-Moku positions, for the generic searches.

The value is for the side to move, in [-1, 1].  What the slime changes against gomoku:

* the mover's stone always lands on the slime's current cell ``S``, whatever the move: so
  ``S`` counts as a mover's stone, and as a blocked cell for the opponent;
* the mover chooses where the slime goes, which is the cell the OPPONENT writes on next;
  the opponent then chooses, among that cell's empty neighbours, where the mover writes.
  A step onto a cell that completes the opponent's row loses at once; a step onto a cell
  whose every empty neighbour completes the mover's row wins (the opponent must walk the
  slime into one of them), unless the board fills up first: the slime's last cell takes no
  stone;
* stones are written only where the slime walks, so lines near the slime count more than
  lines far away, which need many steps before they can grow.

Between those tactical cases the value compares the open lines of both players: every
window of k cells along a row, column or diagonal that holds none of the other player's
stones, weighted by how many own stones it holds.  The windows are counted for all cells at
once on the bitboards (a bit-sliced adder of the k shifted stone boards per direction).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slimetrail.games.moku.board import MokuBoard
    from slimetrail.games.moku.game import MokuState

WIN_NOW = 0.99  # the mover's stone on S completes a row: every move wins
WIN_NEXT = 0.97  # a safe step whose every empty neighbour completes the mover's row
LOST_NOW = -0.98  # every step lands on a cell that completes the opponent's row
CLAMP = 0.9  # heuristic values stay inside the proven ones
NEAR_BONUS = 1.0  # extra weight of a window within two steps of the slime
NEAR_STEPS = 2


def weights(k: int) -> tuple[float, ...]:
    """Weight of an open window by its number of own stones, 0 .. k - 1."""
    return tuple(0.25 if m == 0 else float(4**m) for m in range(k))


class Lines:
    """One player's open windows: a weighted score and the cells completing a row."""

    __slots__ = ("score", "wins")

    def __init__(
        self, board: MokuBoard, own: int, blockers: int, near: tuple[int, ...], w: tuple[float, ...]
    ) -> None:
        k = board.k
        free = board.mask & ~blockers
        score = 0.0
        wins = 0
        for d, shift in enumerate(board.shifts):
            open_ = board.runs(free, shift)
            if not open_:
                continue
            c0, c1, c2 = board.window_counts(own, shift)
            n0, n1, n2 = ~c0, ~c1, ~c2
            by_count = (
                open_ & n0 & n1 & n2,
                open_ & c0 & n1 & n2,
                open_ & n0 & c1 & n2,
                open_ & c0 & c1 & n2,
                open_ & n0 & n1 & c2,
            )
            near_d = near[d]
            for m in range(k):
                windows = by_count[m]
                if windows:
                    score += w[m] * (
                        windows.bit_count() + NEAR_BONUS * (windows & near_d).bit_count()
                    )
            threes = by_count[k - 1]  # k - 1 own stones: the last cell completes a row
            for t in range(k):
                wins |= threes << t * shift
        self.score = score
        self.wins = wins & free & ~own


def near_starts(board: MokuBoard, slime: int) -> tuple[int, ...]:
    """Per direction, the starts of the windows with a cell within NEAR_STEPS of the slime."""
    near = 1 << slime
    for _ in range(NEAR_STEPS):
        near = board.dilate(near)
    out = []
    for shift in board.shifts:
        starts = 0
        for t in range(board.k):
            starts |= near >> t * shift
        out.append(starts)
    return tuple(out)


def evaluate(state: MokuState) -> float:
    outcome = state.outcome()
    if outcome is not None:
        return 2.0 * outcome.score(state.to_move) - 1.0
    mine, theirs = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    return evaluate_bits(state.game.board, mine, theirs, state.empty, state.slime)


def evaluate_bits(board: MokuBoard, mine: int, theirs: int, empty: int, slime: int) -> float:
    """The value of a running position given by its bitboards, for the mover (whose stones
    are ``mine``; ``empty`` excludes the slime's cell)."""
    mine |= 1 << slime  # written by the mover's next move, whatever it is
    if board.makes_row(mine, slime):
        return WIN_NOW
    near = near_starts(board, slime)
    w = weights(board.k)
    me = Lines(board, mine, theirs, near, w)
    them = Lines(board, theirs, mine, near, w)

    if empty.bit_count() == 1:
        return 0.0  # the one move left fills the board: a draw
    moves = board.neighbours[slime] & empty or empty
    safe = moves & ~them.wins
    if not safe:
        return LOST_NOW
    if me.wins:
        rest = safe
        while rest:
            low = rest & -rest
            rest ^= low
            after = empty ^ low
            replies = board.neighbours[low.bit_length() - 1] & after or after
            # The reply must leave an empty cell, or the full board ends the game first.
            if after.bit_count() >= 2 and not replies & ~me.wins:
                return WIN_NEXT
    scale = 8.0 * 4 ** (board.k - 2)
    return CLAMP * math.tanh((me.score - them.score) / scale)
