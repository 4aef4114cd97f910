"""Live updates across server processes: PostgreSQL ``LISTEN/NOTIFY``.

Several ``slimetrail serve`` processes on one PostgreSQL each hold their own WebSocket
watchers.  Every change of a match (a move, an undo, a resignation, a rematch) sends
``NOTIFY slimetrail_match`` *inside the transaction that writes it*: PostgreSQL delivers a
notification only when its transaction commits, so a watcher is told of exactly the changes
that are stored.  Each process keeps one connection listening (:class:`Listener`); on a
notification about a match it has watchers for, its hub sends them the match again, which
reloads the match first because its version moved on.

A process skips the notifications it sent itself (its hub already told its own watchers), by
the ``origin`` in the payload.  PostgreSQL keeps no notification for a listener that was
disconnected, so after reconnecting the listener tells every watched match again.

With SQLite (one process) nothing of this runs: the hub is told in-process, as before.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import text

log = logging.getLogger("slimetrail.web.live")

MATCH_CHANNEL = "slimetrail_match"
RECONNECT_DELAY = 1.0


def libpq_url(url: str) -> str:
    """The plain ``postgresql://`` form of a SQLAlchemy URL (psycopg does not know drivers)."""
    scheme, rest = url.split("://", 1)
    if not scheme.startswith(("postgresql", "postgres")):
        raise ValueError(f"not a PostgreSQL URL: {scheme}://...")
    return f"postgresql://{rest}"


def is_postgres(url: str) -> bool:
    return url.split("://", 1)[0].startswith(("postgresql", "postgres"))


def new_origin() -> str:
    """A name for this process in the notifications it sends."""
    return secrets.token_hex(6)


def notify(session: Any, channel: str, payload: dict[str, Any]) -> None:
    """``NOTIFY channel`` in ``session``'s transaction (delivered if and when it commits)."""
    session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": channel, "payload": json.dumps(payload, separators=(",", ":"))},
    )


class MatchAnnouncer:
    """The match service's change hook: a notification per stored change of a match."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def __call__(self, session: Any, match_id: str, version: int) -> None:
        notify(session, MATCH_CHANNEL, {"id": match_id, "v": version, "o": self.origin})


Handler = Callable[[dict[str, Any]], None]


class Listener:
    """One connection listening on some channels, handing each payload to its handler.

    ``handlers``: channel -> function of the decoded payload (called on the event loop, so
    it must not block).  ``on_reconnect`` runs after every reconnection (not the first
    connection): notifications sent meanwhile are lost, so it re-reads what matters.
    """

    def __init__(
        self,
        url: str,
        handlers: dict[str, Handler],
        on_reconnect: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.conninfo = libpq_url(url)
        self.handlers = handlers
        self.on_reconnect = on_reconnect
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.connections = 0

    async def start(self, timeout: float = 30.0) -> None:
        """Start listening; return once the first connection listens."""
        self.task = asyncio.create_task(self.run(), name="slimetrail listener")
        await asyncio.wait_for(self.ready.wait(), timeout)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
            self.task = None

    async def run(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True
                ) as connection:
                    for channel in self.handlers:
                        await connection.execute(f'LISTEN "{channel}"')
                    self.connections += 1
                    if self.connections > 1 and self.on_reconnect is not None:
                        await self.on_reconnect()
                    self.ready.set()
                    async for note in connection.notifies():
                        self.dispatch(note.channel, note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("the notification listener lost its connection; reconnecting")
                await asyncio.sleep(RECONNECT_DELAY)

    def dispatch(self, channel: str, payload: str) -> None:
        handler = self.handlers.get(channel)
        if handler is None:
            return
        try:
            handler(json.loads(payload))
        except Exception:  # one bad payload must not stop the listening
            log.exception("notification on %s not handled: %.200s", channel, payload)


def match_handler(origin: str, tell: Callable[[str], None]) -> Handler:
    """The handler of :data:`MATCH_CHANNEL`: ``tell(match id)`` for another process's change."""

    def handle(payload: dict[str, Any]) -> None:
        if payload.get("o") != origin:
            tell(str(payload["id"]))

    return handle
