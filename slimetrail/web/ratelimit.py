"""Per-client rate limits (the ``limits`` library) and load shedding (in-flight requests).

* :class:`RateLimits`: match creation, seeks and analysis requests per client in a moving window;
  over the rate a request is refused (429 with ``Retry-After``) before it does anything.  The
  storage is a ``limits`` URI (``Limits.rate_storage``); by default the server's database when
  it is PostgreSQL (:mod:`slimetrail.web.storage.pgstorage`: every process counts a
  client's requests in one place), else ``memory://`` (SQLite: one process).
  ``redis://...`` works too.
* :class:`InFlightLimit` (ASGI middleware): beyond ``limit`` HTTP requests being served at
  once a request waits a short while for a place, then is answered 503, rather than queueing
  for seconds behind the others (the thread pool and the database serve a few at a time,
  whatever is waiting); in JSON, or with the page its ``page`` hook makes (a browser's).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import deque
from collections.abc import Callable

from limits import parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from slimetrail.core.i18n import N_
from slimetrail.i18n import gettext
from slimetrail.web.live import is_postgres
from slimetrail.web.service.admission import Refused
from slimetrail.web.settings import Limits
from slimetrail.web.storage.pgstorage import PostgresStorage  # registers the postgresql:// scheme

CREATE, ANALYSE, BOT, SEEK = "create", "analyse", "bot", "seek"
WHAT = {
    CREATE: N_("new matches"),
    ANALYSE: N_("analyses"),
    BOT: N_("bot connections"),
    SEEK: N_("seeks for an opponent"),
}
# Answered however busy the server is: a load balancer's probe, the page's own files.
UNSHED = ("/healthz", "/static/", "/palette.css")


MEMORY = "memory://"


def rate_storage_uri(rate_storage: str, db_url: str) -> str:
    """The storage to count rates in: ``rate_storage`` if given, else the database when it is
    PostgreSQL (shared by every process), else each process's memory."""
    if rate_storage:
        return rate_storage
    return db_url if is_postgres(db_url) else MEMORY


class RateLimits:
    def __init__(self, limits: Limits, db_url: str = "") -> None:
        uri = rate_storage_uri(limits.rate_storage, db_url)
        self.storage = storage_from_string(uri)
        # A storage elsewhere costs a round trip: counted in a thread, off the event loop.
        self.remote = not uri.startswith(MEMORY)
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.items = {
            CREATE: parse(limits.create_rate),
            ANALYSE: parse(limits.analyse_rate),
            BOT: parse(limits.bot_connect_rate),
            SEEK: parse(limits.seek_rate),
        }

    async def hit(self, what: str, client: str) -> None:
        """Count one request of ``what`` by ``client``, or :class:`Refused` (429) over the rate."""
        if self.remote:
            await run_in_threadpool(self.count, what, client)
        else:
            self.count(what, client)

    def close(self) -> None:
        if isinstance(self.storage, PostgresStorage):
            self.storage.close()

    def count(self, what: str, client: str) -> None:
        item = self.items[what]
        if self.limiter.hit(item, what, client):
            return
        reset = self.limiter.get_window_stats(item, what, client).reset_time
        raise Refused(
            429,
            gettext("too many %(what)s from your address (at most %(most)s); try again later")
            % {"what": gettext(WHAT[what]), "most": item},
            max(1, math.ceil(reset - time.time())),
        )


def refusal_headers(refused: Refused) -> dict[str, str]:
    return {"Retry-After": str(refused.retry_after)}


class InFlightLimit:
    """At most ``limit`` requests served at once; one more waits up to ``wait`` seconds for a
    place (a burst is absorbed), then is answered 503 (an overload is shed): by the answer
    ``page(scope, refusal)`` makes, if any (a person's browser gets a page), else in JSON."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        wait: float = 0.0,
        page: Callable[[Scope, Refused], ASGIApp | None] | None = None,
    ) -> None:
        self.app, self.limit, self.wait, self.page = app, limit, wait, page
        self.current = 0
        self.waiting: deque[asyncio.Future[None]] = deque()
        self.shed = 0  # requests answered 503 so far

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(UNSHED):
            await self.app(scope, receive, send)
            return
        if not await self.place():
            self.shed += 1
            refusal = Refused(
                503,
                gettext(
                    "the server is overloaded (%(current)s requests in progress, "
                    "%(waiting)s waiting); try again in a moment"
                )
                % {"current": self.current, "waiting": len(self.waiting)},
                1,
            )
            page = self.page(scope, refusal) if self.page else None
            if page is None:
                await self.refuse(refusal, send)
            else:
                await page(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.leave()

    async def place(self) -> bool:
        """Whether a place was had (now, or within ``wait``)."""
        if self.current < self.limit:
            self.current += 1
            return True
        if self.wait <= 0:
            return False
        turn = asyncio.get_running_loop().create_future()
        self.waiting.append(turn)
        try:
            await asyncio.wait_for(asyncio.shield(turn), self.wait)
        except BaseException as exc:
            if turn.done():  # handed a place as the wait ran out: use it, or pass it on
                if isinstance(exc, TimeoutError):
                    return True
                self.leave()
            turn.cancel()  # skipped by leave()
            if isinstance(exc, TimeoutError):
                return False
            raise
        return True

    def leave(self) -> None:
        """A request is done: its place goes to the first one waiting, if any."""
        while self.waiting:
            turn = self.waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.current -= 1

    @staticmethod
    async def refuse(refusal: Refused, send: Send) -> None:
        payload = json.dumps({"detail": refusal.message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": refusal.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"retry-after", str(refusal.retry_after).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
