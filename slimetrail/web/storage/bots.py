"""The bots the site's admin let in: names, hashed tokens, and who is online.

A token is shown once, when it is made (``slimetrail bot-token create NAME``); only its
SHA-256 is kept, so the database never holds a usable token.  A bot is online while its
last sign of life (``seen``, renewed by its connection) is recent: several server processes
on one database agree on who is online.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from slimetrail.web.storage.tables import BotRow, aware

BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class BotNameError(ValueError):
    """A bot name that is malformed, taken, or unknown."""


@dataclass(frozen=True)
class Bot:
    name: str
    games: list[str]
    created: datetime
    seen: datetime | None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class BotRepository:
    def __init__(self, sessions: sessionmaker) -> None:
        self.sessions = sessions

    def create(self, name: str) -> str:
        """A new bot ``name`` and its token (shown this once)."""
        if not BOT_NAME.fullmatch(name):
            raise BotNameError(
                f"bot name {name!r}: use 1 to 64 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        # Prefixed: a random token may start with "-", which a command line takes for an option.
        token = "bot_" + secrets.token_urlsafe(24)
        try:
            with self.sessions.begin() as session:
                session.add(
                    BotRow(name=name, token_hash=token_hash(token), games=[], created=now())
                )
        except IntegrityError:
            raise BotNameError(f"there is a bot {name!r} already") from None
        return token

    def revoke(self, name: str) -> None:
        """Delete bot ``name``: its token no longer lets it in."""
        with self.sessions.begin() as session:
            if session.execute(delete(BotRow).where(BotRow.name == name)).rowcount != 1:  # type: ignore[attr-defined]
                raise BotNameError(f"there is no bot {name!r}")

    def all(self) -> list[Bot]:
        with self.sessions() as session:
            rows = session.scalars(select(BotRow).order_by(BotRow.name)).all()
        return [Bot(r.name, list(r.games), aware(r.created), aware_or_none(r.seen)) for r in rows]

    def name_of(self, token: str) -> str | None:
        """The bot whose token this is, or ``None``."""
        with self.sessions() as session:
            return session.scalar(select(BotRow.name).where(BotRow.token_hash == token_hash(token)))

    def announce(self, name: str, games: list[str]) -> None:
        """Bot ``name`` is connected and plays ``games``."""
        with self.sessions.begin() as session:
            session.execute(
                update(BotRow).where(BotRow.name == name).values(games=games, seen=now())
            )

    def seen(self, name: str, online: bool = True) -> None:
        """A sign of life of bot ``name`` (or, ``online=False``, its connection closed)."""
        with self.sessions.begin() as session:
            session.execute(
                update(BotRow).where(BotRow.name == name).values(seen=now() if online else None)
            )

    def online(self, within: float) -> list[Bot]:
        """The bots seen in the last ``within`` seconds."""
        since = now() - timedelta(seconds=within)
        return [bot for bot in self.all() if bot.seen is not None and bot.seen >= since]


def now() -> datetime:
    return datetime.now(UTC)


def aware_or_none(moment: datetime | None) -> datetime | None:
    return None if moment is None else aware(moment)
