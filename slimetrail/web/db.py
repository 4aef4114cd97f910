"""Storage of matches with SQLAlchemy 2: SQLite by default, PostgreSQL (or any dialect) by URL.

A match is stored as its setup (game id, options, opponent, seats) plus its move list as
canonical move texts; positions are rebuilt by replaying.  ``version`` counts changes so that
a write can be made conditional on nobody having changed the match meanwhile.
The schema is created and upgraded by the Alembic migrations in ``migrations/``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, DateTime, Engine, Integer, String, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

OPPONENTS = ("computer", "hotseat", "friend")
UNFINISHED = "*"


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, str]] = mapped_column(JSON)
    opponent: Mapped[str] = mapped_column(String(16))
    level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The side the computer plays, or None for games between people.
    computer_side: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The side of whoever created the match (their link may show the other seat's invite).
    creator_side: Mapped[int] = mapped_column(Integer)
    # Secret seat tokens; None for the computer's seat.  Hotseat: both hold the same token.
    seat1: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seat2: Mapped[str | None] = mapped_column(String(64), nullable=True)
    moves: Mapped[list[str]] = mapped_column(JSON)
    # Denormalised from the moves so that unfinished computer turns can be found at startup.
    to_move: Mapped[int] = mapped_column(Integer)
    result: Mapped[str] = mapped_column(String(8), default=UNFINISHED, index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    def token(self, side: int) -> str | None:
        return self.seat1 if side == 1 else self.seat2


def default_db_url() -> str:
    """SQLite file ``slimetrail.db`` in ``$SLIMETRAIL_DATA`` or ``~/.local/share/slimetrail``."""
    folder = os.environ.get("SLIMETRAIL_DATA") or Path.home() / ".local" / "share" / "slimetrail"
    path = Path(folder).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path / 'slimetrail.db'}"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; plain ``postgresql://`` URLs use the psycopg 3 driver."""
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        # Requests are served from a thread pool; SQLite waits for a lock instead of failing.
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

    return engine


def upgrade(engine: Engine) -> None:
    """Bring the schema up to date with the migrations shipped in this package."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "slimetrail.web:migrations")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def make_sessionmaker(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)
