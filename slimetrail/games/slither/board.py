"""Bitboard geometry of the Slither board: cells, edges, the diagonal rule, connections.

Cell (column c, row r), both from 0, has index ``r * W + c`` with ``W = n + 1``: the spare
column ``n`` of every row is never set, so a shift by 1, ``W - 1``, ``W`` or ``W + 1`` moves
a cell to its neighbour and a cell on the edge to a spare bit, never into the next row.
Index order is rank by rank (a1, b1, ..., a2, ...), the order the canonical move text uses.
"""

from __future__ import annotations

import random
from functools import cache

from slimetrail.core.bits import cells_of
from slimetrail.core.cells import GridCells

BLACK, WHITE = 0, 1
COLOUR_NAMES = ("Black", "White")


class SlitherBoard(GridCells):
    """The n x n board: masks, king neighbourhoods, fixed Zobrist keys."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.width = w = n + 1
        row = (1 << n) - 1
        self.mask = sum(row << (r * w) for r in range(n))
        self.bottom = row
        self.top = row << ((n - 1) * w)
        self.left = sum(1 << (r * w) for r in range(n))
        self.right = self.left << (n - 1)
        self.cells = cells_of(self.mask)
        self.cells_set = frozenset(self.cells)
        self.names = {cell: self.name(cell) for cell in self.cells}
        self.king = [0] * (n * w)
        for cell in self.cells:
            one = 1 << cell
            self.king[cell] = self.dilate_king(one)
        rng = random.Random(0x511CE2 + n)  # one seed for every run: key() is stable
        self.zobrist = [[rng.getrandbits(64) for _ in range(n * w)] for _ in (BLACK, WHITE)]
        self.side_key, self.swapped_key, self.pie_key = (rng.getrandbits(64) for _ in range(3))

    # -- neighbourhoods --------------------------------------------------------------------

    def dilate_king(self, region: int) -> int:
        w = self.width
        out = 0
        for s in (1, w - 1, w, w + 1):
            out |= (region << s) | (region >> s)
        return out & self.mask

    def flood(self, seed: int, within: int) -> int:
        """The cells of ``within`` orthogonally connected to a cell of ``seed & within``."""
        w = self.width
        region = seed & within
        while True:
            grown = (
                region | (region << 1) | (region >> 1) | (region << w) | (region >> w)
            ) & within
            if grown == region:
                return region
            region = grown

    # -- the diagonal rule ------------------------------------------------------------------

    def diagonal_breaks(self, own: int) -> list[tuple[int, int]]:
        """The diagonal pairs of ``own`` with no ``own`` stone on either shared neighbour."""
        w = self.width
        rising = own & (own >> (w + 1)) & ~(own >> 1) & ~(own >> w)  # a and a+W+1
        falling = own & (own >> (w - 1)) & ~(own >> w) & ~(own << 1)  # a and a+W-1
        return [(a, a + w + 1) for a in cells_of(rising)] + [
            (a, a + w - 1) for a in cells_of(falling)
        ]

    def placements(self, own: int, empty: int) -> int:
        """The cells of ``empty`` where a new ``own`` stone leaves no diagonal-rule break.

        A new stone breaks the rule with an ``own`` diagonal neighbour whose two shared
        neighbours hold no ``own`` stone; a break already in ``own`` (left by a step) must be
        mended, by the new stone on one of the pair's shared neighbours.
        """
        w = self.width
        no_east, no_west, no_north, no_south = ~(own >> 1), ~(own << 1), ~(own >> w), ~(own << w)
        creates = (
            ((own >> (w + 1)) & no_east & no_north)
            | ((own << (w + 1)) & no_west & no_south)
            | ((own >> (w - 1)) & no_west & no_north)
            | ((own << (w - 1)) & no_east & no_south)
        )
        allowed = empty & ~creates
        rising = own & (own >> (w + 1)) & no_east & no_north
        falling = own & (own >> (w - 1)) & no_north & no_west
        if rising | falling:
            for a in cells_of(rising):
                allowed &= (1 << (a + 1)) | (1 << (a + w))
            for a in cells_of(falling):
                allowed &= (1 << (a - 1)) | (1 << (a + w))
        return allowed

    # -- connections -----------------------------------------------------------------------

    def edges(self, colour: int) -> tuple[int, int]:
        """The two edges a colour connects: Black bottom and top, White left and right."""
        return (self.bottom, self.top) if colour == BLACK else (self.left, self.right)

    def chain(self, own: int, colour: int) -> int:
        """The stones of ``own`` in groups touching both of the colour's edges (0 if none)."""
        start, end = self.edges(colour)
        from_start = self.flood(start, own)
        if not from_start & end:
            return 0
        return from_start & self.flood(end, own)

    def distance(self, own: int, other: int, colour: int) -> int | None:
        """How many empty cells ``own`` must still fill to connect its edges (orthogonal
        steps, ``other`` blocking), or ``None`` if ``other`` cuts the edges apart."""
        start, end = self.edges(colour)
        empty = self.mask & ~own & ~other
        reached = self.flood(start, own)
        for cost in range(self.n * self.n + 1):
            if reached & end:
                return cost
            grown = self.dilate_orthogonal(reached) | start
            frontier = grown & empty & ~reached
            if not frontier:
                return None
            reached = self.flood(reached | frontier, own | frontier | reached)
        return None

    def dilate_orthogonal(self, region: int) -> int:
        w = self.width
        return ((region << 1) | (region >> 1) | (region << w) | (region >> w)) & self.mask


@cache
def get_board(n: int) -> SlitherBoard:
    return SlitherBoard(n)
