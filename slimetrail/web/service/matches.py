"""The match service between the web and the games: seats, live positions, moves, turn checks.

A match has N seats, one per player of its game (a seat IS a player number; colours come
from ``state.colours()``, so a pie ``swap`` exchanges them): a person holding a secret token
(one token on several seats is a hotseat game; each friend invited by link has their own),
or the computer at a level.

Every live match is held in memory once (:class:`Live`, in a bounded LRU cache keyed by match
id): a move is checked and made on that position, written with a conditional update on the
row's ``version`` (two writers racing on one match cannot both succeed, and a failed request
leaves nothing changed), and costs no replay.  Each request first reads the row's
``version``: when another process has written the match meanwhile, the match is loaded again
-- the one place where moves are replayed (:attr:`MatchService.replays` counts it).  Every
method is synchronous (the app runs them in threads).  The SQL is the repository's
(:mod:`slimetrail.web.storage.repository`); what a page reads is :mod:`slimetrail.web.views`;
a refusal is a domain error (:mod:`slimetrail.web.service.errors`), never an HTTP status.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from cachetools import LRUCache
from sqlalchemy.orm import sessionmaker

from slimetrail.core.game import (
    ABORTED,
    ILLEGAL,
    RESIGNED,
    TIME,
    Game,
    GameError,
    Outcome,
    State,
)
from slimetrail.core.i18n import N_
from slimetrail.core.registry import get_game
from slimetrail.i18n import gettext
from slimetrail.web.service.clock import TimeControl, parse_clock
from slimetrail.web.service.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
    NotYourTurn,
    SeatRefused,
)
from slimetrail.web.storage.repository import (
    ClockState,
    Forfeit,
    MatchRepository,
    RowState,
    Seat,
    StaleWrite,
    StoredMatch,
)
from slimetrail.web.storage.tables import BOT, COMPUTER, HUMAN, UNFINISHED

MAX_RECORD_CHARS = 1_000_000
CACHE_SIZE = 2_000
# What a creator may ask for each seat.
SEAT_KINDS = ("me", "friend", "computer", "bot")
# The two-player shape of the first API: ``opponent`` with ``side`` and ``level``.
OPPONENTS = ("computer", "hotseat", "friend")
# Match ids are token_urlsafe text; anything else (NUL bytes, say, which PostgreSQL refuses in
# a query) cannot name a match, so it never reaches the database.
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
T = TypeVar("T")


@dataclass
class Live:
    """One match in memory: its seats and its current position (``state`` after ``moves``).

    Read and changed only under ``lock``; ``version`` is the row's version it matches.
    """

    id: str
    game: Game
    state: State
    moves: list[str]
    movers: list[int]
    seats: list[Seat]
    creator_seat: int
    version: int
    resigned: int | None = None
    rematch: str | None = None
    forfeit: Forfeit | None = None
    # The time control, each seat's milliseconds left when the current turn started, and
    # when it started (no clock: None, [], None).  Clocks wait, ``turn_started`` None, until
    # every seat is taken; ``abort_at``: when the game is aborted if one still is not.
    clock: TimeControl | None = None
    clock_ms: list[int] = field(default_factory=list)
    turn_started: datetime | None = None
    abort_at: datetime | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    @property
    def ply(self) -> int:
        return len(self.moves)

    def outcome(self) -> Outcome | None:
        if self.resigned is not None:
            return resignation(self.game.num_players, self.resigned)
        if self.forfeit is not None:
            return forfeited(self.state, self.forfeit)
        return self.state.outcome()

    def seat(self, player: int) -> Seat:
        return self.seats[player - 1]

    @property
    def thinking(self) -> bool:
        """Whether the computer is to move."""
        return self.outcome() is None and self.seat(self.state.to_move).kind == COMPUTER

    def held_by(self, token: str | None) -> tuple[int, ...]:
        """The players whose seat ``token`` holds (several: hotseat); () without a token.

        A token that is given but holds no seat of this match is refused: a player whose
        link is mistyped should be told, not silently shown a spectator's view.
        """
        if not token:
            return ()
        held = tuple(
            seat.player
            for seat in self.seats
            if seat.token is not None
            and secrets.compare_digest(seat.token.encode(), token.encode())
        )
        if not held:
            raise SeatRefused(gettext("this seat link is not valid for this match"))
        return held

    def people(self) -> int:
        """How many different people hold seats (a hotseat player counts once)."""
        return len({seat.token for seat in self.seats if seat.kind == HUMAN})

    def has_computer(self) -> bool:
        return any(seat.kind == COMPUTER for seat in self.seats)

    def position_at(self, ply: int | None) -> tuple[int, State]:
        """The position after ``ply`` moves (the current one for ``None``), as a copy."""
        wanted = self.ply if ply is None else ply
        if not 0 <= wanted <= self.ply:
            said = gettext("ply %(ply)s is out of range: the match has %(n)s moves")
            raise InvalidRequest(said % {"ply": wanted, "n": self.ply})
        state = self.state.copy()
        for _ in range(self.ply - wanted):
            state.pop()
        return wanted, state

    def open_to_review(self) -> bool:
        """Whether the players may see a review: the game is over, or one person holds
        every seat (a hotseat game, an imported record), so nobody is told how to play."""
        return self.outcome() is not None or (self.people() == 1 and not self.has_computer())

    def bot_to_move(self) -> str | None:
        """The name of the bot to move, if a bot is."""
        seat = self.seat(self.state.to_move)
        return seat.bot if self.outcome() is None and seat.kind == BOT else None

    def absent(self) -> list[int]:
        """The players whose seat is a person's that nobody has taken yet (an invite nobody
        opened); the creator, the computer and bots are always there."""
        creator = self.seat(self.creator_seat).token
        return [
            seat.player
            for seat in self.seats
            if seat.kind == HUMAN and seat.owner is None and seat.token != creator
        ]

    @property
    def aborted(self) -> bool:
        """Whether the game ended because a player never arrived."""
        return self.forfeit is not None and self.forfeit.reason == ABORTED

    @property
    def clock_waits(self) -> bool:
        """Whether the game has clocks that have not started: a player has not arrived."""
        return self.clock is not None and self.turn_started is None

    def clock_left(self, now: datetime) -> list[int]:
        """Each seat's milliseconds left at ``now`` (the clock of the player to move runs
        from the start until the game is over); ``[]`` without a clock."""
        if self.clock is None:
            return []
        left = list(self.clock_ms)
        if self.turn_started is not None and self.outcome() is None:
            spent = (now - self.turn_started) // timedelta(milliseconds=1)
            left[self.state.to_move - 1] -= spent
        return left

    def clock_state(self) -> ClockState | None:
        if self.clock is None:
            return None
        if self.turn_started is None:
            abort_at = self.abort_at if self.outcome() is None else None
            return ClockState(tuple(self.clock_ms), None, abort_at)
        flag_at = None
        if self.outcome() is None:
            left = self.clock_ms[self.state.to_move - 1]
            flag_at = self.turn_started + timedelta(milliseconds=left)
        return ClockState(tuple(self.clock_ms), self.turn_started, flag_at)

    def row_state(self) -> RowState:
        return RowState(
            self.ply,
            self.state.to_move,
            self.resigned,
            result_text(self),
            self.forfeit,
            self.clock_state(),
        )


def resignation(num_players: int, resigner: int) -> Outcome:
    """The resigner is ranked last; everybody else shares first place (the only winner of
    a two-player game)."""
    others = [p for p in range(1, num_players + 1) if p != resigner]
    return Outcome.ranking([others, resigner], reason=RESIGNED)


def forfeited(state: State, forfeit: Forfeit) -> Outcome:
    """The forfeiter is ranked last and the others share first place, but a flag that falls
    against opponents none of whom could win is a draw."""
    n = state.game.num_players
    if forfeit.reason == ABORTED:
        return Outcome.draw(n, reason=ABORTED)  # nobody won or lost: no game took place
    others = [p for p in range(1, n + 1) if p != forfeit.player]
    if forfeit.reason == TIME and not any(state.can_win(p) for p in others):
        return Outcome.draw(n, reason=TIME)
    return Outcome.ranking([others, forfeit.player], reason=forfeit.reason)


def now_utc() -> datetime:
    return datetime.now(UTC)


# Said when a write lost a race with another process's (its conditional update failed).
CHANGED_MEANWHILE = N_("stale: the match changed meanwhile; reload the match")


def game_over(live: Live) -> str:
    return gettext("the game is over (%(result)s)") % {"result": result_text(live)}


def result_text(live: Live) -> str:
    """The stored result: ``*`` while unfinished, ``aborted`` for a game that never started."""
    outcome = live.outcome()
    if outcome is None:
        return UNFINISHED
    return ABORTED if live.aborted else outcome.result_text()


def move_seed(match_id: str, ply: int) -> int:
    """A stable seed per match and ply, so a resumed computer move is the same move."""
    digest = hashlib.sha256(f"{match_id}:{ply}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def make_game(game_id: str, options: dict[str, Any]) -> Game:
    """The game; :class:`InvalidRequest` names the unknown game or the bad option."""
    try:
        return get_game(game_id, **options)
    except GameError as exc:
        raise InvalidRequest(exc.translated(gettext)) from None


def replay_moves(game: Game, texts: Iterable[str]) -> tuple[State, list[str], list[int]]:
    """The position after ``texts``, their canonical forms and who made each;
    :class:`InvalidRequest` names a bad move."""
    state = game.new_state()
    canonical, movers = [], []
    for number, text in enumerate(texts, 1):
        if state.outcome() is not None:
            said = gettext("move %(number)s (%(text)r): the game is already over")
            raise InvalidRequest(said % {"number": number, "text": text})
        try:
            move = state.parse_move(text)
        except GameError as exc:
            said = gettext("move %(number)s (%(text)r): %(why)s")
            why = exc.translated(gettext)
            raise InvalidRequest(said % {"number": number, "text": text, "why": why}) from None
        canonical.append(state.move_str(move))
        movers.append(state.to_move)
        state.push(move)
    return state, canonical, movers


def seats_from_request(
    game: Game, seats: list[dict[str, Any]] | None, opponent: str, level: int, side: int
) -> list[dict[str, Any]]:
    """The seat requests (``{"kind": "me" | "friend" | "computer", "level": n}`` or
    ``{"kind": "bot", "name": NAME}``) of a new match; without ``seats``, from the
    two-player shape ``opponent``/``side``/``level``."""
    from slimetrail.ai import levels_for

    available = levels_for(game)  # each game has its own ladder of levels
    levels = ", ".join(map(str, available))
    n = game.num_players
    if seats is None:
        # Named as the request names them (level, side), never by a seat it did not mention.
        problems = []
        if opponent not in OPPONENTS:
            said = gettext("opponent %(opponent)r is not one of %(opponents)s")
            problems.append(said % {"opponent": opponent, "opponents": ", ".join(OPPONENTS)})
        if not 1 <= side <= n:
            said = gettext("side %(side)r is not a player of %(game)s (1 to %(n)s)")
            problems.append(said % {"side": side, "game": game.id, "n": n})
        if opponent == "computer" and level not in available:
            said = gettext("level %(level)r is not one of %(levels)s for %(game)s")
            problems.append(said % {"level": level, "levels": levels, "game": game.id})
        if problems:
            raise InvalidRequest("; ".join(problems))
        other = {"computer": "computer", "hotseat": "me", "friend": "friend"}[opponent]
        seats = [
            {"kind": "me"} if player == side else {"kind": other, "level": level}
            for player in range(1, n + 1)
        ]
    if len(seats) != n:
        said = gettext("%(game)s has %(n)s players: give %(n)s seats, not %(given)s")
        raise InvalidRequest(said % {"game": game.id, "n": n, "given": len(seats)})
    # Every bad seat at once: the player fixes them in one go.
    problems = []
    for number, seat in enumerate(seats, 1):
        kind = seat.get("kind")
        if kind not in SEAT_KINDS:
            said = gettext("seat %(number)s: kind %(kind)r is not one of %(kinds)s")
            problems.append(said % {"number": number, "kind": kind, "kinds": ", ".join(SEAT_KINDS)})
        elif kind == "computer" and seat.get("level") not in available:
            said = gettext("seat %(number)s: level %(level)r is not one of %(levels)s")
            problems.append(said % {"number": number, "level": seat.get("level"), "levels": levels})
        elif kind == "bot" and not seat.get("name"):
            said = gettext("seat %(number)s: a bot seat names its bot (bot:NAME)")
            problems.append(said % {"number": number})
    if problems:
        raise InvalidRequest("; ".join(problems))
    if not any(seat["kind"] == "me" for seat in seats):
        raise InvalidRequest(gettext("at least one seat must be yours (kind 'me')"))
    return seats


def new_token() -> str:
    return secrets.token_urlsafe(18)


def replace_player(seat: Seat, player: int) -> Seat:
    return Seat(player, seat.kind, seat.token, seat.level, seat.bot, seat.owner)


def make_seat(player: int, wanted: dict[str, Any], token: str, owner: str | None) -> Seat:
    """The seat of ``player`` as ``wanted`` (checked by :func:`seats_from_request`);
    ``owner``: the creator's player id, on their own seats."""
    kind = wanted["kind"]
    if kind == "computer":
        return Seat(player, COMPUTER, None, wanted["level"])
    if kind == "bot":
        return Seat(player, BOT, None, None, wanted["name"])
    if kind == "me":
        return Seat(player, HUMAN, token, owner=owner)
    return Seat(player, HUMAN, new_token())


