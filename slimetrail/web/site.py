"""The services of one server process, built once from its settings, and their lifespan.

:class:`Site` opens (and migrates) the database and builds the match service, the watchers'
hub, the rate limits and the computer's backend (:func:`make_computer`: this process's
worker pool, or with ``workers=0`` the shared PostgreSQL job queue).  On PostgreSQL every
change is announced to the other processes and their changes heard
(:mod:`slimetrail.web.live`).  The player cookie's key is ``secret_key``, else
``$SLIMETRAIL_SECRET_KEY``, else one the site makes once and keeps in its database (every
process and every restart reads the same: a browser stays the same player).  At startup
every unfinished match whose computer is to move gets its move again, so a server killed
mid-game carries on where it was.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from sqlalchemy.orm import sessionmaker
from starlette.concurrency import run_in_threadpool

from slimetrail.web.bots import BotHub
from slimetrail.web.hardening import redact_logs
from slimetrail.web.hub import Hub
from slimetrail.web.live import MATCH_CHANNEL, Listener, MatchAnnouncer, match_handler, new_origin
from slimetrail.web.players import PlayerKey
from slimetrail.web.ratelimit import RateLimits
from slimetrail.web.seekers import SEEK_CHANNEL, SeekAnnouncer, Seekers
from slimetrail.web.service.admission import SERVER
from slimetrail.web.service.computer import make_computer
from slimetrail.web.service.errors import MatchError
from slimetrail.web.service.matches import Live, MatchService
from slimetrail.web.service.pairing import Pairing
from slimetrail.web.service.people import People
from slimetrail.web.settings import Limits
from slimetrail.web.storage.bots import BotRepository
from slimetrail.web.storage.people import PeopleRepository
from slimetrail.web.storage.retention import expire_matches
from slimetrail.web.storage.tables import default_db_url, make_engine, make_sessionmaker, upgrade

log = logging.getLogger("slimetrail.web")


class Site:
    def __init__(
        self,
        db_url: str | None,
        *,
        workers: int,
        move_time: float,
        limits: Limits,
        secret_key: str | None = None,
    ) -> None:
        if move_time <= 0:
            raise ValueError(f"move_time must be positive, not {move_time}")
        self.limits = limits
        url = db_url or default_db_url()
        self.engine = make_engine(url)
        postgres = self.engine.dialect.name == "postgresql"
        if workers < 0 or (workers == 0 and not postgres):
            raise ValueError(
                f"workers={workers}: a web-only server (0 workers) needs PostgreSQL, whose job "
                "queue the workers share; give 1 or more workers with SQLite"
            )
        upgrade(self.engine)
        self.sessions = make_sessionmaker(self.engine)
        origin = new_origin()
        announcer = MatchAnnouncer(origin) if postgres else None
        self.service = MatchService(
            self.sessions,
            on_change=announcer,
            clock_scale=limits.clock_scale,
            arrival_wait=limits.arrival_wait,
        )
        people = PeopleRepository(self.sessions, SeekAnnouncer() if postgres else None)
        self.people = People(people, self.service)
        self.pairing = Pairing(people, self.service, limits)
        self.seekers = Seekers(self.pairing)
        key = secret_key or os.environ.get("SLIMETRAIL_SECRET_KEY")
        self.player_key = PlayerKey(key or people.secret("player_cookie"))
        self.rates = RateLimits(limits, url)
        self.hub = Hub(self.service, limits)
        self.computer = make_computer(
            self.service,
            url,
            workers=workers,
            move_time=move_time,
            limits=limits,
            on_move=self.hub.notify,
        )
        self.bots = BotHub(self.service, BotRepository(self.sessions), limits, self.moved)
        self.service.check_bot = self.bots.check
        self.hub.listeners.append(self.bots.changed)
        self.listener: Listener | None = None
        if postgres:
            handlers = {
                MATCH_CHANNEL: match_handler(origin, self.hub.notify),
                SEEK_CHANNEL: self.seekers.handler(),
            }
            handlers.update(self.computer.channels())
            self.listener = Listener(url, handlers, on_reconnect=self.tell_all)

    def install(self, state: Any) -> None:
        """Keep the services on ``app.state``, where :mod:`slimetrail.web.deps` finds them."""
        state.service, state.computer, state.hub = self.service, self.computer, self.hub
        state.rates, state.limits = self.rates, self.limits
        state.pairing, state.seekers, state.people = self.pairing, self.seekers, self.people
        state.admission = self.computer.admission
        state.bots = self.bots

    def moved(self, live: Live) -> None:
        """A move made outside a request (a bot's): tell the watchers, the computer may reply."""
        self.hub.notify(live.id)
        self.computer.follow(live, SERVER)

    async def sweep_clocks(self) -> None:
        """End every game whose flag has fallen, every ``clock_sweep`` seconds, connected
        or not (each process sweeps; the conditional write lets one of them end it)."""
        while True:
            await asyncio.sleep(self.limits.clock_sweep)
            try:
                for match_id in await run_in_threadpool(self.service.flagged):
                    try:
                        ended = await run_in_threadpool(self.service.end_on_time, match_id)
                    except MatchError:  # ended or changed by another process meanwhile
                        continue
                    if ended:
                        self.computer.cancel(match_id)
                        self.hub.notify(match_id)
            except Exception:  # a database hiccup: the next round tries again
                log.exception("looking for fallen flags failed")

    async def tell_all(self) -> None:
        """Tell every watched match again (notifications missed while reconnecting)."""
        for match_id in list(self.hub.clients):
            self.hub.notify(match_id)

    @asynccontextmanager
    async def lifespan(self, _app: FastAPI) -> AsyncIterator[None]:
        redact_logs()
        if self.listener is not None:
            await self.listener.start()
        await self.computer.start()
        expiry = None
        if self.limits.expiry_interval > 0:
            expiry = asyncio.create_task(expire_periodically(self.sessions, self.limits))
        for match_id, ply in await run_in_threadpool(self.service.pending_computer_moves):
            self.computer.schedule(match_id, ply)
        sweeper = asyncio.create_task(self.sweep_clocks())
        try:
            yield
        finally:
            sweeper.cancel()
            if expiry is not None:
                expiry.cancel()
            await self.computer.stop()
            if self.listener is not None:
                await self.listener.stop()
            self.rates.close()
            self.engine.dispose()


async def expire_periodically(sessions: sessionmaker, limits: Limits) -> None:
    """The retention policy, applied now and every ``limits.expiry_interval`` seconds."""
    while True:
        try:
            count = await run_in_threadpool(
                expire_matches, sessions, limits.unfinished_days, limits.finished_days
            )
            if count:
                log.info("deleted %d expired matches", count)
        except Exception:  # a database hiccup: the next round tries again
            log.exception("deleting expired matches failed")
        await asyncio.sleep(limits.expiry_interval)
