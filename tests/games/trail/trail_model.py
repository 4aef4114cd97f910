"""An independent model of the Slime Trail rules for the tests, written from RULES.md alone.

Plain (column, row) tuples and sets: its own neighbour rules for square king steps and for the
hex directions, its own start cells and goals, its own breadth-first check of Taylor's
restriction, and its own reading and writing of position strings.  It shares nothing with
slimetrail's bitboards, so agreement between the two is evidence that both are right.
"""

from __future__ import annotations

from collections import deque
from functools import cache

Cell = tuple[int, int]
SQUARE_STEPS = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
# (c±1, r), (c, r±1), (c+1, r+1), (c-1, r-1): RULES.md section 2.
HEX_STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]


class Model:
    """Slime Trail rules on plain coordinates, written from RULES.md alone."""

    def __init__(self, game_id: str, n: int, rules: str, start: str | None = None) -> None:
        self.n, self.rules = n, rules
        self.steps = HEX_STEPS if game_id == "slimetrail-hex" else SQUARE_STEPS
        self.goals = {(0, 0), (n - 1, n - 1)}
        if start is not None:
            self.start = self.parse(start)
        elif game_id == "slimetrail-square":
            self.start = (n // 2, n // 2)  # e5 on 8x8: column and row n/2 + 1
        else:
            self.start = ((n - 1) // 2, (n - 1) // 2)  # centre; d4 on hex 8x8, e5 on 10x10

    def parse(self, name: str) -> Cell:
        return ord(name[0]) - ord("a"), int(name[1:]) - 1

    def name(self, cell: Cell) -> str:
        return f"{chr(ord('a') + cell[0])}{cell[1] + 1}"

    def neighbours(self, cell: Cell) -> list[Cell]:
        c, r = cell
        return [
            (c + dc, r + dr)
            for dc, dr in self.steps
            if 0 <= c + dc < self.n and 0 <= r + dr < self.n
        ]

    def goal_reachable(self, origin: Cell, blocked: set[Cell]) -> bool:
        seen, todo = {origin}, deque([origin])
        while todo:
            cell = todo.popleft()
            for nxt in self.neighbours(cell):
                if nxt in self.goals:
                    return True
                if nxt not in seen and nxt not in blocked:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    def legal(self, blocked: frozenset[Cell], snail: Cell) -> list[Cell]:
        if snail in self.goals:
            return []
        moves = []
        for cell in self.neighbours(snail):
            if cell in blocked:
                continue
            # Taylor: after the move the old snail cell and the new one are both occupied.
            cut_off = self.rules == "taylor" and cell not in self.goals
            if cut_off and not self.goal_reachable(cell, set(blocked) | {snail, cell}):
                continue
            moves.append(cell)
        return moves

    def play(self, names: list[str]) -> tuple[frozenset[Cell], Cell]:
        blocked, snail = frozenset(), self.start
        for name in names:
            cell = self.parse(name)
            assert cell in self.legal(blocked, snail), f"model: {name} illegal"
            blocked, snail = blocked | {snail}, cell
        return blocked, snail

    def perft(self, blocked: frozenset[Cell], snail: Cell, depth: int) -> int:
        @cache
        def count(blocked: frozenset[Cell], snail: Cell, depth: int) -> int:
            if depth == 0:
                return 1
            return sum(
                count(blocked | {snail}, cell, depth - 1) for cell in self.legal(blocked, snail)
            )

        return count(blocked, snail, depth)


def model_fen(model: Model, blocked: set[Cell], snail: Cell, to_move: int) -> str:
    rows = []
    for r in range(model.n - 1, -1, -1):
        text, run = "", 0
        for c in range(model.n):
            if (c, r) not in blocked and (c, r) != snail:
                run += 1
                continue
            text += (str(run) if run else "") + ("o" if (c, r) == snail else "x")
            run = 0
        rows.append(text + (str(run) if run else ""))
    return f"{'/'.join(rows)} {to_move}"


def parse_fen(model: Model, fen: str) -> tuple[set[Cell], Cell, int]:
    """(blocked cells, snail cell, side to move) of a position string."""
    rows, side = fen.split()
    blocked, snail = set(), None
    for top, text in enumerate(rows.split("/")):
        r, c, digits = model.n - 1 - top, 0, ""
        for ch in text + " ":
            if ch.isdigit():
                digits += ch
                continue
            c, digits = c + int(digits or 0), ""
            if ch == "x":
                blocked.add((c, r))
            elif ch == "o":
                snail = (c, r)
            if ch in "xo":
                c += 1
    assert snail is not None
    return blocked, snail, int(side)
