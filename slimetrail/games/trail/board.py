"""Board geometry for the Slime Trail family: square (king steps) and hex rhombus boards.

Cells live in one integer bitboard.  Cell (column c, row r), both from 0, has index
``r * W + c`` with ``W = n + 1``: the spare column ``n`` of every row stays outside the
board mask, so a neighbour step is a plain shift and never wraps into the next row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache, cached_property

from slimetrail.core.bits import cells_of
from slimetrail.core.cells import KING_STEPS, GridCells

SQUARE_DIRECTIONS = KING_STEPS  # the snail's steps on the square boards
# The six hex directions as named on J. P. Neto's diagrams (RULES.md section 2).
HEX_DIRECTIONS: dict[str, tuple[int, int]] = {
    "e": (1, 1),
    "w": (-1, -1),
    "ne": (0, 1),
    "sw": (0, -1),
    "se": (1, 0),
    "nw": (-1, 0),
}


@dataclass(frozen=True)
class Board(GridCells):
    shape: str  # "square" or "hex"
    n: int
    width: int = field(init=False)
    mask: int = field(init=False)
    shifts: tuple[int, ...] = field(init=False)
    neighbours: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        w = self.n + 1
        directions = self.directions
        shifts = sorted({dr * w + dc for dc, dr in directions.values() if dr * w + dc > 0})
        mask = 0
        for r in range(self.n):
            mask |= ((1 << self.n) - 1) << (r * w)
        object.__setattr__(self, "width", w)
        object.__setattr__(self, "mask", mask)
        object.__setattr__(self, "shifts", tuple(shifts))
        object.__setattr__(
            self,
            "neighbours",
            tuple(self.dilate(1 << i) if mask >> i & 1 else 0 for i in range(self.n * w)),
        )

    @cached_property
    def neighbour_lists(self) -> tuple[tuple[int, ...], ...]:
        """Per cell index, the cells of ``neighbours[cell]`` in order (quicker to walk than
        the bits of a big integer)."""
        return tuple(tuple(cells_of(mask)) for mask in self.neighbours)

    @property
    def directions(self) -> dict[str, tuple[int, int]]:
        return SQUARE_DIRECTIONS if self.shape == "square" else HEX_DIRECTIONS

    def dilate(self, bits: int) -> int:
        """Every on-board cell adjacent to a cell of ``bits``."""
        out = 0
        for s in self.shifts:
            out |= (bits << s) | (bits >> s)
        return out & self.mask

    def step(self, index: int, direction: str) -> int | None:
        """The cell one step from ``index`` in a named direction, or ``None`` off the board."""
        dc, dr = self.directions[direction]
        col, row = self.coords(index)
        if not self.on_board(col + dc, row + dr):
            return None
        return self.index(col + dc, row + dr)

    def cells(self) -> list[int]:
        return [self.index(c, r) for r in range(self.n) for c in range(self.n)]

    def reachable(self, seed: int, free: int) -> int:
        """The cells reachable from the cells of ``seed`` by steps through cells of ``free``."""
        region = seed
        while True:
            grown = region | (self.dilate(region) & free)
            if grown == region:
                return region
            region = grown

    def centre(self, index: int) -> tuple[float, float]:
        """Drawing coordinates of a cell (x right, y down), one unit between neighbours.

        The hex rhombus is drawn as a diamond with its short diagonal ``a1 b2 c3 ...``
        horizontal, ``a1`` on the left; square boards have ``a1`` bottom left.
        """
        col, row = self.coords(index)
        if self.shape == "square":
            return float(col), float(self.n - 1 - row)
        h = math.sqrt(3) / 2
        return 0.5 * (col + row), h * (col - row) + h * (self.n - 1)


@cache
def get_board(shape: str, n: int) -> Board:
    return Board(shape, n)
