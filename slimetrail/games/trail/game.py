"""Rules of the Slime Trail family: one snail, a trail of slime, two goal corners.

* ``slimetrail`` -- Slimetrail / Rastros on an odd n x n square board (RULES.md section 1).
* ``slimetrail-hex`` -- Bill Taylor's Slime Trail on an n x n hex rhombus (section 2).
* ``slimetrail-square`` -- Square Slime Trail on 8 x 8 (section 3).

``rules=rastros``: any step to a free neighbour; a player with no move loses.
``rules=taylor``: a step to a non-goal cell from which no goal can be reached any more is
illegal; a snail that cannot move is a draw.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any, ClassVar, cast

from slimetrail.core.bits import cells_of
from slimetrail.core.cells import decode_rows, encode_rows
from slimetrail.core.game import (
    PLAYER_LINE,
    AiLadder,
    CellPaint,
    EndReason,
    ExactSolver,
    Game,
    GameOptionError,
    IllegalMoveError,
    InvalidPositionError,
    MarkStyle,
    Move,
    OptionSpec,
    Outcome,
    Shape,
    State,
    not_a_cell,
    off_the_board,
    untranslated,
)
from slimetrail.core.i18n import N_
from slimetrail.core.loading import KernelLoad
from slimetrail.games.trail.board import Board, get_board

RULES = ("rastros", "taylor")
SNAIL, TRAIL = "o", "x"


@cache
def _zobrist(size: int) -> tuple[list[int], list[int], int]:
    """Fixed random keys (one seed for every run) so that ``key()`` is stable."""
    rng = random.Random(0x511E7A11 + size)
    blocked = [rng.getrandbits(64) for _ in range(size)]
    snail = [rng.getrandbits(64) for _ in range(size)]
    return blocked, snail, rng.getrandbits(64)


class TrailGame(Game):
    """A Slime Trail board: geometry, start cell, goal owners and rule set."""

    shape: ClassVar[str]
    marks: ClassVar[dict[str, MarkStyle]] = {
        "snail": MarkStyle(N_("the snail is here"), (Shape("snail"),), token=True),
        "slime": MarkStyle(
            N_("slimed"),
            cell=CellPaint("slime", "slime-stroke", 0.2, "slime-hatch", dark=True),
        ),
        # The goal: the cell's border in the player's line pattern, and a badge with the
        # player's number in the player's shape.
        "goal": MarkStyle(
            N_("goal of %(player)s"),
            (
                Shape(
                    "outline", 0.04, line=PLAYER_LINE, width=0.08, dash="player", css="goal-outline"
                ),
                Shape(
                    "player-shape",
                    0.3,
                    fill="badge",
                    line=PLAYER_LINE,
                    width=0.07,
                    label=True,
                    label_colour=PLAYER_LINE,
                    label_size=0.32,
                    label_drop=0.11,
                    triangle_drop=0.05,
                    group="goal-badge",
                ),
            ),
            per_player=True,
            token=True,
        ),
    }
    end_reasons: ClassVar[dict[str, EndReason]] = {
        "goal": EndReason(N_("the snail reached %(winner)s's goal: %(winner)s wins")),
        "stuck": EndReason(
            N_("%(last)s is stuck: %(verdict)s"), draw=N_("the snail is stuck: a draw")
        ),
    }

    def __init__(self, /, **options: Any) -> None:
        super().__init__(**options)
        self.size: int = self.options["size"]
        self.rules: str = self.options["rules"]
        self.board: Board = get_board(self.shape, self.size)
        start: str = self.options["start"]
        if start == "centre":
            self.start = self.default_start()
        else:
            cell = self.board.parse_cell(start)
            if cell is None:
                off = N_("%(game)s: start=%(start)r is not a cell of the board")
                raise GameOptionError(off, game=self.id, start=start)
            self.start = cell
        # goals[p] is the goal corner owned by player p (index 0 unused).
        self.goals = (0, *self.goal_cells())
        self.goal_mask = (1 << self.goals[1]) | (1 << self.goals[2])
        if self.goal_mask >> self.start & 1:
            corner = N_("%(game)s: the snail cannot start on a goal corner")
            raise GameOptionError(corner, game=self.id)
        self.zobrist = _zobrist(self.size * self.board.width)

    def default_start(self) -> int:
        half = (self.size - 1) // 2
        return self.board.index(half, half)

    def goal_cells(self) -> tuple[int, int]:
        """The goal corners of player 1 and player 2."""
        last = self.size - 1
        return self.board.index(0, 0), self.board.index(last, last)

    def owner(self, cell: int) -> int:
        return 1 if cell == self.goals[1] else 2

    def new_state(self) -> TrailState:
        free = self.board.mask & ~(1 << self.start)
        return TrailState(self, free, self.start, 1)

    def state_from_fen(self, fen: str) -> TrailState:
        parts = fen.split()
        if len(parts) != 2 or parts[1] not in ("1", "2"):
            raise InvalidPositionError(f"position {fen!r}: expected '<rows separated by /> <1|2>'")
        n = self.size
        free = sum(1 << self.board.index(col, row) for col in range(n) for row in range(n))
        snail = []
        for col, row, symbol in decode_rows(fen, parts[0], n, SNAIL + TRAIL):
            index = self.board.index(col, row)
            free &= ~(1 << index)
            if symbol == SNAIL:
                snail.append(index)
        if len(snail) != 1:
            raise InvalidPositionError(f"position {fen!r}: needs exactly one snail '{SNAIL}'")
        blocked_goals = self.goal_mask & ~free & ~(1 << snail[0])
        if blocked_goals:
            raise InvalidPositionError(f"position {fen!r}: a goal corner is slimed")
        return TrailState(self, free, snail[0], int(parts[1]))

    def describe_board(self) -> dict[str, Any]:
        cells = []
        for index in self.board.cells():
            x, y = self.board.centre(index)
            cells.append({"name": self.board.name(index), "x": round(x, 4), "y": round(y, 4)})
        return {
            "shape": self.shape,
            "size": self.size,
            "cells": cells,
            "goals": {str(p): self.board.name(self.goals[p]) for p in (1, 2)},
            "start": self.board.name(self.start),
        }

    def exact_solver(self) -> ExactSolver:
        from slimetrail.games.trail.solver import SOLVER

        return SOLVER

    @classmethod
    def warm_up(cls) -> None:
        warm_up_kernels()

    def ai_ladder(self) -> AiLadder:
        # Alpha-beta with the trail evaluation, and the exact solver at the top level.
        from slimetrail.games.trail.ladder import TRAIL_LADDER

        return TRAIL_LADDER


class SlimetrailGame(TrailGame):
    id = "slimetrail"
    title = N_("Slimetrail (Rastros)")
    shape = "square"
    # Players go by the colour they wear, as in every other game (one naming scheme).
    player_names = (N_("Green"), N_("Red"))
    option_specs = (
        OptionSpec("size", 7, help=N_("board size n (odd)"), low=5, high=15, step=2),
        OptionSpec("rules", "rastros", RULES, N_("rastros: stuck player loses; taylor: see RULES")),
        OptionSpec("start", "centre", (), N_("start cell (Portuguese Rastros: e5)")),
    )
    presets: ClassVar[dict[str, dict[str, str]]] = {"portuguese": {"start": "e5"}}
    preset_names: ClassVar[dict[str, str]] = {"portuguese": N_("Portuguese")}


class SquareSlimeTrailGame(TrailGame):
    id = "slimetrail-square"
    title = N_("Square Slime Trail")
    shape = "square"
    player_names = (N_("Green"), N_("Red"))
    option_specs = (
        OptionSpec("size", 8, help=N_("board size n"), low=5, high=15),
        OptionSpec("rules", "taylor", RULES, N_("taylor: goal must stay reachable; rastros")),
        OptionSpec("start", "centre", (), N_("start cell (default e5 on 8x8)")),
    )

    def default_start(self) -> int:
        # Even n: one step towards player 2's corner from the centre (e5 on 8x8).
        half = self.size // 2
        return self.board.index(half, half)


class HexSlimeTrailGame(TrailGame):
    id = "slimetrail-hex"
    title = N_("Slime Trail (hex)")
    shape = "hex"
    player_names = (N_("Green"), N_("Red"))
    option_specs = (
        OptionSpec("size", 10, help=N_("board size n"), low=4, high=15),
        OptionSpec("rules", "taylor", RULES, N_("taylor: goal must stay reachable; rastros")),
        OptionSpec("start", "centre", (), N_("start cell (default e5 on 10x10)")),
    )

    def default_start(self) -> int:
        # Column and row n/2 counted from 1 for even n (e5 on 10x10); centre for odd n.
        half = (self.size - 1) // 2
        return self.board.index(half, half)

    def goal_cells(self) -> tuple[int, int]:
        last = self.size - 1
        # Green (player 1) owns the far corner nn, Red (player 2) owns a1.
        return self.board.index(last, last), self.board.index(0, 0)


class TrailState(State):
    """A Slime Trail position: the empty cells, the snail's cell and the side to move."""

    __slots__ = ("_first_player", "_key", "_trail", "free", "game", "snail")

    def __init__(self, game: TrailGame, free: int, snail: int, to_move: int) -> None:
        self.game: TrailGame = game
        self.free = free & ~(1 << snail)
        self.snail = snail
        self._first_player = to_move
        self._trail: list[int] = []  # snail cells before each pushed move
        blocked_keys, snail_keys, side_key = game.zobrist
        key = snail_keys[snail] ^ (side_key if to_move == 2 else 0)
        blocked = game.board.mask & ~self.free & ~(1 << snail)
        while blocked:
            low = blocked & -blocked
            key ^= blocked_keys[low.bit_length() - 1]
            blocked ^= low
        self._key = key

    # -- the interface ---------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._first_player if len(self._trail) % 2 == 0 else 3 - self._first_player

    @property
    def move_stack(self) -> list[Move]:
        moves: list[Move] = [*self._trail[1:], self.snail]
        return moves[: len(self._trail)]

    def legal_moves(self) -> list[Move]:
        # A fresh list of cells: no copy needed to hand it out as moves.
        return cast("list[Move]", cells_of(self.legal_mask()))

    def legal_mask(self) -> int:
        """The legal destinations as a bitboard."""
        game = self.game
        if self.game.goal_mask >> self.snail & 1:
            return 0
        steps = game.board.neighbours[self.snail] & self.free
        if game.rules == "rastros":
            return steps
        # Taylor: a step may go to a goal, or to a cell from which a goal can still be reached;
        # that is a cell in the same component of the free cells as a goal, so one flood fill
        # from the goals decides every step at once.
        return steps & game.board.reachable(game.goal_mask & self.free, self.free)

    def push(self, move: Move) -> None:
        # bool is an int subclass and a negative shift raises: both are just not moves.
        if type(move) is not int or move < 0 or not (self.legal_mask() >> move & 1):
            raise IllegalMoveError(
                N_("%(move)s is not a legal move here"), move=self._describe(move)
            )
        blocked_keys, snail_keys, side_key = self.game.zobrist
        self._key ^= snail_keys[self.snail] ^ blocked_keys[self.snail] ^ snail_keys[move] ^ side_key
        self._trail.append(self.snail)
        self.free &= ~(1 << move)
        self.snail = move

    def pop(self) -> Move:
        if not self._trail:
            raise IndexError("pop from a position with no moves")
        move = self.snail
        self.snail = self._trail.pop()
        self.free |= 1 << move
        blocked_keys, snail_keys, side_key = self.game.zobrist
        self._key ^= snail_keys[self.snail] ^ blocked_keys[self.snail] ^ snail_keys[move] ^ side_key
        return move

    def outcome(self) -> Outcome | None:
        game = self.game
        if game.goal_mask >> self.snail & 1:
            return Outcome.win(game.owner(self.snail), reason="goal")
        if self.legal_mask():
            return None
        if game.rules == "rastros":
            return Outcome.win(3 - self.to_move, reason="stuck")
        return Outcome.draw(reason="stuck")

    def move_str(self, move: Move) -> str:
        return self.game.board.name(move)  # type: ignore[arg-type]

    def parse_move(self, text: str) -> Move:
        board = self.game.board
        token = text.strip().lower()
        if token in board.directions:
            cell = board.step(self.snail, token)
            if cell is None:
                raise off_the_board(token, board.name(self.snail))
        else:
            found = board.parse_cell(token)
            if found is None:
                raise not_a_cell(text, board.n, board.directions)
            cell = found
        if not (self.legal_mask() >> cell & 1):
            raise self._why_illegal(cell)
        return cell

    def fen(self) -> str:
        board = self.game.board

        def symbol_at(col: int, row: int) -> str:
            index = board.index(col, row)
            if self.free >> index & 1:
                return ""
            return SNAIL if index == self.snail else TRAIL

        return f"{encode_rows(self.game.size, symbol_at)} {self.to_move}"

    def key(self) -> int:
        return self._key

    def copy(self) -> TrailState:
        clone = TrailState.__new__(TrailState)
        clone.game, clone.free, clone.snail = self.game, self.free, self.snail
        clone._first_player, clone._trail, clone._key = (
            self._first_player,
            list(self._trail),
            self._key,
        )
        return clone

    def view(self) -> dict[str, Any]:
        board, game = self.game.board, self.game
        marks: dict[str, list[str]] = {}
        for player in (1, 2):
            marks.setdefault(board.name(game.goals[player]), []).append(f"goal-{player}")
        blocked = board.mask & ~self.free & ~(1 << self.snail)
        for index in cells_of(blocked):
            marks.setdefault(board.name(index), []).append("slime")
        marks.setdefault(board.name(self.snail), []).append("snail")
        return {
            "marks": marks,
            "path": [board.name(i) for i in [*self._trail, self.snail]],
            "last": [board.name(self.snail)] if self._trail else [],
        }

    def text_board(self, gettext: Callable[[str], str] = untranslated) -> str:
        """The board alone: no words to translate."""
        from slimetrail.games.trail.text import draw_board

        return draw_board(self)

    def perft(self, depth: int) -> int:
        from slimetrail.games.trail.perft import perft

        return perft(self, depth)

    def evaluate(self) -> float:
        from slimetrail.games.trail.eval import evaluate

        return evaluate(self)

    # -- helpers ---------------------------------------------------------------------

    def _describe(self, move: Move) -> str:
        board = self.game.board
        if isinstance(move, int) and 0 <= move < len(board.neighbours) and board.mask >> move & 1:
            return board.name(move)
        return repr(move)

    def _why_illegal(self, cell: int) -> IllegalMoveError:
        board, name = self.game.board, self.game.board.name(cell)
        if self.outcome() is not None:
            return IllegalMoveError(N_("%(cell)s: the game is over"), cell=name)
        if cell == self.snail:
            return IllegalMoveError(N_("%(cell)s: the snail is already there"), cell=name)
        if not board.neighbours[self.snail] >> cell & 1:
            return IllegalMoveError(
                N_("%(cell)s is not next to the snail on %(snail)s"),
                cell=name,
                snail=board.name(self.snail),
            )
        if not self.free >> cell & 1:
            return IllegalMoveError(N_("%(cell)s is slimed"), cell=name)
        return IllegalMoveError(
            N_("%(cell)s: no goal corner could be reached from there (Taylor's rule)"), cell=name
        )


def load_kernels() -> None:
    """The solver's kernels and the big boards' compiled search (every Slime Trail game
    shares them)."""
    from slimetrail.games.trail import mcts_kernel, search_kernel, solver

    solver.warm_up()
    # The alpha-beta kernel itself: a whole move of the top level from the 9x9 start would be
    # the opening book's, and the first timed move would then load (or compile) it.
    search_kernel.search(SlimetrailGame(size="9").new_state(), 0.05)
    mcts_kernel.warm_up()


KERNELS = KernelLoad(load_kernels, "Slime Trail kernels")
warm_up_kernels = KERNELS.run  # once per process
kernels_loaded = KERNELS.ready  # loading them in the background if not
