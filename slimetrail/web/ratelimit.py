"""Per-client rate limits (the ``limits`` library) and load shedding (in-flight requests).

* :class:`RateLimits`: match creation and analysis requests per client in a moving window;
  over the rate a request is refused (429 with ``Retry-After``) before it does anything.  The
  storage is a ``limits`` URI (``memory://`` for one process; ``redis://...`` for several).
* :class:`InFlightLimit` (ASGI middleware): beyond ``limit`` HTTP requests being served at
  once a request is answered 503 at once, rather than queueing for seconds behind the others
  (the thread pool and the database serve a few at a time, whatever is waiting).
"""

from __future__ import annotations

import json
import math
import time

from limits import parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Receive, Scope, Send

from slimetrail.web.admission import Refused
from slimetrail.web.settings import Limits

CREATE, ANALYSE = "create", "analyse"
WHAT = {CREATE: "new matches", ANALYSE: "analyses"}
# Answered however busy the server is: a load balancer's probe, the page's own files.
UNSHED = ("/healthz", "/static/", "/palette.css")


class RateLimits:
    def __init__(self, limits: Limits) -> None:
        self.limiter = MovingWindowRateLimiter(storage_from_string(limits.rate_storage))
        self.items = {CREATE: parse(limits.create_rate), ANALYSE: parse(limits.analyse_rate)}

    def hit(self, what: str, client: str) -> None:
        """Count one request of ``what`` by ``client``, or :class:`Refused` (429) over the rate."""
        item = self.items[what]
        if self.limiter.hit(item, what, client):
            return
        reset = self.limiter.get_window_stats(item, what, client).reset_time
        raise Refused(
            429,
            f"too many {WHAT[what]} from your address (at most {item}); try again later",
            max(1, math.ceil(reset - time.time())),
        )


def refusal_headers(refused: Refused) -> dict[str, str]:
    return {"Retry-After": str(refused.retry_after)}


class InFlightLimit:
    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit
        self.current = 0
        self.shed = 0  # requests answered 503 so far

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(UNSHED):
            await self.app(scope, receive, send)
            return
        if self.current >= self.limit:
            self.shed += 1
            await self.refuse(send)
            return
        self.current += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.current -= 1

    async def refuse(self, send: Send) -> None:
        payload = json.dumps(
            {
                "detail": f"the server is overloaded ({self.current} requests in progress); "
                "try again in a moment"
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"retry-after", b"1"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
