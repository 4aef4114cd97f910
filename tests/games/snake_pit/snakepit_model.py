"""An independent model of Snake Pit for the tests, written from RULES.md section 5 alone.

The board is RULES.md's table itself, parsed from its text into (letter, number) cells; the
position is plain sets; a turn is found by brute force over ``itertools`` combinations of
snakes and products of destinations; the balancing rule counts the turns played.  It shares
nothing with the engine's bitboards, so agreement between the two is evidence for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, product

Cell = tuple[int, int]  # (letter a=1 .. m=13, number)
Turn = frozenset[tuple[Cell, Cell]]

# RULES.md section 5, verbatim.
TABLE = """
  R1                 a8  b9 c10 d11 e12 f13
  R2               a7  b8  c9 d10 e11 f12 g13
  R3             a6  b7  c8  d9 e10 f11 g12 h13
  R4           a5  b6  c7  d8  e9 f10 g11 h12 i13
  R5         a4  b5  c6  d7  e8  f9 g10 h11 i12 j13
  R6       a3  b4  c5  d6  e7  f8  g9 h10 i11 j12 k13
  R7     a2  b3  c4  d5  e6  f7  g8  h9 i10 j11 k12 l13
  R8   a1  b2  c3  d4  e5  f6  g7  h8  i9 j10 k11 l12 m13
  R9     b1  c2  d3  e4  f5  g6  h7  i8  j9 k10 l11 m12
  R10      c1  d2  e3  f4  g5  h6  i7  j8  k9 l10 m11
  R11        d1  e2  f3  g4  h5  i6  j7  k8  l9 m10
  R12          e1  f2  g3  h4  i5  j6  k7  l8  m9
  R13            f1  g2  h3  i4  j5  k6  l7  m8
  R14              g1  h2  i3  j4  k5  l6  m7
  R15                h1  i2  j3  k4  l5  m6
"""
NAMES = ("Green", "Blue", "Red")
START_TEXT = {
    1: "b9 l13 b1 l5",
    2: "e12 a2 m12 i2",
    3: "a7 g13 g1 m7",
}


def parse(name: str) -> Cell:
    return ("abcdefghijklm".index(name[0]) + 1, int(name[1:]))


def show(cell: Cell) -> str:
    return "abcdefghijklm"[cell[0] - 1] + str(cell[1])


def table_rows() -> list[list[Cell]]:
    """The table's rows, top to bottom, each left to right."""
    return [[parse(word) for word in line.split()[1:]] for line in TABLE.strip().splitlines()]


ROWS = table_rows()
BOARD: frozenset[Cell] = frozenset(cell for row in ROWS for cell in row)
STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]
NEIGHBOURS: dict[Cell, frozenset[Cell]] = {
    (a, b): frozenset((a + da, b + db) for da, db in STEPS if (a + da, b + db) in BOARD)
    for a, b in BOARD
}
START = {p: frozenset(parse(w) for w in text.split()) for p, text in START_TEXT.items()}


def turn_text(turn: Turn) -> str:
    """Steps sorted by the cell they leave: letter first, then number (a7 before a10)."""
    return ",".join(f"{show(a)}-{show(b)}" for a, b in sorted(turn))


# The turns of a player depend only on their snakes, k and which of the snakes' neighbours
# are empty; the cache makes deep perft affordable without changing what is counted.
_TURNS: dict[tuple[frozenset[Cell], frozenset[Cell], int], frozenset[Turn]] = {}


def find_turns(snakes: frozenset[Cell], empty_near: frozenset[Cell], k: int) -> frozenset[Turn]:
    key = (snakes, empty_near, k)
    found = _TURNS.get(key)
    if found is None:
        turns = set()
        for chosen in combinations(sorted(snakes), k):
            choices = [sorted(NEIGHBOURS[s] & empty_near) for s in chosen]
            for ends in product(*choices):
                if len(set(ends)) == k:
                    turns.add(frozenset(zip(chosen, ends, strict=True)))
        found = _TURNS[key] = frozenset(turns)
    return found


@dataclass
class Position:
    snakes: dict[int, frozenset[Cell]] = field(default_factory=lambda: dict(START))
    trails: dict[int, frozenset[Cell]] = field(
        default_factory=lambda: {p: frozenset() for p in (1, 2, 3)}
    )
    mover: int | None = 1  # None once the game is over
    played: int = 0  # turns played so far in the game
    out: tuple[int, ...] = ()

    @property
    def k(self) -> int:
        return min(self.played + 1, 3)

    def occupied(self) -> set[Cell]:
        return set().union(*self.snakes.values(), *self.trails.values())

    def turns_of(self, player: int) -> frozenset[Turn]:
        taken = self.occupied()
        near = frozenset(c for s in self.snakes[player] for c in NEIGHBOURS[s] if c not in taken)
        return find_turns(self.snakes[player], near, self.k)

    def turns(self) -> frozenset[Turn]:
        return frozenset() if self.mover is None else self.turns_of(self.mover)

    def after(self, turn: Turn) -> Position:
        assert self.mover is not None and turn in self.turns()
        p = self.mover
        starts = {a for a, _ in turn}
        ends = {b for _, b in turn}
        snakes = dict(self.snakes)
        snakes[p] = (snakes[p] - starts) | ends
        trails = dict(self.trails)
        trails[p] = trails[p] | starts
        nxt = Position(snakes, trails, p, self.played + 1, self.out)
        # Hand the turn round, putting out whoever has no full turn, until one is left.
        player = p
        while len(nxt.out) < 2:
            player = player % 3 + 1
            if player in nxt.out:
                continue
            if nxt.turns_of(player):
                nxt.mover = player
                return nxt
            nxt.out = (*nxt.out, player)
        nxt.mover = None
        return nxt

    def places(self) -> tuple[int, ...] | None:
        """Everybody's place once over: the last one left first, then the latest out."""
        if self.mover is None:
            (winner,) = {1, 2, 3} - set(self.out)
            order = [winner, *reversed(self.out)]
            return tuple(order.index(p) + 1 for p in (1, 2, 3))
        return None

    def fen(self) -> str:
        """The engine's position format, written from its documentation."""

        def cells(group: frozenset[Cell]) -> str:
            return ",".join(show(c) for c in sorted(group)) or "-"

        parts = [f"{cells(self.snakes[p])}/{cells(self.trails[p])}" for p in (1, 2, 3)]
        mover = "-" if self.mover is None else str(self.mover)
        out = ",".join(map(str, self.out)) or "-"
        return f"{' '.join(parts)} {mover} {self.k} {out}"


def from_fen(text: str) -> Position:
    """A position from the engine's format (documented in ``SnakePitGame.state_from_fen``)."""
    *players, mover, k, out = text.split()

    def cells(words: str) -> frozenset[Cell]:
        return frozenset() if words == "-" else frozenset(parse(w) for w in words.split(","))

    snakes = {p: cells(f.split("/")[0]) for p, f in enumerate(players, 1)}
    trails = {p: cells(f.split("/")[1]) for p, f in enumerate(players, 1)}
    outs = () if out == "-" else tuple(int(w) for w in out.split(","))
    return Position(snakes, trails, None if mover == "-" else int(mover), int(k) - 1, outs)


def perft(position: Position, depth: int) -> int:
    if depth == 0:
        return 1
    turns = position.turns()
    if depth == 1:
        return len(turns)
    return sum(perft(position.after(t), depth - 1) for t in turns)
