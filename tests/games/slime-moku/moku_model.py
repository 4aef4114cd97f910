"""An independent model of Slime-Moku, written from RULES.md section 4.

Plain dicts of (column, row) -> "B"/"W" and brute-force line checks over the whole board; no
bitboards and nothing imported from slimetrail.  The tests compare the engine against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Cell = tuple[int, int]
LETTERS = "abcdefghijklmnopqrs"
KING = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
LINES = [(1, 0), (0, 1), (1, 1), (1, -1)]


def name(cell: Cell) -> str:
    return f"{LETTERS[cell[0]]}{cell[1] + 1}"


@dataclass
class Model:
    n: int
    k: int
    stones: dict[Cell, str] = field(default_factory=dict)
    slime: Cell = (0, 0)
    to_move: str = "B"
    history: list[tuple[Cell, Cell]] = field(default_factory=list)  # (left, entered)

    @classmethod
    def start(cls, n: int, k: int) -> Model:
        # Odd n: the centre.  Even n: up and right of the centre point (c3 on 4x4).
        return cls(n, k, slime=(n // 2, n // 2))

    def copy(self) -> Model:
        return Model(self.n, self.k, dict(self.stones), self.slime, self.to_move, [])

    def on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.n and 0 <= cell[1] < self.n

    def empty_cells(self) -> list[Cell]:
        return [
            (c, r)
            for r in range(self.n)
            for c in range(self.n)
            if (c, r) not in self.stones and (c, r) != self.slime
        ]

    def has_row(self, colour: str) -> bool:
        for (c, r), who in self.stones.items():
            if who != colour:
                continue
            for dc, dr in LINES:
                if all(self.stones.get((c + t * dc, r + t * dr)) == colour for t in range(self.k)):
                    return True
        return False

    def row_cells(self, colour: str) -> set[Cell]:
        out: set[Cell] = set()
        for (c, r), who in self.stones.items():
            if who != colour:
                continue
            for dc, dr in LINES:
                line = [(c + t * dc, r + t * dr) for t in range(self.k)]
                if all(self.stones.get(cell) == colour for cell in line):
                    out.update(line)
        return out

    def winner(self) -> str | None:
        for colour in ("B", "W"):
            if self.has_row(colour):
                return colour
        return None

    def over(self) -> bool:
        return self.winner() is not None or not self.empty_cells()

    def stuck(self) -> bool:
        empty = set(self.empty_cells())
        return not any((self.slime[0] + dc, self.slime[1] + dr) in empty for dc, dr in KING)

    def legal(self) -> list[Cell]:
        if self.over():
            return []
        empty = self.empty_cells()
        steps = [
            cell
            for cell in empty
            if max(abs(cell[0] - self.slime[0]), abs(cell[1] - self.slime[1])) == 1
        ]
        return steps or empty

    def play(self, cell: Cell) -> None:
        assert cell in self.legal(), (name(cell), self.fen())
        left = self.slime
        self.stones[left] = self.to_move
        self.slime = cell
        self.to_move = "W" if self.to_move == "B" else "B"
        self.history.append((left, cell))

    def undo(self) -> None:
        left, _ = self.history.pop()
        del self.stones[left]
        self.slime = left
        self.to_move = "W" if self.to_move == "B" else "B"

    def fen(self) -> str:
        rows = []
        for r in range(self.n - 1, -1, -1):
            text, run = "", 0
            for c in range(self.n):
                symbol = (
                    "@"
                    if (c, r) == self.slime
                    else {"B": "x", "W": "o"}.get(self.stones.get((c, r), ""), "")
                )
                if not symbol:
                    run += 1
                    continue
                text += (str(run) if run else "") + symbol
                run = 0
            rows.append(text + (str(run) if run else ""))
        return "/".join(rows) + (" 1" if self.to_move == "B" else " 2")

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for cell in self.legal():
            self.play(cell)
            total += self.perft(depth - 1)
            self.undo()
        return total


def from_rows(n: int, k: int, rows: list[str], to_move: str) -> Model:
    """A model from a picture, top row first: ``x`` black, ``o`` white, ``@`` slime, ``.``."""
    assert len(rows) == n
    model = Model(n, k, to_move=to_move)
    for top, text in enumerate(rows):
        assert len(text) == n, text
        for c, ch in enumerate(text):
            cell = (c, n - 1 - top)
            if ch == "@":
                model.slime = cell
            elif ch in "xo":
                model.stones[cell] = "B" if ch == "x" else "W"
    return model


def from_fen(n: int, k: int, fen: str) -> Model:
    """A model from a position string (digits expanded to dots, then :func:`from_rows`)."""
    board, side = fen.split()
    rows = []
    for text in board.split("/"):
        row, number = "", ""
        for ch in text:
            if ch.isdigit():
                number += ch
                continue
            row += "." * int(number or 0) + ch
            number = ""
        rows.append(row + "." * int(number or 0))
    return from_rows(n, k, rows, "B" if side == "1" else "W")


# -- brute-force game values ----------------------------------------------------------------


def forced_win(model: Model, plies: int) -> bool:
    """Whether the side to move wins by force within ``plies`` plies (brute force)."""
    mover = model.to_move
    for cell in model.legal():
        model.play(cell)
        try:
            if model.winner() == mover:
                return True
            if (
                plies >= 3
                and not model.over()
                and all(replies_lose(model, reply, mover, plies - 2) for reply in model.legal())
            ):
                return True
        finally:
            model.undo()
    return False


def replies_lose(model: Model, reply: tuple[int, int], mover: str, plies: int) -> bool:
    model.play(reply)
    try:
        if model.winner() is not None:
            return model.winner() == mover
        return not model.over() and forced_win(model, plies)
    finally:
        model.undo()


def forced_loss(model: Model) -> bool:
    """Whether every move lets the opponent complete a row at once."""
    for cell in model.legal():
        model.play(cell)
        try:
            if model.winner() is not None or model.over():
                return False
            if not any(opponent_wins_with(model, reply) for reply in model.legal()):
                return False
        finally:
            model.undo()
    return True


def opponent_wins_with(model: Model, reply: tuple[int, int]) -> bool:
    mover = model.to_move
    model.play(reply)
    try:
        return model.winner() == mover
    finally:
        model.undo()


def minimax(model: Model) -> int:
    """The exact value for the side to move: +1 win, 0 draw, -1 loss (whole tree)."""
    winner = model.winner()
    if winner is not None:
        return 1 if winner == model.to_move else -1
    if not model.empty_cells():
        return 0
    best = -1
    for cell in model.legal():
        model.play(cell)
        try:
            best = max(best, -minimax(model))
        finally:
            model.undo()
        if best == 1:
            break
    return best
