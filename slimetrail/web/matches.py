"""The match service between the web and the games: seats, live positions, moves, records.

A match has N seats, one per player of its game (a seat IS a player number; colours come
from ``state.colours()``, so a pie ``swap`` exchanges them): a person holding a secret token
(one token on several seats is a hotseat game; each friend invited by link has their own),
or the computer at a level.

Every live match is held in memory once (:class:`Live`, in a bounded cache keyed by match id):
a move is checked and made on that position, written with a conditional update on the row's
``version`` (two writers racing on one match cannot both succeed, and a failed request leaves
nothing changed), and costs no replay.  Each request first reads the row's ``version``: when
another process has written the match meanwhile, the match is loaded again -- the one place
where moves are replayed (:attr:`MatchService.replays` counts it).  Every method is
synchronous (the app runs them in threads).  Errors are :class:`ApiError` with the HTTP status.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import sessionmaker

from slimetrail.core.game import RESIGNED, Game, GameError, Outcome, State, outcome_sentence
from slimetrail.core.registry import GAMES, get_game
from slimetrail.web.db import COMPUTER, HUMAN, UNFINISHED, MatchRow, MoveRow, SeatRow

MAX_RECORD_CHARS = 1_000_000
CACHE_SIZE = 2_000
# What a creator may ask for each seat.
SEAT_KINDS = ("me", "friend", "computer")
# The two-player shape of the first API: ``opponent`` with ``side`` and ``level``.
OPPONENTS = ("computer", "hotseat", "friend")
T = TypeVar("T")
# The statements of every request, built once: SQLAlchemy then reuses their compiled form.  The
# writes are Core statements on the tables (no ORM object is loaded in these sessions, so the
# ORM has nothing to synchronise): a move costs a third of the CPU it did through the ORM.
VERSION_OF = select(MatchRow.version).where(MatchRow.id == bindparam("match_id"))
ADD_MOVES = insert(MoveRow.__table__)
MATCHES = MatchRow.__table__
BUMP = update(MATCHES).where(
    MATCHES.c.id == bindparam("match_id"), MATCHES.c.version == bindparam("old_version")
)


class ApiError(Exception):
    """A request the server refuses: ``status`` is the HTTP status, ``message`` says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Seat:
    player: int
    kind: str  # HUMAN or COMPUTER
    token: str | None = None
    level: int | None = None


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
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    @property
    def ply(self) -> int:
        return len(self.moves)

    def outcome(self) -> Outcome | None:
        if self.resigned is not None:
            return resignation(self.game.num_players, self.resigned)
        return self.state.outcome()

    def seat(self, player: int) -> Seat:
        return self.seats[player - 1]

    def board_view(self, state: State, ply: int) -> dict[str, Any]:
        """The view of ``state``, the position after ``ply`` moves, for the board: its last
        move in the colour of the player the moves table says made it."""
        from slimetrail import render

        return render.board_view(state, self.movers[ply - 1] if ply else None)

    @property
    def thinking(self) -> bool:
        """Whether the computer is to move."""
        return self.outcome() is None and self.seat(self.state.to_move).kind == COMPUTER

    def held_by(self, token: str | None) -> tuple[int, ...]:
        """The players whose seat ``token`` holds (several: hotseat); () without a token.

        A token that is given but holds no seat of this match is refused (403): a player
        whose link is mistyped should be told, not silently shown a spectator's view.
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
            raise ApiError(403, "this seat link is not valid for this match")
        return held

    def people(self) -> int:
        """How many different people hold seats (a hotseat player counts once)."""
        return len({seat.token for seat in self.seats if seat.kind == HUMAN})


def resignation(num_players: int, resigner: int) -> Outcome:
    """The resigner is ranked last; everybody else shares first place (the only winner of
    a two-player game)."""
    others = [p for p in range(1, num_players + 1) if p != resigner]
    return Outcome.ranking([others, resigner], reason=RESIGNED)


def move_seed(match_id: str, ply: int) -> int:
    """A stable seed per match and ply, so a resumed computer move is the same move."""
    digest = hashlib.sha256(f"{match_id}:{ply}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def games_json() -> list[dict[str, Any]]:
    return [
        {
            "id": cls.id,
            "title": cls.title,
            "num_players": cls.num_players,
            "player_names": list(cls.player_names),
            "options": [
                {"name": s.name, "default": s.default_text, "choices": s.texts(), "help": s.help}
                for s in cls.option_specs
            ],
            "presets": dict(getattr(cls, "presets", {}) or {}),
            "actions": list(cls.turn.actions),
            "max_clicks": cls.turn.max_clicks,
        }
        for cls in GAMES.values()
    ]


def make_game(game_id: str, options: dict[str, Any]) -> Game:
    """The game, or a 400 naming the unknown game or the bad option."""
    try:
        return get_game(game_id, **options)
    except GameError as exc:
        raise ApiError(400, str(exc)) from None


def replay_moves(game: Game, texts: Iterable[str]) -> tuple[State, list[str], list[int]]:
    """The position after ``texts``, their canonical forms and who made each; a 400 names a
    bad move."""
    state = game.new_state()
    canonical, movers = [], []
    for number, text in enumerate(texts, 1):
        if state.outcome() is not None:
            raise ApiError(400, f"move {number} ({text!r}): the game is already over")
        try:
            move = state.parse_move(text)
        except GameError as exc:
            raise ApiError(400, f"move {number} ({text!r}): {exc}") from None
        canonical.append(state.move_str(move))
        movers.append(state.to_move)
        state.push(move)
    return state, canonical, movers


def seats_from_request(
    game: Game, seats: list[dict[str, Any]] | None, opponent: str, level: int, side: int
) -> list[dict[str, Any]]:
    """The seat requests (``{"kind": "me" | "friend" | "computer", "level": n}``) of a new
    match; without ``seats``, from the two-player shape ``opponent``/``side``/``level``."""
    n = game.num_players
    if seats is None:
        if opponent not in OPPONENTS:
            raise ApiError(400, f"opponent {opponent!r} is not one of {', '.join(OPPONENTS)}")
        if not 1 <= side <= n:
            raise ApiError(400, f"side {side!r} is not a player of {game.id} (1 to {n})")
        other = {"computer": "computer", "hotseat": "me", "friend": "friend"}[opponent]
        seats = [
            {"kind": "me"} if player == side else {"kind": other, "level": level}
            for player in range(1, n + 1)
        ]
    if len(seats) != n:
        raise ApiError(400, f"{game.id} has {n} players: give {n} seats, not {len(seats)}")
    from slimetrail.ai import levels_for

    available = levels_for(game)  # each game has its own ladder of levels
    for number, seat in enumerate(seats, 1):
        kind = seat.get("kind")
        if kind not in SEAT_KINDS:
            raise ApiError(
                400, f"seat {number}: kind {kind!r} is not one of {', '.join(SEAT_KINDS)}"
            )
        if kind == "computer" and seat.get("level") not in available:
            raise ApiError(
                400,
                f"seat {number}: level {seat.get('level')!r} is not one of "
                f"{', '.join(map(str, available))}",
            )
    if not any(seat["kind"] == "me" for seat in seats):
        raise ApiError(400, "at least one seat must be yours (kind 'me')")
    return seats


_URLSAFE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def new_token() -> str:
    return secrets.token_urlsafe(18)


class LiveCache:
    """The live matches of this process, the least recently used dropped beyond ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[str, Live] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, match_id: str) -> Live | None:
        with self.lock:
            live = self.entries.get(match_id)
            if live is not None:
                self.entries.move_to_end(match_id)
            return live

    def put(self, live: Live) -> None:
        with self.lock:
            self.entries[live.id] = live
            self.entries.move_to_end(live.id)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def discard(self, live: Live) -> None:
        """Forget ``live`` (not a newer entry another thread may have put meanwhile)."""
        with self.lock:
            if self.entries.get(live.id) is live:
                del self.entries[live.id]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


