"""Cell names and position strings of the square-grid boards (Slime Trail's squares and hex
rhombus, Slime-Moku, Slither): a file letter from ``a`` and a rank number from 1, as ``c3``;
the board part of a position string is FEN-like, rows from the top, runs of empty cells as
numbers.

One rule for every game: any case and surrounding spaces are accepted, the rank is written
without leading zeros (``a07`` names no cell), and a name off the board names no cell.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from slimetrail.core.game import InvalidPositionError

FILES = "abcdefghijklmnopqrstuvwxyz"
# A king's steps by compass word, as (column, row) steps; north is towards higher ranks.
KING_STEPS: dict[str, tuple[int, int]] = {
    "n": (0, 1),
    "ne": (1, 1),
    "e": (1, 0),
    "se": (1, -1),
    "s": (0, -1),
    "sw": (-1, -1),
    "w": (-1, 0),
    "nw": (-1, 1),
}


def cell_name(col: int, row: int) -> str:
    """The name of the cell in file ``col`` and rank ``row`` (both from 0): ``c3`` is (2, 2)."""
    return f"{FILES[col]}{row + 1}"


def parse_cell_name(text: str, n: int) -> tuple[int, int] | None:
    """``(col, row)`` of a cell name on an ``n`` x ``n`` board, or ``None`` if ``text`` names no
    cell of it."""
    text = text.strip().lower()
    number = text[1:]
    if (
        len(text) < 2
        or text[0] not in FILES[:n]
        or not (number.isascii() and number.isdecimal())
        or number[0] == "0"
    ):
        return None
    row = int(number) - 1
    return (FILES.index(text[0]), row) if row < n else None


def encode_rows(n: int, symbol_at: Callable[[int, int], str]) -> str:
    """The board part of a position string: rows from the top (rank n) down, separated by
    ``/``, each cell's symbol (``symbol_at(col, row)``, ``""`` for an empty cell) with runs
    of empty cells written as their length, e.g. ``7/7/2ox3/...``."""
    rows = []
    for row in range(n - 1, -1, -1):
        out, run = [], 0
        for col in range(n):
            symbol = symbol_at(col, row)
            if not symbol:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            out.append(symbol)
        if run:
            out.append(str(run))
        rows.append("".join(out))
    return "/".join(rows)


def decode_rows(fen: str, text: str, n: int, symbols: str) -> list[tuple[int, int, str]]:
    """``(col, row, symbol)`` of every occupied cell of the board part ``text`` of the
    position string ``fen`` (see :func:`encode_rows`; each symbol one of ``symbols``).  A
    malformed board is an :class:`InvalidPositionError` naming the row and what is wrong."""
    rows = text.split("/")
    if len(rows) != n:
        raise InvalidPositionError(f"position {fen!r}: {len(rows)} rows, the board has {n}")
    found = []
    for top_index, row_text in enumerate(rows):
        row, col = n - 1 - top_index, 0
        for run, symbol in re.findall(r"(\d+)|(.)", row_text):
            if run:
                if run.startswith("0") or col + int(run) > n:
                    raise InvalidPositionError(f"position {fen!r}: bad run in row {row + 1}")
                col += int(run)
                continue
            if col >= n or symbol not in symbols:
                raise InvalidPositionError(
                    f"position {fen!r}: unexpected {symbol!r} in row {row + 1}"
                )
            found.append((col, row, symbol))
            col += 1
        if col != n:
            raise InvalidPositionError(f"position {fen!r}: row {row + 1} has {col} cells, not {n}")
    return found


class GridCells:
    """The cells of an ``n`` x ``n`` board stored row by row, ``width`` bit positions a row
    (spare columns beyond ``n`` keep shifted neighbours apart): the indexing and naming that
    every square-grid board shares."""

    n: int
    width: int

    def index(self, col: int, row: int) -> int:
        return row * self.width + col

    def coords(self, index: int) -> tuple[int, int]:
        return index % self.width, index // self.width

    def on_board(self, col: int, row: int) -> bool:
        return 0 <= col < self.n and 0 <= row < self.n

    def name(self, index: int) -> str:
        return cell_name(*self.coords(index))

    def parse_cell(self, text: str) -> int | None:
        """The index of a cell name such as ``c3``, or ``None`` if it names no cell here."""
        found = parse_cell_name(text, self.n)
        return None if found is None else self.index(*found)
