"""Bots by protocol: engines that connect to the site (``slimetrail bot``) and play their seats.

A bot opens a WebSocket to ``/ws/bot`` (outbound from its side, so it may run behind NAT)
with its token (``Authorization: Bearer T``), says which games it plays, and is then sent a
``turn`` whenever it is to move in one of its matches -- at once for every match waiting for
it when it (re)connects, so a bot that dropped out gets back to its games while its clock
runs.  It answers with its ``move``; a move that is not legal loses it the game, the reason
named.  The messages, JSON objects with a ``type``:

* bot -> site ``{"type": "hello", "games": ["slimetrail", ...]}``, first;
* site -> bot ``{"type": "welcome", "name": NAME, "games": [...]}``;
* site -> bot ``{"type": "turn", "match", "game", "options", "moves", "ply", "player",
  "clock_ms" (each player's ms left, or null), "increment_ms", "per_move"}``;
* bot -> site ``{"type": "move", "match": ID, "ply": N, "move": TEXT}``;
* site -> bot ``{"type": "error", "message": ...}`` for a message it cannot use.

Who is online is kept in the database (:class:`BotRepository`), renewed while connected, so
every server process offers the same bots; a turn reaches the bot from the process it is
connected to, whichever process made the change (the hub's notifications).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from slimetrail.core.game import Game
from slimetrail.engine.ugi import ugi_games
from slimetrail.i18n import gettext
from slimetrail.web.service.errors import InvalidRequest, MatchError
from slimetrail.web.service.matches import Live, MatchService
from slimetrail.web.settings import Limits
from slimetrail.web.storage.bots import BotRepository, now
from slimetrail.web.storage.tables import BOT

log = logging.getLogger("slimetrail.web")

# WebSocket close codes (the application's range): a bad token, a bad hello, replaced by a
# newer connection of the same bot.
BAD_TOKEN, BAD_HELLO, REPLACED = 4401, 4400, 4409
HELLO_WAIT = 10.0
MAX_GAMES = 64


@dataclass(eq=False)
class Connection:
    name: str
    websocket: WebSocket
    games: list[str]
    offered: set[tuple[str, int]] = field(default_factory=set)  # (match, ply) sent already
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class BotHub:
    """The bots connected to this process, and the check that a bot seat may be taken."""

    def __init__(
        self,
        service: MatchService,
        repository: BotRepository,
        limits: Limits,
        on_move: Callable[[Live], None],
    ) -> None:
        self.service, self.repository, self.limits = service, repository, limits
        self.on_move = on_move
        self.connections: dict[str, Connection] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    # -- who may be chosen -----------------------------------------------------------

    def check(self, name: str, game: Game) -> None:
        """Raise :class:`InvalidRequest` unless bot ``name`` is online and plays ``game``
        (the match service's check of a ``bot:NAME`` seat; runs in a thread)."""
        bots = {bot.name: bot for bot in self.repository.all()}
        bot = bots.get(name)
        if bot is None:
            known = ", ".join(bots) or gettext("none")
            said = gettext("there is no bot %(name)r (bots: %(bots)s)")
            raise InvalidRequest(said % {"name": name, "bots": known})
        if bot.seen is None or now() - bot.seen > timedelta(seconds=self.limits.bot_online):
            raise InvalidRequest(gettext("the bot %(name)r is offline") % {"name": name})
        if game.id not in bot.games:
            said = gettext("the bot %(name)r does not play %(game)s")
            raise InvalidRequest(said % {"name": name, "game": game.id})

    def online(self) -> list[dict[str, Any]]:
        """The bots online now, with their games (runs in a thread)."""
        return [
            {"name": bot.name, "games": bot.games}
            for bot in self.repository.online(self.limits.bot_online)
        ]

    # -- a connection ----------------------------------------------------------------

    async def serve(self, websocket: WebSocket, name: str) -> None:
        """Keep bot ``name``'s accepted connection until it closes."""
        games = await self.hello(websocket)
        if games is None:
            return
        old = self.connections.get(name)
        if old is not None:
            with contextlib.suppress(Exception):
                await old.websocket.close(code=REPLACED, reason="a newer connection of this bot")
        connection = Connection(name, websocket, games)
        self.connections[name] = connection
        beat = asyncio.create_task(self.heartbeat(name))
        try:
            await run_in_threadpool(self.repository.announce, name, games)
            await websocket.send_json({"type": "welcome", "name": name, "games": games})
            for match_id in await run_in_threadpool(self.service.bot_turns, name):
                await self.offer(connection, match_id)
            while True:
                await self.receive(connection, await websocket.receive_text())
        except (WebSocketDisconnect, RuntimeError):
            pass  # closed by the bot, or replaced by its newer connection
        finally:
            beat.cancel()
            if self.connections.get(name) is connection:
                del self.connections[name]
                await run_in_threadpool(self.repository.seen, name, False)

    async def hello(self, websocket: WebSocket) -> list[str] | None:
        """The games the bot's first message announces, or ``None`` (closed, saying why)."""
        try:
            message = await asyncio.wait_for(websocket.receive_json(), HELLO_WAIT)
        except (TimeoutError, ValueError, WebSocketDisconnect):
            message = None
        games = message.get("games") if isinstance(message, dict) else None
        problem = None
        if not isinstance(message, dict) or message.get("type") != "hello":
            problem = 'first send {"type": "hello", "games": [...]}'
        elif not isinstance(games, list) or not games or len(games) > MAX_GAMES:
            problem = "hello: games must list the games the bot plays"
        else:
            unknown = [g for g in games if g not in ugi_games()]
            if unknown:
                problem = f"hello: no two-player game {unknown[0]!r} (games: {ugi_games()})"
        if problem is not None:
            with contextlib.suppress(Exception):
                await websocket.close(code=BAD_HELLO, reason=problem[:120])
            return None
        return [str(game) for game in games]  # type: ignore[union-attr]

    async def heartbeat(self, name: str) -> None:
        while True:
            await asyncio.sleep(self.limits.bot_online / 3)
            try:
                await run_in_threadpool(self.repository.seen, name)
            except Exception:  # a database hiccup: the next beat tries again
                log.exception("bot %s: could not mark it online", name)

    async def receive(self, connection: Connection, raw: str) -> None:
        """A message of the bot: its move (anything else is answered with an error)."""
        try:
            message: Any = json.loads(raw)
        except ValueError:
            message = None
        fields = message if isinstance(message, dict) else {}
        match_id, ply, text = fields.get("match"), fields.get("ply"), fields.get("move")
        if (
            fields.get("type") != "move"
            or not isinstance(match_id, str)
            or not isinstance(ply, int)
            or not isinstance(text, str)
        ):
            await self.send(connection, {"type": "error", "message": "expected a move message"})
            return
        try:
            live = await run_in_threadpool(
                self.service.bot_move, match_id, connection.name, ply, text[:200]
            )
        except MatchError as exc:
            await self.send(connection, {"type": "error", "message": exc.message})
            return
        if live is not None:
            self.on_move(live)

    async def send(self, connection: Connection, message: dict[str, Any]) -> None:
        async with connection.lock:
            await connection.websocket.send_text(json.dumps(message))

    async def offer(self, connection: Connection, match_id: str) -> None:
        """Send the bot its turn in the match, if it is to move there (once per ply)."""
        try:
            job = await run_in_threadpool(self.service.bot_job, match_id, connection.name)
        except MatchError:
            return  # the match is gone
        if job is None or (match_id, job["ply"]) in connection.offered:
            return
        connection.offered.add((match_id, job["ply"]))
        await self.send(connection, {"type": "turn", **job})

    # -- changes -----------------------------------------------------------------------

    def changed(self, match_id: str) -> None:
        """A match changed (here or in another process): a bot connected here may be to move."""
        if not self.connections:
            return
        task = asyncio.create_task(self.offer_turns(match_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def offer_turns(self, match_id: str) -> None:
        live = self.service.cached(match_id)  # seats never change: memory will do
        if live is None:
            try:
                live = await run_in_threadpool(self.service.load, match_id)
            except MatchError:
                return
        for seat in live.seats:
            connection = self.connections.get(seat.bot or "") if seat.kind == BOT else None
            if connection is not None:
                with contextlib.suppress(Exception):  # a bot gone meanwhile
                    await self.offer(connection, match_id)
