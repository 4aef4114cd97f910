"""Snake Pit (RULES.md section 5): three players, four snakes each, on the 139-cell hex pit.

A turn moves k of the mover's snakes one step each to cells that were empty when the turn
began, no two to the same cell; every cell a snake leaves is blocked for good.  A player who
has no full turn when their turn comes is out (their snakes stay as obstacles); the last
player left wins and the others are placed in the reverse order of going out.

The balancing rule ("k = 1 on the game's first turn, 2 on the second, 3 on every later
turn") counts the turns of the game, not of each player: Green's opening turn moves one
snake, Blue's reply two, and from Red's first turn on every turn moves three.  Only turns
actually played count (a player going out plays none), which matters only in positions set
up by hand, since nobody can be out before k is 3.  So k is part of the position: ``k`` of
the next turn is ``min(k + 1, 3)``.

A move is the tuple of its steps ``(from, to)`` (board bits), sorted by the cell they leave:
the canonical form of the set, so the legal-move list holds each set once.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, ClassVar

from slimetrail.core.bits import cells_of
from slimetrail.core.game import (
    ON_PLAYER,
    PLAYER,
    PLAYER_LINE,
    AiLadder,
    CellPaint,
    EndReason,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    MarkStyle,
    Move,
    Outcome,
    Shape,
    State,
    TurnShape,
    untranslated,
)
from slimetrail.core.i18n import N_, Term
from slimetrail.games.snakepit import board
from slimetrail.games.snakepit.board import NEIGHBOURS

PLAYERS = (1, 2, 3)
SNAKES = 4
START = {1: "b9 l13 b1 l5", 2: "e12 a2 m12 i2", 3: "a7 g13 g1 m7"}
HEAD_SYMBOLS, TRAIL_SYMBOLS, EMPTY = "GBR", "gbr", "."
Step = tuple[int, int]


def steps_for(k: int) -> int:
    """The number of snakes the turn after a turn with ``k`` snakes moves."""
    return min(k + 1, 3)


def _zobrist() -> tuple[list[list[int]], list[list[int]], list[int], list[int], list[list[int]]]:
    """Fixed random keys (one seed for every run), so that ``key()`` is stable."""
    rng = random.Random(0x5A4EE917)

    def table() -> list[list[int]]:
        return [[rng.getrandbits(64) for _ in range(board.NBITS)] for _ in range(4)]

    heads, trails = table(), table()
    to_move = [rng.getrandbits(64) for _ in range(4)]  # index 0: the game is over
    k = [rng.getrandbits(64) for _ in range(4)]
    out = [[rng.getrandbits(64) for _ in range(4)] for _ in range(2)]  # [going-out slot][player]
    return heads, trails, to_move, k, out


HEAD_KEYS, TRAIL_KEYS, TO_MOVE_KEYS, K_KEYS, OUT_KEYS = _zobrist()


def destinations(snakes: int, empty: int) -> list[tuple[int, list[int]]]:
    """Each snake of the mask ``snakes`` with its possible destinations."""
    return [(s, cells_of(NEIGHBOURS[s] & empty)) for s in cells_of(snakes)]


def turns(snakes: int, empty: int, k: int) -> list[tuple[Step, ...]]:
    """Every turn of ``k`` steps of the snakes in ``snakes``, each set once, in sorted order."""
    options = destinations(snakes, empty)
    moves: list[tuple[Step, ...]] = []
    if k == 1:
        for s, targets in options:
            moves.extend(((s, d),) for d in targets)
        return moves
    if k == 2:
        for (s1, t1), (s2, t2) in combinations(options, 2):
            for d1 in t1:
                a = (s1, d1)
                moves.extend((a, (s2, d2)) for d2 in t2 if d2 != d1)
        return moves
    for (s1, t1), (s2, t2), (s3, t3) in combinations(options, 3):
        for d1 in t1:
            a = (s1, d1)
            for d2 in t2:
                if d2 != d1:
                    b = (s2, d2)
                    moves.extend((a, b, (s3, d3)) for d3 in t3 if d3 != d1 and d3 != d2)
    return moves


def count_turns(snakes: int, empty: int, k: int) -> int:
    """``len(turns(snakes, empty, k))`` without building the turns (inclusion-exclusion)."""
    masks = [NEIGHBOURS[s] & empty for s in cells_of(snakes)]
    if k == 1:
        return sum(m.bit_count() for m in masks)
    total = 0
    if k == 2:
        for a, b in combinations(masks, 2):
            total += a.bit_count() * b.bit_count() - (a & b).bit_count()
        return total
    for a, b, c in combinations(masks, 3):
        na, nb, nc = a.bit_count(), b.bit_count(), c.bit_count()
        total += (
            na * nb * nc
            - (a & b).bit_count() * nc
            - (a & c).bit_count() * nb
            - (b & c).bit_count() * na
            + 2 * (a & b & c).bit_count()
        )
    return total


def completable(snakes: Sequence[int], empty: int, needed: int) -> bool:
    """Whether ``needed`` of ``snakes`` can step to distinct cells of ``empty``."""
    if needed == 0:
        return True
    if len(snakes) < needed:
        return False
    first, rest = snakes[0], snakes[1:]
    targets = NEIGHBOURS[first] & empty
    while targets:
        low = targets & -targets
        targets ^= low
        if completable(rest, empty & ~low, needed - 1):
            return True
    return completable(rest, empty, needed)


class SnakePitGame(Game):
    id = "snake-pit"
    title = N_("Snake Pit")
    num_players = 3
    player_names = (N_("Green"), N_("Blue"), N_("Red"))
    player_colours = ("green", "blue", "red")
    zero_sum = False
    # A player who is out is skipped, so the same player may follow a player who moved.
    # A turn is k snakes, each a click on the snake and one on its destination.
    turn = TurnShape(
        max_clicks=6, repeats=True, step_words=(N_("snake"), N_("snakes")), step_clicks=2
    )
    option_specs = ()
    marks: ClassVar[dict[str, MarkStyle]] = {
        # A snake's head: the player's shape in the player's colour, with the number.
        "head": MarkStyle(
            N_("snake head of %(player)s"),
            (
                Shape(
                    "player-shape",
                    0.36,
                    fill=PLAYER,
                    line="stone-outline",
                    width=0.05,
                    label=True,
                    group="head",
                ),
            ),
            per_player=True,
            token=True,
        ),
        # A cell the snake has passed: tinted and hatched, with the player's small shape.
        "trail": MarkStyle(
            N_("trail of %(player)s"),
            (
                Shape(
                    "player-shape",
                    0.12,
                    fill=PLAYER,
                    line=ON_PLAYER,
                    width=0.03,
                    css="trail-shape",
                ),
            ),
            cell=CellPaint(PLAYER, PLAYER_LINE, 0.25, PLAYER_LINE, opacity=0.45),
            per_player=True,
        ),
    }
    end_reasons: ClassVar[dict[str, EndReason]] = {
        "last-left": EndReason(N_("%(winner)s wins as the last player left")),
        # Only a search's playouts stop while several players are left.
        "most-room": EndReason(N_("%(winner)s has the most room left")),
    }

    def ai_ladder(self) -> AiLadder:
        # Greedy evaluation, best-reply search and max^n MCTS (slimetrail.games.snakepit.ai).
        from slimetrail.games.snakepit.ai import LADDER

        return LADDER

    @classmethod
    def warm_up(cls) -> None:
        from slimetrail.games.snakepit.ai import KERNELS

        KERNELS.run()

    def start_cells(self, player: int) -> list[int]:
        return [board.CELL_OF[name] for name in START[player].split()]

    def new_state(self) -> SnakePitState:
        heads = [0] + [sum(1 << c for c in self.start_cells(p)) for p in PLAYERS]
        return SnakePitState(self, heads, [0, 0, 0, 0], 1, 1, [])

    def state_from_fen(self, fen: str) -> SnakePitState:
        """``<heads>/<trail>`` for Green, Blue and Red, then the player to move (``-`` once
        the game is over), the number of snakes that turn moves and the players who are out
        in the order they went out (``-`` for none), e.g. the start:
        ``b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 -``."""
        parts = fen.split()
        if len(parts) != 6:
            raise InvalidPositionError(
                f"position {fen!r}: expected six fields: three '<snakes>/<trail>' (Green, Blue, "
                "Red), the player to move, the snakes to move and the players out"
            )
        heads, trails, seen = [0, 0, 0, 0], [0, 0, 0, 0], 0
        for player, field in zip(PLAYERS, parts[:3], strict=True):
            who = self.player_names[player - 1]
            snake_text, slash, trail_text = field.partition("/")
            if not slash:
                raise InvalidPositionError(f"position {fen!r}: {who}: expected '<snakes>/<trail>'")
            snakes = self._cells(fen, who, snake_text, "snakes")
            trail = self._cells(fen, who, trail_text, "trail") if trail_text != "-" else []
            if len(snakes) != SNAKES:
                raise InvalidPositionError(
                    f"position {fen!r}: {who} has {len(snakes)} snakes, not {SNAKES}"
                )
            for cell in snakes + trail:
                if seen >> cell & 1:
                    raise InvalidPositionError(
                        f"position {fen!r}: cell {board.name(cell)} is listed twice"
                    )
                seen |= 1 << cell
            heads[player] = sum(1 << c for c in snakes)
            trails[player] = sum(1 << c for c in trail)
        to_move_text, k_text, out_text = parts[3:]
        if k_text not in ("1", "2", "3"):
            raise InvalidPositionError(f"position {fen!r}: snakes to move {k_text!r} is not 1-3")
        k = int(k_text)
        out: list[int] = []
        for word in out_text.split(",") if out_text != "-" else []:
            if word not in ("1", "2", "3") or int(word) in out:
                raise InvalidPositionError(
                    f"position {fen!r}: bad list of players out {out_text!r}"
                )
            out.append(int(word))
        if len(out) > 2:
            raise InvalidPositionError(f"position {fen!r}: at most two players can be out")
        if to_move_text == "-":
            if len(out) != 2:
                raise InvalidPositionError(
                    f"position {fen!r}: '-' to move means the game is over: two players out"
                )
            to_move = 0
        elif to_move_text in ("1", "2", "3"):
            to_move = int(to_move_text)
            if len(out) == 2:
                raise InvalidPositionError(
                    f"position {fen!r}: two players are out, so the game is over: use '-' to move"
                )
            if to_move in out:
                raise InvalidPositionError(f"position {fen!r}: player {to_move} is out")
        else:
            raise InvalidPositionError(f"position {fen!r}: player to move {to_move_text!r}")
        # The first two turns block one and two cells, every later turn three.
        blocked = sum(trails).bit_count()
        if blocked != {1: 0, 2: 1}.get(k, blocked) or (k == 3 and (blocked < 3 or blocked % 3)):
            raise InvalidPositionError(
                f"position {fen!r}: {blocked} blocked cells cannot come before a turn of {k}"
            )
        empty = board.MASK & ~seen
        for player in out:
            if count_turns(heads[player], empty, k):
                raise InvalidPositionError(
                    f"position {fen!r}: {self.player_names[player - 1]} is out but has a turn"
                )
        if to_move and not count_turns(heads[to_move], empty, k):
            raise InvalidPositionError(
                f"position {fen!r}: {self.player_names[to_move - 1]} has no full turn of {k} "
                "steps, so is out (list them among the players out)"
            )
        return SnakePitState(self, heads, trails, to_move, k, out)

    @staticmethod
    def _cells(fen: str, who: str, text: str, what: str) -> list[int]:
        cells = []
        for word in text.split(","):
            cell = board.parse_cell(word)
            if cell is None:
                raise InvalidPositionError(
                    f"position {fen!r}: {who}'s {what}: {word!r} is not a cell of the board"
                )
            cells.append(cell)
        return cells

    def describe_board(self) -> dict[str, Any]:
        cells = []
        for cell in board.CELLS:
            x, y = board.centre(cell)
            cells.append({"name": board.name(cell), "x": round(x, 4), "y": round(y, 4)})
        return {
            "shape": "hex",
            "cells": cells,
            "rows": [[board.name(c) for c in row] for row in board.rows()],
            "start": {str(p): START[p].split() for p in PLAYERS},
        }


class SnakePitState(State):
    """Snakes and trails per player (bitboards), the player to move, k, and who is out."""

    playout_tries = 1  # see playout()
    playout_turns: int | None = None

    __slots__ = ("_board_key", "_stack", "empty", "game", "heads", "k", "mover", "out", "trails")

    def __init__(
        self,
        game: SnakePitGame,
        heads: list[int],
        trails: list[int],
        to_move: int,
        k: int,
        out: list[int],
    ) -> None:
        self.game: SnakePitGame = game
        self.heads = list(heads)  # heads[p]: the cells of player p's snakes (index 0 unused)
        self.trails = list(trails)  # trails[p]: the cells player p's snakes have left
        self.empty = board.MASK & ~(sum(heads) | sum(trails))
        self.mover = to_move  # 0 once the game is over
        self.k = k
        self.out = list(out)
        # (move, its mover, k before it, how many players were out before it)
        self._stack: list[tuple[tuple[Step, ...], int, int, int]] = []
        key = 0
        for p in PLAYERS:
            for cell in cells_of(heads[p]):
                key ^= HEAD_KEYS[p][cell]
            for cell in cells_of(trails[p]):
                key ^= TRAIL_KEYS[p][cell]
        self._board_key = key

    # -- the interface ---------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self.mover

    @property
    def move_stack(self) -> list[Move]:
        return [entry[0] for entry in self._stack]

    def legal_moves(self) -> list[Move]:
        if not self.mover:
            return []
        return turns(self.heads[self.mover], self.empty, self.k)  # type: ignore[return-value]

    def push(self, move: Move) -> None:
        steps = self._as_steps(move)
        problem = IllegalMoveError(N_("not a list of steps")) if steps is None else None
        problem = problem or self._problem(steps or [])
        if steps is None or problem:
            illegal = N_("%(move)s is not a legal move here: %(why)s")
            raise IllegalMoveError(illegal, move=self._describe(move), why=problem)
        self.apply(tuple(sorted(steps)))

    def apply(self, move: tuple[Step, ...]) -> None:
        """:meth:`push` without the legality check, for searches that generated ``move``."""
        p = self.mover
        heads, trails = HEAD_KEYS[p], TRAIL_KEYS[p]
        key, snakes, trail, empty = self._board_key, self.heads[p], self.trails[p], self.empty
        for start, end in move:
            snakes ^= (1 << start) | (1 << end)
            trail |= 1 << start
            empty &= ~(1 << end)
            key ^= heads[start] ^ heads[end] ^ trails[start]
        self.heads[p], self.trails[p], self.empty, self._board_key = snakes, trail, empty, key
        self._stack.append((move, p, self.k, len(self.out)))
        self.k = steps_for(self.k)
        self._advance(p)

    def _advance(self, mover: int) -> None:
        """Hand the turn on, putting out each player met who has no full turn."""
        player, out = mover, self.out
        while len(out) < 2:
            player = player % 3 + 1
            if player in out:
                continue
            if count_turns(self.heads[player], self.empty, self.k):
                self.mover = player
                return
            out.append(player)
        self.mover = 0

    def pop(self) -> Move:
        if not self._stack:
            raise IndexError("pop from a position with no moves")
        move, p, self.k, out_count = self._stack.pop()
        del self.out[out_count:]
        heads, trails = HEAD_KEYS[p], TRAIL_KEYS[p]
        key, snakes, trail, empty = self._board_key, self.heads[p], self.trails[p], self.empty
        for start, end in move:
            snakes ^= (1 << start) | (1 << end)
            trail &= ~(1 << start)
            empty |= 1 << end
            key ^= heads[start] ^ heads[end] ^ trails[start]
        self.heads[p], self.trails[p], self.empty, self._board_key = snakes, trail, empty, key
        self.mover = p
        return move

    def outcome(self) -> Outcome | None:
        if self.mover:
            return None
        (winner,) = (p for p in PLAYERS if p not in self.out)
        return Outcome.ranking([winner, *reversed(self.out)], reason="last-left")

    def move_str(self, move: Move) -> str:
        return ",".join(f"{board.name(a)}-{board.name(b)}" for a, b in move)  # type: ignore[attr-defined]

    def parse_move(self, text: str) -> Move:
        steps: list[Step] = []
        for part in text.split(","):
            start_text, dash, end_text = part.strip().partition("-")
            if not dash or "-" in end_text:
                raise InvalidMoveError(
                    N_(
                        "%(part)s in %(text)s is not a step 'from-to' such as a7-b7 "
                        "(steps are joined by commas)"
                    ),
                    part=repr(part.strip()),
                    text=repr(text.strip()),
                )
            cells = []
            for word in (start_text, end_text):
                cell = board.parse_cell(word)
                if cell is None:
                    raise InvalidMoveError(
                        N_(
                            "%(word)s in %(part)s is not a cell of the Snake Pit board "
                            "(a letter a-m and a number 1-13, as a1 ... m13)"
                        ),
                        word=repr(word.strip()),
                        part=repr(part.strip()),
                    )
                cells.append(cell)
            steps.append((cells[0], cells[1]))
        problem = self._problem(steps)
        if problem:
            raise IllegalMoveError("%(text)s: %(why)s", text=repr(text.strip()), why=problem)
        return tuple(sorted(steps))

    def fen(self) -> str:
        fields = []
        for p in PLAYERS:
            snakes = ",".join(board.name(c) for c in cells_of(self.heads[p]))
            trail = ",".join(board.name(c) for c in cells_of(self.trails[p])) or "-"
            fields.append(f"{snakes}/{trail}")
        out = ",".join(map(str, self.out)) or "-"
        return f"{' '.join(fields)} {self.mover or '-'} {self.k} {out}"

    def key(self) -> int:
        key = self._board_key ^ TO_MOVE_KEYS[self.mover] ^ K_KEYS[self.k]
        for slot, player in enumerate(self.out):
            key ^= OUT_KEYS[slot][player]
        return key

    def copy(self) -> SnakePitState:
        clone = SnakePitState.__new__(SnakePitState)
        clone.game, clone.heads, clone.trails = self.game, list(self.heads), list(self.trails)
        clone.empty, clone.mover, clone.k, clone.out = self.empty, self.mover, self.k, [*self.out]
        clone._stack, clone._board_key = list(self._stack), self._board_key
        return clone

    def click_path(self, move: Move) -> list[str]:
        return [board.name(cell) for step in sorted(move) for cell in step]  # type: ignore[call-overload]

    def next_clicks(self, prefix: Sequence[str] = ()) -> dict[str, str | None]:
        """Snakes and destinations alternately, the snakes in any order.

        After a snake come its destinations; every offered click still leaves a full turn
        possible for the snakes not yet moved, so each click sequence ends in a legal move.
        """
        if not self.mover:
            if prefix:
                raise IllegalMoveError(N_("the game is over"))
            return {}
        if len(prefix) >= 2 * self.k:
            raise IllegalMoveError(
                N_("%(clicks)s: a turn of %(k)s steps takes %(n)s clicks"),
                clicks=" ".join(prefix),
                k=self.k,
                n=2 * self.k,
            )
        chosen: list[Step] = []
        pending: int | None = None
        for click in prefix:
            options = self._click_options(chosen, pending)
            cell = board.parse_cell(click)
            if cell is None or cell not in options:
                raise self._why_not_click(chosen, pending, click)
            if pending is None:
                pending = cell
            else:
                chosen.append((pending, cell))
                pending = None
        options = self._click_options(chosen, pending)
        if pending is None or len(chosen) + 1 < self.k:
            return {board.name(cell): None for cell in options}
        return {
            board.name(cell): self.move_str(tuple(sorted([*chosen, (pending, cell)])))
            for cell in options
        }

    def view(self) -> dict[str, Any]:
        marks: dict[str, list[str]] = {}
        for p in PLAYERS:
            for cell in cells_of(self.trails[p]):
                marks[board.name(cell)] = [f"trail-{p}"]
            for cell in cells_of(self.heads[p]):
                marks[board.name(cell)] = [f"head-{p}"]
        last = [board.name(end) for _, end in self._stack[-1][0]] if self._stack else []
        return {
            "marks": marks,
            "path": [],
            "last": last,
            "to_move_steps": self.k,
            "out": list(self.out),
        }

    def text_board(self, gettext: Callable[[str], str] = untranslated) -> str:
        """The RULES.md table with a symbol per cell: snakes ``G B R``, their trails
        ``g b r``, empty ``.``; each row between its first and last cell name; then who
        moves (or how the game ended) in ``gettext``'s language."""
        symbol = {}
        for p in PLAYERS:
            symbol.update(dict.fromkeys(cells_of(self.heads[p]), HEAD_SYMBOLS[p - 1]))
            symbol.update(dict.fromkeys(cells_of(self.trails[p]), TRAIL_SYMBOLS[p - 1]))
        lines = []
        for row in board.rows():
            body = " ".join(symbol.get(cell, EMPTY) for cell in row)
            indent = " " * (board.SIZE - len(row))
            lines.append(f"{board.name(row[0]):>3} {indent}{body}  {board.name(row[-1])}")
        names = [gettext(name) for name in self.game.player_names]
        comma = gettext(N_(", "))
        outcome = self.outcome()
        if outcome is not None:
            order = sorted(PLAYERS, key=outcome.place)
            then = comma.join(names[p - 1] for p in order[1:])
            lines.append(
                gettext(N_("%(first)s wins; then %(rest)s"))
                % {"first": names[order[0] - 1], "rest": then}
            )
        else:
            # Each count its own sentence: a turn moves one, two or three snakes.
            moves = {
                1: N_("%(player)s to move 1 snake"),
                2: N_("%(player)s to move 2 snakes"),
                3: N_("%(player)s to move 3 snakes"),
            }
            status = gettext(moves[self.k]) % {"player": names[self.mover - 1]}
            if self.out:
                out = comma.join(names[p - 1] for p in self.out)
                status = gettext(N_("%(status)s; out: %(players)s")) % {
                    "status": status,
                    "players": out,
                }
            lines.append(status)
        return "\n".join(lines)

    def playout(self, rng: random.Random) -> Outcome:
        """Random turns to the end, compiled (:func:`.kernel.playout`); the state is not
        changed.  Uniformly random as the generic walk, unless a search sets
        ``playout_tries`` above 1 (each turn the best of that many random turns by a local
        look at the snakes' exits) or ``playout_turns`` (stop after that many turns and
        rank the players still in by the evaluation, :func:`.kernel.evaluate`: the outcome
        the position promises rather than one that happened)."""
        if not self.mover:
            outcome = self.outcome()
            assert outcome is not None
            return outcome
        # Imported here: numba loads only when a search needs it, not with the registry.
        from slimetrail.games.snakepit import kernel

        seed = rng.getrandbits(63)
        if self.playout_turns is None:
            out, _, _ = kernel.play_out(
                self.heads, self.empty, self.mover, self.k, self.out, seed, self.playout_tries
            )
            values: dict[int, float] = {}
        else:
            out, values = kernel.roll_out(
                self.heads,
                self.empty,
                self.mover,
                self.k,
                self.out,
                seed,
                self.playout_tries,
                self.playout_turns,
            )
        left = sorted((p for p in PLAYERS if p not in out), key=lambda p: -values.get(p, 0))
        reason = "last-left" if len(left) == 1 else "most-room"
        return Outcome.ranking([*left, *reversed(out)], reason=reason)

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        return _perft(self.copy(), depth)

    def mobility(self) -> tuple[int, ...]:
        """Per player, the empty cells next to each of their snakes, summed (0 once out):
        a cheap guide to who is running out of room."""
        return tuple(
            0
            if p in self.out
            else sum((NEIGHBOURS[s] & self.empty).bit_count() for s in cells_of(self.heads[p]))
            for p in PLAYERS
        )

    # -- helpers ---------------------------------------------------------------------

    @staticmethod
    def _as_steps(move: Move) -> list[Step] | None:
        """A move value as a list of (from, to) board cells, or ``None`` if it is not one."""
        if not isinstance(move, tuple):
            return None
        steps = []
        for step in move:
            if not (isinstance(step, tuple) and len(step) == 2):
                return None
            for cell in step:
                if type(cell) is not int or cell not in board.NAMES:
                    return None
            steps.append((step[0], step[1]))
        return steps

    def _problem(self, steps: Sequence[Step]) -> IllegalMoveError | None:
        """Why the set of ``steps`` is not a legal turn here, or ``None`` if it is one."""
        if not self.mover:
            return IllegalMoveError(N_("the game is over"))
        p, names = self.mover, self.game.player_names
        who = Term(names[p - 1])
        starts, ends = 0, 0
        for start, end in steps:
            step = f"{board.name(start)}-{board.name(end)}"
            at = {"step": step, "source": board.name(start), "target": board.name(end)}
            if not self.heads[p] >> start & 1:
                owner = self._owner(start)
                if owner and self.heads[owner] >> start & 1:
                    whose = N_("%(step)s: %(source)s is a %(owner)s snake, not %(player)s's")
                    return IllegalMoveError(whose, owner=Term(names[owner - 1]), player=who, **at)
                if owner:
                    blocked = N_("%(step)s: %(source)s is a blocked cell, not a snake")
                    return IllegalMoveError(blocked, **at)
                return IllegalMoveError(N_("%(step)s: there is no snake on %(source)s"), **at)
            if starts >> start & 1:
                return IllegalMoveError(N_("%(step)s: the snake on %(source)s steps twice"), **at)
            if not NEIGHBOURS[start] >> end & 1:
                far = N_("%(step)s: %(target)s is not next to %(source)s")
                return IllegalMoveError(far, **at)
            if not self.empty >> end & 1:
                if self.heads[self._owner(end)] >> end & 1:
                    return IllegalMoveError(N_("%(step)s: %(target)s is not empty (a snake)"), **at)
                return IllegalMoveError(N_("%(step)s: %(target)s is not empty (blocked)"), **at)
            if ends >> end & 1:
                return IllegalMoveError(N_("%(step)s: two snakes step to %(target)s"), **at)
            starts |= 1 << start
            ends |= 1 << end
        if len(steps) != self.k:
            if self.k == 1:
                few = N_("%(player)s must move %(k)s snake this turn, not %(n)s")
            else:
                few = N_("%(player)s must move %(k)s snakes this turn, not %(n)s")
            return IllegalMoveError(few, player=who, k=self.k, n=len(steps))
        return None

    def _owner(self, cell: int) -> int:
        """The player whose snake or trail is on ``cell`` (0 for an empty cell)."""
        for p in PLAYERS:
            if (self.heads[p] | self.trails[p]) >> cell & 1:
                return p
        return 0

    def _click_options(self, chosen: list[Step], pending: int | None) -> list[int]:
        """The cells that may be clicked next (see :meth:`next_clicks`)."""
        used = sum(1 << s for s, _ in chosen)
        empty = self.empty & ~sum(1 << d for _, d in chosen)
        needed = self.k - len(chosen) - 1
        if pending is not None:
            others = [s for s in cells_of(self.heads[self.mover] & ~used) if s != pending]
            return [
                d
                for d in cells_of(NEIGHBOURS[pending] & empty)
                if completable(others, empty & ~(1 << d), needed)
            ]
        free = cells_of(self.heads[self.mover] & ~used)
        options = []
        for s in free:
            others = [o for o in free if o != s]
            targets = NEIGHBOURS[s] & empty
            if any(completable(others, empty & ~(1 << d), needed) for d in cells_of(targets)):
                options.append(s)
        return options

    def _why_not_click(
        self, chosen: list[Step], pending: int | None, click: str
    ) -> IllegalMoveError:
        cell = board.parse_cell(click)
        done = " ".join(board.name(c) for step in chosen for c in step)
        if pending is not None:
            done = f"{done} {board.name(pending)}".strip()
        who = Term(self.game.player_names[self.mover - 1])
        if done:
            where: IllegalMoveError = IllegalMoveError(N_("after %(clicks)s"), clicks=done)
        else:
            where = IllegalMoveError(N_("as the first click"))
        at = {"click": click, "where": where}
        if cell is None:
            at["click"] = repr(click)
            return IllegalMoveError(N_("%(click)s %(where)s: not a cell of the board"), **at)
        if pending is None:
            if not self.heads[self.mover] >> cell & 1:
                mine = N_("%(click)s %(where)s: not one of %(player)s's snakes")
                return IllegalMoveError(mine, player=who, **at)
            if any(s == cell for s, _ in chosen):
                moved = N_("%(click)s %(where)s: that snake has moved already this turn")
                return IllegalMoveError(moved, **at)
            stuck = N_("%(click)s %(where)s: that snake cannot move as part of a full turn now")
            return IllegalMoveError(stuck, **at)
        if not NEIGHBOURS[pending] >> cell & 1:
            far = N_("%(click)s %(where)s: not next to the snake on %(snake)s")
            return IllegalMoveError(far, snake=board.name(pending), **at)
        if not self.empty >> cell & 1 or any(d == cell for _, d in chosen):
            return IllegalMoveError(N_("%(click)s %(where)s: not empty"), **at)
        blocks = N_("%(click)s %(where)s: the other snakes would have no full turn left")
        return IllegalMoveError(blocks, **at)

    def _describe(self, move: Move) -> str:
        steps = self._as_steps(move)
        return repr(move) if steps is None else self.move_str(tuple(steps))


def _perft(state: SnakePitState, depth: int) -> int:
    """Perft on ``state`` (changed and restored): counted, not generated, at the last ply."""
    if not state.mover:
        return 0
    if depth == 1:
        return count_turns(state.heads[state.mover], state.empty, state.k)
    total = 0
    for move in turns(state.heads[state.mover], state.empty, state.k):
        state.apply(move)
        total += _perft(state, depth - 1)
        state.pop()
    return total