class MatchService:
    def __init__(
        self,
        sessions: sessionmaker,
        cache_size: int = CACHE_SIZE,
        on_change: Callable[[Any, str, int], None] | None = None,
    ) -> None:
        self.sessions = sessions
        # Called as ``on_change(session, match id, new version)`` in the transaction of every
        # change of a match (live updates across processes: slimetrail.web.live).
        self.on_change = on_change
        self.cache = LiveCache(cache_size)
        # Matches loaded from the database and replayed (the only replays a request makes).
        self.replays = 0

    # -- reading -------------------------------------------------------------------

    def load(self, match_id: str) -> Live:
        """The live match, from memory if no process has written it since it was loaded."""
        # Ids are token_urlsafe text; anything else (NUL bytes, say, which PostgreSQL refuses
        # in a query) cannot name a match, so it never reaches the database.
        version = None
        if _URLSAFE.fullmatch(match_id):
            with self.sessions() as session:
                version = session.scalar(VERSION_OF, {"match_id": match_id})
        if version is None:
            raise ApiError(404, f"no match {match_id!r}")
        live = self.cache.get(match_id)
        if live is not None and live.version < version:
            # A write of this process may be between its commit and counting it in memory
            # (under the match's lock): wait for it rather than replay the match.
            with live.lock:
                pass
        # Versions only grow, and memory counts a write after its commit: a version read
        # before a write of this process committed is older than memory, not newer.
        if live is not None and live.version >= version:
            return live
        live = self._read(match_id)
        self.cache.put(live)
        return live

    def _read(self, match_id: str) -> Live:
        with self.sessions() as session:
            row = session.get(MatchRow, match_id)
            if row is None:
                raise ApiError(404, f"no match {match_id!r}")
            seats = session.scalars(
                select(SeatRow).where(SeatRow.match_id == match_id).order_by(SeatRow.seat)
            ).all()
            moves = session.execute(
                select(MoveRow.move, MoveRow.player)
                .where(MoveRow.match_id == match_id)
                .order_by(MoveRow.ply)
            ).all()
        game = get_game(row.game, **row.options)
        state = game.new_state()
        for text, _ in moves:
            state.push_str(text)
        self.replays += 1
        return Live(
            id=row.id,
            game=game,
            state=state,
            moves=[text for text, _ in moves],
            movers=[player for _, player in moves],
            seats=[Seat(s.seat, s.kind, s.token, s.level) for s in seats],
            creator_seat=row.creator_seat,
            version=row.version,
            resigned=row.resigned,
            rematch=row.rematch,
        )

    def locked(self, match_id: str, func: Callable[[Live], T]) -> T:
        """``func(live)`` under the match's lock, on its current position."""
        live = self.load(match_id)
        with live.lock:
            return func(live)

    def pending_computer_moves(self) -> list[tuple[str, int]]:
        """``(match id, ply)`` of every unfinished match whose computer is to move."""
        with self.sessions() as session:
            rows = session.execute(
                select(MatchRow.id, MatchRow.ply)
                .join(SeatRow, SeatRow.match_id == MatchRow.id)
                .where(
                    MatchRow.result == UNFINISHED,
                    SeatRow.seat == MatchRow.to_move,
                    SeatRow.kind == COMPUTER,
                )
            ).all()
        return [(match_id, ply) for match_id, ply in rows]

    # -- the match JSON ------------------------------------------------------------

    def match_json(self, live: Live, held: tuple[int, ...]) -> dict[str, Any]:
        """The match as a viewer holding the seats ``held`` sees it (call under the lock)."""
        from slimetrail import render

        game, state = live.game, live.state
        outcome = live.outcome()
        may_move = outcome is None and not live.thinking and state.to_move in held
        clicks = state.next_clicks() if may_move else {}
        colours = state.colours()
        view = live.board_view(state, live.ply)
        out = view.get("out", []) if outcome is None else []
        computers = [seat for seat in live.seats if seat.kind == COMPUTER]
        players = []
        for seat in live.seats:
            player = seat.player
            players.append(
                {
                    "player": player,
                    "name": state.player_name(player),
                    "colour": render.PALETTE[colours[player - 1]],
                    "colour_name": colours[player - 1],
                    "kind": seat.kind,
                    "level": seat.level,
                    "you": player in held,
                    "to_move": outcome is None and state.to_move == player,
                    "out": player in out,
                    "place": outcome.place(player) if outcome else None,
                    "result": outcome.for_player(player) if outcome else None,
                }
            )
        return {
            "id": live.id,
            "game": game.id,
            "options": game.option_texts(),
            "spec": game.spec,
            "title": game.title,
            "players": players,
            "player_names": list(game.player_names),
            "player_colours": [render.PALETTE[c] for c in colours],
            "opponent": self.opponent(live),
            "level": computers[0].level if computers else None,
            "computer_side": computers[0].player if computers else None,
            "actions": list(game.turn.actions),
            "moves": list(live.moves),
            "movers": list(live.movers),
            "ply": live.ply,
            "to_move": state.to_move,
            "steps": None if outcome is not None else steps_to_go(game, view, 0),
            "outcome": None if outcome is None else outcome_json(outcome),
            # What the player reads at the end, from the game's declared endings.
            "result_sentence": None
            if outcome is None
            else outcome_sentence(game, outcome, [p["name"] for p in players]),
            "resigned": live.resigned,
            "view": view,
            "svg": render.board_svg(
                game,
                view,
                colours=colours,
                targets=[click for click in clicks if click not in game.turn.actions],
                interactive=True,
                label=f"{game.title} board",
            ),
            "clicks": clicks,
            "losing": losing_clicks(state, clicks),
            "refusals": refusals(state, clicks) if may_move else {},
            "seat": legacy_seat(held),
            "seats": list(held),
            "thinking": live.thinking,
            "can_undo": outcome is None
            and bool(held)
            and live.people() == 1
            and self.undo_plies(live, held) > 0,
            "links": self.links(live, held),
            "rematch": self.rematch_link(live, held),
        }

    @staticmethod
    def opponent(live: Live) -> str:
        """``computer``, ``hotseat`` or ``friend``: the kind of game in the first API's words."""
        if any(seat.kind == COMPUTER for seat in live.seats):
            return "computer"
        return "hotseat" if live.people() == 1 else "friend"

    @staticmethod
    def links(live: Live, held: tuple[int, ...]) -> dict[str, str]:
        """Seat links only for a seat holder: their own, and every invite if they created it."""
        base = f"/play/{live.id}"
        links = {"watch": base}
        creator = live.creator_seat in held
        for seat in live.seats:
            if seat.token is not None and (creator or seat.player in held):
                links[str(seat.player)] = f"{base}?seat={seat.token}"
        return links

    @staticmethod
    def rematch_link(live: Live, held: tuple[int, ...]) -> str | None:
        """The rematch for this viewer: their own seat there (the seats keep their tokens)."""
        if live.rematch is None:
            return None
        token = live.seat(held[0]).token if held else None
        return f"/play/{live.rematch}" + (f"?seat={token}" if token else "")

    def view_at(self, match_id: str, ply: int | None) -> dict[str, Any]:
        from slimetrail import render

        def at(live: Live) -> dict[str, Any]:
            wanted = live.ply if ply is None else ply
            if not 0 <= wanted <= live.ply:
                raise ApiError(400, f"ply {wanted} is out of range: the match has {live.ply} moves")
            state = live.state.copy()
            for _ in range(live.ply - wanted):
                state.pop()
            view = live.board_view(state, wanted)
            svg = render.board_svg(
                live.game, view, colours=state.colours(), label=f"after move {wanted}"
            )
            return {"ply": wanted, "view": view, "fen": state.fen(), "svg": svg}

        return self.locked(match_id, at)

    def clicks(self, match_id: str, token: str | None, prefix: list[str]) -> dict[str, Any]:
        """The next legal clicks after ``prefix`` for the player to move, and the board with
        them marked."""
        from slimetrail import render

        def find(live: Live) -> dict[str, Any]:
            held = self._held_required(live, token)
            self._check_turn(live, held)
            try:
                clicks = live.state.next_clicks(prefix)
            except GameError as exc:
                raise ApiError(400, str(exc)) from None
            actions = live.game.turn.actions
            view = live.board_view(live.state, live.ply)
            svg = render.board_svg(
                live.game,
                view,
                colours=live.state.colours(),
                targets=[click for click in clicks if click not in actions],
                interactive=True,
                label=f"{live.game.title} board",
            )
            losing = losing_clicks(live.state, clicks)
            to_go = clicks_to_go(live.state, prefix, clicks)
            return {
                "to_go": to_go,
                "steps": steps_to_go(live.game, view, len(prefix)),
                "ply": live.ply,
                "prefix": prefix,
                "clicks": clicks,
                "losing": losing,
                "svg": svg,
            }

        return self.locked(match_id, find)

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
    ) -> tuple[Live, str]:
        """A new match and the creator's seat token; ``moves``: played already (a game
        continued against the computer from an imported record, say)."""
        game = make_game(game_id, options)
        wanted = seats_from_request(game, seats, opponent, level, side)
        token = new_token()
        made = [
            Seat(n, COMPUTER, None, s["level"])
            if s["kind"] == "computer"
            else Seat(n, HUMAN, token if s["kind"] == "me" else new_token())
            for n, s in enumerate(wanted, 1)
        ]
        creator = next(n for n, s in enumerate(wanted, 1) if s["kind"] == "me")
        return self._insert(game, list(moves), made, creator), token

    def import_record(self, text: str) -> tuple[Live, str]:
        """A hotseat match replaying a PGN or JSON record, and its seat token."""
        from slimetrail.core.records import parse_record

        if len(text) > MAX_RECORD_CHARS:
            raise ApiError(400, f"the record is longer than {MAX_RECORD_CHARS} characters")
        try:
            record = parse_record(text)
        except GameError as exc:
            raise ApiError(400, str(exc)) from None
        if "FEN" in record.tags:
            raise ApiError(
                400, "records that start from a set-up position (FEN) cannot be played here"
            )
        token = new_token()
        seats = [Seat(n, HUMAN, token) for n in range(1, record.game.num_players + 1)]
        return self._insert(record.game, list(record.moves), seats, 1), token

    def _insert(
        self,
        game: Game,
        texts: list[str],
        seats: list[Seat],
        creator: int,
        *,
        rematch_of: Live | None = None,
    ) -> Live:
        state, moves, movers = replay_moves(game, texts)
        now = datetime.now(UTC)
        live = Live(
            id=secrets.token_urlsafe(8),
            game=game,
            state=state,
            moves=moves,
            movers=movers,
            seats=seats,
            creator_seat=creator,
            version=0,
        )
        row = MatchRow(
            id=live.id,
            game=game.id,
            options=game.option_texts(),
            creator_seat=creator,
            ply=live.ply,
            to_move=state.to_move,
            result=result_text(live),
            version=0,
            created=now,
            updated=now,
        )
        with self.sessions.begin() as session:
            session.add(row)
            session.flush()  # the match before the rows naming it (PostgreSQL checks keys)
            session.add_all(
                SeatRow(match_id=live.id, seat=s.player, kind=s.kind, token=s.token, level=s.level)
                for s in seats
            )
            session.add_all(
                MoveRow(match_id=live.id, ply=n, player=p, move=m)
                for n, (m, p) in enumerate(zip(moves, movers, strict=True), 1)
            )
            if rematch_of is not None:
                self._bump(session, rematch_of, rematch=live.id)
                self._changed(session, rematch_of)
        if rematch_of is not None:
            rematch_of.version += 1
            rematch_of.rematch = live.id
        self.cache.put(live)
        return live

    def move(self, match_id: str, token: str | None, text: str, ply: int) -> Live:
        def play(live: Live) -> Live:
            held = self._held_required(live, token)
            self._check_current(live, ply)
            self._check_turn(live, held)
            state = live.state
            try:
                move = state.parse_move(text)
            except GameError as exc:
                raise ApiError(400, str(exc)) from None
            self._push(live, move)
            return live

        return self.locked(match_id, play)

    def computer_move(self, match_id: str, ply: int, text: str) -> Live | None:
        """Apply the computer's move computed for ``ply``; ``None`` if the match moved on."""

        def play(live: Live) -> Live | None:
            if live.ply != ply or not live.thinking:
                return None
            try:
                self._push(live, live.state.parse_move(text))
            except ApiError:
                return None  # changed meanwhile (an undo): the move is no longer wanted
            return live

        return self.locked(match_id, play)

    def computer_job(self, match_id: str, ply: int) -> tuple[str, dict[str, str], str, int] | None:
        """What a worker needs for the computer's move at ``ply`` (game id, options, position,
        level), or ``None`` if the computer is not to move there."""

        def job(live: Live) -> tuple[str, dict[str, str], str, int] | None:
            if live.ply != ply or not live.thinking:
                return None
            level = live.seat(live.state.to_move).level
            assert level is not None
            return live.game.id, live.game.option_texts(), live.state.fen(), level

        return self.locked(match_id, job)

    def undo(self, match_id: str, token: str | None, ply: int) -> Live:
        """Take back moves to the last position where the player was to move: one move in a
        hotseat game, the player's move and the computer's replies against the computer."""

        def take_back(live: Live) -> Live:
            held = self._held_required(live, token)
            if live.people() > 1:
                raise ApiError(409, "undo is not available in games between two people")
            if live.resigned is not None:
                raise ApiError(409, "the game was resigned: it cannot be taken back")
            if live.outcome() is not None:  # as on the page: a result stands once reached
                raise ApiError(
                    409, f"the game is over ({result_text(live)}): moves cannot be taken back"
                )
            self._check_ply(live, ply)
            count = self.undo_plies(live, held)
            if count == 0:
                raise ApiError(409, "you have no move to take back")
            self._write(live, pop=count)
            return live

        return self.locked(match_id, take_back)

    @staticmethod
    def undo_plies(live: Live, held: tuple[int, ...]) -> int:
        """How many moves an undo by the holder of ``held`` takes back (0: none)."""
        for back in range(1, live.ply + 1):
            if live.movers[-back] in held:
                return back
        return 0

    def resign(self, match_id: str, token: str | None) -> Live:
        """The player to move resigns if the token holds that seat, else its first seat."""

        def give_up(live: Live) -> Live:
            held = self._held_required(live, token)
            if live.outcome() is not None:
                raise ApiError(409, f"the game is over ({result_text(live)})")
            player = live.state.to_move if live.state.to_move in held else held[0]
            self._write(live, resigned=player)
            return live

        return self.locked(match_id, give_up)

    def rematch(self, match_id: str, token: str | None) -> Live:
        """A new match of the same game with the seats rotated (player 2 moves first, ...);
        each person keeps their token.  Asked again, it is the same rematch."""

        def again(live: Live) -> Live:
            held = self._held_required(live, token)
            if live.rematch is not None:
                return self.load(live.rematch)
            if live.outcome() is None:
                raise ApiError(409, "the game is not over yet: resign first for a rematch")
            n = len(live.seats)
            seats = [replace_player(live.seats[p % n], p) for p in range(1, n + 1)]
            creator = next(s.player for s in seats if s.token == live.seat(held[0]).token)
            return self._insert(live.game, [], seats, creator, rematch_of=live)

        return self.locked(match_id, again)

    # -- checks and writes ---------------------------------------------------------

    @staticmethod
    def _held_required(live: Live, token: str | None) -> tuple[int, ...]:
        held = live.held_by(token)
        if not held:
            raise ApiError(403, "a seat token is needed to play (spectators cannot move)")
        return held

    @staticmethod
    def _check_turn(live: Live, held: tuple[int, ...]) -> None:
        if live.outcome() is not None:
            raise ApiError(409, f"the game is over ({result_text(live)})")
        if live.thinking:
            raise ApiError(403, "it is the computer's turn")
        if live.state.to_move not in held:
            raise ApiError(403, f"it is player {live.state.to_move}'s turn, not yours")

    @classmethod
    def _check_current(cls, live: Live, ply: int) -> None:
        if live.outcome() is not None:
            raise ApiError(409, f"the game is over ({result_text(live)})")
        cls._check_ply(live, ply)

    @staticmethod
    def _check_ply(live: Live, ply: int) -> None:
        """A move or undo must name the ply it was made on: another tab may have moved."""
        if ply != live.ply:
            raise ApiError(
                409, f"stale: the match has {live.ply} moves, not {ply}; reload the match"
            )

    def _push(self, live: Live, move: Any) -> None:
        text, player = live.state.move_str(move), live.state.to_move
        live.state.push(move)
        live.moves.append(text)
        live.movers.append(player)
        try:
            self._write(live, added=1)
        except BaseException:
            live.state.pop()
            live.moves.pop()
            live.movers.pop()
            raise

    def _write(
        self, live: Live, *, added: int = 0, pop: int = 0, resigned: int | None = None
    ) -> None:
        """Store a change of ``live``: its last ``added`` moves (made in memory by the caller),
        ``pop`` moves taken back (here), or a resignation -- if nobody wrote the match since
        ``live.version``.  On failure ``live`` is as it was, dropped from memory (the next
        request loads what the database holds), and a conflict is a 409."""
        undone = [(live.state.pop(), live.moves.pop(), live.movers.pop()) for _ in range(pop)]
        old_resigned = live.resigned
        if resigned is not None:
            live.resigned = resigned
        try:
            with self.sessions.begin() as session:
                if pop:
                    session.execute(
                        delete(MoveRow).where(MoveRow.match_id == live.id, MoveRow.ply > live.ply)
                    )
                if added:
                    session.execute(
                        ADD_MOVES,
                        [
                            {
                                "match_id": live.id,
                                "ply": n + 1,
                                "player": live.movers[n],
                                "move": live.moves[n],
                            }
                            for n in range(live.ply - added, live.ply)
                        ],
                    )
                self._bump(session, live)
                self._changed(session, live)
        except BaseException:
            live.resigned = old_resigned
            for move, text, player in reversed(undone):
                live.state.push(move)
                live.moves.append(text)
                live.movers.append(player)
            self.cache.discard(live)
            raise
        live.version += 1

    def _changed(self, session: Any, live: Live) -> None:
        if self.on_change is not None:
            self.on_change(session, live.id, live.version + 1)

    @staticmethod
    def _bump(session: Any, live: Live, **extra: Any) -> None:
        """The conditional update of the match row to ``live``'s position, version + 1 (the
        caller counts it in ``live`` once committed); a 409 if somebody wrote it meanwhile."""
        values = {
            "ply": live.ply,
            "to_move": live.state.to_move,
            "resigned": live.resigned,
            "result": result_text(live),
            "version": live.version + 1,
            "updated": datetime.now(UTC),
            **extra,
        }
        changed = session.execute(
            BUMP, {"match_id": live.id, "old_version": live.version, **values}
        ).rowcount
        if changed != 1:
            raise ApiError(409, "stale: the match changed meanwhile; reload the match")


