"""The small game interface every game of the platform implements.

A :class:`Game` is an immutable rule set with its options (board size, rule variant, ...);
a :class:`State` is a mutable position of that game with make/unmake (``push``/``pop``),
in the spirit of python-chess's board and OpenSpiel's game/state split.  Everything above
the rules -- search, solver, records, CLI, UGI engine, web server -- uses only this API.

Moves are opaque hashable values chosen by each game (a cell index for the Slime Trail
boards, a tuple for a compound Slither turn); their canonical text form comes from
:meth:`State.move_str` and is parsed back by :meth:`State.parse_move`.  Players are
numbered from 1 in turn order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

Move = Hashable


class GameError(ValueError):
    """Base class for every error a game raises on bad input."""


class IllegalMoveError(GameError):
    """A move that is well formed but not legal in the position (or after the game ended)."""


class InvalidMoveError(GameError):
    """Text that cannot be read as a move of this game at all."""


class InvalidPositionError(GameError):
    """A position string that is malformed or describes an impossible position."""


class GameOptionError(GameError):
    """An unknown game, an unknown option, or an option value out of range."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: ``winner`` is a player number, or ``None`` for a draw."""

    winner: int | None
    reason: str = ""

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def for_player(self, player: int) -> str:
        """``"win"``, ``"loss"`` or ``"draw"`` from ``player``'s point of view."""
        if self.winner is None:
            return "draw"
        return "win" if self.winner == player else "loss"

    def score(self, player: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss."""
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[self.for_player(player)]


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its default and the values it accepts (shown by CLI and web)."""

    name: str
    default: str
    choices: tuple[str, ...]
    help: str = ""


class Game(ABC):
    """A game and its options. Instances are immutable and compare by id and options."""

    id: ClassVar[str]
    title: ClassVar[str]
    num_players: ClassVar[int] = 2
    player_names: ClassVar[tuple[str, ...]] = ("Player 1", "Player 2")
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()

    def __init__(self, **options: Any) -> None:
        self.options: Mapping[str, str] = self.normalize_options(options)

    @classmethod
    def normalize_options(cls, options: Mapping[str, Any]) -> dict[str, str]:
        """Fill in defaults and reject unknown options or values, naming what was wrong."""
        specs = {spec.name: spec for spec in cls.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise GameOptionError(f"{cls.id}: unknown option {unknown[0]!r} (options: {known})")
        result: dict[str, str] = {}
        for name, spec in specs.items():
            value = options.get(name)
            value = spec.default if value is None else str(value).strip().lower()
            if spec.choices and value not in spec.choices:
                raise GameOptionError(
                    f"{cls.id}: option {name}={value!r} is not one of {', '.join(spec.choices)}"
                )
            result[name] = value
        return result

    def non_default_options(self) -> dict[str, str]:
        return {
            spec.name: self.options[spec.name]
            for spec in self.option_specs
            if self.options[spec.name] != spec.default
        }

    @property
    def spec(self) -> str:
        """A short text naming the game and its non-default options, e.g. ``slimetrail size=9``."""
        extra = " ".join(f"{k}={v}" for k, v in self.non_default_options().items())
        return f"{self.id} {extra}".strip()

    @abstractmethod
    def new_state(self) -> State:
        """The start position."""

    @abstractmethod
    def state_from_fen(self, fen: str) -> State:
        """A position from its compact string; raises :class:`InvalidPositionError`."""

    def describe_board(self) -> dict[str, Any]:
        """Geometry for generic front ends: cell names, shapes and coordinates."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.id, dict(self.options)) == (
            other.id,
            dict(other.options),
        )

    def __hash__(self) -> int:
        return hash((self.id, tuple(sorted(self.options.items()))))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class State(ABC):
    """A position of a game, changed in place by :meth:`push` and :meth:`pop`."""

    game: Game

    @property
    @abstractmethod
    def to_move(self) -> int:
        """The player whose turn it is (1-based). Meaningless once the game is over."""

    @property
    @abstractmethod
    def move_stack(self) -> list[Move]:
        """The moves pushed since this state was created (read-only view)."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal move, in a deterministic order; empty once the game is over."""

    @abstractmethod
    def push(self, move: Move) -> None:
        """Make a move; raises :class:`IllegalMoveError` (and changes nothing) if illegal."""

    @abstractmethod
    def pop(self) -> Move:
        """Take back the last move and return it; raises ``IndexError`` if there is none."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""

    @abstractmethod
    def move_str(self, move: Move) -> str:
        """The canonical text of a move in this position."""

    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """Read a legal move from text (canonical or an accepted alias).

        Raises :class:`InvalidMoveError` for text that is no move at all and
        :class:`IllegalMoveError` for a move that is not legal here.
        """

    @abstractmethod
    def fen(self) -> str:
        """The compact position string; ``game.state_from_fen(s.fen())`` equals ``s``."""

    @abstractmethod
    def key(self) -> int:
        """A stable 64-bit hash of the position (same value in every run), for tables."""

    @abstractmethod
    def copy(self) -> State:
        """An independent copy with the same position and move stack."""

    def is_over(self) -> bool:
        return self.outcome() is not None

    def push_str(self, text: str) -> Move:
        """Parse and make a move; returns the move made."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def legal_move_strs(self) -> list[str]:
        return [self.move_str(m) for m in self.legal_moves()]

    def click_path(self, move: Move) -> list[str]:
        """The cells a player clicks, in order, to make ``move`` on a board front end."""
        return [self.move_str(move)]

    def legal_clicks(self) -> dict[str, list[str]]:
        """Every legal move's canonical text mapped to its click path."""
        return {self.move_str(m): self.click_path(m) for m in self.legal_moves()}

    def view(self) -> dict[str, Any]:
        """The position for generic front ends.

        ``{"marks": {cell: [mark, ...]}, "path": [cell, ...], "last": [cell, ...]}``: marks are
        CSS-friendly words (``snail``, ``slime``, ``goal-1``, ``stone-2``, ...) the page styles;
        ``path`` is an optional line to draw through cells; ``last`` the cells of the last move.
        """
        raise NotImplementedError

    def evaluate(self) -> float:
        """A heuristic value in [-1, 1] for the side to move; 0 where a game has none."""
        return 0.0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game == other.game and self.fen() == other.fen()

    def __hash__(self) -> int:
        return self.key()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.spec} {self.fen()!r}>"
