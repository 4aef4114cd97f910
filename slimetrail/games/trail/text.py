"""The text board of the Slime Trail games, for the terminal.

Square boards as a grid with files and ranks; the hex rhombus as a diamond (short diagonal
horizontal) whose text rows are offset so that neighbouring cells look adjacent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.cells import FILES

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

SNAIL, SLIME, EMPTY, TARGET = "@", "#", ".", "*"


def draw_board(state: TrailState) -> str:
    """The board as text: snail ``@``, slime ``#``, goals by owner number, legal moves ``*``."""
    game = state.game
    board = game.board
    targets = set(state.legal_moves())
    owner = {game.goals[p]: str(p) for p in (1, 2)}

    def mark(cell: int) -> str:
        if cell == state.snail:
            return SNAIL
        if cell in owner:  # a goal stays marked by its owner, even as a legal step
            return owner[cell]
        if cell in targets:
            return TARGET
        return EMPTY if state.free >> cell & 1 else SLIME

    n = board.n
    files = FILES[:n]
    if board.shape == "square":
        lines = ["     " + " ".join(files)]
        for row in range(n - 1, -1, -1):
            cells = " ".join(mark(board.index(col, row)) for col in range(n))
            lines.append(f"{row + 1:>3}  {cells}  {row + 1}")
        lines.append("     " + " ".join(files))
        return "\n".join(lines)
    # Hex rhombus: one text row per value of col - row; a cell sits at text column
    # 2 * (col + row), so the six neighbours are the cells 4 columns away on the same row
    # and 2 columns away on the rows above and below.
    lines = []
    width = max(len(board.name(c)) for c in board.cells())
    for diff in range(-(n - 1), n):
        diagonal = [(c, c - diff) for c in range(max(0, diff), min(n, n + diff))]
        first, last = board.index(*diagonal[0]), board.index(*diagonal[-1])
        text = [" "] * (4 * n)
        for col, row in diagonal:
            text[2 * (col + row)] = mark(board.index(col, row))
        body = "".join(text).rstrip()
        lines.append(f"{board.name(first):>{width}} {body}  {board.name(last)}")
    return "\n".join(lines)
