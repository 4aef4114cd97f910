"""Game records: a PGN-like text format and its JSON twin, for every game of the platform.

PGN-like text::

    [Game "slimetrail"]
    [Size "7"]
    [Rules "rastros"]
    [Date "2026.11.30"]
    [Player1 "Ana"]
    [Player2 "Rui"]
    [Result "1-0"]

    1. c3 c4 2. b2 a1 1-0

Tag pairs first: ``Game`` names the game and a tag named like one of its options (``Size``,
``Rules``, ``Start``, ...) sets that option; ``FEN`` gives a set-up start position; players
are ``Player1`` .. ``PlayerN``; every other tag is kept as it is.  The result has one number
a player (``1-0``, ``1/2-1/2``, ``0-1-0`` for three players: first place shared by k
players gives each ``1/k``).  With more than two players the result does not say who came
second, so a finished game also has ``[Places "1 3 2"]``: each player's place, in player
order (JSON: ``"places": [1, 3, 2]``).  Then the numbered move text (moves in any form the
game reads, e.g. directions) and the result token.  ``{...}`` comments, ``;`` rest-of-line
comments and ``%`` escape lines are ignored.  One text may hold several records
(:func:`parse_pgn_many`).

JSON: ``{"game": id, "options": {...}, "tags": {...}, "moves": [...], "result": "1-0"}``
(and ``"places"`` where the record has them).

Importing replays every move, so a record that loads is a legal game: errors are
:class:`RecordError` naming the line and the move.  A result may claim a win or draw in an
unfinished game (resignation, agreement) but must not contradict how the moves ended it.
"""

from __future__ import annotations

import datetime
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from slimetrail.core.game import Game, GameError, Outcome, State
from slimetrail.core.i18n import N_, Term
from slimetrail.core.registry import GAMES, get_game

TAG_LINE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
TAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MOVE_NUMBER = re.compile(r"^(\d+)(\.+)(.*)$")
# Tags written first, in this order, when present (then Player1 .. PlayerN).
TAG_ORDER = ("Event", "Site", "Date", "Round")
PLAYER_TAG = re.compile(r"^Player([1-9][0-9]*)$")
JSON_KEYS = ("game", "options", "tags", "moves", "result", "places")
BOM = "\ufeff"  # some editors start UTF-8 files with it


# A record error's sentence by what is known of where it is (line, move number, move text).
WHERE = {
    ("line",): N_("line %(line)s: %(reason)s"),
    ("number",): N_("move %(number)s: %(reason)s"),
    ("number", "move"): N_("move %(number)s (%(move)s): %(reason)s"),
    ("line", "number"): N_("line %(line)s, move %(number)s: %(reason)s"),
    ("line", "number", "move"): N_("line %(line)s, move %(number)s (%(move)s): %(reason)s"),
}


class RecordError(GameError):
    """A record that cannot be read or does not replay; names the line and move if known.

    Raised like any :class:`GameError` (an N_ template and its values, or another game's
    error as the reason), so the web shows it in the reader's language."""

    def __init__(
        self,
        reason: str | GameError,
        /,
        *,
        line: int | None = None,
        move_number: int | None = None,
        move: str | None = None,
        **values: Any,
    ) -> None:
        self.line, self.move_number, self.move = line, move_number, move
        self.reason = reason if isinstance(reason, GameError) else GameError(reason, **values)
        where = {"line": line, "number": move_number, "move": move}
        known = {name: value for name, value in where.items() if value is not None}
        if known:
            super().__init__(WHERE[tuple(known)], reason=self.reason, **known)
        else:
            super().__init__(self.reason.template, **self.reason.values)


def result_token(outcome: Outcome | None, num_players: int = 2) -> str:
    """``1-0``, ``0-1``, ``1/2-1/2`` (one score per player, joined by ``-``) or ``*``."""
    return "*" if outcome is None else outcome.result_text()


