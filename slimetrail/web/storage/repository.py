"""The match repository: every SQL statement the match service makes, behind plain values.

The service hands over and gets back plain values (:class:`Seat`, :class:`StoredMatch`,
:class:`RowState`), never a session or a row, so nothing above this module knows SQL.  The
statements of every request are built once, so SQLAlchemy reuses their compiled form; the
writes are Core statements on the tables (no ORM object is loaded in these sessions, so the
ORM has nothing to synchronise): a move costs a third of the CPU it did through the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Table, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from slimetrail.web.storage.tables import (
    BOT,
    COMPUTER,
    UNFINISHED,
    MatchRow,
    MoveRow,
    ReviewRow,
    SeatRow,
    aware,
)

VERSION_OF = select(MatchRow.version).where(MatchRow.id == bindparam("match_id"))
# SQLAlchemy types a mapped class's __table__ as any FromClause; these are Tables.
ADD_MOVES = insert(cast(Table, MoveRow.__table__))
MATCHES = cast(Table, MatchRow.__table__)
BUMP = update(MATCHES).where(
    MATCHES.c.id == bindparam("match_id"), MATCHES.c.version == bindparam("old_version")
)


class StaleWrite(Exception):
    """A conditional write found the match at another version: somebody wrote it meanwhile."""


@dataclass(frozen=True)
class Seat:
    player: int
    kind: str  # HUMAN or COMPUTER
    token: str | None = None
    level: int | None = None
    bot: str | None = None  # a BOT seat's bot name
    owner: str | None = None  # the player id holding it (slimetrail.web.players)


@dataclass(frozen=True)
class RowState:
    """The columns of a match row that follow its position (denormalised from the moves, so
    that unfinished computer turns are found at startup and the matches read without them)."""

    ply: int
    to_move: int
    resigned: int | None
    result: str
    forfeit: Forfeit | None = None
    clock: ClockState | None = None


@dataclass(frozen=True)
class Forfeit:
    """A player who lost otherwise than on the board: ``reason`` an Outcome reason (time, an
    illegal move), ``note`` what happened, for the players to read."""

    player: int
    reason: str
    note: str = ""


@dataclass(frozen=True)
class ClockState:
    """Each seat's milliseconds left when the current turn started, when it started, and when
    the flag of the player to move falls (``None``: the game is over, no flag to fall).

    Clocks waiting for a player to arrive have no ``turn_started``, and their ``flag_at`` is
    when the game is aborted if nobody has (the sweeper finds both by ``flag_at``)."""

    ms: tuple[int, ...]
    turn_started: datetime | None
    flag_at: datetime | None


@dataclass(frozen=True)
class StoredMatch:
    id: str
    game: str
    options: dict[str, str]
    creator_seat: int
    version: int
    resigned: int | None
    rematch: str | None
    seats: list[Seat]
    moves: list[tuple[str, int]]  # (canonical text, who made it) in order
    clock: str | None = None  # the time control's text
    clock_state: ClockState | None = None
    forfeit: Forfeit | None = None


class MatchRepository:
    """The matches, their seats and moves in the database.

    ``on_change(session, match id, new version)`` is called in the transaction of every
    change of a match (live updates across processes: :mod:`slimetrail.web.live`)."""

    def __init__(
        self,
        sessions: sessionmaker,
        on_change: Callable[[Any, str, int], None] | None = None,
    ) -> None:
        self.sessions = sessions
        self.on_change = on_change

    def version(self, match_id: str) -> int | None:
        """The match's version, ``None`` if there is no such match (one indexed read)."""
        with self.sessions() as session:
            return session.scalar(VERSION_OF, {"match_id": match_id})

    def read(self, match_id: str) -> StoredMatch | None:
        with self.sessions() as session:
            row = session.get(MatchRow, match_id)
            if row is None:
                return None
            seats = session.scalars(
                select(SeatRow).where(SeatRow.match_id == match_id).order_by(SeatRow.seat)
            ).all()
            moves = session.execute(
                select(MoveRow.move, MoveRow.player)
                .where(MoveRow.match_id == match_id)
                .order_by(MoveRow.ply)
            ).all()
        return StoredMatch(
            id=row.id,
            game=row.game,
            options=row.options,
            creator_seat=row.creator_seat,
            version=row.version,
            resigned=row.resigned,
            rematch=row.rematch,
            seats=[Seat(s.seat, s.kind, s.token, s.level, s.bot, s.owner) for s in seats],
            moves=[(text, player) for text, player in moves],
            clock=row.clock,
            clock_state=None
            if row.clock_ms is None
            else ClockState(
                tuple(row.clock_ms),
                None if row.turn_started is None else aware(row.turn_started),
                None if row.flag_at is None else aware(row.flag_at),
            ),
            forfeit=None
            if row.forfeit is None
            else Forfeit(row.forfeit, row.forfeit_reason or "", row.forfeit_note or ""),
        )

    def flagged(self, now: datetime) -> list[str]:
        """The unfinished matches whose player to move has run out of time by ``now`` (or
        whose players have not all arrived by the time their game is aborted)."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(MatchRow.id).where(
                        MatchRow.result == UNFINISHED, MatchRow.flag_at <= now
                    )
                )
            )

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

    def pending_bot_moves(self, name: str) -> list[str]:
        """The unfinished matches where bot ``name`` is to move."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(MatchRow.id)
                    .join(SeatRow, SeatRow.match_id == MatchRow.id)
                    .where(
                        MatchRow.result == UNFINISHED,
                        SeatRow.seat == MatchRow.to_move,
                        SeatRow.kind == BOT,
                        SeatRow.bot == name,
                    )
                )
            )

    def insert(
        self,
        match: StoredMatch,
        row: RowState,
        *,
        rematch_of: tuple[str, int, RowState] | None = None,
    ) -> None:
        """Store a new match; ``rematch_of``: (id, version, row state) of the match it is the
        rematch of, which is made to point to it (:class:`StaleWrite` if written meanwhile)."""
        now = datetime.now(UTC)
        with self.sessions.begin() as session:
            session.add(
                MatchRow(
                    id=match.id,
                    game=match.game,
                    options=match.options,
                    creator_seat=match.creator_seat,
                    ply=row.ply,
                    to_move=row.to_move,
                    result=row.result,
                    clock=match.clock,
                    **clock_columns(row),
                    version=0,
                    created=now,
                    updated=now,
                )
            )
            session.flush()  # the match before the rows naming it (PostgreSQL checks keys)
            session.add_all(
                SeatRow(
                    match_id=match.id,
                    seat=s.player,
                    kind=s.kind,
                    token=s.token,
                    level=s.level,
                    bot=s.bot,
                    owner=s.owner,
                )
                for s in match.seats
            )
            session.add_all(
                MoveRow(match_id=match.id, ply=n, player=player, move=text)
                for n, (text, player) in enumerate(match.moves, 1)
            )
            if rematch_of is not None:
                old_id, old_version, old_row = rematch_of
                self._bump(session, old_id, old_version, old_row, rematch=match.id)
            if self.on_change is not None:  # a new match may call for a bot elsewhere
                self.on_change(session, match.id, 0)

    def write(
        self,
        match_id: str,
        version: int,
        row: RowState,
        *,
        added: Sequence[tuple[int, int, str, int | None]] = (),
        truncate: bool = False,
    ) -> None:
        """Store a change of a match at ``version`` (now at ``row``): the moves ``added``
        (ply, player, text, the mover's clock after it), or with ``truncate`` every move past
        ``row.ply`` deleted; a :class:`StaleWrite` if somebody wrote the match since
        ``version``."""
        with self.sessions.begin() as session:
            if truncate:
                session.execute(
                    delete(MoveRow).where(MoveRow.match_id == match_id, MoveRow.ply > row.ply)
                )
            if added:
                session.execute(
                    ADD_MOVES,
                    [
                        {
                            "match_id": match_id,
                            "ply": ply,
                            "player": player,
                            "move": text,
                            "clock_ms": clock_ms,
                        }
                        for ply, player, text, clock_ms in added
                    ],
                )
            self._bump(session, match_id, version, row)

    def review(self, match_id: str, version: int) -> dict[str, Any] | None:
        """The review kept for the match at ``version``, or ``None``."""
        with self.sessions() as session:
            row = session.get(ReviewRow, match_id)
            return row.review if row is not None and row.version == version else None

    def keep_review(self, match_id: str, version: int, review: dict[str, Any]) -> None:
        """Keep ``review`` of the match at ``version`` in place of any older one."""
        with self.sessions.begin() as session:
            session.execute(delete(ReviewRow).where(ReviewRow.match_id == match_id))
            session.add(ReviewRow(match_id=match_id, version=version, review=review))

    def _bump(
        self, session: Session, match_id: str, version: int, row: RowState, **extra: Any
    ) -> None:
        """The conditional update of the match row to ``row``, version + 1, announced."""
        values = {
            "ply": row.ply,
            "to_move": row.to_move,
            "resigned": row.resigned,
            "result": row.result,
            **clock_columns(row),
            "forfeit": row.forfeit.player if row.forfeit else None,
            "forfeit_reason": row.forfeit.reason if row.forfeit else None,
            "forfeit_note": row.forfeit.note if row.forfeit else None,
            "version": version + 1,
            "updated": datetime.now(UTC),
            **extra,
        }
        bumped = session.execute(BUMP, {"match_id": match_id, "old_version": version, **values})
        changed = cast("CursorResult[Any]", bumped).rowcount  # an UPDATE's result
        if changed != 1:
            raise StaleWrite(match_id)
        if self.on_change is not None:
            self.on_change(session, match_id, version + 1)


def clock_columns(row: RowState) -> dict[str, Any]:
    """The match row's clock columns for ``row`` (all ``None`` without a clock)."""
    clock = row.clock
    return {
        "clock_ms": None if clock is None else list(clock.ms),
        "turn_started": None if clock is None else clock.turn_started,
        "flag_at": None if clock is None else clock.flag_at,
    }
