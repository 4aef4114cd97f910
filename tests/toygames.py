"""Two toy games that exercise what the Slime Trail games do not: three players, compound
moves, ``pass`` and the pie ``swap``.  Registered in tests only (``register_toys()``, or
``SLIMETRAIL_GAMES=toygames`` with this folder on ``PYTHONPATH`` for a server subprocess),
they go through the web, the records, the terminal game and the AI like any game.

* ``toy-three`` -- three players take turns claiming an empty cell of a 4x3 board; when the
  board is full, each player scores one point per pair of orthogonally adjacent own cells and
  the players are ranked by score (equal scores share a place).
* ``toy-pie`` -- two players, Black and White, on a 4x4 board: place a stone on an empty
  cell, or step one of your stones to an empty neighbour (king step) and then place a stone
  on another empty cell (not the one just left); three in a row (any direction) wins.  After
  Black's first move White may ``swap``: the colours are exchanged and the player who moved
  first moves next, now as White.  With no empty cell the player to move must ``pass``; two
  passes in a row are a draw.
* ``toy-flags`` -- two players plant flags on the empty cells of a 3x3 board; who plants one
  on the summit (the centre, or the cell the ``summit`` option names) wins, else the full
  board is a draw.  Its flag mark, its endings and its option are declared nowhere but here:
  the proof that a game brings its own marks, endings and options to every front end.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from slimetrail.core.game import (
    PLAYER,
    PLAYER_LINE,
    STONE,
    EndReason,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    MarkStyle,
    Move,
    OptionSpec,
    Outcome,
    Shape,
    State,
    TurnShape,
)
from slimetrail.core.registry import GAMES, register

FILES = "abcdefgh"


class GridGame(Game):
    """A small square grid; cell (c, r) is index r * cols + c, named like a chess square."""

    cols: ClassVar[int]
    rows: ClassVar[int]
    marks: ClassVar = {"stone": STONE}

    def name(self, cell: int) -> str:
        return f"{FILES[cell % self.cols]}{cell // self.cols + 1}"

    def cell(self, text: str) -> int | None:
        text = text.strip().lower()
        if (
            len(text) < 2
            or text[0] not in FILES[: self.cols]
            or not (text[1:].isascii() and text[1:].isdecimal())
        ):
            return None
        row = int(text[1:]) - 1
        return row * self.cols + FILES.index(text[0]) if 0 <= row < self.rows else None

    def describe_board(self) -> dict[str, Any]:
        cells = [
            {"name": self.name(i), "x": i % self.cols, "y": self.rows - 1 - i // self.cols}
            for i in range(self.cols * self.rows)
        ]
        return {"shape": "square", "size": self.cols, "cells": cells}

    def neighbours(self, cell: int, diagonal: bool) -> list[int]:
        c, r = cell % self.cols, cell // self.cols
        steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
        if diagonal:
            steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        return [
            (r + dr) * self.cols + c + dc
            for dc, dr in steps
            if 0 <= c + dc < self.cols and 0 <= r + dr < self.rows
        ]


class GridState(State):
    """Owners of the cells (0 empty) and a move stack; subclasses add the rules."""

    game: GridGame

    def __init__(self, game: GridGame, owners: list[int], to_move: int) -> None:
        self.game = game
        self.owners = owners
        self.first = to_move
        self.stack: list[Move] = []

    @property
    def move_stack(self) -> list[Move]:
        return list(self.stack)

    def key(self) -> int:
        # A fixed polynomial over the fen: stable across runs (no salted str hash).
        value = 0
        for ch in self.fen():
            value = (value * 1_000_003 + ord(ch)) % (1 << 64)
        return value

    def text_board(self, gettext=None) -> str:
        game = self.game
        lines = []
        for r in range(game.rows - 1, -1, -1):
            row = " ".join(".123"[self.owners[r * game.cols + c]] for c in range(game.cols))
            lines.append(f"{r + 1} {row}")
        lines.append("  " + " ".join(FILES[: game.cols]))
        return "\n".join(lines)

    def marks(self) -> dict[str, list[str]]:
        return {self.game.name(i): [f"stone-{p}"] for i, p in enumerate(self.owners) if p}

    def parse_cell(self, text: str) -> int:
        cell = self.game.cell(text)
        if cell is None:
            raise InvalidMoveError(f"{text.strip()!r} is not a cell of the board")
        return cell


class ToyThreeGame(GridGame):
    id = "toy-three"
    title = "Toy for three"
    num_players = 3
    player_names = ("Green", "Blue", "Red")
    player_colours = ("green", "blue", "red")
    zero_sum = False
    cols, rows = 4, 3
    end_reasons: ClassVar = {"board full": EndReason("the board is full: %(verdict)s")}

    @classmethod
    def rules_fragment(cls) -> str:
        return (
            "<h1>Toy for three</h1><p>Claim an empty cell; when the board is full, each pair "
            "of adjacent own cells scores a point.</p>"
            '{{ diagram("toy-three", moves="a1 b1 c1", label="Three cells claimed", '
            'caption="Green, Blue and Red have each claimed a cell.") }}'
            '{{ diagram("toy-three", moves="a1 b1 c1 a2 b2 c2 a3 b3 c3 d1 d2 d3", '
            'label="A full board", caption="Green scores 2, Blue 1, Red 1.") }}'
        )

    def new_state(self) -> ToyThreeState:
        return ToyThreeState(self, [0] * 12, 1)

    def state_from_fen(self, fen: str) -> ToyThreeState:
        cells, _, mover = fen.partition(" ")
        if len(cells) != 12 or set(cells) - set("0123") or mover not in ("1", "2", "3"):
            raise InvalidPositionError(f"position {fen!r}: expected 12 of 0-3 and the mover")
        owners = [int(ch) for ch in cells]
        filled = sum(1 for p in owners if p)
        if (filled % 3) + 1 != int(mover):
            raise InvalidPositionError(f"position {fen!r}: player {mover} cannot be to move")
        return ToyThreeState(self, owners, int(mover))


class ToyThreeState(GridState):
    @property
    def to_move(self) -> int:
        return (self.first - 1 + len(self.stack)) % 3 + 1

    def legal_moves(self) -> list[Move]:
        return [i for i, p in enumerate(self.owners) if not p]

    def push(self, move: Move) -> None:
        if type(move) is not int or not 0 <= move < 12 or self.owners[move]:
            raise IllegalMoveError(f"{move!r} is not an empty cell")
        self.owners[move] = self.to_move
        self.stack.append(move)

    def pop(self) -> Move:
        move = self.stack.pop()
        self.owners[move] = 0
        return move

    def scores(self) -> list[int]:
        points = [0, 0, 0, 0]
        for cell, player in enumerate(self.owners):
            points[player] += sum(
                1
                for n in self.game.neighbours(cell, False)
                if n > cell and self.owners[n] == player
            )
        return points[1:]

    def outcome(self) -> Outcome | None:
        if not all(self.owners):
            return None
        points = self.scores()
        order = sorted(set(points), reverse=True)
        groups = [[p + 1 for p in range(3) if points[p] == value] for value in order]
        return Outcome.ranking(groups, reason="board full")

    def move_str(self, move: Move) -> str:
        return self.game.name(move)  # type: ignore[arg-type]

    def parse_move(self, text: str) -> Move:
        cell = self.parse_cell(text)
        if self.owners[cell]:
            raise IllegalMoveError(f"{self.game.name(cell)} is taken")
        return cell

    def fen(self) -> str:
        return "".join(map(str, self.owners)) + f" {self.to_move}"

    def copy(self) -> ToyThreeState:
        clone = ToyThreeState(self.game, list(self.owners), self.first)
        clone.stack = list(self.stack)
        return clone

    def view(self) -> dict[str, Any]:
        last = [self.game.name(self.stack[-1])] if self.stack else []  # type: ignore[arg-type]
        return {"marks": self.marks(), "path": [], "last": last}


# toy-pie moves: ("place", cell), ("step", from, to, cell), "pass", "swap".
PASS, SWAP = "pass", "swap"


class ToyPieGame(GridGame):
    id = "toy-pie"
    title = "Toy with pie and pass"
    player_names = ("Black", "White")
    player_colours = ("black", "white")
    turn = TurnShape(max_clicks=3, actions=(SWAP, PASS))
    cols, rows = 4, 4
    end_reasons: ClassVar = {
        "three in a row": EndReason("%(winner)s made three in a row"),
        "two passes": EndReason("nobody could place a stone: a draw"),
    }

    @classmethod
    def rules_fragment(cls) -> str:
        return (
            "<h1>Toy with pie and pass</h1><p>Place a stone, or step one of yours and then "
            "place; three in a row wins. White may swap after the first move.</p>"
            '{{ diagram("toy-pie", moves="b2 c3", legal=true, label="After two moves", '
            'caption="Black to move.") }}'
            '{{ diagram("toy-pie", moves="a1 swap", label="After a swap", '
            'caption="White took over the first stone.") }}'
        )

    def new_state(self) -> ToyPieState:
        return ToyPieState(self, [0] * 16, 1)

    def state_from_fen(self, fen: str) -> ToyPieState:
        # "<16 owners by colour: 0 empty, 1 black, 2 white> <mover> <flags>": flags hold
        # "s" once swapped, "o" while the swap is on offer, "p" after a pass.
        parts = fen.split()
        if len(parts) != 3 or len(parts[0]) != 16 or set(parts[0]) - set("012"):
            raise InvalidPositionError(f"position {fen!r}: expected '<16 of 0-2> <1|2> <flags>'")
        if parts[1] not in ("1", "2") or set(parts[2]) - set("sop-"):
            raise InvalidPositionError(f"position {fen!r}: bad mover or flags")
        state = ToyPieState(self, [int(ch) for ch in parts[0]], int(parts[1]))
        state.swapped, state.offer, state.passed = (
            "s" in parts[2],
            "o" in parts[2],
            "p" in parts[2],
        )
        return state


class ToyPieState(GridState):
    """Owners are COLOURS (1 black, 2 white); player 1 is black until a swap."""

    def __init__(self, game: GridGame, owners: list[int], to_move: int) -> None:
        super().__init__(game, owners, to_move)
        self.mover = to_move
        self.swapped = False
        self.offer = False
        self.passed = False
        self.undo: list[tuple[int, bool, bool, bool]] = []

    @property
    def to_move(self) -> int:
        return self.mover

    def colour_of(self, player: int) -> int:
        return 3 - player if self.swapped else player

    def colours(self) -> tuple[str, ...]:
        names = self.game.player_colours
        return (names[1], names[0]) if self.swapped else names

    def winner_colour(self) -> int | None:
        g = self.game
        for cell, colour in enumerate(self.owners):
            if not colour:
                continue
            c, r = cell % g.cols, cell // g.cols
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                line = [(c + k * dc, r + k * dr) for k in range(3)]
                if all(0 <= x < g.cols and 0 <= y < g.rows for x, y in line) and all(
                    self.owners[y * g.cols + x] == colour for x, y in line
                ):
                    return colour
        return None

    def legal_moves(self) -> list[Move]:
        if self.outcome() is not None:
            return []
        empty = [i for i, p in enumerate(self.owners) if not p]
        if not empty:
            return [PASS]
        mine = self.colour_of(self.mover)
        moves: list[Move] = [("place", c) for c in empty]
        for origin, colour in enumerate(self.owners):
            if colour != mine:
                continue
            for target in self.game.neighbours(origin, True):
                if not self.owners[target]:
                    moves += [("step", origin, target, c) for c in empty if c != target]
        if self.offer:
            moves.append(SWAP)
        return moves

    def push(self, move: Move) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"{move!r} is not a legal move here")
        self.undo.append((self.mover, self.swapped, self.offer, self.passed))
        colour = self.colour_of(self.mover)
        if move == SWAP:
            self.swapped = True
        elif move != PASS:
            assert isinstance(move, tuple)
            if move[0] == "step":
                self.owners[move[1]], self.owners[move[2]] = 0, colour
            self.owners[move[-1]] = colour
        first_move = not self.stack
        self.passed = move == PASS
        self.offer = first_move
        # Players alternate: after a swap the player who moved first moves again, as White.
        self.mover = 3 - self.mover
        self.stack.append(move)

    def pop(self) -> Move:
        move = self.stack.pop()
        self.mover, self.swapped, self.offer, self.passed = self.undo.pop()
        colour = self.colour_of(self.mover)
        if isinstance(move, tuple):
            self.owners[move[-1]] = 0
            if move[0] == "step":
                self.owners[move[1]], self.owners[move[2]] = colour, 0
        return move

    def outcome(self) -> Outcome | None:
        colour = self.winner_colour()
        if colour is not None:
            player = 1 if self.colour_of(1) == colour else 2
            return Outcome.win(player, reason="three in a row")
        if self.passed and self.stack[-2:] == [PASS, PASS]:
            return Outcome.draw(reason="two passes")
        return None

    def move_str(self, move: Move) -> str:
        if isinstance(move, str):
            return move
        name = self.game.name
        if move[0] == "place":
            return name(move[1])
        return f"{name(move[1])}-{name(move[2])}/{name(move[3])}"

    def click_path(self, move: Move) -> list[str]:
        if isinstance(move, str):
            return [move]
        return [self.game.name(c) for c in move[1:]]

    def parse_move(self, text: str) -> Move:
        word = text.strip().lower()
        move: Move
        if word in (PASS, SWAP):
            move = word
        elif "-" in word:
            step, _, place = word.partition("/")
            origin, _, target = step.partition("-")
            move = ("step", *(self.parse_cell(t) for t in (origin, target, place)))
        else:
            move = ("place", self.parse_cell(word))
        if move not in self.legal_moves():
            raise IllegalMoveError(f"{text.strip()} is not a legal move here")
        return move

    def fen(self) -> str:
        flags = "".join(
            f for f, on in (("s", self.swapped), ("o", self.offer), ("p", self.passed)) if on
        )
        return f"{''.join(map(str, self.owners))} {self.mover} {flags or '-'}"

    def copy(self) -> ToyPieState:
        clone = self.game.state_from_fen(self.fen())
        assert isinstance(clone, ToyPieState)
        clone.stack, clone.undo = list(self.stack), list(self.undo)
        return clone

    def view(self) -> dict[str, Any]:
        # Marks use player numbers: a stone of colour c belongs to the player wearing c.
        marks = {
            self.game.name(i): [f"stone-{1 if self.colour_of(1) == c else 2}"]
            for i, c in enumerate(self.owners)
            if c
        }
        last: list[str] = []
        if self.stack and isinstance(self.stack[-1], tuple):
            last = self.click_path(self.stack[-1])[1:]
        return {"marks": marks, "path": [], "last": last}


class ToyFlagsGame(GridGame):
    id = "toy-flags"
    title = "Toy with flags"
    player_names = ("Gold", "Sky")
    player_colours = ("orange", "sky")
    cols, rows = 3, 3
    option_specs = (
        OptionSpec("summit", "b2", ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")),
    )
    # A mark no other game has: a flag, the player's shape on a ring in the player's pattern.
    marks: ClassVar = {
        "flag": MarkStyle(
            "flag of %(player)s",
            (
                Shape("ring", 0.4, line=PLAYER_LINE, width=0.06, dash="player", css="toy-flag"),
                Shape("player-shape", 0.2, fill=PLAYER, line="stone-outline", width=0.03),
            ),
            per_player=True,
            token=True,
        ),
    }
    end_reasons: ClassVar = {
        "summit": EndReason("%(winner)s planted a flag on the summit, %(summit)s"),
        "all planted": EndReason("every cell has a flag and nobody holds the summit: a draw"),
    }

    @classmethod
    def rules_fragment(cls) -> str:
        return (
            "<h1>Toy with flags</h1><p>Plant a flag on an empty cell; a flag on the summit "
            "(b2 unless the summit option says otherwise) wins.</p>"
            '{{ diagram("toy-flags", moves="a1 c3", label="Two flags", '
            'caption="Gold and Sky have each planted a flag.") }}'
            '{{ diagram("toy-flags", moves="a1 b2", label="The summit taken", '
            'caption="Sky planted a flag on the summit and wins.") }}'
        )

    def new_state(self) -> ToyFlagsState:
        return ToyFlagsState(self, [0] * 9, 1)

    def state_from_fen(self, fen: str) -> ToyFlagsState:
        cells, _, mover = fen.partition(" ")
        if len(cells) != 9 or set(cells) - set("012") or mover not in ("1", "2"):
            raise InvalidPositionError(f"position {fen!r}: expected 9 of 0-2 and the mover")
        return ToyFlagsState(self, [int(ch) for ch in cells], int(mover))


class ToyFlagsState(ToyThreeState):
    game: ToyFlagsGame

    @property
    def to_move(self) -> int:
        return (self.first - 1 + len(self.stack)) % 2 + 1

    def legal_moves(self) -> list[Move]:
        return [] if self.outcome() else super().legal_moves()

    def push(self, move: Move) -> None:
        if self.outcome() is not None:
            raise IllegalMoveError("the game is over")
        super().push(move)

    def outcome(self) -> Outcome | None:
        summit = self.game.cell(self.game.options["summit"])
        assert summit is not None  # the option's choices are the cells
        holder = self.owners[summit]
        if holder:
            return Outcome.win(holder, reason="summit")
        return Outcome.draw(reason="all planted") if all(self.owners) else None

    def copy(self) -> ToyFlagsState:
        clone = ToyFlagsState(self.game, list(self.owners), self.first)
        clone.stack = list(self.stack)
        return clone

    def view(self) -> dict[str, Any]:
        view = super().view()
        view["marks"] = {self.game.name(i): [f"flag-{p}"] for i, p in enumerate(self.owners) if p}
        return view


TOYS = (ToyThreeGame, ToyPieGame, ToyFlagsGame)


def register_toys() -> None:
    for cls in TOYS:
        if cls.id not in GAMES:
            register(cls)


def random_playout(state: State, rng: random.Random) -> Outcome:
    """Play random moves to the end (the state is left finished)."""
    while (outcome := state.outcome()) is None:
        state.push(rng.choice(state.legal_moves()))
    return outcome


register_toys()
