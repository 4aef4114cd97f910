"""The people's tables: player names, seat owners, seeks, the site's secrets.

Every statement the pairing service and "my games" make, behind plain values.  A seek is
claimed by one conditional update (``claimed IS NULL``), so two pairings -- in one process or
several -- can never both take it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from slimetrail.web.storage.tables import (
    COMPUTER,
    UNFINISHED,
    MatchRow,
    PlayerRow,
    SeatRow,
    SecretRow,
    SeekRow,
)

MY_GAMES_LIMIT = 1000  # the newest this many, for one browser


@dataclass(frozen=True)
class Seek:
    id: str
    owner: str
    game: str
    options: dict[str, str]
    clock: str
    pool: str
    created: float
    claimed: str | None = None
    match_id: str | None = None
    token: str | None = None


@dataclass(frozen=True)
class SeatOf:
    """A seat of a listed match: who holds it."""

    player: int
    kind: str
    level: int | None
    owner: str | None
    name: str | None  # the owner's display name, if they chose one


@dataclass(frozen=True)
class MatchOf:
    """A match in a player's list, with every seat and which are theirs."""

    id: str
    game: str
    options: dict[str, str]
    result: str
    ply: int
    updated: Any
    mine: tuple[int, ...]
    token: str | None
    seats: list[SeatOf]


def rowcount(result: Any) -> int:
    return cast("CursorResult[Any]", result).rowcount


def to_seek(row: SeekRow) -> Seek:
    return Seek(
        row.id,
        row.owner,
        row.game,
        row.options,
        row.clock,
        row.pool,
        row.created,
        row.claimed,
        row.match_id,
        row.token,
    )


