"""The text board of Slime-Moku, for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.cells import FILES

if TYPE_CHECKING:
    from slimetrail.games.moku.game import MokuState

BLACK, WHITE, SLIME, EMPTY = "X", "O", "@", "."


def draw_board(state: MokuState) -> str:
    """A grid with files and ranks: ``X`` black, ``O`` white, ``@`` the slime, ``.`` empty."""
    board = state.game.board
    n = board.n

    def mark(cell: int) -> str:
        if cell == state.slime:
            return SLIME
        if state.black >> cell & 1:
            return BLACK
        return WHITE if state.white >> cell & 1 else EMPTY

    files = "     " + " ".join(FILES[:n])
    lines = [files]
    for row in range(n - 1, -1, -1):
        cells = " ".join(mark(board.index(col, row)) for col in range(n))
        lines.append(f"{row + 1:>3}  {cells}  {row + 1}")
    lines.append(files)
    return "\n".join(lines)