def result_tokens(num_players: int = 2) -> set[str]:
    """Every result a record of ``num_players`` may end with: ``*`` and each set of players
    sharing first place."""
    players = range(1, num_players + 1)
    firsts = [group for size in players for group in itertools.combinations(players, size)]
    tokens = {"*"}
    for group in firsts:
        rest = [p for p in players if p not in group]
        tokens.add(Outcome.ranking([group, *([rest] if rest else [])]).result_text())
    return tokens


@dataclass
class Record:
    """A game record: the game with its options, tags, canonical move texts and result.

    ``tags`` holds everything but the game, its options and the result, including ``FEN``
    when the game starts from a set-up position.
    """

    game: Game
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str = "*"
    # Every player's place, where the result does not say it all (more than two players).
    places: tuple[int, ...] | None = None
    # A comment after a move (its index in ``moves``), written ``{...}`` in PGN (a review's
    # verdicts); comments are not read back.
    comments: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_state(cls, state: State, **tags: str) -> Record:
        """The record of the moves that led to ``state``; the result comes from its outcome.

        ``Date`` defaults to today (UTC); a start position other than the game's own is
        kept as the ``FEN`` tag.
        """
        start = state.copy()
        for _ in range(len(start.move_stack)):
            start.pop()
        all_tags = {"Date": datetime.datetime.now(datetime.UTC).strftime("%Y.%m.%d")}
        if start.fen() != state.game.new_state().fen():
            all_tags["FEN"] = start.fen()
        for name in tags:
            _check_tag_name(state.game, name, allow_fen=False)
        all_tags.update(tags)
        moves = []
        for move in state.move_stack:
            moves.append(start.move_str(move))
            start.push(move)
        outcome = state.outcome()
        places = outcome.places if outcome is not None and _players(state) > 2 else None
        return cls(state.game, all_tags, moves, result_token(outcome, _players(state)), places)

    def start_state(self) -> State:
        fen = self.tags.get("FEN")
        if fen is None:
            return self.game.new_state()
        try:
            return self.game.state_from_fen(fen)
        except GameError as exc:
            raise RecordError(N_("FEN tag: %(reason)s"), reason=exc) from None

    def replay(self) -> State:
        """The position after the moves; checks every move and the result."""
        state = self.start_state()
        for number, text in enumerate(self.moves, 1):
            _play(state, text, number, None)
        _check_result(state, self.result, len(self.moves), self.moves[-1:], None)
        _check_places(state, self.result, self.places, None)
        return state

    # -- export ----------------------------------------------------------------------

    def header(self) -> list[tuple[str, str]]:
        """The tag pairs in the order they are written."""
        pairs = [("Game", self.game.id)]
        texts = self.game.option_texts()
        for spec in self.game.option_specs:
            # Size and rules are always written so that a reader sees the board at once.
            if self.game.options[spec.name] != spec.default or spec.name in ("size", "rules"):
                pairs.append((spec.name.capitalize(), texts[spec.name]))
        players = sorted(
            (name for name in self.tags if PLAYER_TAG.match(name)),
            key=lambda name: int(name[len("Player") :]),
        )
        first = [name for name in TAG_ORDER if name in self.tags] + players
        rest = [name for name in self.tags if name not in first and name != "FEN"]
        pairs += [(name, self.tags[name]) for name in first]
        pairs.append(("Result", self.result))
        if self.places is not None:
            pairs.append(("Places", places_text(self.places)))
        if "FEN" in self.tags:
            pairs.append(("FEN", self.tags["FEN"]))
        pairs += [(name, self.tags[name]) for name in rest]
        return pairs

    def to_pgn(self) -> str:
        lines = []
        for name, value in self.header():
            if not TAG_NAME.match(name):
                raise RecordError(
                    N_("tag name %(name)r: use letters, digits and _ only"), name=name
                )
            if "\n" in value or "\r" in value:
                raise RecordError(N_("tag %(name)s: the value must fit on one line"), name=name)
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'[{name} "{escaped}"]')
        state = self.start_state()
        words, round_number = [], 1
        for ply, text in enumerate(self.moves):
            if ply and state.to_move == 1:
                round_number += 1
            if state.to_move == 1:
                words.append(f"{round_number}.")
            elif ply == 0:
                words.append(f"{round_number}...")
            words.append(text)
            if ply in self.comments:
                # A brace would end the comment early; PGN comments do not nest.
                words.append("{" + self.comments[ply].replace("}", ")") + "}")
            _play(state, text, ply + 1, None)
        words.append(self.result)
        return "\n".join([*lines, "", *_wrap(words, 79)]) + "\n"

    def to_json(self) -> str:
        """The JSON form, one key per line."""
        data: dict[str, Any] = {
            "game": self.game.id,
            "options": self.game.option_texts(),
            "tags": dict(self.tags),
            "moves": list(self.moves),
            "result": self.result,
        }
        if self.places is not None:
            data["places"] = list(self.places)
        body = ",\n".join(
            f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
            for key, value in data.items()
        )
        return "{\n" + body + "\n}\n"