class BotCheck(Protocol):
    def __call__(self, name: str, game: Game) -> None:
        """Raise :class:`InvalidRequest` unless bot ``name`` is online and plays ``game``."""


class MatchService:
    def __init__(
        self,
        sessions: sessionmaker,
        cache_size: int = CACHE_SIZE,
        on_change: Callable[[Any, str, int], None] | None = None,
        *,
        clock_scale: float = 1.0,
        arrival_wait: float = 86_400.0,
    ) -> None:
        self.sessions = sessions
        self.clock_scale = clock_scale
        self.arrival_wait = timedelta(seconds=arrival_wait)
        # Whether a bot seat may be taken (the site's bots); None: this server takes no bots.
        self.check_bot: BotCheck | None = None
        self.repository = MatchRepository(sessions, on_change)
        # The live matches of this process, the least recently used dropped beyond the size.
        self.cache: LRUCache[str, Live] = LRUCache(maxsize=cache_size)
        self.cache_lock = threading.Lock()
        # Matches loaded from the database and replayed (the only replays a request makes).
        self.replays = 0

    # -- reviews -------------------------------------------------------------------

    def review_job(self, match_id: str) -> tuple[Game, list[str], int, dict[str, Any] | None]:
        """What a review of the match needs: its game, moves and version, and the review
        kept for that version (``None``: to be made); :class:`Conflict` while the game is
        not open to review."""

        def job(live: Live) -> tuple[Game, list[str], int]:
            if not live.open_to_review():
                raise Conflict(
                    gettext(
                        "the game is not over: its review opens when it ends (at once in a "
                        "game where one person plays every side)"
                    )
                )
            return live.game, list(live.moves), live.version

        game, moves, version = self.locked(match_id, job)
        return game, moves, version, self.repository.review(match_id, version)

    def keep_review(self, match_id: str, version: int, review: dict[str, Any]) -> None:
        self.repository.keep_review(match_id, version, review)

    # -- the live matches ----------------------------------------------------------

    def cached(self, match_id: str) -> Live | None:
        with self.cache_lock:
            return self.cache.get(match_id)

    def remember(self, live: Live) -> None:
        with self.cache_lock:
            self.cache[live.id] = live

    def forget(self, live: Live) -> None:
        """Drop ``live`` from memory (not a newer entry another thread may have put)."""
        with self.cache_lock:
            if self.cache.get(live.id) is live:
                del self.cache[live.id]

    # -- reading -------------------------------------------------------------------

    def load(self, match_id: str) -> Live:
        """The live match, from memory if no process has written it since it was loaded."""
        version = self.repository.version(match_id) if MATCH_ID.fullmatch(match_id) else None
        if version is None:
            raise NotFound(gettext("no match %(id)r") % {"id": match_id})
        live = self.cached(match_id)
        if live is not None and live.version < version:
            # A write of this process may be between its commit and counting it in memory
            # (under the match's lock): wait for it rather than replay the match.
            with live.lock:
                pass
        # Versions only grow, and memory counts a write after its commit: a version read
        # before a write of this process committed is older than memory, not newer.
        if live is not None and live.version >= version:
            return live
        live = self.read(match_id)
        self.remember(live)
        return live

    def read(self, match_id: str) -> Live:
        """The match as stored, its moves replayed."""
        stored = self.repository.read(match_id)
        if stored is None:
            raise NotFound(gettext("no match %(id)r") % {"id": match_id})
        game = get_game(stored.game, **stored.options)
        state = game.new_state()
        for text, _ in stored.moves:
            state.push_str(text)
        self.replays += 1
        clock = stored.clock_state
        return Live(
            id=stored.id,
            game=game,
            state=state,
            moves=[text for text, _ in stored.moves],
            movers=[player for _, player in stored.moves],
            seats=stored.seats,
            creator_seat=stored.creator_seat,
            version=stored.version,
            resigned=stored.resigned,
            rematch=stored.rematch,
            forfeit=stored.forfeit,
            clock=None if stored.clock is None else parse_clock(stored.clock, self.clock_scale),
            clock_ms=[] if clock is None else list(clock.ms),
            turn_started=None if clock is None else clock.turn_started,
            abort_at=None if clock is None or clock.turn_started is not None else clock.flag_at,
        )

    def locked(self, match_id: str, func: Callable[[Live], T]) -> T:
        """``func(live)`` under the match's lock, on its current position."""
        live = self.load(match_id)
        with live.lock:
            return func(live)

    def has_computer(self, match_id: str) -> bool:
        """Whether the match has a computer seat (seats never change: memory will do)."""
        live = self.cached(match_id) or self.load(match_id)
        return live.has_computer()

    def pending_computer_moves(self) -> list[tuple[str, int]]:
        """``(match id, ply)`` of every unfinished match whose computer is to move."""
        return self.repository.pending_computer_moves()

    @staticmethod
    def opponent(live: Live) -> str:
        """``computer``, ``bot``, ``hotseat`` or ``friend``: the kind of game in the first
        API's words (and ``bot``)."""
        if live.has_computer():
            return "computer"
        if any(seat.kind == BOT for seat in live.seats):
            return "bot"
        return "hotseat" if live.people() == 1 else "friend"

    @staticmethod
    def undo_refusal(live: Live) -> str | None:
        """Why no move of the match may be taken back now, or ``None`` if one may."""
        if live.people() > 1 or any(seat.kind == BOT for seat in live.seats):
            return gettext("undo is not available in games between two people")
        if live.clock is not None:
            return gettext("undo is not available in games with a clock")
        if live.resigned is not None:
            return gettext("the game was resigned: it cannot be taken back")
        if live.outcome() is not None:  # as on the page: a result stands once reached
            said = gettext("the game is over (%(result)s): moves cannot be taken back")
            return said % {"result": result_text(live)}
        return None

    @staticmethod
    def undo_plies(live: Live, held: tuple[int, ...]) -> int:
        """How many moves an undo by the holder of ``held`` takes back (0: none)."""
        for back in range(1, live.ply + 1):
            if live.movers[-back] in held:
                return back
        return 0

    @classmethod
    def next_clicks(cls, live: Live, token: str | None, prefix: list[str]) -> dict[str, Any]:
        """The next legal clicks after ``prefix`` for the player to move, if ``token`` holds
        that player's seat (call under the lock)."""
        cls.check_turn(live, cls.held_required(live, token))
        try:
            return live.state.next_clicks(prefix)
        except GameError as exc:
            raise InvalidRequest(exc.translated(gettext)) from None

    # -- changes -------------------------------------------------------------------

    def create(
        self,
        game_id: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]] | None = None,
        *,
        opponent: str = "computer",
        level: int = 3,
        side: int = 1,
        moves: Sequence[str] = (),
        clock: str | None = None,
        owner: str | None = None,
    ) -> tuple[Live, str]:
        """A new match and the creator's seat token; ``moves``: played already (a game
        continued against the computer from an imported record, say); ``clock``: its time
        control (``3+2``, ``d1``), running once every seat is taken; ``owner``: the creator's
        player id, on their seats."""
        game = make_game(game_id, options)
        wanted = seats_from_request(game, seats, opponent, level, side)
        control = None if clock is None else parse_clock(clock, self.clock_scale)
        for seat in wanted:
            if seat["kind"] == "bot":
                if self.check_bot is None:
                    raise InvalidRequest(gettext("this server takes no bots"))
                self.check_bot(seat["name"], game)
        token = new_token()
        made = [make_seat(n, s, token, owner) for n, s in enumerate(wanted, 1)]
        creator = next(n for n, s in enumerate(wanted, 1) if s["kind"] == "me")
        return self.insert(game, list(moves), made, creator, clock=control), token

    def import_record(self, text: str, owner: str | None = None) -> tuple[Live, str]:
        """A hotseat match replaying a PGN or JSON record, and its seat token."""
        from slimetrail.core.records import parse_record

        if len(text) > MAX_RECORD_CHARS:
            said = gettext("the record is longer than %(most)s characters")
            raise InvalidRequest(said % {"most": MAX_RECORD_CHARS})
        try:
            record = parse_record(text)
        except GameError as exc:
            raise InvalidRequest(exc.translated(gettext)) from None
        if "FEN" in record.tags:
            raise InvalidRequest(
                gettext("records that start from a set-up position (FEN) cannot be played here")
            )
        token = new_token()
        seats = [Seat(n, HUMAN, token, owner=owner) for n in range(1, record.game.num_players + 1)]
        return self.insert(record.game, list(record.moves), seats, 1), token

    def insert(
        self,
        game: Game,
        texts: list[str],
        seats: list[Seat],
        creator: int,
        *,
        rematch_of: Live | None = None,
        clock: TimeControl | None = None,
    ) -> Live:
        state, moves, movers = replay_moves(game, texts)
        now = now_utc()
        live = Live(
            id=secrets.token_urlsafe(8),
            game=game,
            state=state,
            moves=moves,
            movers=movers,
            seats=seats,
            creator_seat=creator,
            version=0,
            clock=clock,
            clock_ms=[] if clock is None else [clock.initial_ms] * game.num_players,
        )
        if clock is not None:
            if live.absent():
                live.abort_at = now + self.arrival_limit(clock)
            else:
                live.turn_started = now  # everybody is here (a paired game, the computer)
        stored = StoredMatch(
            id=live.id,
            game=game.id,
            options=game.option_texts(),
            creator_seat=creator,
            version=0,
            resigned=None,
            rematch=None,
            seats=seats,
            moves=list(zip(moves, movers, strict=True)),
            clock=None if clock is None else clock.text,
        )
        old = None
        if rematch_of is not None:
            old = (rematch_of.id, rematch_of.version, rematch_of.row_state())
        try:
            self.repository.insert(stored, live.row_state(), rematch_of=old)
        except StaleWrite:
            raise Conflict(gettext(CHANGED_MEANWHILE)) from None
        if rematch_of is not None:
            rematch_of.version += 1
            rematch_of.rematch = live.id
        self.remember(live)
        return live

    def move(self, match_id: str, token: str | None, text: str, ply: int) -> Live:
        def play(live: Live) -> Live:
            held = self.held_required(live, token)
            if self.flag_fell(live):
                return live  # too late: the game is lost on time, as the answer shows
            self.check_current(live, ply)
            self.check_turn(live, held)
            try:
                move = live.state.parse_move(text)
            except GameError as exc:
                raise InvalidRequest(exc.translated(gettext)) from None
            self.push(live, move)
            return live

        return self.locked(match_id, play)

    def computer_move(self, match_id: str, ply: int, text: str) -> Live | None:
        """Apply the computer's move computed for ``ply``; ``None`` if the match moved on."""

        def play(live: Live) -> Live | None:
            if live.ply != ply or not live.thinking:
                return None
            if self.flag_fell(live):
                return live
            try:
                self.push(live, live.state.parse_move(text))
            except Conflict:
                return None  # changed meanwhile (an undo): the move is no longer wanted
            return live

        return self.locked(match_id, play)

    def computer_job(
        self, match_id: str, ply: int
    ) -> tuple[str, dict[str, str], str, int, float | None] | None:
        """What a worker needs for the computer's move at ``ply`` (game id, options, position,
        level, and the seconds its clock allows, ``None`` without a clock), or ``None`` if the
        computer is not to move there."""

        def job(live: Live) -> tuple[str, dict[str, str], str, int, float | None] | None:
            if live.ply != ply or not live.thinking:
                return None
            level = live.seat(live.state.to_move).level
            assert level is not None
            budget = None
            if live.clock is not None:
                budget = live.clock.budget(live.clock_left(now_utc())[live.state.to_move - 1])
            return live.game.id, live.game.option_texts(), live.state.fen(), level, budget

        return self.locked(match_id, job)

    def undo(self, match_id: str, token: str | None, ply: int) -> Live:
        """Take back moves to the last position where the player was to move: one move in a
        hotseat game, the player's move and the computer's replies against the computer."""

        def take_back(live: Live) -> Live:
            held = self.held_required(live, token)
            refusal = self.undo_refusal(live)
            if refusal is not None:
                raise Conflict(refusal)
            self.check_ply(live, ply)
            count = self.undo_plies(live, held)
            if count == 0:
                raise Conflict(gettext("you have no move to take back"))
            self.write(live, pop=count)
            return live

        return self.locked(match_id, take_back)

    def resign(self, match_id: str, token: str | None) -> Live:
        """The player to move resigns if the token holds that seat, else its first seat."""

        def give_up(live: Live) -> Live:
            held = self.held_required(live, token)
            if live.outcome() is not None:
                raise Conflict(game_over(live))
            player = live.state.to_move if live.state.to_move in held else held[0]
            self.write(live, resigned=player, clock=self.stopped_clock(live))
            return live

        return self.locked(match_id, give_up)

    def rematch(self, match_id: str, token: str | None) -> Live:
        """A new match of the same game with the seats rotated (player 2 moves first, ...);
        each person keeps their token.  Asked again, it is the same rematch."""

        def again(live: Live) -> Live:
            held = self.held_required(live, token)
            if live.rematch is not None:
                return self.load(live.rematch)
            if live.outcome() is None:
                raise Conflict(gettext("the game is not over yet: resign first for a rematch"))
            n = len(live.seats)
            seats = [replace_player(live.seats[p % n], p) for p in range(1, n + 1)]
            creator = next(s.player for s in seats if s.token == live.seat(held[0]).token)
            return self.insert(live.game, [], seats, creator, rematch_of=live, clock=live.clock)

        return self.locked(match_id, again)

    # -- checks and writes ---------------------------------------------------------

    @staticmethod
    def held_required(live: Live, token: str | None) -> tuple[int, ...]:
        held = live.held_by(token)
        if not held:
            raise SeatRefused(gettext("a seat token is needed to play (spectators cannot move)"))
        return held

    @staticmethod
    def check_turn(live: Live, held: tuple[int, ...]) -> None:
        if live.outcome() is not None:
            raise Conflict(game_over(live))
        if live.thinking:
            raise NotYourTurn(gettext("it is the computer's turn"))
        if live.state.to_move not in held:
            said = gettext("it is player %(player)s's turn, not yours")
            raise NotYourTurn(said % {"player": live.state.to_move})

    @classmethod
    def check_current(cls, live: Live, ply: int) -> None:
        if live.outcome() is not None:
            raise Conflict(game_over(live))
        cls.check_ply(live, ply)

    @staticmethod
    def check_ply(live: Live, ply: int) -> None:
        """A move or undo must name the ply it was made on: another tab may have moved."""
        if ply != live.ply:
            said = gettext("stale: the match has %(ply)s moves, not %(asked)s; reload the match")
            raise Conflict(said % {"ply": live.ply, "asked": ply})

    @staticmethod
    def stopped_clock(live: Live) -> tuple[list[int], datetime] | None:
        """The clocks stopped now (the game ends): each seat's time left, and now."""
        if live.clock is None:
            return None
        now = now_utc()
        return live.clock_left(now), now

    def arrival_limit(self, clock: TimeControl) -> timedelta:
        """How long a game's clocks wait for its players before it is aborted: the server's
        ``arrival_wait``, or a correspondence move's time if longer (a friend reads mail)."""
        move = timedelta(milliseconds=clock.initial_ms if clock.per_move else 0)
        return max(self.arrival_wait, move)

    def arrived(self, match_id: str, token: str, owner: str) -> Live:
        """The holder of ``token`` took their seats as ``owner`` (the people's repository
        stored it): when nobody is missing now, the clock of the player to move starts."""

        def arrive(live: Live) -> Live:
            live.seats = [
                replace(seat, owner=owner) if seat.token == token and seat.owner is None else seat
                for seat in live.seats
            ]
            if live.clock_waits and live.outcome() is None and not live.absent():
                self.write(live, clock=(list(live.clock_ms), now_utc()))
            return live

        try:
            return self.locked(match_id, arrive)
        except Conflict:  # another process wrote the match meanwhile: once more, reloaded
            return self.locked(match_id, arrive)

    def flag_fell(self, live: Live) -> bool:
        """End the game on time if the flag of the player to move has fallen, or abort it if
        a player has not arrived in time (call under the lock); whether it ended."""
        if live.clock is None or live.outcome() is not None:
            return False
        now, player = now_utc(), live.state.to_move
        if live.turn_started is None:
            if live.abort_at is None or now < live.abort_at:
                return False
            # The absent player is named (the forfeit column needs one); nobody loses.
            aborted = Forfeit(live.absent()[0] if live.absent() else player, ABORTED)
            self.write(live, forfeit=aborted)
            return True
        left = live.clock_left(now)
        if left[player - 1] > 0:
            return False
        left[player - 1] = 0
        self.write(live, forfeit=Forfeit(player, TIME), clock=(left, now))
        return True

    def flagged(self) -> list[str]:
        """The unfinished matches whose player to move has no time left."""
        return self.repository.flagged(now_utc())

    def end_on_time(self, match_id: str) -> bool:
        """End the match on time if its flag has fallen (the sweeper); whether it did."""
        return self.locked(match_id, self.flag_fell)

    # -- bots ----------------------------------------------------------------------

    def bot_turns(self, name: str) -> list[str]:
        """The unfinished matches where bot ``name`` is to move."""
        return self.repository.pending_bot_moves(name)

    def bot_job(self, match_id: str, name: str) -> dict[str, Any] | None:
        """What bot ``name`` needs to move in the match (game, options, moves, its player,
        each player's time left and increment in ms), or ``None`` if it is not to move."""

        def job(live: Live) -> dict[str, Any] | None:
            if live.bot_to_move() != name:
                return None
            return {
                "match": live.id,
                "game": live.game.id,
                "options": live.game.option_texts(),
                "moves": list(live.moves),
                "ply": live.ply,
                "player": live.state.to_move,
                "clock_ms": live.clock_left(now_utc()) or None,
                "increment_ms": live.clock.increment_ms if live.clock else 0,
                "per_move": bool(live.clock and live.clock.per_move),
            }

        return self.locked(match_id, job)

    def bot_move(self, match_id: str, name: str, ply: int, text: str) -> Live | None:
        """Bot ``name``'s move at ``ply``; a move that is not legal loses it the game, the
        reason named.  ``None`` if the bot is not to move there (the match moved on)."""

        def play(live: Live) -> Live | None:
            if live.ply != ply or live.bot_to_move() != name:
                return None
            if self.flag_fell(live):
                return live
            try:
                move = live.state.parse_move(text)
            except GameError as exc:
                note = f"{name} sent {text!r}: {exc}"[:300]
                forfeit = Forfeit(live.state.to_move, ILLEGAL, note)
                self.write(live, forfeit=forfeit, clock=self.stopped_clock(live))
                return live
            self.push(live, move)
            return live

        return self.locked(match_id, play)

    def push(self, live: Live, move: Any) -> None:
        text, player = live.state.move_str(move), live.state.to_move
        clock = None
        # Moves made before everybody has arrived (the creator's first, say) are allowed, as
        # a player sending a link expects to open the game; they cost no time and add no
        # increment: nobody's clock runs until the last seat is taken.
        if live.clock is not None and not live.clock_waits:
            now = now_utc()
            left = live.clock_left(now)
            left[player - 1] = live.clock.after_move(left[player - 1])
            clock = (left, now)
        live.state.push(move)
        live.moves.append(text)
        live.movers.append(player)
        try:
            self.write(live, added=1, clock=clock)
        except BaseException:
            live.state.pop()
            live.moves.pop()
            live.movers.pop()
            raise

    def write(
        self,
        live: Live,
        *,
        added: int = 0,
        pop: int = 0,
        resigned: int | None = None,
        forfeit: Forfeit | None = None,
        clock: tuple[list[int], datetime] | None = None,
    ) -> None:
        """Store a change of ``live``: its last ``added`` moves (made in memory by the caller),
        ``pop`` moves taken back (here), a resignation or a forfeit, with the clocks now
        ``clock`` (each seat's time left, the turn's start) -- if nobody wrote the match since
        ``live.version``.  On failure ``live`` is as it was, dropped from memory (the next
        request loads what the database holds), and a write that lost a race a Conflict."""
        undone = [(live.state.pop(), live.moves.pop(), live.movers.pop()) for _ in range(pop)]
        old = live.resigned, live.forfeit, live.clock_ms, live.turn_started
        if resigned is not None:
            live.resigned = resigned
        if forfeit is not None:
            live.forfeit = forfeit
        if clock is not None:
            live.clock_ms, live.turn_started = clock
        new_moves = [
            (
                n + 1,
                live.movers[n],
                live.moves[n],
                live.clock_ms[live.movers[n] - 1] if live.clock else None,
            )
            for n in range(live.ply - added, live.ply)
        ]
        try:
            try:
                self.repository.write(
                    live.id, live.version, live.row_state(), added=new_moves, truncate=pop > 0
                )
            except StaleWrite:
                raise Conflict(gettext(CHANGED_MEANWHILE)) from None
        except BaseException:
            live.resigned, live.forfeit, live.clock_ms, live.turn_started = old
            for move, text, player in reversed(undone):
                live.state.push(move)
                live.moves.append(text)
                live.movers.append(player)
            self.forget(live)
            raise
        live.version += 1
