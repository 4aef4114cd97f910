"""Rules of Slither (Corey Clark, 2010) and Advanced Slither (2018), RULES.md section 6.

A turn optionally steps one own stone a king step to an empty cell, then places a new stone
(the vacated cell may take it); at the end of the turn every diagonal pair of the mover's
stones must share an orthogonal neighbour of the mover's colour.  Black connects bottom and
top, White left and right; the mover who completes a connection wins.  With the pie, White
may answer Black's first turn with ``swap``: the players exchange colours.

Moves are values of one resulting board each (pinned): ``(p,)`` a placement alone,
``(s, t, p)`` a step s -> t then a placement on p, and the actions ``"swap"`` and ``"pass"``.
A step whose placement lands back on s is the placement t; the two spellings ``s-t/p`` and
``s-p/t`` of one board are stored with the smaller step end first (rank by rank).  Legal
turns come from bitboards: per step, one mask of the legal placements, so a 19x19 position
with 10^5 turns is counted without listing them and answered click by click.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, cast

from slimetrail.core.bits import cells_of
from slimetrail.core.cells import FILES, decode_rows, encode_rows
from slimetrail.core.game import (
    STONE,
    WIN_RING,
    AiLadder,
    EndReason,
    ExactSolver,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    MarkStyle,
    Move,
    OptionSpec,
    Outcome,
    State,
    TurnShape,
    untranslated,
)
from slimetrail.core.i18n import N_
from slimetrail.games.slither.board import (
    BLACK,
    COLOUR_NAMES,
    WHITE,
    SlitherBoard,
    get_board,
)

SWAP, PASS = "swap", "pass"
Turn = tuple[int, ...]  # (placed,) or (from, to, placed): cell indices
STONE_CHARS = ("x", "o")  # Black, White in the position string
TURN_TEXT = re.compile(r"([a-z]\d+)-([a-z]\d+)/([a-z]\d+)")


class SlitherGame(Game):
    id = "slither"
    title = N_("Slither")
    player_names = (N_("Black"), N_("White"))
    player_colours = ("black", "white")
    turn = TurnShape(max_clicks=3, actions=(SWAP, PASS), repeats=True)
    move_example = "b2-c3/e5"  # a step and a placement (the first move only places)
    action_words: ClassVar[dict[str, str]] = {SWAP: N_("swapped colours"), PASS: N_("passed")}
    option_specs = (
        OptionSpec("size", 9, help=N_("board size n"), low=4, high=19),
        OptionSpec("pie", True, help=N_("White may swap after Black's first turn")),
    )
    marks: ClassVar[dict[str, MarkStyle]] = {"stone": STONE, "win": WIN_RING}
    end_reasons: ClassVar[dict[str, EndReason]] = {
        "bottom-top": EndReason(N_("%(winner)s connected bottom and top")),
        "left-right": EndReason(N_("%(winner)s connected left and right")),
        # Only a search's random playouts end these two ways, never a game in play.
        "playout": EndReason(N_("%(winner)s won a random playout")),
        "no-turn": EndReason(N_("neither side has a legal turn: a draw")),
    }
    # Advanced Slither: only a stone whose group holds both colours may step.
    advanced: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.size: int = self.options["size"]
        self.pie: bool = self.options["pie"]
        self.board: SlitherBoard = get_board(self.size)

    def new_state(self) -> SlitherState:
        return SlitherState(self, 0, 0, BLACK, False, 0)

    def state_from_fen(self, fen: str) -> SlitherState:
        """``<rows top to bottom, x Black o White, digits empty> <b|w> <-|s> <turns>``:
        the colour to move, whether the players have swapped colours, turns played."""
        parts = fen.split()
        if (
            len(parts) != 4
            or parts[1] not in ("b", "w")
            or parts[2] not in ("-", "s")
            or not parts[3].isdecimal()
        ):
            raise InvalidPositionError(
                f"position {fen!r}: expected '<rows separated by /> <b|w> <-|s> <turns played>'"
            )
        board, n = self.board, self.size
        stones = [0, 0]
        for col, row, symbol in decode_rows(fen, parts[0], n, "".join(STONE_CHARS)):
            stones[STONE_CHARS.index(symbol)] |= 1 << board.index(col, row)
        colour = BLACK if parts[1] == "b" else WHITE
        swapped, turns = parts[2] == "s", int(parts[3])
        if turns == 0 and (colour != BLACK or swapped):
            raise InvalidPositionError(f"position {fen!r}: Black makes the first turn")
        if swapped and not (self.pie and turns >= 2):
            why = "pie=off" if not self.pie else "no swap before the second turn"
            raise InvalidPositionError(f"position {fen!r}: swapped colours, but {why}")
        for c in (BLACK, WHITE):
            broken = board.diagonal_breaks(stones[c])
            if broken:
                a, b = (board.name(x) for x in broken[0])
                raise InvalidPositionError(
                    f"position {fen!r}: {COLOUR_NAMES[c]} stones {a} and {b} break the "
                    "diagonal rule (no turn can leave them)"
                )
        if board.chain(stones[colour], colour):
            raise InvalidPositionError(
                f"position {fen!r}: {COLOUR_NAMES[colour]}, to move, is connected already"
            )
        return SlitherState(self, stones[BLACK], stones[WHITE], colour, swapped, turns)

    def ai_ladder(self) -> AiLadder:
        """Slither's own levels (:mod:`.ai`: MCTS with RAVE over the compiled kernel)."""
        from slimetrail.games.slither.ai import LADDER

        return LADDER

    @classmethod
    def warm_up(cls) -> None:
        from slimetrail.games.slither.ai import KERNELS

        KERNELS.run()  # the search's kernels and the exact solver's

    def exact_solver(self) -> ExactSolver | None:
        """The exact solver of boards up to 5x5 (:mod:`.solver`), ``None`` on bigger ones."""
        from slimetrail.games.slither.solver import SOLVER

        return SOLVER if SOLVER.can_solve(self) else None

    def describe_board(self) -> dict[str, Any]:
        board, n = self.board, self.size
        cells = []
        for cell in board.cells:
            col, row = board.coords(cell)
            cells.append({"name": board.name(cell), "x": col, "y": n - 1 - row})
        # The sides each colour joins belong to the colour, whoever wears it after a swap.
        black, white = self.player_colours
        edges = {"top": black, "bottom": black, "left": white, "right": white}
        return {"shape": "square", "size": n, "cells": cells, "edges": edges}