def _check_tag_name(game: Game, name: str, *, allow_fen: bool = True) -> None:
    """Reject tag names that are malformed or that the record writes itself."""
    if not TAG_NAME.match(name):
        raise RecordError(N_("tag name %(name)r: use letters, digits and _ only"), name=name)
    reserved = {
        "Game",
        "Result",
        "Places",
        *(spec.name.capitalize() for spec in game.option_specs),
    }
    if not allow_fen:
        reserved.add("FEN")
    if name in reserved:
        raise RecordError(
            N_("tag %(name)s is written from the game itself, not given as a tag"), name=name
        )


def _players(state: State) -> int:
    return state.game.num_players


def places_text(places: tuple[int, ...]) -> str:
    return " ".join(map(str, places))


def parse_places(text: str, num_players: int, line: int | None = None) -> tuple[int, ...]:
    """The ``Places`` tag: one place a player, a ranking as :meth:`Outcome.ranking` makes."""
    words = text.split()
    if len(words) != num_players or not all(word.isdecimal() for word in words):
        raise RecordError(
            N_("Places %(places)r: expected %(count)s places, one a player, e.g. %(example)r"),
            line=line,
            places=text,
            count=num_players,
            example=places_text(tuple(range(1, num_players + 1))),
        )
    return _valid_places(tuple(int(word) for word in words), line)


def _valid_places(places: tuple[int, ...], line: int | None) -> tuple[int, ...]:
    groups = [
        [p for p, place in enumerate(places, 1) if place == value] for value in sorted(set(places))
    ]
    if not places or Outcome.ranking(groups).places != places:
        # Tied players share a place and the next place skips them: 1 1 3, never 1 1 2.
        raise RecordError(
            N_("Places %(places)r is not a ranking"), line=line, places=places_text(places)
        )
    return places


def _check_places(
    state: State, result: str, places: tuple[int, ...] | None, line: int | None
) -> tuple[int, ...] | None:
    """The record's places: those of the finished game, or a claim that fits the result."""
    outcome = state.outcome()
    if outcome is not None:
        if places is not None and places != outcome.places:
            raise RecordError(
                N_(
                    "the moves end the game with places %(actual)s, but the record says %(claimed)s"
                ),
                line=line,
                actual=places_text(outcome.places),
                claimed=places_text(places),
            )
        return outcome.places if _players(state) > 2 else None
    if places is None:
        return None
    if result == "*":
        raise RecordError(N_("Places given for a game without a result"), line=line)
    if Outcome(places).result_text() != result:
        raise RecordError(
            N_("Places %(places)s do not fit the result %(result)s"),
            line=line,
            places=places_text(places),
            result=result,
        )
    return places


