"""Storage of matches with SQLAlchemy 2: SQLite by default, PostgreSQL (or any dialect) by URL.

A match is its setup (game id, options), its seats (one row per player: a person holding a
secret token, or the computer at a level) and its moves (one row per move, so that a move
writes one small row whatever the game's length).  ``version`` counts changes so that a write
can be made conditional on nobody having changed the match meanwhile, and so that a process
holding the match in memory can tell that another one wrote it.
The schema is created and upgraded by the Alembic migrations in ``migrations/``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    create_engine,
    event,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

HUMAN, COMPUTER, BOT = "human", "computer", "bot"
UNFINISHED = "*"


def _now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """``moment`` in UTC (SQLite gives back naive datetimes for what was stored in UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, str]] = mapped_column(JSON)
    # The seat of whoever created the match: their link shows every seat's invite.
    creator_seat: Mapped[int] = mapped_column(Integer)
    # Denormalised from the moves, so that unfinished computer turns can be found at startup
    # and the match list read without the moves.
    ply: Mapped[int] = mapped_column(Integer, default=0)
    to_move: Mapped[int] = mapped_column(Integer)
    result: Mapped[str] = mapped_column(String(64), default=UNFINISHED, index=True)
    # The player who resigned (the game is over), or None.
    resigned: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The match the players moved on to with "rematch", or None.
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    # The time control (``3+2``, ``d1``) or None; each seat's milliseconds left when the
    # current turn started, and when it started; when the flag of the player to move falls
    # (indexed: the sweeper ends those games with nobody connected).
    clock: Mapped[str | None] = mapped_column(String(16), nullable=True)
    clock_ms: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    turn_started: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    flag_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    # A player who lost otherwise than on the board: on time, or a bot's illegal move
    # (``forfeit_reason`` an Outcome reason, ``forfeit_note`` what happened).
    forfeit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    forfeit_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    forfeit_note: Mapped[str | None] = mapped_column(String(300), nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class SeatRow(Base):
    """One player of a match: ``seat`` IS the player number (colours come from the game)."""

    __tablename__ = "seats"

    match_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # HUMAN or COMPUTER
    # A person's secret token (one token on several seats: hotseat); None for the computer.
    token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)  # a BOT seat's bot
    # The player (a browser: :mod:`slimetrail.web.players`) holding the seat, once known.
    owner: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)


class MoveRow(Base):
    __tablename__ = "moves"

    match_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1 for the first move
    player: Mapped[int] = mapped_column(Integer)  # who made it
    move: Mapped[str] = mapped_column(String(200))  # canonical text
    # The mover's time left after the move (increment included), in a match with a clock.
    clock_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)


class BotRow(Base):
    """A bot the site's admin let in (``slimetrail bot-token``): its token is kept hashed;
    ``games`` and ``seen`` are what it announced when it last connected and its last sign of
    life (online while recent)."""

    __tablename__ = "bots"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    games: Mapped[list[str]] = mapped_column(JSON, default=list)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    seen: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ReviewRow(Base):
    """A match's game review, kept for the match's ``version`` it was made of (a review of
    an older version is made again)."""

    __tablename__ = "reviews"

    match_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    review: Mapped[dict[str, Any]] = mapped_column(JSON)


class PlayerRow(Base):
    """A browser's player id (its signed cookie) and the display name it chose, if any."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)


class SeekRow(Base):
    """A visitor waiting for an opponent in ``pool`` (game, options and clock).

    Times are seconds since the epoch (``time.time()``): ``seen`` is renewed while the
    waiting page is connected.  ``claimed`` is the player pairing with it (set by one
    conditional update: two cannot both claim it), then ``match_id``/``token`` the seat."""

    __tablename__ = "seeks"
    __table_args__ = (Index("ix_seeks_pool", "pool", "created"),)  # a pool's oldest first

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(32))
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, str]] = mapped_column(JSON)
    clock: Mapped[str] = mapped_column(String(16))
    pool: Mapped[str] = mapped_column(String(400))
    created: Mapped[float] = mapped_column(Float)
    seen: Mapped[float] = mapped_column(Float)
    claimed: Mapped[str | None] = mapped_column(String(32), nullable=True)
    match_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token: Mapped[str | None] = mapped_column(String(64), nullable=True)


class SecretRow(Base):
    """Keys the site makes once and every process shares (the player cookie's)."""

    __tablename__ = "site_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


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
    config.set_main_option("script_location", "slimetrail.web.storage:migrations")
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            # Several processes starting at once on one database migrate it one at a time.
            connection.exec_driver_sql("SELECT pg_advisory_xact_lock(5119)")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def make_sessionmaker(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)
