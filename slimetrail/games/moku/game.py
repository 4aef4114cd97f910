"""Rules of Slime-Moku (RULES.md section 4): the slime writes k in a row.

One slime walks the board by king steps to empty cells; every cell it leaves receives a stone
of the mover's colour (player 1 Black, player 2 White).  A slime with no empty neighbour at
the start of a turn is lifted to any empty cell instead (the cell it leaves still takes the
mover's stone).  k or more of one's own stones in a row (orthogonal or diagonal) win; a board
without an empty cell and without a row is a draw.

Since every move fills exactly one empty cell and a position without an empty cell is over,
the player to move in a running game always has a legal move: no pass rule is needed.

A position is two stone bitboards, the slime's cell and the side to move; a move is the
slime's destination cell (an int index of :mod:`slimetrail.games.moku.board`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any, ClassVar, cast

from slimetrail.core.bits import cells_of
from slimetrail.core.cells import decode_rows, encode_rows
from slimetrail.core.game import (
    NEXT_STONE,
    STONE,
    WIN_RING,
    AiLadder,
    EndReason,
    ExactSolver,
    Game,
    IllegalMoveError,
    InvalidPositionError,
    MarkStyle,
    Move,
    OptionSpec,
    Outcome,
    Shape,
    State,
    TurnShape,
    not_a_cell,
    off_the_board,
    untranslated,
)
from slimetrail.core.i18n import N_
from slimetrail.games.moku.board import DIRECTIONS, MokuBoard, get_board

# Position string symbols: Black (player 1), White (player 2), the slime.
BLACK, WHITE, SLIME = "x", "o", "@"


@cache
def _zobrist(cells: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """Fixed random keys (one seed for every run and board), so that ``key()`` is stable."""
    rng = random.Random(0x51A1E0C0 + cells)
    black = tuple(rng.getrandbits(64) for _ in range(cells))
    white = tuple(rng.getrandbits(64) for _ in range(cells))
    slime = tuple(rng.getrandbits(64) for _ in range(cells))
    return black, white, slime, rng.getrandbits(64)


class SlimeMokuGame(Game):
    id = "slime-moku"
    title = N_("Slime-Moku")
    player_names = (N_("Black"), N_("White"))
    player_colours = ("black", "white")
    turn = TurnShape()
    option_specs = (
        OptionSpec("size", 15, help=N_("board size n (4 to 19)"), low=4, high=19),
        OptionSpec("k", 5, (4, 5), N_("stones in a row that win")),
    )
    marks: ClassVar[dict[str, MarkStyle]] = {
        "stone": STONE,
        "win": WIN_RING,
        "next": NEXT_STONE,
        # The slime that moves from stone to stone is drawn as a snail.
        "snail": MarkStyle(N_("the snail is here"), (Shape("snail"),), token=True),
    }
    end_reasons: ClassVar[dict[str, EndReason]] = {
        "row": EndReason(N_("%(winner)s made %(k)s in a row")),
        "full": EndReason(N_("the board is full: a draw")),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.size: int = self.options["size"]
        self.k: int = self.options["k"]
        self.board: MokuBoard = get_board(self.size, self.k)
        # The centre on odd boards; up and right of the centre point on even ones (c3 on 4x4).
        self.start = self.board.index(self.size // 2, self.size // 2)
        self.zobrist = _zobrist(self.size * self.board.width)

    def new_state(self) -> MokuState:
        return MokuState(self, 0, 0, self.start, 1)

    def state_from_fen(self, fen: str) -> MokuState:
        """``<rows from the top, separated by '/'> <1|2>``: ``x`` a black stone, ``o`` a white
        one, ``@`` the slime, a number that many empty cells (e.g. ``4/4/2@1/4 1``)."""
        board, n = self.board, self.size
        parts = fen.split()
        if len(parts) != 2 or parts[1] not in ("1", "2"):
            raise InvalidPositionError(f"position {fen!r}: expected '<rows separated by /> <1|2>'")
        black = white = 0
        slimes = []
        for col, row, symbol in decode_rows(fen, parts[0], n, BLACK + WHITE + SLIME):
            index = board.index(col, row)
            if symbol == BLACK:
                black |= 1 << index
            elif symbol == WHITE:
                white |= 1 << index
            else:
                slimes.append(index)
        if len(slimes) != 1:
            raise InvalidPositionError(f"position {fen!r}: needs exactly one slime '{SLIME}'")
        to_move = int(parts[1])
        # Black moves first and every move writes one stone of the mover's colour.
        expected = 1 if black.bit_count() == white.bit_count() else 2
        if black.bit_count() - white.bit_count() not in (0, 1) or to_move != expected:
            raise InvalidPositionError(
                f"position {fen!r}: {black.bit_count()} black and {white.bit_count()} white "
                f"stones cannot have player {to_move} to move"
            )
        rows_of = [board.has_row(black), board.has_row(white)]
        if rows_of[to_move - 1]:
            raise InvalidPositionError(
                f"position {fen!r}: the player to move already has {self.k} in a row"
            )
        return MokuState(self, black, white, slimes[0], to_move)

    @classmethod
    def warm_up(cls) -> None:
        from slimetrail.games.moku.ai import TREE_KERNELS

        TREE_KERNELS.run()

    def ai_ladder(self) -> AiLadder:
        # Alpha-beta over the bitboards with the threat search at the root; the top level a
        # compiled tree search (mcts.py).
        from slimetrail.games.moku.ai import LADDER

        return LADDER

    def exact_solver(self) -> ExactSolver | None:
        """The compiled solver of boards up to 7x7 (:mod:`.solver`), ``None`` on bigger ones."""
        from slimetrail.games.moku.solver import SOLVER

        return SOLVER if SOLVER.can_solve(self) else None

    def describe_board(self) -> dict[str, Any]:
        board = self.board
        cells = []
        for index in board.cells():
            col, row = board.coords(index)
            cells.append({"name": board.name(index), "x": col, "y": self.size - 1 - row})
        return {
            "shape": "square",
            "size": self.size,
            "k": self.k,
            "cells": cells,
            "start": board.name(self.start),
        }


class MokuState(State):
    """A Slime-Moku position: black and white stone bitboards, the slime, the side to move."""

    __slots__ = (
        "_first_player",
        "_key",
        "_left",
        "_result",
        "black",
        "empty",
        "game",
        "slime",
        "white",
    )

    def __init__(
        self, game: SlimeMokuGame, black: int, white: int, slime: int, to_move: int
    ) -> None:
        self.game: SlimeMokuGame = game
        board = game.board
        self.black, self.white, self.slime = black, white, slime
        self.empty = board.mask & ~black & ~white & ~(1 << slime)
        self._first_player = to_move
        self._left: list[int] = []  # the slime's cell before each pushed move
        black_keys, white_keys, slime_keys, side_key = game.zobrist
        key = slime_keys[slime] ^ (side_key if to_move == 2 else 0)
        for cell in cells_of(black):
            key ^= black_keys[cell]
        for cell in cells_of(white):
            key ^= white_keys[cell]
        self._key = key
        # A position set up by fen may be over already: the player who just moved has a row.
        self._result: Outcome | None = None
        if board.has_row(white if to_move == 1 else black):
            self._result = Outcome.win(3 - to_move, reason="row")
        elif not self.empty:
            self._result = Outcome.draw(reason="full")

    # -- the interface ---------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._first_player if len(self._left) % 2 == 0 else 3 - self._first_player

    @property
    def move_stack(self) -> list[Move]:
        moves: list[Move] = [*self._left[1:], self.slime]
        return moves[: len(self._left)]

    def legal_mask(self) -> int:
        """The legal destinations as a bitboard: empty neighbours, else (stuck) every empty
        cell; nothing once the game is over."""
        if self._result is not None:
            return 0
        steps = self.game.board.neighbours[self.slime] & self.empty
        return steps or self.empty

    def is_stuck(self) -> bool:
        """Whether the game goes on and the slime has no empty neighbour (it will be lifted)."""
        return self._result is None and not self.game.board.neighbours[self.slime] & self.empty

    def legal_moves(self) -> list[Move]:
        # A fresh list of cells: no copy needed to hand it out as moves.
        return cast("list[Move]", cells_of(self.legal_mask()))

    def push(self, move: Move) -> None:
        # bool is an int subclass and a negative shift raises: both are just not moves.
        if type(move) is not int or move < 0 or not (self.legal_mask() >> move & 1):
            raise IllegalMoveError(
                N_("%(move)s is not a legal move here"), move=self._describe(move)
            )
        left = self.slime
        bit = 1 << left
        black_keys, white_keys, slime_keys, side_key = self.game.zobrist
        mover = self.to_move
        if mover == 1:
            self.black |= bit
            mine = self.black
            stone_key = black_keys[left]
        else:
            self.white |= bit
            mine = self.white
            stone_key = white_keys[left]
        self._key ^= stone_key ^ slime_keys[left] ^ slime_keys[move] ^ side_key
        self.empty &= ~(1 << move)
        self._left.append(left)
        self.slime = move
        if self.game.board.makes_row(mine, left):
            self._result = Outcome.win(mover, reason="row")
        elif not self.empty:
            self._result = Outcome.draw(reason="full")

    def pop(self) -> Move:
        if not self._left:
            raise IndexError("pop from a position with no moves")
        move = self.slime
        left = self._left.pop()
        bit = 1 << left
        black_keys, white_keys, slime_keys, side_key = self.game.zobrist
        if self.to_move == 1:
            self.black &= ~bit
            stone_key = black_keys[left]
        else:
            self.white &= ~bit
            stone_key = white_keys[left]
        self._key ^= stone_key ^ slime_keys[left] ^ slime_keys[move] ^ side_key
        self.empty |= 1 << move
        self.slime = left
        # A position reached by a move was running before it (moves end at the game's end).
        self._result = None
        return move

    def outcome(self) -> Outcome | None:
        return self._result

    def can_win(self, player: int) -> bool:
        """Whether some k-window still holds none of the opponent's stones (the slime's cell
        counts as free: the stone it leaves may be anyone's).  Without one, a row is out of
        ``player``'s reach whatever is played."""
        if self._result is not None:
            return self._result.winner == player
        theirs = self.white if player == 1 else self.black
        board = self.game.board
        return board.has_row(board.mask & ~theirs)

    def move_str(self, move: Move) -> str:
        return self.game.board.name(move)  # type: ignore[arg-type]

    def parse_move(self, text: str) -> Move:
        board = self.game.board
        token = text.strip().lower()
        if token in DIRECTIONS:
            cell = board.step(self.slime, token)
            if cell is None:
                raise off_the_board(token, board.name(self.slime))
        else:
            found = board.parse_cell(token)
            if found is None:
                raise not_a_cell(text, board.n, DIRECTIONS)
            cell = found
        if not (self.legal_mask() >> cell & 1):
            raise self._why_illegal(cell)
        return cell

    def fen(self) -> str:
        board = self.game.board

        def symbol_at(col: int, row: int) -> str:
            index = board.index(col, row)
            if self.empty >> index & 1:
                return ""
            if index == self.slime:
                return SLIME
            return BLACK if self.black >> index & 1 else WHITE

        return f"{encode_rows(self.game.size, symbol_at)} {self.to_move}"

    def key(self) -> int:
        return self._key

    def copy(self) -> MokuState:
        clone = MokuState.__new__(MokuState)
        clone.game, clone.black, clone.white = self.game, self.black, self.white
        clone.slime, clone.empty = self.slime, self.empty
        clone._first_player, clone._left = self._first_player, list(self._left)
        clone._key, clone._result = self._key, self._result
        return clone

    def view(self) -> dict[str, Any]:
        board = self.game.board
        marks: dict[str, list[str]] = {}
        for player, stones in ((1, self.black), (2, self.white)):
            for index in cells_of(stones):
                marks[board.name(index)] = [f"stone-{player}"]
        result = self._result
        if result is not None and result.winner is not None:
            stones = self.black if result.winner == 1 else self.white
            for index in cells_of(board.row_cells(stones)):
                marks[board.name(index)].append("win")
        # The slime's cell receives the mover's stone next (while the game goes on).
        marks[board.name(self.slime)] = ["snail"] if result else ["snail", "next"]
        view: dict[str, Any] = {
            "marks": marks,
            "last": [board.name(self._left[-1]), board.name(self.slime)] if self._left else [],
        }
        if self.is_stuck():
            view["stuck"] = True
        return view

    def text_board(self, gettext: Callable[[str], str] = untranslated) -> str:
        """The board alone: no words to translate."""
        from slimetrail.games.moku.text import draw_board

        return draw_board(self)

    def perft(self, depth: int) -> int:
        from slimetrail.games.moku.perft import perft

        return perft(self, depth)

    def evaluate(self) -> float:
        from slimetrail.games.moku.eval import evaluate

        return evaluate(self)

    # -- helpers ---------------------------------------------------------------------

    def _describe(self, move: Move) -> str:
        board = self.game.board
        return board.name(move) if board.is_cell(move) else repr(move)  # type: ignore[arg-type]

    def _why_illegal(self, cell: int) -> IllegalMoveError:
        board, name = self.game.board, self.game.board.name(cell)
        if self._result is not None:
            return IllegalMoveError(N_("%(cell)s: the game is over"), cell=name)
        if cell == self.slime:
            return IllegalMoveError(N_("%(cell)s: the slime is already there"), cell=name)
        if not self.empty >> cell & 1:
            if self.black >> cell & 1:
                return IllegalMoveError(N_("%(cell)s holds a black stone"), cell=name)
            return IllegalMoveError(N_("%(cell)s holds a white stone"), cell=name)
        return IllegalMoveError(
            N_("%(cell)s is not next to the slime on %(slime)s and the slime is not stuck"),
            cell=name,
            slime=board.name(self.slime),
        )
