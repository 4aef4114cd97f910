"""Retention: abandoned and old matches are deleted.

The policy (days from :class:`slimetrail.web.settings.Limits`): an UNFINISHED match with no
move (no change at all) for ``unfinished_days`` is abandoned; a FINISHED match is kept for
``finished_days`` after its last change (its end, a rematch offer), then deleted with its
seats and moves.  A link to a deleted match answers 404.  The server runs it every
``expiry_interval`` seconds; ``slimetrail expire`` runs it once (e.g. from cron).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, or_, select
from sqlalchemy.orm import sessionmaker

from slimetrail.web.storage.tables import UNFINISHED, MatchRow, MoveRow, ReviewRow, SeatRow

BATCH = 500  # matches per transaction: short transactions beside the live traffic


def expired(unfinished_days: float, finished_days: float, now: datetime) -> ColumnElement[bool]:
    """The SQL condition of an expired match."""
    return or_(
        and_(
            MatchRow.result == UNFINISHED,
            MatchRow.updated < now - timedelta(days=unfinished_days),
        ),
        and_(
            MatchRow.result != UNFINISHED,
            MatchRow.updated < now - timedelta(days=finished_days),
        ),
    )


def expire_matches(
    sessions: sessionmaker,
    unfinished_days: float,
    finished_days: float,
    *,
    now: datetime | None = None,
    dry_run: bool = False,
) -> int:
    """Delete the expired matches (``dry_run``: only count them); how many there were."""
    now = now or datetime.now(UTC)
    condition = expired(unfinished_days, finished_days, now)
    if dry_run:
        with sessions() as session:
            return len(session.scalars(select(MatchRow.id).where(condition)).all())
    total = 0
    while True:
        with sessions.begin() as session:
            ids = session.scalars(select(MatchRow.id).where(condition).limit(BATCH)).all()
            if not ids:
                return total
            # The condition again: a match moved since the select is kept.
            gone = session.scalars(
                delete(MatchRow).where(MatchRow.id.in_(ids), condition).returning(MatchRow.id)
            ).all()
            # PostgreSQL cascades; SQLite (foreign keys not enforced) needs it said.
            session.execute(delete(MoveRow).where(MoveRow.match_id.in_(gone)))
            session.execute(delete(SeatRow).where(SeatRow.match_id.in_(gone)))
            session.execute(delete(ReviewRow).where(ReviewRow.match_id.in_(gone)))
            total += len(gone)