class AdvancedSlitherGame(SlitherGame):
    id = "slither-advanced"
    title = N_("Advanced Slither")
    advanced = True


class SlitherState(State):
    """A Slither position: stones by colour, the colour to move, swap flag, turns played."""

    def __init__(
        self, game: SlitherGame, black: int, white: int, colour: int, swapped: bool, turns: int
    ) -> None:
        self.game: SlitherGame = game
        self.board = game.board
        self.stones = [black, white]
        self.colour = colour  # the colour to move
        self.swapped = swapped
        self.turns = turns
        self._moves: list[Move] = []
        self._undo: list[tuple[int, int, int, bool, int, int | None, int]] = []
        zobrist = self.board.zobrist
        self._stone_key = 0
        for c in (BLACK, WHITE):
            for cell in cells_of(self.stones[c]):
                self._stone_key ^= zobrist[c][cell]
        # The colour whose connection ended the game (it can only be the last mover's).
        last = 1 - colour
        self.winner_colour: int | None = last if self.board.chain(self.stones[last], last) else None

    # -- players and colours ---------------------------------------------------------------

    def player_of(self, colour: int) -> int:
        """The player wearing ``colour``: player 1 starts as Black; a swap exchanges them."""
        return (colour + 1) if not self.swapped else (2 - colour)

    @property
    def to_move(self) -> int:
        return self.player_of(self.colour)

    def colours(self) -> tuple[str, ...]:
        return ("white", "black") if self.swapped else ("black", "white")

    def player_name(self, player: int) -> str:
        # Black and White are colours here: after a swap the players wear each other's.
        return self.colours()[player - 1].capitalize()

    def swap_available(self) -> bool:
        return (
            self.game.pie and self.turns == 1 and self.colour == WHITE and not self.swapped
        ) and self.winner_colour is None

    # -- move generation -------------------------------------------------------------------

    def movable(self) -> int:
        """The mover's stones that may step (Advanced: in a group holding both colours)."""
        board = self.board
        own, other = self.stones[self.colour], self.stones[1 - self.colour]
        empty = board.mask & ~own & ~other
        stones = own & board.dilate_king(empty)
        if self.game.advanced:
            stones &= board.flood(other, own | other)
        return stones

    def step_placements(self, source: int, target: int) -> int:
        """The legal placements after stepping ``source`` -> ``target`` (every spelling)."""
        board = self.board
        own = self.stones[self.colour] ^ (1 << source) ^ (1 << target)
        empty = board.mask & ~own & ~self.stones[1 - self.colour]
        return board.placements(own, empty)

    def turn_masks(self) -> tuple[int, list[tuple[int, int, int]]]:
        """The legal placements alone, and per step the placements of its canonical turns:
        not back on the vacated cell (that is a placement alone) and not on a step target
        below the step's own (that board is the other spelling's)."""
        board = self.board
        own, other = self.stones[self.colour], self.stones[1 - self.colour]
        empty = board.mask & ~own & ~other
        alone = board.placements(own, empty)
        steps = []
        for source in cells_of(self.movable()):
            neighbours = board.king[source]
            for target in cells_of(neighbours & empty):
                placed = self.step_placements(source, target)
                placed &= ~(1 << source) & ~(neighbours & ((1 << target) - 1))
                if placed:
                    steps.append((source, target, placed))
        return alone, steps

    def legal_moves(self) -> list[Move]:
        if self.winner_colour is not None:
            return []
        alone, steps = self.turn_masks()
        moves: list[Move] = [SWAP] if self.swap_available() else []
        moves += [(p,) for p in cells_of(alone)]
        for source, target, placed in steps:
            moves += [(source, target, p) for p in cells_of(placed)]
        if not alone and not steps:
            moves.append(PASS)
        return moves

    def count_moves(self) -> int:
        """``len(self.legal_moves())`` without building the list (perft's last ply)."""
        if self.winner_colour is not None:
            return 0
        alone, steps = self.turn_masks()
        count = alone.bit_count() + sum(placed.bit_count() for _, _, placed in steps)
        return count + self.swap_available() + (count == 0)

    # -- make / unmake ---------------------------------------------------------------------

    def push(self, move: Move) -> None:
        why = self.why_illegal(move)
        if why:
            raise why
        self.make(self.canonical(move))

    def make(self, move: Move) -> None:
        """Play a legal canonical move (no checks: push and perft check or generate it)."""
        black, white = self.stones
        self._undo.append(
            (
                black,
                white,
                self.colour,
                self.swapped,
                self.turns,
                self.winner_colour,
                self._stone_key,
            )
        )
        self._moves.append(move)
        self.turns += 1
        if move == SWAP:
            self.swapped = True
            return
        if move == PASS:
            self.colour = 1 - self.colour
            return
        colour, zobrist = self.colour, self.board.zobrist[self.colour]
        # a step's two cells change hands, then the placed cell fills
        for cell in cast(Turn, move):
            self.stones[colour] ^= 1 << cell
            self._stone_key ^= zobrist[cell]
        if self.board.chain(self.stones[colour], colour):
            self.winner_colour = colour
        self.colour = 1 - colour

    def pop(self) -> Move:
        if not self._moves:
            raise IndexError("pop from a position with no moves")
        black, white, self.colour, self.swapped, self.turns, self.winner_colour, key = (
            self._undo.pop()
        )
        self.stones = [black, white]
        self._stone_key = key
        return self._moves.pop()

    @property
    def move_stack(self) -> list[Move]:
        return list(self._moves)

    def outcome(self) -> Outcome | None:
        if self.winner_colour is None:
            return None
        edges = "bottom-top" if self.winner_colour == BLACK else "left-right"
        return Outcome.win(self.player_of(self.winner_colour), reason=edges)

    # -- legality and text -----------------------------------------------------------------

    def canonical(self, move: Move) -> Move:
        """The one value of a (legal, well-formed) turn's resulting board."""
        if isinstance(move, str) or len(cast(Turn, move)) == 1:
            return move
        source, target, placed = cast(Turn, move)
        if placed == source:
            return (target,)
        if self.board.king[source] >> placed & 1 and placed < target:
            return (source, placed, target)
        return (source, target, placed)

    def why_illegal(self, move: Move) -> IllegalMoveError | None:
        """Why ``move`` (any spelling) is not legal here, or ``None`` if it is."""
        board = self.board
        if self.winner_colour is not None:
            return IllegalMoveError(N_("%(move)s: the game is over"), move=self.describe(move))
        black = self.colour == 0  # the mover's colour picks the sentence (no colour words)
        if move == SWAP:
            if self.swap_available():
                return None
            if not self.game.pie:
                return IllegalMoveError(
                    N_("swap: this game is played without the pie rule (pie=off)")
                )
            return IllegalMoveError(
                N_("swap: only White's answer to Black's first turn may be a swap")
            )
        if move == PASS:
            alone, steps = self.turn_masks()
            if not alone and not steps:
                return None
            if alone:
                example: Move = (cells_of(alone)[0],)
            else:
                source, target, placed = steps[0]
                example = (source, target, cells_of(placed)[0])
            return IllegalMoveError(
                N_("pass: only a player with no legal turn may pass (%(example)s is legal)"),
                example=self.move_str(example),
            )
        if not self.well_formed(move):
            return IllegalMoveError(N_("%(move)s is not a Slither move"), move=repr(move))
        own, other = self.stones[self.colour], self.stones[1 - self.colour]
        occupied = own | other
        turn = cast(Turn, move)
        placed = turn[-1]
        if len(turn) == 3:
            source, target, _ = turn
            names = {"step": f"{board.name(source)}-{board.name(target)}"}
            names |= {"source": board.name(source), "target": board.name(target)}
            if not own >> source & 1:
                if not other >> source & 1:
                    held = (
                        N_("%(step)s: %(source)s holds no stone; Black may step only a Black stone")
                        if black
                        else N_(
                            "%(step)s: %(source)s holds no stone; White may step only a White stone"
                        )
                    )
                elif black:
                    held = N_(
                        "%(step)s: %(source)s holds a White stone; "
                        "Black may step only a Black stone"
                    )
                else:
                    held = N_(
                        "%(step)s: %(source)s holds a Black stone; "
                        "White may step only a White stone"
                    )
                return IllegalMoveError(held, **names)
            if not board.king[source] >> target & 1:
                return IllegalMoveError(
                    N_("%(step)s: %(target)s is not one king step from %(source)s"), **names
                )
            if occupied >> target & 1:
                return IllegalMoveError(N_("%(step)s: %(target)s is occupied"), **names)
            if self.game.advanced and not board.flood(other, occupied) >> source & 1:
                lonely = (
                    N_(
                        "%(step)s: in Advanced Slither a stone may step only if its group holds "
                        "both colours, and the group of %(source)s holds no White stone"
                    )
                    if black
                    else N_(
                        "%(step)s: in Advanced Slither a stone may step only if its group holds "
                        "both colours, and the group of %(source)s holds no Black stone"
                    )
                )
                return IllegalMoveError(lonely, **names)
            own ^= (1 << source) | (1 << target)
            occupied = own | other
        where = {"move": self.describe(move), "cell": board.name(placed)}
        if occupied >> placed & 1:
            if len(turn) == 3:
                return IllegalMoveError(
                    N_("%(move)s: %(cell)s is occupied after the step"), **where
                )
            return IllegalMoveError(N_("%(move)s: %(cell)s is occupied"), **where)
        broken = board.diagonal_breaks(own | (1 << placed))
        if broken:
            a, b = broken[0]
            ca, ra = board.coords(a)
            cb, rb = board.coords(b)
            pair = {"a": board.name(a), "b": board.name(b), "move": self.describe(move)}
            pair |= {"c": board.name(board.index(cb, ra)), "d": board.name(board.index(ca, rb))}
            diagonal = (
                N_(
                    "%(move)s: %(a)s and %(b)s would be diagonal neighbours with no Black stone "
                    "on %(c)s or %(d)s (the diagonal rule)"
                )
                if black
                else N_(
                    "%(move)s: %(a)s and %(b)s would be diagonal neighbours with no White stone "
                    "on %(c)s or %(d)s (the diagonal rule)"
                )
            )
            return IllegalMoveError(diagonal, **pair)
        return None

    def well_formed(self, move: Move) -> bool:
        """A tuple of one or three cells of the board (a placement, or step and placement)."""
        cells = self.board.cells_set
        return (
            type(move) is tuple
            and len(move) in (1, 3)
            and all(type(c) is int and c in cells for c in move)
        )

    def describe(self, move: Move) -> str:
        return self.move_str(move) if self.well_formed(move) or move in (SWAP, PASS) else repr(move)

    def move_str(self, move: Move) -> str:
        if isinstance(move, str):
            return move
        names = self.board.names
        turn = cast(Turn, move)
        if len(turn) == 1:
            return names[turn[0]]
        source, target, placed = turn
        return f"{names[source]}-{names[target]}/{names[placed]}"

    def parse_move(self, text: str) -> Move:
        token = text.strip().lower()
        if token in (SWAP, PASS):
            move: Move = token
        else:
            full = TURN_TEXT.fullmatch(token)
            names = full.groups() if full else (token,)
            cells = [self.board.parse_cell(name) for name in names]
            if any(cell is None for cell in cells):
                n = self.game.size
                bad = next(name for name, cell in zip(names, cells, strict=True) if cell is None)
                raise InvalidMoveError(
                    N_(
                        "%(text)s is not a Slither move: %(bad)s is no cell of the "
                        "%(n)sx%(n)s board (write a placement c3, a step and a placement "
                        "b2-c3/e5, swap or pass)"
                    ),
                    text=repr(text.strip()),
                    bad=repr(bad),
                    n=n,
                )
            move = tuple(cast(list[int], cells))
        why = self.why_illegal(move)
        if why:
            raise why
        return self.canonical(move)

    def click_path(self, move: Move) -> list[str]:
        if isinstance(move, str):
            return [move]
        return [self.board.names[cell] for cell in cast(Turn, move)]

    def next_clicks(self, prefix: Sequence[str] = ()) -> dict[str, str | None]:
        """Click by click, without listing the compound turns: an empty cell (a placement
        alone) or a movable stone; after a stone its steps; after a step its placements."""
        prefix = [click.strip().lower() for click in prefix]
        board = self.board
        found: dict[str, str | None] = {}
        if self.winner_colour is not None:
            if prefix:
                raise IllegalMoveError(
                    N_("no legal move starts with %(clicks)s: game over"), clicks=" ".join(prefix)
                )
            return found
        own, other = self.stones[self.colour], self.stones[1 - self.colour]
        empty = board.mask & ~own & ~other
        cells = [board.parse_cell(click) for click in prefix]
        source = cells[0] if cells else None
        if len(prefix) == 0:
            if self.swap_available():
                found[SWAP] = SWAP
            for cell in cells_of(board.placements(own, empty)):
                found[board.name(cell)] = board.name(cell)
            for cell in cells_of(self.movable()):
                if any(self.step_placements(cell, t) for t in cells_of(board.king[cell] & empty)):
                    found[board.name(cell)] = None
            if set(found) <= {SWAP}:
                found[PASS] = PASS
            return dict(sorted(found.items(), key=lambda item: self.click_order(item[0])))
        if source is not None and self.movable() >> source & 1 and len(prefix) <= 2:
            if len(prefix) == 1:
                for target in cells_of(board.king[source] & empty):
                    if self.step_placements(source, target):
                        found[board.name(target)] = None
                return found
            step_to = cells[1]
            if step_to is not None and (board.king[source] & empty) >> step_to & 1:
                for placed in cells_of(self.step_placements(source, step_to)):
                    move = self.canonical((source, step_to, placed))
                    found[board.name(placed)] = self.move_str(move)
        if not found:
            raise IllegalMoveError(
                N_("no legal move starts with %(clicks)s"), clicks=" ".join(prefix)
            )
        return found

    def click_order(self, click: str) -> tuple[int, int]:
        cell = self.board.parse_cell(click)
        return (0, 0) if cell is None else (1, cell)

    # -- position string, key, copies ------------------------------------------------------

    def fen(self) -> str:
        board = self.board

        def symbol_at(col: int, row: int) -> str:
            cell = 1 << board.index(col, row)
            return next((STONE_CHARS[c] for c in (0, 1) if self.stones[c] & cell), "")

        rows = encode_rows(self.game.size, symbol_at)
        side = "bw"[self.colour]
        return f"{rows} {side} {'s' if self.swapped else '-'} {self.turns}"

    def key(self) -> int:
        board = self.board
        key = self._stone_key
        if self.colour == WHITE:
            key ^= board.side_key
        if self.swapped:
            key ^= board.swapped_key
        if self.swap_available():
            key ^= board.pie_key
        return key

    def copy(self) -> SlitherState:
        clone = SlitherState.__new__(SlitherState)
        clone.__dict__.update(self.__dict__)
        clone.stones = list(self.stones)
        clone._moves = list(self._moves)
        clone._undo = list(self._undo)
        return clone

    # -- views -----------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        board = self.board
        marks: dict[str, list[str]] = {}
        for colour in (BLACK, WHITE):
            for cell in cells_of(self.stones[colour]):
                marks[board.name(cell)] = [f"stone-{self.player_of(colour)}"]
        if self.winner_colour is not None:
            chain = board.chain(self.stones[self.winner_colour], self.winner_colour)
            for cell in cells_of(chain):
                marks[board.name(cell)].append("win")
        last = self._moves[-1] if self._moves else PASS
        return {
            "marks": marks,
            "path": [],
            "last": [] if isinstance(last, str) else self.click_path(last),
            # Which edges each player connects (a swap exchanges them with the colours).
            "connect": {
                str(self.player_of(BLACK)): "bottom-top",
                str(self.player_of(WHITE)): "left-right",
            },
        }

    def text_board(self, gettext: Callable[[str], str] = untranslated) -> str:
        board, n = self.board, self.game.size
        files = " ".join(FILES[:n])
        lines = ["     " + files]
        for row in range(n - 1, -1, -1):
            cells = []
            for col in range(n):
                cell = 1 << board.index(col, row)
                black = self.stones[BLACK] & cell
                cells.append("X" if black else "O" if self.stones[WHITE] & cell else ".")
            lines.append(f"{row + 1:>3}  {' '.join(cells)}  {row + 1}")
        lines.append("     " + files)
        legend = (
            gettext(N_("X Black (player %(player)s, bottom to top)"))
            % {"player": self.player_of(BLACK)},
            gettext(N_("O White (player %(player)s, left to right)"))
            % {"player": self.player_of(WHITE)},
        )
        lines.append(gettext(N_(", ")).join(legend))
        return "\n".join(lines)

    def evaluate(self) -> float:
        """Connection race: the empty cells each colour still needs (shortest orthogonal
        path, the opponent's stones blocking), compared for the side to move."""
        if self.winner_colour is not None:
            return 1.0 if self.player_of(self.winner_colour) == self.to_move else -1.0
        board, me = self.board, self.colour
        blocked = board.n * board.n
        mine = board.distance(self.stones[me], self.stones[1 - me], me)
        theirs = board.distance(self.stones[1 - me], self.stones[me], 1 - me)
        mine = blocked if mine is None else mine
        theirs = blocked if theirs is None else theirs
        return 0.9 * (theirs - mine) / (theirs + mine + 1)

    def playout(self, rng: random.Random) -> Outcome:
        """Random turns to the end by the compiled kernel (:mod:`.kernel`): each a random
        placement alone, a step only when no placement is legal, never a swap."""
        from slimetrail.games.slither import kernel

        if self.winner_colour is not None:
            return cast(Outcome, self.outcome())
        layout = kernel.layout(self.game.size)
        grid = layout.grid(*self.stones)
        rng_state = kernel.seed_array(rng.getrandbits(64))
        winner, _ = kernel.playout(
            grid, self.game.size, self.colour + 1, self.game.advanced, rng_state, kernel.NO_RECORD
        )
        if winner == kernel.STUCK:
            # Never met in play (see the rules tests): a value for the search, not a result.
            return Outcome.draw(reason="no-turn")
        return Outcome.win(self.player_of(winner - 1), reason="playout")

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        if depth == 1:
            return self.count_moves()
        total = 0
        for move in self.legal_moves():
            self.make(move)
            total += self.perft(depth - 1)
            self.pop()
        return total