class PeopleRepository:
    """``on_paired(session, seek ids)`` runs in the transaction that pairs those seeks
    (on PostgreSQL: the notification to every process)."""

    def __init__(
        self,
        sessions: sessionmaker,
        on_paired: Callable[[Any, list[str]], None] | None = None,
    ) -> None:
        self.sessions = sessions
        self.on_paired = on_paired

    # -- secrets and names -----------------------------------------------------------

    def secret(self, name: str) -> str:
        """The site's secret ``name``, made on first use (every process reads the same)."""
        with self.sessions() as session:
            value = session.scalar(select(SecretRow.value).where(SecretRow.name == name))
        if value is not None:
            return value
        try:
            with self.sessions.begin() as session:
                session.add(SecretRow(name=name, value=secrets.token_urlsafe(48)))
        except IntegrityError:  # another process made it first: theirs it is
            pass
        with self.sessions() as session:
            return session.scalars(select(SecretRow.value).where(SecretRow.name == name)).one()

    def name(self, player: str) -> str | None:
        with self.sessions() as session:
            return session.scalar(select(PlayerRow.name).where(PlayerRow.id == player))

    def names(self, players: set[str]) -> dict[str, str]:
        if not players:
            return {}
        with self.sessions() as session:
            rows = session.execute(
                select(PlayerRow.id, PlayerRow.name).where(
                    PlayerRow.id.in_(list(players)), PlayerRow.name.is_not(None)
                )
            ).all()
        return {player: name for player, name in rows}

    def set_name(self, player: str, name: str | None) -> None:
        with self.sessions.begin() as session:
            row = session.get(PlayerRow, player)
            if row is None:
                session.add(PlayerRow(id=player, name=name))
            else:
                row.name = name

    # -- seats -------------------------------------------------------------------------

    def claim_seat(self, match_id: str, token: str, owner: str) -> bool:
        """The seats ``token`` holds are ``owner``'s, unless somebody opened them first;
        whether they were nobody's."""
        with self.sessions.begin() as session:
            taken = session.execute(
                update(SeatRow)
                .where(
                    SeatRow.match_id == match_id, SeatRow.token == token, SeatRow.owner.is_(None)
                )
                .values(owner=owner)
            )
            return rowcount(taken) > 0

    def matches_of(self, owner: str) -> list[MatchOf]:
        """Every match with a seat of ``owner``: unfinished first, then the latest changed."""
        with self.sessions() as session:
            rows = session.execute(
                select(MatchRow, SeatRow.seat, SeatRow.token)
                .join(SeatRow, SeatRow.match_id == MatchRow.id)
                .where(SeatRow.owner == owner)
                .order_by(MatchRow.updated.desc())
                .limit(MY_GAMES_LIMIT)
            ).all()
            mine: dict[str, list[int]] = {}
            tokens: dict[str, str | None] = {}
            matches: dict[str, MatchRow] = {}
            for match, seat, token in rows:
                matches[match.id] = match
                mine.setdefault(match.id, []).append(seat)
                tokens[match.id] = token
            seats = seats_of(session, list(matches))
        listed = [
            as_listed(m, seats.get(m.id, []), tuple(mine[m.id]), tokens[m.id])
            for m in matches.values()
        ]
        # Ongoing first; each group stays newest first (sorted is stable).
        return sorted(listed, key=lambda m: m.result != UNFINISHED)

    def live_matches(self, since: Any, limit: int) -> list[MatchOf]:
        """Unfinished matches between different people changed since ``since``, newest first."""
        computer = select(SeatRow.match_id).where(SeatRow.kind == COMPUTER)
        with self.sessions() as session:
            rows = session.scalars(
                select(MatchRow)
                .where(
                    MatchRow.result == UNFINISHED,
                    MatchRow.updated >= since,
                    MatchRow.id.not_in(computer),
                )
                .order_by(MatchRow.updated.desc())
                .limit(limit * 4)
            ).all()
            seats = seats_of(session, [row.id for row in rows])
        listed = []
        for row in rows:
            held = seats.get(row.id, [])
            owners = {seat.owner for seat in held}
            # Not a hotseat game or an invite nobody opened: a browser on every seat.
            if None not in owners and len(owners) == len(held):
                listed.append(as_listed(row, held))
        return listed[:limit]

    # -- seeks ---------------------------------------------------------------------------

    def add_seek(self, seek: Seek, now: float) -> None:
        with self.sessions.begin() as session:
            session.execute(
                insert(SeekRow).values(
                    id=seek.id,
                    owner=seek.owner,
                    game=seek.game,
                    options=seek.options,
                    clock=seek.clock,
                    pool=seek.pool,
                    created=seek.created,
                    seen=now,
                )
            )

    def seek(self, seek_id: str) -> Seek | None:
        with self.sessions() as session:
            row = session.get(SeekRow, seek_id)
            return None if row is None else to_seek(row)

    def open_seeks(self, alive_since: float, created_since: float) -> list[Seek]:
        """Every seek waiting for an opponent (seen lately, not timed out), oldest first:
        those held for a moment by their own page's attempt at pairing too."""
        with self.sessions() as session:
            rows = session.scalars(
                select(SeekRow)
                .where(
                    or_(SeekRow.claimed.is_(None), SeekRow.claimed == SeekRow.owner),
                    SeekRow.seen >= alive_since,
                    SeekRow.created >= created_since,
                )
                .order_by(SeekRow.created)
            ).all()
            return [to_seek(row) for row in rows]

    def candidates(
        self,
        pool: str,
        owner: str,
        alive_since: float,
        created_since: float,
        limit: int,
        before: Seek | None = None,
        held: bool = False,
    ) -> list[Seek]:
        """Open seeks of ``pool`` by others, oldest first; only those older than ``before``
        if given (by creation time, then id: every two seeks are ordered); with ``held``
        also those a pairing attempt holds at the moment."""
        query = select(SeekRow).where(
            SeekRow.pool == pool,
            SeekRow.owner != owner,
            SeekRow.seen >= alive_since,
            SeekRow.created >= created_since,
            SeekRow.match_id.is_(None),
        )
        if not held:
            query = query.where(SeekRow.claimed.is_(None))
        if before is not None:
            query = query.where(
                or_(
                    SeekRow.created < before.created,
                    and_(SeekRow.created == before.created, SeekRow.id < before.id),
                )
            )
        with self.sessions() as session:
            rows = session.scalars(query.order_by(SeekRow.created).limit(limit)).all()
            return [to_seek(row) for row in rows]

    def claim(self, seek_id: str, claimer: str) -> bool:
        """Take the open seek for ``claimer``'s pairing; ``False`` if somebody has it."""
        with self.sessions.begin() as session:
            taken = session.execute(
                update(SeekRow)
                .where(SeekRow.id == seek_id, SeekRow.claimed.is_(None))
                .values(claimed=claimer)
            )
            return rowcount(taken) == 1

    def release(self, seek_ids: Sequence[str]) -> None:
        """Give claimed seeks back (a pairing that did not complete)."""
        if seek_ids:
            with self.sessions.begin() as session:
                session.execute(
                    update(SeekRow)
                    .where(SeekRow.id.in_(list(seek_ids)), SeekRow.match_id.is_(None))
                    .values(claimed=None)
                )

    def fulfil(self, match_id: str, tokens: dict[str, str]) -> None:
        """The claimed seeks (id -> the seat token of its owner) are paired into ``match_id``."""
        if not tokens:
            return
        with self.sessions.begin() as session:
            for seek_id, token in tokens.items():
                session.execute(
                    update(SeekRow)
                    .where(SeekRow.id == seek_id)
                    .values(match_id=match_id, token=token)
                )
            if self.on_paired is not None:
                self.on_paired(session, list(tokens))

    def touch(self, seek_id: str, now: float) -> None:
        with self.sessions.begin() as session:
            session.execute(update(SeekRow).where(SeekRow.id == seek_id).values(seen=now))

    def cancel(self, seek_id: str) -> bool:
        """Delete the seek unless a pairing has claimed it; whether it was deleted."""
        with self.sessions.begin() as session:
            gone = session.execute(
                delete(SeekRow).where(SeekRow.id == seek_id, SeekRow.claimed.is_(None))
            )
            return rowcount(gone) == 1

    def forget(self, seek_id: str) -> None:
        """Delete a paired seek once its owner has been sent to the match."""
        with self.sessions.begin() as session:
            session.execute(delete(SeekRow).where(SeekRow.id == seek_id))

    def sweep(self, alive_since: float, created_since: float) -> int:
        """Delete the seeks whose page is gone or that timed out (open ones), and the paired
        ones nobody collected; how many."""
        with self.sessions.begin() as session:
            gone = session.execute(
                delete(SeekRow).where(
                    or_(SeekRow.seen < alive_since, SeekRow.created < created_since),
                    or_(SeekRow.claimed.is_(None), SeekRow.match_id.is_not(None)),
                )
            )
            return rowcount(gone)


def seats_of(session: Session, match_ids: list[str]) -> dict[str, list[SeatOf]]:
    """The seats of the matches, with their owners' names (in chunks: a bounded IN list)."""
    seats: dict[str, list[SeatOf]] = {}
    for start in range(0, len(match_ids), 500):
        for row, name in session.execute(
            select(SeatRow, PlayerRow.name)
            .outerjoin(PlayerRow, PlayerRow.id == SeatRow.owner)
            .where(SeatRow.match_id.in_(match_ids[start : start + 500]))
            .order_by(SeatRow.seat)
        ).all():
            seat = SeatOf(row.seat, row.kind, row.level, row.owner, name)
            seats.setdefault(row.match_id, []).append(seat)
    return seats


def as_listed(
    row: MatchRow, seats: list[SeatOf], mine: tuple[int, ...] = (), token: str | None = None
) -> MatchOf:
    return MatchOf(
        row.id, row.game, row.options, row.result, row.ply, row.updated, mine, token, seats
    )
