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

import importlib.resources
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from slimetrail.core.i18n import N_, Term

Move = Hashable


class GameError(ValueError):
    """Base class for every error a game raises on bad input.

    Raised with a catalogued template and its named values, ``IllegalMoveError(N_("%(cell)s
    is slimed"), cell="c3")``, an error can be shown in a player's language
    (:meth:`translated`); its ``str`` is the English sentence either way."""

    def __init__(self, message: str = "", /, **values: Any) -> None:
        self.template = message
        self.values = values
        super().__init__(message % values if values else message)

    def translated(self, gettext: Callable[[str], str]) -> str:
        """The message in ``gettext``'s language (a message that is no template: as it is);
        a value that is itself such an error (the reason given) or a :class:`Term` is
        translated too."""
        if not self.values:
            return gettext(self.template)
        values = {
            key: value.translated(gettext)
            if isinstance(value, GameError)
            else gettext(value)
            if isinstance(value, Term)
            else value
            for key, value in self.values.items()
        }
        return gettext(self.template) % values


class IllegalMoveError(GameError):
    """A move that is well formed but not legal in the position (or after the game ended)."""


class InvalidMoveError(GameError):
    """Text that cannot be read as a move of this game at all."""


class InvalidPositionError(GameError):
    """A position string that is malformed or describes an impossible position."""


class GameOptionError(GameError):
    """An unknown game, an unknown option, or an option value out of range."""


def off_the_board(word: str, origin: str) -> IllegalMoveError:
    """A direction word that steps off the board from the cell ``origin``."""
    return IllegalMoveError(N_("'%(word)s' from %(cell)s leaves the board"), word=word, cell=origin)