def replace_player(seat: Seat, player: int) -> Seat:
    return Seat(player, seat.kind, seat.token, seat.level)


def result_text(live: Live) -> str:
    outcome = live.outcome()
    return UNFINISHED if outcome is None else outcome.result_text()


CLICK_WALK_LIMIT = 400  # next_clicks calls spent counting a compound move's clicks to go


def clicks_to_go(
    state: State, prefix: list[str], clicks: dict[str, str | None]
) -> list[int] | None:
    """The fewest and most clicks that still complete a move after ``prefix`` (whose next
    clicks are ``clicks``), for any game, by walking :meth:`State.next_clicks`; ``None`` if
    the walk would take more than :data:`CLICK_WALK_LIMIT` calls."""
    budget = [CLICK_WALK_LIMIT]

    def walk(path: list[str], options: dict[str, str | None]) -> tuple[int, int] | None:
        lows, highs = [], []
        for click, move in options.items():
            if move is not None:
                lows.append(1)
                highs.append(1)
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return None
            found = walk([*path, click], state.next_clicks([*path, click]))
            if found is None:
                return None
            lows.append(found[0] + 1)
            highs.append(found[1] + 1)
        return (min(lows), max(highs)) if lows else None

    found = walk(prefix, clicks)
    return None if found is None else list(found)