def _wrap(words: list[str], width: int) -> list[str]:
    lines, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def _play(state: State, text: str, number: int, line: int | None) -> str:
    """Make one move of a record, naming it on error; returns its canonical text."""
    if not isinstance(text, str):
        raise RecordError(N_("%(text)r is not move text"), line=line, move_number=number, text=text)
    if state.is_over():
        raise RecordError(N_("the game is already over"), line=line, move_number=number, move=text)
    try:
        move = state.parse_move(text)
        canonical = state.move_str(move)
        state.push(move)
    except GameError as exc:
        raise RecordError(exc, line=line, move_number=number, move=text) from None
    return canonical


def _check_result(
    state: State, claimed: str | None, plies: int, last: list[str], line: int | None
) -> str:
    """The record's result: the claim if it fits how the moves ended the game."""
    players = _players(state)
    if claimed is not None and claimed not in result_tokens(players):
        choices = ", ".join(sorted(result_tokens(players)))
        raise RecordError(
            N_("result %(result)r is not one of %(choices)s"),
            line=line,
            result=claimed,
            choices=choices,
        )
    outcome = state.outcome()
    if outcome is None:
        return claimed or "*"
    actual = result_token(outcome, players)
    if claimed not in (None, actual):
        raise RecordError(
            N_("the moves end the game %(actual)s (%(why)s), but the record says %(claimed)s")
            if outcome.reason
            else N_("the moves end the game %(actual)s, but the record says %(claimed)s"),
            line=line,
            move_number=plies or None,
            move=last[0] if last else None,
            actual=actual,
            why=outcome.reason,
            claimed=claimed,
        )
    return actual


# -- PGN import ----------------------------------------------------------------------------


@dataclass
class _Word:
    text: str
    line: int


@dataclass
class _Chunk:
    """The tags and move words of one record in a text."""

    tags: list[tuple[str, str, int]] = field(default_factory=list)
    words: list[_Word] = field(default_factory=list)
    result: _Word | None = None


def _lex(text: str) -> Iterator[tuple[str, Any, int]]:
    """``("tag", (name, value), line)`` and ``("word", text, line)`` items of a PGN text."""
    comment_line = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if comment_line is None:
            if stripped.startswith("%"):
                continue
            if stripped.startswith("["):
                match = TAG_LINE.match(stripped)
                if not match:
                    raise RecordError(
                        N_('malformed tag line %(text)r: expected [Name "value"]'),
                        line=number,
                        text=stripped,
                    )
                value = re.sub(r"\\(.)", r"\1", match.group(2))
                yield "tag", (match.group(1), value), number
                continue
        i = 0
        while i < len(line):
            if comment_line is not None:
                end = line.find("}", i)
                if end < 0:
                    break
                comment_line, i = None, end + 1
                continue
            ch = line[i]
            if ch.isspace():
                i += 1
            elif ch == "{":
                comment_line, i = number, i + 1
            elif ch == ";":
                break
            elif ch in "}[]":
                raise RecordError(N_("unexpected %(char)r in the move text"), line=number, char=ch)
            else:
                j = i
                while j < len(line) and not line[j].isspace() and line[j] not in "{};[]":
                    j += 1
                yield "word", line[i:j], number
                i = j
    if comment_line is not None:
        raise RecordError(N_("comment '{' is never closed"), line=comment_line)


def _chunks(text: str, results: set[str]) -> list[_Chunk]:
    chunks: list[_Chunk] = []
    current: _Chunk | None = None
    for kind, value, line in _lex(text):
        if current is None or (kind == "tag" and (current.words or current.result)):
            current = _Chunk()
            chunks.append(current)
        if kind == "tag":
            current.tags.append((*value, line))
        elif value in results:
            current.result = _Word(value, line)
            current = None
        else:
            current.words.append(_Word(value, line))
    return chunks