def not_a_cell(text: str, size: int, directions: Iterable[str]) -> InvalidMoveError:
    """Text that is neither a cell of the ``size`` by ``size`` board nor a direction word."""
    return InvalidMoveError(
        N_("%(text)s is neither a cell of the %(n)sx%(n)s board nor a direction (%(words)s)"),
        text=repr(text.strip()),
        n=size,
        words=" ".join(directions),
    )


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, for every player (OpenSpiel's per-player returns).

    ``places[p - 1]`` is player ``p``'s place, 1 being the best; players on the same place
    tie (everybody on place 1 is a draw).  Build one with :meth:`win`, :meth:`draw` or
    :meth:`ranking` rather than by hand.
    """

    places: tuple[int, ...]
    reason: str = ""

    def __post_init__(self) -> None:
        if len(self.places) < 1 or min(self.places) != 1:
            raise ValueError(f"an outcome needs places starting at 1, not {self.places}")

    @classmethod
    def win(cls, winner: int, num_players: int = 2, reason: str = "") -> Outcome:
        """``winner`` first, every other player sharing second place."""
        return cls(tuple(1 if p == winner else 2 for p in range(1, num_players + 1)), reason)

    @classmethod
    def draw(cls, num_players: int = 2, reason: str = "") -> Outcome:
        return cls((1,) * num_players, reason)

    @classmethod
    def ranking(cls, order: Sequence[int | Collection[int]], reason: str = "") -> Outcome:
        """From first place to last: each entry a player, or a collection of tied players."""
        groups = [[entry] if isinstance(entry, int) else sorted(entry) for entry in order]
        players = sorted(p for group in groups for p in group)
        if players != list(range(1, len(players) + 1)):
            raise ValueError(f"a ranking names every player once, not {order!r}")
        places = [0] * len(players)
        place = 1
        for group in groups:
            for player in group:
                places[player - 1] = place
            place += len(group)
        return cls(tuple(places), reason)

    @property
    def num_players(self) -> int:
        return len(self.places)

    @property
    def winner(self) -> int | None:
        """The one player alone on first place, or ``None`` (a draw or a shared first place)."""
        first = [p for p, place in enumerate(self.places, 1) if place == 1]
        return first[0] if len(first) == 1 else None

    @property
    def is_draw(self) -> bool:
        return all(place == 1 for place in self.places)

    def place(self, player: int) -> int:
        return self.places[player - 1]

    def for_player(self, player: int) -> str:
        """``"win"`` (alone on first place), ``"draw"`` (sharing it) or ``"loss"``."""
        if self.place(player) != 1:
            return "loss"
        return "win" if self.winner == player else "draw"

    def score(self, player: int) -> float:
        """In [0, 1]: the share of the other players ranked below ``player``, ties counting
        half -- 1 / 0.5 / 0 for a two-player win / draw / loss."""
        mine = self.place(player)
        below = sum(place > mine for place in self.places)
        tied = sum(place == mine for place in self.places) - 1
        others = len(self.places) - 1
        return (below + 0.5 * tied) / others if others else 1.0

    def returns(self) -> tuple[float, ...]:
        """Every player's :meth:`score`, in player order."""
        return tuple(self.score(p) for p in range(1, len(self.places) + 1))

    def result_text(self) -> str:
        """The record's result: ``1-0``, ``0-1``, ``1/2-1/2``; for more players one number a
        player (``1-0-0``; first place shared by k players gives each ``1/k``)."""
        first = sum(place == 1 for place in self.places)
        share = "1" if first == 1 else f"1/{first}"
        return "-".join(share if place == 1 else "0" for place in self.places)


# What an ending's sentence may name: the players by their place in the outcome (names
# joined "A, B and C") and ``verdict`` ("Green wins", "a draw", "A and B share first place");
# a game's options may be named too (``%(k)s``, a count below ten written in words).
SENTENCE_FIELDS = ("winner", "first", "last", "losers", "verdict")
# Named %-placeholders, the form gettext catalogues check translations against.
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class EndReason:
    """One way a game can end (an :attr:`Outcome.reason`) and what a player reads then.

    ``sentence`` is a template over :data:`SENTENCE_FIELDS` and the game's options with named
    placeholders, e.g. ``"%(winner)s made %(k)s in a row"``; ``draw``, if given, is used
    instead when everybody shares first place.  Both are English msgids of the ``games``
    catalogue (marked with :func:`slimetrail.core.i18n.N_`), translated when shown.
    """

    sentence: str
    draw: str = ""

    def fields(self) -> set[str]:
        return {
            name
            for template in (self.sentence, self.draw)
            for name in PLACEHOLDER.findall(template)
        }


# Endings the platform itself makes, for every game (a web match's resignation).
RESIGNED, TIME, ILLEGAL, ABORTED = "resigned", "time", "illegal move", "aborted"
PLATFORM_REASONS: Mapping[str, EndReason] = {
    RESIGNED: EndReason(N_("%(last)s resigned: %(verdict)s")),
    TIME: EndReason(
        N_("%(last)s ran out of time: %(verdict)s"),
        draw=N_("time ran out, but no opponent could win: a draw"),
    ),
    ILLEGAL: EndReason(N_("%(last)s sent an illegal move: %(verdict)s")),
    # A clocked game nobody came to play: ended without a result (everybody shares a place).
    ABORTED: EndReason(N_("the game was aborted: the opponent did not arrive in time, no result")),
}
# An outcome without a reason just says who won.
NO_REASON = EndReason("%(verdict)s")


# Small counts in a sentence are written as words ("five in a row"), as in running text.
NUMBER_WORDS = (
    N_("zero"),
    N_("one"),
    N_("two"),
    N_("three"),
    N_("four"),
    N_("five"),
    N_("six"),
    N_("seven"),
    N_("eight"),
    N_("nine"),
)


def untranslated(text: str) -> str:
    """The default ``gettext`` of the functions below: the English text itself."""
    return text


def in_words(value: Any, gettext: Callable[[str], str] = untranslated) -> str:
    """An option's value as a sentence writes it: a count below ten in words, else its text."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(NUMBER_WORDS):
        return gettext(NUMBER_WORDS[value])
    return str(value)


def join_names(names: Sequence[str], gettext: Callable[[str], str] = untranslated) -> str:
    """``A``, ``A and B``, ``A, B and C`` (in ``gettext``'s language)."""
    if len(names) < 2:
        return "".join(names)
    rest = gettext(N_(", ")).join(names[:-1])
    return gettext(N_("%(names)s and %(last)s")) % {"names": rest, "last": names[-1]}


# -- marks: what a game's view() puts on cells, and how the one renderer draws it ----------

# Colours a mark's parts may name besides any palette colour: the player's colour, the same
# made dark enough for a line on the light board, dark or light ink on the player's colour.
PLAYER, PLAYER_LINE, ON_PLAYER, NO_COLOUR = "player", "player-line", "on-player", "none"
SHAPE_KINDS = ("disc", "ring", "player-shape", "outline", "snail")


@dataclass(frozen=True)
class Shape:
    """One drawn part of a mark, from the renderer's small vocabulary (sizes in cell units):

    ``disc`` (a filled circle of radius ``size``), ``ring`` (a circle's line), ``player-shape``
    (the player's own shape -- circle, square, triangle... -- so colour is never alone),
    ``outline`` (the cell's border pulled ``size`` inwards), ``snail`` (the snail picture).
    ``fill`` and ``line`` name a palette colour or :data:`PLAYER`, :data:`PLAYER_LINE`,
    :data:`ON_PLAYER`, :data:`NO_COLOUR`; ``dash`` is a dash pattern, or ``"player"`` for
    the player's own pattern.  ``label``: the player's number written in the shape, in
    ``label_colour``, ``label_size`` high, ``label_drop`` below the centre (``triangle_drop``
    more in a triangle, whose middle sits low).  ``css``: the element's class (the player's
    ``pN`` is added); ``group``: the parts go in a ``<g>`` of that class.
    """

    kind: str
    size: float = 0.38
    fill: str = NO_COLOUR
    line: str = NO_COLOUR
    width: float = 0.0
    dash: str = ""
    css: str = ""
    label: bool = False
    label_colour: str = ON_PLAYER
    label_size: float = 0.26
    label_drop: float = 0.09
    triangle_drop: float = 0.0
    group: str = ""

    def __post_init__(self) -> None:
        if self.kind not in SHAPE_KINDS:
            raise ValueError(f"shape {self.kind!r} is not one of {', '.join(SHAPE_KINDS)}")


@dataclass(frozen=True)
class CellPaint:
    """A mark that colours its whole cell: ``fill`` (a palette colour or :data:`PLAYER`) at
    ``opacity``, its border in ``line``, hatched with lines ``hatch`` apart (0: none) in
    ``hatch_colour``; ``dark``: coordinates are written light on it."""

    fill: str
    line: str
    hatch: float = 0.0
    hatch_colour: str = ""
    opacity: float | None = None
    dark: bool = False


@dataclass(frozen=True)
class MarkStyle:
    """How the renderer draws one mark of :meth:`State.view` and what a screen reader says.

    A mark declared ``per_player`` is written ``NAME-P`` in the view (``stone-2``) and drawn
    in player P's colours; ``words`` name it for a screen reader (``%(player)s``: the player's
    name).  ``cell`` paints the cell, ``shapes`` are drawn over it in order; ``token``: the
    mark is a piece on the cell, so a legal-move marker rings it instead of covering it."""

    words: str
    shapes: tuple[Shape, ...] = ()
    cell: CellPaint | None = None
    per_player: bool = False
    token: bool = False


# Marks several games share: a player's stone, a winning line's ring, the next stone's cell.
STONE = MarkStyle(
    N_("stone of %(player)s"),
    (Shape("disc", 0.38, fill=PLAYER, line="stone-outline", width=0.04, css="stone"),),
    per_player=True,
    token=True,
)
WIN_RING = MarkStyle(
    N_("part of the winning line"),
    (Shape("ring", 0.44, line="win", width=0.09, css="win-ring"),),
)
NEXT_STONE = MarkStyle(
    N_("receives the next stone"),
    (Shape("ring", 0.3, line="next", width=0.05, dash="0.08 0.06", css="next-mark"),),
)


@dataclass(frozen=True)
class TurnShape:
    """How a game's turns look to a front end (boardgame.io's turn declaration).

    ``max_clicks``: the most clicks one move takes (1 for a one-click game; a compound move
    is made click by click through :meth:`State.next_clicks`).  ``actions``: moves that
    name no cell (``pass``, ``swap``), shown as buttons; their click is their own text.
    ``repeats``: whether the same player may move twice in a row (a swap handing the turn
    back, players dropping out), so searches must not assume strict alternation.
    ``step_words``: for a turn made of several like steps (Snake Pit's snakes), what one
    step and several are called, ``("snake", "snakes")``; the position's number of steps is
    ``view()["to_move_steps"]`` and each step takes ``step_clicks`` clicks, so front ends
    say how many steps are left rather than how many clicks.
    """

    max_clicks: int = 1
    actions: tuple[str, ...] = ()
    repeats: bool = False
    step_words: tuple[str, str] | tuple[()] = ()
    step_clicks: int = 1


OptionValue = int | str | bool
# How a yes/no option is read from text; it is written "on" or "off".
SWITCH_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}


@dataclass(frozen=True)
class OptionSpec:
    """One game option, declared once and read everywhere (CLI flags, web forms, UGI
    ``setoption``, records' headers, game specs).

    Its kind -- ``int``, ``str`` or ``bool`` -- is the type of its ``default``.  ``choices``
    lists the values it accepts; an int option may give a range instead (``low`` to ``high``
    by ``step``); a str option with neither accepts any word (the game checks it, e.g. a
    start cell).  :attr:`Game.options` holds the typed values; the text form (a number, a
    word in lower case, ``on``/``off``) is what records, specs and links carry.
    """

    name: str
    default: OptionValue
    choices: tuple[OptionValue, ...] = ()
    help: str = ""
    low: int | None = None
    high: int | None = None
    step: int = 1

    def __post_init__(self) -> None:
        kind = self.kind
        if kind not in (int, str, bool):
            raise TypeError(f"option {self.name}: the default must be an int, str or bool")
        if any(type(choice) is not kind for choice in self.choices):
            raise TypeError(f"option {self.name}: every choice must be of its default's type")
        if (self.low is not None or self.high is not None) and (kind is not int or self.choices):
            raise TypeError(f"option {self.name}: only an int option without choices has a range")
        self.value(self.default)  # a default it would refuse is a declaration error

    @property
    def kind(self) -> type:
        return type(self.default)

    @property
    def default_text(self) -> str:
        return self.text(self.default)

    def allowed(self) -> tuple[OptionValue, ...]:
        """Every value accepted, in order; empty where any value of the kind is (within the
        range's open end, if any)."""
        if self.choices:
            return self.choices
        if self.kind is bool:
            return (True, False)
        if self.low is not None and self.high is not None:
            return tuple(range(self.low, self.high + 1, self.step))
        return ()

    def texts(self) -> tuple[str, ...]:
        """:meth:`allowed` as text (the choices a form or a UGI combo offers)."""
        return tuple(self.text(value) for value in self.allowed())

    def text(self, value: OptionValue) -> str:
        """The text form of a value: ``9``, ``rastros``, ``on``/``off``."""
        if isinstance(value, bool):
            return "on" if value else "off"
        return str(value)

    def value(self, given: object, game_id: str = "") -> OptionValue:
        """The typed value of ``given`` -- a value of the option's kind, or its text, which
        is parsed here and nowhere else; raises :class:`GameOptionError` naming what was
        wrong."""
        # The sentence's start, a phrase of its own to be translated with it.
        if game_id:
            where = GameOptionError(N_("%(game)s: option"), game=game_id)
        else:
            where = GameOptionError(N_("option"))
        # Quoted as typed, whether it came as text or not.
        named = {"where": where, "name": self.name, "shown": repr(str(given))}
        value = self.parse(given.strip().lower(), where) if isinstance(given, str) else given
        if type(value) is not self.kind:
            kind = Term(KIND_WORDS[self.kind])
            raise GameOptionError(
                N_("%(where)s %(name)s=%(shown)s is not %(kind)s"), kind=kind, **named
            )
        assert isinstance(value, int | str)  # bool is an int
        if self.choices or (self.kind is int and self.low is not None and self.high is not None):
            if value not in self.allowed():
                raise GameOptionError(
                    N_("%(where)s %(name)s=%(shown)s is not one of %(choices)s"),
                    choices=", ".join(self.texts()),
                    **named,
                )
        elif self.kind is int and self.low is not None and int(value) < self.low:
            below = N_("%(where)s %(name)s=%(shown)s is below %(low)s")
            raise GameOptionError(below, low=self.low, **named)
        elif self.kind is int and self.high is not None and int(value) > self.high:
            above = N_("%(where)s %(name)s=%(shown)s is above %(high)s")
            raise GameOptionError(above, high=self.high, **named)
        return value

    def parse(self, text: str, where: GameError) -> OptionValue:
        named = {"where": where, "name": self.name, "shown": repr(text)}
        if self.kind is bool:
            if text not in SWITCH_WORDS:
                raise GameOptionError(N_("%(where)s %(name)s=%(shown)s is not on or off"), **named)
            return SWITCH_WORDS[text]
        if self.kind is int:
            # isdecimal() alone lets superscripts through, which int() refuses.
            if not (text.isascii() and text.removeprefix("-").isdecimal()):
                whole = N_("%(where)s %(name)s=%(shown)s is not a whole number")
                raise GameOptionError(whole, **named)
            return int(text)
        return text


KIND_WORDS = {int: N_("a whole number"), str: N_("a word"), bool: N_("on or off")}


class Game(ABC):
    """A game and its options. Instances are immutable and compare by id and options."""

    id: ClassVar[str]
    title: ClassVar[str]
    num_players: ClassVar[int] = 2
    player_names: ClassVar[tuple[str, ...]] = (N_("Player 1"), N_("Player 2"))
    # Colour names of the one palette (slimetrail.render.PALETTE), one per player.
    player_colours: ClassVar[tuple[str, ...]] = ("green", "red")
    # False where one player's win is not simply the others' loss (three players, say).
    zero_sum: ClassVar[bool] = True
    turn: ClassVar[TurnShape] = TurnShape()
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    # Named option sets offered as variants, e.g. {"portuguese": {"start": "e5"}}.
    presets: ClassVar[Mapping[str, Mapping[str, str]]] = {}  # option values as text
    # What players call each preset, N_-marked ({"portuguese": N_("Portuguese")}); a preset
    # without one is shown by its key.
    preset_names: ClassVar[Mapping[str, str]] = {}
    # A move as players type it, for a move box's placeholder; empty: the start position's
    # first legal move (see :meth:`example_move`).
    move_example: ClassVar[str] = ""
    # What a player did with an action, as the move list and the status say it ({"swap":
    # "swapped colours"}); an action not named here is shown as its text.
    action_words: ClassVar[Mapping[str, str]] = {}
    # Every Outcome.reason the game's states give, with the sentence a player reads (see
    # :func:`outcome_sentence`); an outcome with another reason is an error.
    end_reasons: ClassVar[Mapping[str, EndReason]] = {}
    # Every mark the game's views use, by name (``stone`` for the view's ``stone-2``), and how
    # it is drawn; the renderer ignores words not declared here.
    marks: ClassVar[Mapping[str, MarkStyle]] = {}

    @classmethod
    def mark_style(cls, word: str) -> tuple[str, MarkStyle, int] | None:
        """A view's mark word as its declared name, declaration and player (0 for a plain
        mark): ``("stone", STONE, 2)`` for ``stone-2``; ``None`` for an undeclared word."""
        plain = cls.marks.get(word)
        if plain is not None and not plain.per_player:
            return word, plain, 0
        name, _, player = word.rpartition("-")
        style = cls.marks.get(name)
        if style is not None and style.per_player and player.isdecimal() and int(player) >= 1:
            return name, style, int(player)
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A template naming what no outcome gives fails when the game is defined, not when
        # somebody finishes a match.
        names = {*SENTENCE_FIELDS, *(spec.name for spec in cls.option_specs)}
        for reason, declared in cls.end_reasons.items():
            if "{" in declared.sentence + declared.draw:
                raise TypeError(
                    f"{cls.__name__}: the sentence of {reason!r} uses {{...}}: name a value "
                    "with %(name)s, the placeholder the translation catalogues check"
                )
            unknown = declared.fields() - names
            if unknown:
                raise TypeError(
                    f"{cls.__name__}: the sentence of {reason!r} names {sorted(unknown)[0]!r} "
                    f"(it may name {', '.join(sorted(names))})"
                )

    @classmethod
    def end_reason(cls, reason: str) -> EndReason:
        """The declaration of ``reason`` (the game's own or the platform's); raises
        :class:`GameError` for a reason the game does not declare."""
        if not reason:
            return NO_REASON
        declared = cls.end_reasons.get(reason) or PLATFORM_REASONS.get(reason)
        if declared is None:
            known = ", ".join([*cls.end_reasons, *PLATFORM_REASONS])
            raise GameError(f"{cls.id}: ending {reason!r} is not declared (endings: {known})")
        return declared

    def __init__(self, /, **options: Any) -> None:
        # Typed by the declarations (an int option is an int): ``Any`` to the checker, which
        # cannot know one option's type from its name.
        self.options: Mapping[str, Any] = self.normalize_options(options)

    @classmethod
    def normalize_options(cls, options: Mapping[str, Any]) -> dict[str, OptionValue]:
        """Typed values of every option, from typed values or their text (see
        :meth:`OptionSpec.value`), defaults filled in; unknown options or bad values are
        refused naming what was wrong."""
        specs = {spec.name: spec for spec in cls.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise GameOptionError(
                N_("%(game)s: unknown option %(option)r (options: %(options)s)"),
                game=cls.id,
                option=unknown[0],
                options=known,
            )
        return {
            name: spec.default if options.get(name) is None else spec.value(options[name], cls.id)
            for name, spec in specs.items()
        }

    def option_texts(self) -> dict[str, str]:
        """Every option's text form, as records, links and the web's JSON carry it."""
        return {spec.name: spec.text(self.options[spec.name]) for spec in self.option_specs}

    def non_default_options(self) -> dict[str, str]:
        """The text of every option not at its default."""
        return {
            spec.name: spec.text(self.options[spec.name])
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

    @abstractmethod
    def describe_board(self) -> dict[str, Any]:
        """Geometry for the board renderer and front ends.

        ``{"shape": "square" | "hex", "cells": [{"name", "x", "y"}, ...], ...}``: cell
        centres in units of one cell (neighbouring square cells 1 apart; hex cells 1 apart
        centre to centre, pointy side up).  Optional ``"edges"``: the sides of a square
        board a colour joins, side (``top``, ``bottom``, ``left``, ``right``) -> the colour's
        palette name, drawn as bars in that colour.  Cell names made of letters and a number
        (``c12``) get their coordinates along the board's edges.  More keys may follow for a
        game's own use.
        """

    @classmethod
    def rules_fragment(cls) -> str | None:
        """The game's rules page: a Jinja fragment with ``diagram(...)`` calls, by default the
        file ``rules/<game id>.html`` shipped in the game's package (``None`` if absent)."""
        package = cls.__module__.rpartition(".")[0]
        if not package:
            return None
        resource = importlib.resources.files(package) / "rules" / f"{cls.id}.html"
        return resource.read_text(encoding="utf-8") if resource.is_file() else None

    def example_move(self) -> str:
        """A move in this game's notation: :attr:`move_example`, else a legal first move."""
        if self.move_example:
            return self.move_example
        state = self.new_state()
        moves = state.legal_moves()
        return state.move_str(moves[0]) if moves else ""

    def exact_solver(self) -> ExactSolver | None:
        """This game's exact solver, if it has one (see :class:`ExactSolver`)."""
        return None

    def ai_ladder(self) -> AiLadder | None:
        """This game's own computer players by level (a :class:`slimetrail.ai.Ladder`), or
        ``None`` for the generic Monte-Carlo ladder."""
        return None

    @classmethod
    def warm_up(cls) -> None:
        """Compile (or load from cache) the game's compiled kernels now: a server's workers
        call it for every registered game before the first request, so that no player's
        move pays for a JIT compile.  Games without compiled code need not override it."""
        return None

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

    def can_win(self, player: int) -> bool:
        """Whether ``player`` could still win from here by some play: a player whose flag
        falls against opponents none of whom can win draws.  A game that can tell overrides
        this; by default every player can."""
        return True

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
        """What a player clicks, in order, to make ``move``: cell names, or the text of an
        action (``pass``, ``swap``) shown as a button."""
        return [self.move_str(move)]

    def next_clicks(self, prefix: Sequence[str] = ()) -> dict[str, str | None]:
        """The clicks that may follow ``prefix``, each mapped to the canonical text of the
        move it completes, or to ``None`` when more clicks must follow.

        No complete click sequence is the start of another (the contract kit checks it).
        A front end asks again after every click, so a compound move is never sent as the
        list of all its paths.  This default walks every legal move's :meth:`click_path`;
        games with many compound moves answer it directly.  Raises :class:`IllegalMoveError`
        for a prefix no legal move starts with.
        """
        prefix = list(prefix)
        depth = len(prefix)
        found: dict[str, str | None] = {}
        for move in self.legal_moves():
            path = self.click_path(move)
            if len(path) > depth and path[:depth] == prefix:
                found[path[depth]] = self.move_str(move) if len(path) == depth + 1 else None
        if not found and prefix:
            raise IllegalMoveError(
                N_("no legal move starts with %(clicks)s"), clicks=" ".join(prefix)
            )
        return found

    def colours(self) -> tuple[str, ...]:
        """The palette colour of every player in this position (a swap exchanges them)."""
        return self.game.player_colours

    def player_name(self, player: int) -> str:
        """What front ends call ``player`` in this position (a game whose players are named
        after their colours renames them when a swap exchanges the colours)."""
        return self.game.player_names[player - 1]

    @abstractmethod
    def view(self) -> dict[str, Any]:
        """The position for the board renderer and front ends.

        ``{"marks": {cell: [mark, ...]}, "path": [cell, ...], "last": [cell, ...]}``: marks
        are the words the game declares in :attr:`Game.marks` (``stone-2``: a ``per_player``
        mark of player 2), drawn by :mod:`slimetrail.render` as declared; ``path`` an optional
        line through cells (the snail's trail);
        ``last`` the cells of the last move.  Optional keys front ends understand:
        ``to_move_steps`` (how many steps the turn to make has, see :class:`TurnShape`) and
        ``out`` (the players who are out while the game goes on, in the order they went
        out).  More keys may follow for a game's own use.
        """

    @abstractmethod
    def text_board(self, gettext: Callable[[str], str] = untranslated) -> str:
        """The board as text with its coordinates, for the terminal (``slimetrail play``);
        any words beside it (a legend, whose turn it is) in ``gettext``'s language."""

    def evaluate(self) -> float:
        """A heuristic value in [-1, 1] for the side to move; 0 where a game has none."""
        return 0.0

    def playout(self, rng: random.Random) -> Outcome:
        """Random moves to the end; returns how the game ended and leaves the state as it
        was.  Monte-Carlo searches value positions by it; a game may override it with a
        faster walk or a smarter playout policy."""
        pushed = 0
        try:
            while moves := self.legal_moves():
                self.push(rng.choice(moves))
                pushed += 1
            outcome = self.outcome()
        finally:
            for _ in range(pushed):
                self.pop()
        if outcome is None:
            raise GameError(f"{self.game.id}: no legal move in an unfinished position")
        return outcome

    def perft(self, depth: int) -> int:
        """The number of legal move sequences of ``depth`` plies (see
        :mod:`slimetrail.core.perft`); games override it with a fast path."""
        from slimetrail.core.perft import perft_generic

        return perft_generic(self, depth)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game == other.game and self.fen() == other.fen()

    def __hash__(self) -> int:
        return self.key()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.spec} {self.fen()!r}>"


def outcome_sentence(
    game: Game,
    outcome: Outcome,
    names: Sequence[str] = (),
    gettext: Callable[[str], str] = untranslated,
) -> str:
    """What a player reads at the end: the sentence ``game`` declares for the outcome's
    reason, filled in with the players' ``names`` (default: the game's player names), e.g.
    ``"Black made five in a row."``, in the language of ``gettext`` (the ``games``
    catalogue's; names given are used as they are).  Every front end shows this sentence,
    so no front end knows any game's endings.  Raises :class:`GameError` for an undeclared
    reason."""
    declared = game.end_reason(outcome.reason)
    names = list(names) or [gettext(name) for name in game.player_names]
    if len(names) != outcome.num_players:
        raise GameError(f"{game.id}: {len(names)} names for {outcome.num_players} players")
    players = range(1, outcome.num_players + 1)
    first = join_names([names[p - 1] for p in players if outcome.place(p) == 1], gettext)
    lowest = max(outcome.places)
    if outcome.is_draw:
        verdict = gettext(N_("a draw"))
    elif outcome.winner is not None:
        verdict = gettext(N_("%(first)s wins")) % {"first": first}
    else:
        verdict = gettext(N_("%(first)s share first place")) % {"first": first}
    template = declared.draw if outcome.is_draw and declared.draw else declared.sentence
    texts = game.option_texts()
    text = gettext(template) % {
        **{name: in_words(game.options[name], gettext) for name in texts},
        "winner": first,
        "first": first,
        "last": join_names([names[p - 1] for p in players if outcome.place(p) == lowest], gettext),
        "losers": join_names([names[p - 1] for p in players if outcome.place(p) != 1], gettext),
        "verdict": verdict,
    }
    return text[:1].upper() + text[1:] + "."


class ComputerLevel(Protocol):
    """One level of an :class:`AiLadder`, as core sees it."""

    @property
    def description(self) -> str: ...


class AiLadder(Protocol):
    """What :meth:`Game.ai_ladder` returns: :class:`slimetrail.ai.Ladder` (declared here as
    a protocol because core imports no AI)."""

    @property
    def levels(self) -> Mapping[int, ComputerLevel]: ...

    @property
    def top(self) -> int: ...


@dataclass
class SolveResult:
    """The proven value of a position, from an :class:`ExactSolver`.

    ``value`` is ``"win"``, ``"loss"`` or ``"draw"`` for the side to move; ``move_values``
    maps every legal move to its value for the player making it.  With ``distance=True``,
    ``plies`` is the game length under best play (the winner hurries, the loser delays) and
    ``move_plies`` the same after each move, counting that move.
    """

    value: str
    to_move: int
    winning_moves: list[Move] = field(default_factory=list)
    drawing_moves: list[Move] = field(default_factory=list)
    move_values: dict[Move, str] = field(default_factory=dict)
    plies: int | None = None
    move_plies: dict[Move, int] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    over: bool = False  # the position is already finished


class SolveTimeout(Exception):
    """An exact solve did not finish within its ``time_limit``."""


class ExactSolver(Protocol):
    """What a game's exact solver offers the AI, the analysis and the CLI (two players)."""

    def can_solve(self, game: Game) -> bool:
        """Whether positions of ``game`` fit the solver (cheap to ask; a position that does
        not fit after all is refused by :meth:`solve` with a :class:`GameError`)."""

    def solve(
        self, state: State, *, distance: bool = False, time_limit: float | None = None
    ) -> SolveResult:
        """Solve ``state``; raises :class:`SolveTimeout` after ``time_limit`` seconds.

        A solver for long solves may also offer ``solve_long(state, *, workers, distance,
        time_limit, checkpoint_dir, book)``: several processes, checkpoints that a rerun
        resumes, an opening book to bypass (``slimetrail solve --workers/--checkpoint/
        --no-book``)."""