def steps_to_go(game: Game, view: dict[str, Any], made: int) -> dict[str, Any] | None:
    """For a game whose turns are several like steps (:attr:`TurnShape.step_words`), how many
    of the position's ``view()["to_move_steps"]`` are still to make after ``made`` clicks
    (a step half clicked still counts): ``{"left", "total", "text"}``, the text as
    ``"2 snakes"``; ``None`` for other games."""
    turn, total = game.turn, view.get("to_move_steps")
    if not turn.step_words or total is None:
        return None
    left = total - made // turn.step_clicks
    return {"left": left, "total": total, "text": f"{left} {turn.step_words[left != 1]}"}


def losing_clicks(state: State, clicks: dict[str, str | None]) -> list[str]:
    """The clicks that complete a move losing the game at once (a step into the opponent's
    goal, say): the page marks them as a warning."""
    mover, losing = state.to_move, []
    for click, text in clicks.items():
        if text is None:
            continue
        state.push(state.parse_move(text))
        try:
            outcome = state.outcome()
        finally:
            state.pop()
        if outcome is not None and outcome.for_player(mover) == "loss":
            losing.append(click)
    return losing


@functools.lru_cache(maxsize=64)
def cell_names(game: Game) -> tuple[str, ...]:
    """The names of the board's cells (games are immutable: described once)."""
    return tuple(cell["name"] for cell in game.describe_board()["cells"])


def refusals(state: State, clicks: dict[str, str | None]) -> dict[str, str]:
    """Why each cell that is no legal first click is refused, in the game's own words (its
    ``parse_move`` error), for a player who clicks it."""
    answer = {}
    for name in cell_names(state.game):
        if name in clicks:
            continue
        try:
            state.parse_move(name)
        except GameError as exc:
            answer[name] = str(exc)
        else:  # a whole move in text, yet no first click (a compound move's later part)
            answer[name] = f"{name} does not start a legal move here"
    return answer


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "places": list(outcome.places),
        "result": outcome.result_text(),
        "reason": outcome.reason,
        "winner": outcome.winner,
    }


def legacy_seat(held: tuple[int, ...]) -> int | str:
    """The first API's ``seat``: 0 (watching), the player number, or ``"both"`` (several)."""
    if not held:
        return 0
    return held[0] if len(held) == 1 else "both"
