"""An independent model of Slither and Advanced Slither, written from RULES.md section 6.

Plain (column, row) tuples in frozensets, brute force: every turn is tried as every
(optional step, placement) spelling, turns are grouped by the board they leave, and the
canonical text of a group is picked by the rule's own words.  Nothing here imports the
engine's rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

Cell = tuple[int, int]
KING = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
ORTHO = [(1, 0), (-1, 0), (0, 1), (0, -1)]
LETTERS = "abcdefghijklmnopqrs"


def name(cell: Cell) -> str:
    return f"{LETTERS[cell[0]]}{cell[1] + 1}"


@dataclass(frozen=True)
class Pos:
    n: int
    black: frozenset[Cell]
    white: frozenset[Cell]
    mover: str  # "B" or "W": the colour to move
    swapped: bool  # players have exchanged colours
    turns: int  # turns played (a swap counts)
    pie: bool
    advanced: bool
    winner: str | None = None  # colour that completed a connection

    def own(self) -> frozenset[Cell]:
        return self.black if self.mover == "B" else self.white

    def other(self) -> frozenset[Cell]:
        return self.white if self.mover == "B" else self.black

    def player(self, colour: str) -> int:
        first = 1 if colour == "B" else 2
        return 3 - first if self.swapped else first


def start(n: int, pie: bool = True, advanced: bool = False) -> Pos:
    return Pos(n, frozenset(), frozenset(), "B", False, 0, pie, advanced)


def on_board(n: int, cell: Cell) -> bool:
    return 0 <= cell[0] < n and 0 <= cell[1] < n


def diagonal_ok(stones: frozenset[Cell]) -> bool:
    for x, y in stones:
        for dx in (-1, 1):
            for dy in (-1, 1):
                if (
                    (x + dx, y + dy) in stones
                    and (x + dx, y) not in stones
                    and (
                        x,
                        y + dy,
                    )
                    not in stones
                ):
                    return False
    return True


def group(start_cell: Cell, stones: frozenset[Cell]) -> set[Cell]:
    seen, todo = {start_cell}, [start_cell]
    while todo:
        x, y = todo.pop()
        for dx, dy in ORTHO:
            nxt = (x + dx, y + dy)
            if nxt in stones and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def connected(n: int, stones: frozenset[Cell], colour: str) -> bool:
    axis = 1 if colour == "B" else 0  # Black: rows 0 and n-1; White: columns 0 and n-1
    for cell in stones:
        if cell[axis] == 0 and any(c[axis] == n - 1 for c in group(cell, stones)):
            return True
    return False


def spellings(pos: Pos) -> Iterator[tuple[Cell | None, Cell | None, Cell, frozenset[Cell]]]:
    """Every (from, to, placement, resulting own stones) spelling of a legal turn."""
    n, own, other = pos.n, pos.own(), pos.other()
    everyone = own | other
    empties = [(c, r) for r in range(n) for c in range(n) if (c, r) not in everyone]
    for p in empties:
        result = own | {p}
        if diagonal_ok(result):
            yield None, None, p, result
    for s in sorted(own):
        if pos.advanced and not (group(s, everyone) & other):
            continue
        for dc, dr in KING:
            t = (s[0] + dc, s[1] + dr)
            if not on_board(n, t) or t in everyone:
                continue
            stepped = (own - {s}) | {t}
            for p in [*empties, s]:
                if p == t:
                    continue
                result = stepped | {p}
                if diagonal_ok(result):
                    yield s, t, p, result


def spelling_text(s: Cell | None, t: Cell | None, p: Cell) -> str:
    return name(p) if s is None or t is None else f"{name(s)}-{name(t)}/{name(p)}"


def turns(pos: Pos) -> dict[str, frozenset[Cell]]:
    """Canonical text -> resulting own stones, one entry per distinct resulting board."""
    by_board: dict[frozenset[Cell], list[tuple[Cell | None, Cell | None, Cell]]] = {}
    for s, t, p, result in spellings(pos):
        by_board.setdefault(result, []).append((s, t, p))
    out = {}
    for result, ways in by_board.items():
        alone = [w for w in ways if w[0] is None]
        # else the step whose end comes first rank by rank: row first, then column
        best = alone[0] if alone else min(ways, key=lambda w: (w[1][1], w[1][0]))  # type: ignore[index]
        out[spelling_text(*best)] = result
    return out


def all_spellings(pos: Pos) -> dict[str, str]:
    """Every spelling's text -> the canonical text of its board."""
    canon = {result: text for text, result in turns(pos).items()}
    return {spelling_text(s, t, p): canon[result] for s, t, p, result in spellings(pos)}


def can_swap(pos: Pos) -> bool:
    return pos.pie and pos.turns == 1 and pos.mover == "W" and not pos.swapped


def moves(pos: Pos) -> dict[str, Pos]:
    """Every legal move's canonical text -> the position after it."""
    if pos.winner:
        return {}
    out: dict[str, Pos] = {}
    if can_swap(pos):
        out["swap"] = replace(pos, swapped=True, turns=pos.turns + 1)
    nxt = "W" if pos.mover == "B" else "B"
    found = turns(pos)
    for text, result in found.items():
        win = pos.mover if connected(pos.n, result, pos.mover) else None
        if pos.mover == "B":
            after = replace(pos, black=result, mover=nxt, turns=pos.turns + 1, winner=win)
        else:
            after = replace(pos, white=result, mover=nxt, turns=pos.turns + 1, winner=win)
        out[text] = after
    if not found:
        out["pass"] = replace(pos, mover=nxt, turns=pos.turns + 1)
    return out


def perft(pos: Pos, depth: int) -> int:
    if depth == 0:
        return 1
    following = moves(pos)
    if depth == 1:
        return len(following)
    return sum(perft(after, depth - 1) for after in following.values())


def play(pos: Pos, texts: str) -> Pos:
    """Replay moves given in any spelling."""
    for text in texts.split():
        if text not in ("swap", "pass"):
            text = all_spellings(pos)[text]
        pos = moves(pos)[text]
    return pos


def to_move_player(pos: Pos) -> int:
    return pos.player(pos.mover)