def _build(chunk: _Chunk) -> Record:
    tags: dict[str, tuple[str, int]] = {}
    for name, value, line in chunk.tags:
        if name in tags:
            raise RecordError(
                N_("tag %(name)s given twice (first on line %(first)s)"),
                line=line,
                name=name,
                first=tags[name][1],
            )
        tags[name] = (value, line)
    first_line = chunk.tags[0][2] if chunk.tags else chunk.words[0].line if chunk.words else None
    if "Game" not in tags:
        raise RecordError(
            N_('no [Game "..."] tag: which game is this a record of?'), line=first_line
        )
    game_id, game_line = tags.pop("Game")
    cls = GAMES.get(game_id)
    if cls is None:
        raise RecordError(
            N_("unknown game %(game)r (games: %(games)s)"),
            line=game_line,
            game=game_id,
            games=", ".join(GAMES),
        )
    option_names = {spec.name: spec.name.capitalize() for spec in cls.option_specs}
    options = {}
    for name, tag in option_names.items():
        if tag in tags:
            options[name] = tags.pop(tag)
    try:
        game = get_game(game_id, **{name: value for name, (value, _) in options.items()})
    except GameError as exc:
        # Point at the option tag the message names, else at the Game tag.
        named = [line for name, (_, line) in options.items() if f"{name}=" in str(exc)]
        raise RecordError(exc, line=named[0] if named else game_line) from None
    result_tag = tags.pop("Result", None)
    places_tag = tags.pop("Places", None)
    places = None
    if places_tag is not None:
        places = parse_places(places_tag[0], game.num_players, places_tag[1])
    record = Record(game, {name: value for name, (value, _) in tags.items()})
    if "FEN" in tags:
        try:
            state = game.state_from_fen(tags["FEN"][0])
        except GameError as exc:
            raise RecordError(exc, line=tags["FEN"][1]) from None
    else:
        state = game.new_state()
    plies, round_number, last = 0, 1, []
    last_line: int | None = first_line
    for word in chunk.words:
        text = word.text
        match = MOVE_NUMBER.match(text)
        if match:
            if state.is_over():
                raise RecordError(
                    N_("the game is already over"), line=word.line, move_number=plies + 1
                )
            expected = round_number + (1 if plies and state.to_move == 1 else 0)
            want = f"{expected}." if state.to_move == 1 else f"{expected}..."
            # "N." before player 1's move, "N..." before anyone else's.
            dots_fit = (match.group(2) == ".") == (state.to_move == 1)
            if int(match.group(1)) != expected or not dots_fit:
                raise RecordError(
                    N_("move number %(given)s where %(want)s was expected"),
                    line=word.line,
                    move_number=plies + 1,
                    given=match.group(1) + match.group(2),
                    want=want,
                )
            text = match.group(3)
            if not text:
                continue
        if text.startswith("$"):
            continue  # numeric annotation glyph
        text = text.rstrip("!?")
        if plies and state.to_move == 1:
            round_number += 1
        plies += 1
        record.moves.append(_play(state, text, plies, word.line))
        last, last_line = [text], word.line
    claimed = result_tag[0] if result_tag else None
    if chunk.result is not None:
        if result_tag and result_tag[0] != chunk.result.text:
            raise RecordError(
                N_("result %(result)s differs from the Result tag %(tag)s (line %(tag_line)s)"),
                line=chunk.result.line,
                result=chunk.result.text,
                tag=result_tag[0],
                tag_line=result_tag[1],
            )
        claimed = chunk.result.text
    result_line = last_line
    if chunk.result:
        result_line = chunk.result.line
    elif result_tag:
        result_line = result_tag[1]
    record.result = _check_result(state, claimed, plies, last, result_line)
    record.places = _check_places(
        state, record.result, places, places_tag[1] if places_tag else result_line
    )
    return record


def parse_pgn_many(text: str) -> list[Record]:
    """Every record of a PGN-like text, in order."""
    results = set().union(*(result_tokens(cls.num_players) for cls in GAMES.values()))
    return [_build(chunk) for chunk in _chunks(text.removeprefix(BOM), results)]


def parse_pgn(text: str) -> Record:
    """The one record of a PGN-like text."""
    records = parse_pgn_many(text)
    if not records:
        raise RecordError(N_("no record found (expected tag pairs and moves)"))
    if len(records) > 1:
        raise RecordError(N_("%(count)s records found where one was expected"), count=len(records))
    return records[0]


