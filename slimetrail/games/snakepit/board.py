"""The Snake Pit board: 139 hexagons named as on J. P. Neto's page (RULES.md section 5).

Cell ``(L, N)`` -- letter ``L`` from ``a`` = 1 to ``m`` = 13 and number ``N`` from 1 to 13 --
is on the board when ``|L - N| <= 7``; it touches ``(L±1, N)``, ``(L, N±1)``, ``(L+1, N+1)``
and ``(L-1, N-1)``.  Its bit is ``(L - 1) * 14 + (N - 1)``: sorting bits sorts cells letter
first, then number (the notation's order), and the spare 14th column of every letter keeps a
number step from wrapping into the next letter, so dilating a whole mask is six shifts.
"""

from __future__ import annotations

import math

LETTERS = "abcdefghijklm"
SIZE = 13
WIDTH = SIZE + 1
SHIFTS = (1, WIDTH, WIDTH + 1)  # (L, N+1), (L+1, N), (L+1, N+1); their negatives too
ROWS = 15  # text and screen rows, R1 at the top: row R holds the cells with L - N = R - 8


def index(letter: int, number: int) -> int:
    """The bit of cell (letter, number), both counted from 1."""
    return (letter - 1) * WIDTH + number - 1


def coords(cell: int) -> tuple[int, int]:
    return cell // WIDTH + 1, cell % WIDTH + 1


def on_board(letter: int, number: int) -> bool:
    return 1 <= letter <= SIZE and 1 <= number <= SIZE and abs(letter - number) <= 7


CELLS: tuple[int, ...] = tuple(
    index(letter, number)
    for letter in range(1, SIZE + 1)
    for number in range(1, SIZE + 1)
    if on_board(letter, number)
)
MASK = sum(1 << cell for cell in CELLS)
NBITS = WIDTH * SIZE
NAMES: dict[int, str] = {cell: f"{LETTERS[coords(cell)[0] - 1]}{coords(cell)[1]}" for cell in CELLS}
CELL_OF: dict[str, int] = {name: cell for cell, name in NAMES.items()}


def dilate(bits: int) -> int:
    """Every board cell next to a cell of ``bits``."""
    out = 0
    for shift in SHIFTS:
        out |= (bits << shift) | (bits >> shift)
    return out & MASK


# NEIGHBOURS[cell]: the neighbour mask of a board cell (0 for the bits off the board).
NEIGHBOURS: tuple[int, ...] = tuple(
    dilate(1 << bit) if MASK >> bit & 1 else 0 for bit in range(NBITS)
)


def name(cell: int) -> str:
    return NAMES[cell]


def parse_cell(text: str) -> int | None:
    """The bit of a cell name such as ``c10`` (any case), or ``None`` if it names no cell."""
    return CELL_OF.get(text.strip().lower())


def row_of(cell: int) -> int:
    """The row of the RULES.md table, 1 (top, ``a8 ... f13``) to 15 (bottom, ``h1 ... m6``)."""
    letter, number = coords(cell)
    return 8 + letter - number


def rows() -> list[list[int]]:
    """The cells row by row from the top, each row left to right."""
    table: list[list[int]] = [[] for _ in range(ROWS)]
    for cell in CELLS:  # letter-major order is left to right within a row
        table[row_of(cell) - 1].append(cell)
    return table


def centre(cell: int) -> tuple[float, float]:
    """Screen centre (x right, y down) of a pointy-top hexagon, neighbours one unit apart.

    A step (L+1, N+1) stays on the row one unit to the right; (L+1, N) goes half a unit right
    and one row down, (L, N+1) half a unit right and one row up; ``a1`` has x = 0.
    """
    letter, number = coords(cell)
    return 0.5 * (letter + number) - 1.0, math.sqrt(3) / 2 * (row_of(cell) - 1)
