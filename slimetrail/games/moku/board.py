"""Board geometry of Slime-Moku: an n x n square board in one integer bitboard.

Cell (column c, row r), both from 0, has index ``r * W + c`` with ``W = n + 1``.  The spare
column ``n`` of every row stays outside the board mask and is never set, so it acts as the
edge mask of the horizontal and diagonal shifts: a run of stones shifted across the right or
left edge lands on a spare bit and breaks there, never wrapping into the next row.  Runs
shifted past the top or bottom simply fall off the integer.

The four line directions are the shifts ``1`` (east), ``W`` (north), ``W + 1`` (north-east)
and ``W - 1`` (north-west).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from slimetrail.core.cells import KING_STEPS, GridCells

DIRECTIONS = KING_STEPS  # the slime's steps, by compass word
# The four line directions as (column, row) steps; their shifts are dr * W + dc.
LINE_STEPS = ((1, 0), (0, 1), (1, 1), (-1, 1))


@dataclass(frozen=True)
class MokuBoard(GridCells):
    """Geometry and precomputed masks of one board size and row length ``k``."""

    n: int
    k: int
    width: int = field(init=False)
    mask: int = field(init=False)
    shifts: tuple[int, ...] = field(init=False)
    neighbours: tuple[int, ...] = field(init=False, repr=False)
    # lines[i][d]: the cells within k - 1 steps of cell i along line direction d (both ways),
    # i itself included: every k-window through i lies inside it.
    lines: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    # starts[d]: the cells where a whole k-window along direction d starts.
    starts: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n, w = self.n, self.n + 1
        mask = 0
        for r in range(n):
            mask |= ((1 << n) - 1) << (r * w)
        set_ = object.__setattr__
        set_(self, "width", w)
        set_(self, "mask", mask)
        set_(self, "shifts", tuple(dr * w + dc for dc, dr in LINE_STEPS))
        neighbours: list[int] = []
        lines: list[tuple[int, ...]] = []
        for i in range(n * w):
            col, row = i % w, i // w
            if col >= n:
                neighbours.append(0)
                lines.append((0, 0, 0, 0))
                continue
            near = 0
            for dc, dr in DIRECTIONS.values():
                if self.on_board(col + dc, row + dr):
                    near |= 1 << self.index(col + dc, row + dr)
            neighbours.append(near)
            through = []
            for dc, dr in LINE_STEPS:
                line = 0
                for t in range(-(self.k - 1), self.k):
                    if self.on_board(col + t * dc, row + t * dr):
                        line |= 1 << self.index(col + t * dc, row + t * dr)
                through.append(line)
            lines.append(tuple(through))
        set_(self, "neighbours", tuple(neighbours))
        set_(self, "lines", tuple(lines))
        set_(self, "starts", tuple(self.runs(mask, s) for s in self.shifts))

    # -- rows of k ------------------------------------------------------------------

    def runs(self, bits: int, shift: int) -> int:
        """The cells where a run of k cells of ``bits`` starts along ``shift``.

        ``bits`` must lie on the board (no spare-column bits), so runs stop at the edges.
        """
        pairs = bits & (bits >> shift)
        fours = pairs & (pairs >> 2 * shift)
        return fours & (bits >> 4 * shift) if self.k == 5 else fours

    def window_counts(self, own: int, shift: int) -> tuple[int, int, int]:
        """How many cells of ``own`` each k-window along ``shift`` holds, in binary: bit
        planes ``(c0, c1, c2)``, the window starting at a cell counting
        ``c0 + 2 c1 + 4 c2`` at that cell's bit."""
        c0 = c1 = c2 = 0
        for t in range(self.k):
            v = own >> t * shift
            carry = c0 & v
            c0 ^= v
            c2 |= c1 & carry
            c1 ^= carry
        return c0, c1, c2

    def makes_row(self, bits: int, cell: int) -> bool:
        """Whether ``bits`` holds k in a row through ``cell`` (only its four lines looked at)."""
        k = self.k
        for shift, line in zip(self.shifts, self.lines[cell], strict=True):
            through = bits & line
            if through.bit_count() >= k and self.runs(through, shift):
                return True
        return False

    def has_row(self, bits: int) -> bool:
        """Whether ``bits`` holds k in a row anywhere."""
        return any(self.runs(bits, s) for s in self.shifts)

    def row_cells(self, bits: int) -> int:
        """Every cell of ``bits`` that lies in some k in a row of ``bits``."""
        out = 0
        for shift in self.shifts:
            starts = self.runs(bits, shift)
            for t in range(self.k):
                out |= starts << t * shift
        return out

    # -- cells ------------------------------------------------------------------------

    def is_cell(self, index: object) -> bool:
        """Whether ``index`` is a plain int naming a cell of the board."""
        return (
            type(index) is int and 0 <= index < self.n * self.width and bool(self.mask >> index & 1)
        )

    def step(self, index: int, direction: str) -> int | None:
        """The cell one step from ``index`` in a compass direction, or ``None`` off the board."""
        dc, dr = DIRECTIONS[direction]
        col, row = self.coords(index)
        if not self.on_board(col + dc, row + dr):
            return None
        return self.index(col + dc, row + dr)

    def cells(self) -> list[int]:
        """Every cell, rank by rank from a1."""
        return [self.index(c, r) for r in range(self.n) for c in range(self.n)]

    def dilate(self, bits: int) -> int:
        """``bits`` and every on-board cell next to one of them."""
        w = self.width
        out = bits | bits << 1 | bits >> 1
        out |= out << w | out >> w
        return out & self.mask


@cache
def get_board(n: int, k: int) -> MokuBoard:
    return MokuBoard(n, k)