# -- JSON import ---------------------------------------------------------------------------


def _from_data(data: Any) -> Record:
    if not isinstance(data, dict):
        raise RecordError(N_("a JSON record must be an object"))
    unknown = sorted(set(data) - set(JSON_KEYS))
    if unknown:
        raise RecordError(
            N_("unknown key %(key)r (keys: %(keys)s)"), key=unknown[0], keys=", ".join(JSON_KEYS)
        )
    if not isinstance(data.get("game"), str):
        raise RecordError(N_('"game" must be the id of a game, e.g. "slimetrail"'))
    options, tags = data.get("options", {}), data.get("tags", {})
    if not isinstance(options, dict) or not all(
        isinstance(v, str | int) and not isinstance(v, bool) for v in options.values()
    ):
        raise RecordError(N_('"options" must map option names to values'))
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise RecordError(N_('"tags" must map tag names to text'))
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError(N_('"moves" must be a list of move texts'))
    result = data.get("result")
    if result is not None and not isinstance(result, str):
        raise RecordError(N_('"result" must be text such as "1-0"'))
    places = data.get("places")
    if places is not None and (
        not isinstance(places, list)
        or not all(isinstance(p, int) and not isinstance(p, bool) and p > 0 for p in places)
    ):
        raise RecordError(N_('"places" must be a list of places, one a player, e.g. [1, 3, 2]'))
    try:
        game = get_game(data["game"], **options)
        for name in tags:
            _check_tag_name(game, name)
    except GameError as exc:
        raise RecordError(exc) from None
    record = Record(game, dict(tags))
    state = record.start_state()
    for number, text in enumerate(moves, 1):
        record.moves.append(_play(state, text, number, None))
    record.result = _check_result(state, result, len(moves), moves[-1:], None)
    if places is not None:
        if len(places) != game.num_players:
            raise RecordError(
                N_('"places": %(game)s has %(count)s players'),
                game=game.id,
                count=game.num_players,
            )
        places = _valid_places(tuple(places), None)
    record.places = _check_places(state, record.result, places, None)
    return record


# Python's JSON reader's usual complaints, catalogued so that a reader sees them translated.
JSON_COMPLAINTS = (
    N_("Expecting value"),
    N_("Expecting property name enclosed in double quotes"),
    N_("Expecting ',' delimiter"),
    N_("Expecting ':' delimiter"),
    N_("Extra data"),
    N_("Unterminated string starting at"),
    N_("Invalid control character at"),
)


def _load_json(text: str) -> Any:
    try:
        return json.loads(text.removeprefix(BOM))
    except json.JSONDecodeError as exc:
        raise RecordError(
            N_("not valid JSON: %(why)s (column %(column)s)"),
            line=exc.lineno,
            why=Term(exc.msg) if exc.msg in JSON_COMPLAINTS else exc.msg,
            column=exc.colno,
        ) from None


def parse_json(text: str) -> Record:
    """A record from its JSON form."""
    return _from_data(_load_json(text))


def parse_json_many(text: str) -> list[Record]:
    """Records from a JSON object or a JSON list of them."""
    data = _load_json(text)
    if isinstance(data, list):
        records = []
        for number, item in enumerate(data, 1):
            try:
                records.append(_from_data(item))
            except RecordError as exc:
                raise RecordError(
                    N_("record %(number)s: %(reason)s"), number=number, reason=exc
                ) from None
        return records
    return [_from_data(data)]


def parse_record(text: str) -> Record:
    """One record in either format (JSON if the text starts with ``{``)."""
    return parse_json(text) if text.removeprefix(BOM).lstrip().startswith("{") else parse_pgn(text)


def parse_records(text: str) -> list[Record]:
    """Every record of a text in either format."""
    # A JSON list starts "[{" or "[]"; a PGN tag line starts "[Name".
    if re.match(r"\s*(\{|\[\s*[{\]])", text.removeprefix(BOM)):
        return parse_json_many(text)
    return parse_pgn_many(text)
