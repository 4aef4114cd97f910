"""The padded mailbox of Slime-Moku shared by the compiled top level (:mod:`.mcts`) and the
exact endgame search (:mod:`.endgame`): ``n + 2`` cells a row with a wall around the board, so
the king steps need no edge test, beside the stone counts of every window of k cells in a
line, kept up to date stone by stone: a cell is a gap of a colour (its stone there completes
a row) while some window through it holds k - 1 stones of that colour and none of the other."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

if TYPE_CHECKING:
    from slimetrail.games.moku.game import MokuState

EMPTY, BLACK, WHITE, WALL, SLIME = 0, 1, 2, 3, 4  # mailbox cells


@dataclass(frozen=True)
class Geometry:
    """The mailbox of one board size: king steps, line steps, and the index maps."""

    size: int
    steps: np.ndarray  # the 8 king steps as mailbox offsets
    lines: np.ndarray  # the 4 line directions as mailbox offsets
    padded: tuple[int, ...]  # board index -> mailbox index (-1: a spare bit)
    board_of: tuple[int, ...]  # mailbox index -> board index (-1: the wall)
    window_cells: np.ndarray  # the k cells of every window of k cells in a line
    cell_windows: np.ndarray  # per mailbox cell, the windows holding it (-1 after the last)


@cache
def geometry(n: int, k: int) -> Geometry:
    w = n + 2
    padded = [-1] * (n * (n + 1))
    board_of = [-1] * (w * w)
    for row in range(n):
        for col in range(n):
            index, cell = row * (n + 1) + col, (row + 1) * w + col + 1
            padded[index], board_of[cell] = cell, index
    windows = []
    for row in range(n):
        for col in range(n):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                end_col, end_row = col + (k - 1) * dc, row + (k - 1) * dr
                if 0 <= end_col < n and end_row < n:
                    windows.append([(row + t * dr + 1) * w + col + t * dc + 1 for t in range(k)])
    cell_windows = np.full((w * w, 4 * k), -1, np.int64)
    filled = [0] * (w * w)
    for number, window in enumerate(windows):
        for cell in window:
            cell_windows[cell, filled[cell]] = number
            filled[cell] += 1
    steps = np.array([1, -1, w, -w, w + 1, w - 1, 1 - w, -1 - w], np.int64)
    lines = np.array([1, w, w + 1, w - 1], np.int64)
    return Geometry(
        n, steps, lines, tuple(padded), tuple(board_of), np.array(windows, np.int64), cell_windows
    )


def mailbox(state: MokuState) -> tuple[np.ndarray, int]:
    """The position's mailbox and the slime's mailbox index."""
    geo = geometry(state.game.size, state.game.k)
    cells = np.full(len(geo.board_of), WALL, np.int8)
    for index, cell in enumerate(geo.padded):
        if cell < 0:
            continue
        if state.black >> index & 1:
            cells[cell] = BLACK
        elif state.white >> index & 1:
            cells[cell] = WHITE
        else:
            cells[cell] = EMPTY
    slime = geo.padded[state.slime]
    cells[slime] = SLIME
    return cells, slime


@nb.njit(cache=True)
def count_windows(cells, window_cells, k, counts, gaps):
    """Fill ``counts[colour, window]`` (the stones of each colour in every window) and
    ``gaps[colour, cell]`` (the windows a stone of that colour on the cell would complete:
    k - 1 of its stones and none of the other colour's) from ``cells``."""
    counts[:] = 0
    gaps[:] = 0
    for window in range(window_cells.shape[0]):
        for t in range(k):
            v = cells[window_cells[window, t]]
            if v in (BLACK, WHITE):
                counts[v, window] += 1
        for colour in (BLACK, WHITE):
            if counts[colour, window] == k - 1 and counts[3 - colour, window] == 0:
                for t in range(k):
                    q = window_cells[window, t]
                    if cells[q] != colour:
                        gaps[colour, q] += 1


def window_counts(cells: np.ndarray, geo: Geometry, k: int) -> tuple[np.ndarray, np.ndarray]:
    """New ``counts`` and ``gaps`` arrays filled by :func:`count_windows` from ``cells``."""
    counts = np.zeros((3, geo.window_cells.shape[0]), np.int8)
    gaps = np.zeros((3, cells.shape[0]), np.int16)
    count_windows(cells, geo.window_cells, k, counts, gaps)
    return counts, gaps


@nb.njit(cache=True)
def place(cells, x, colour, k, window_cells, cell_windows, counts, gaps):
    """Write a stone of ``colour`` on ``x`` and bring ``counts`` and ``gaps`` up to date: a
    window reaching k - 1 stones of one colour alone makes its last cell a gap, and a window
    that was the other colour's k - 1 loses its gap (which was ``x``)."""
    cells[x] = colour
    other = 3 - colour
    for i in range(cell_windows.shape[1]):
        window = cell_windows[x, i]
        if window < 0:
            break
        mine = counts[colour, window] + 1
        counts[colour, window] = mine
        theirs = counts[other, window]
        if theirs == 0:
            if mine == k - 1:
                for t in range(k):
                    q = window_cells[window, t]
                    if cells[q] != colour:
                        gaps[colour, q] += 1
        elif mine == 1 and theirs == k - 1:
            gaps[other, x] -= 1


@nb.njit(cache=True)
def lift(cells, x, colour, k, window_cells, cell_windows, counts, gaps):
    """Take the stone of ``colour`` off ``x`` (it becomes empty): :func:`place` undone.
    The stone stays on ``x`` while the windows are looked at, so that a window's gap is the
    one cell in it not of ``colour``."""
    other = 3 - colour
    for i in range(cell_windows.shape[1]):
        window = cell_windows[x, i]
        if window < 0:
            break
        mine = counts[colour, window]
        counts[colour, window] = mine - 1
        theirs = counts[other, window]
        if theirs == 0:
            if mine == k - 1:
                for t in range(k):
                    q = window_cells[window, t]
                    if cells[q] != colour:
                        gaps[colour, q] -= 1
        elif mine == 1 and theirs == k - 1:
            gaps[other, x] += 1
    cells[x] = EMPTY


@nb.njit(cache=True)
def neighbours_or_all(cells, slime, steps, out):
    """The slime's legal destinations into ``out`` (its empty neighbours, else every empty
    cell); returns their number."""
    count = 0
    for s in steps:
        if cells[slime + s] == EMPTY:
            out[count] = slime + s
            count += 1
    if count == 0:
        for p in range(cells.shape[0]):
            if cells[p] == EMPTY:
                out[count] = p
                count += 1
    return count
