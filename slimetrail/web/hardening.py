"""Guards every request passes before a route sees it, and headers every answer carries.

* :class:`RequestGuard` (ASGI middleware): a request body over :data:`MAX_BODY` bytes is
  refused with 413 before it is read whole (by its ``Content-Length``, or while it streams);
  a JSON body with ``NaN``, ``Infinity``, a number out of the float range (``1e400``) or a
  lone surrogate (``"\\ud800"``) anywhere is refused with 400 naming it, so no route, error
  handler or database ever meets a value it cannot write back.
* Security headers on every HTTP answer: seat links carry secret tokens in their query, so
  no page sends a referrer or may be framed; scripts come only from this site.
* :class:`LimitExcept`: a load-shedding middleware (``InFlightLimit``) for every request but
  those that mostly wait for the worker pool (an analysis), which has its own capped queue.
* :class:`ServerTiming`: every answer says how long the server took over it, from the
  request reaching the app (before any wait for a place) to its answer (``Server-Timing``):
  the latency benchmark tells the server's time from the client's and the machine's.
* :class:`RedactSeats`: the access log shows ``seat=…`` instead of the token.
* :func:`document_errors`: the OpenAPI spec lists the error statuses the API answers with.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slimetrail.i18n import gettext

MAX_BODY = 2 * 1024 * 1024  # bytes: the longest record or position fits many times over

SECURITY_HEADERS = [
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        b"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
        b"form-action 'self'",
    ),
]


class BodyRefused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def check_json(body: bytes) -> None:
    """Raise :class:`BodyRefused` (400) for JSON holding a value that cannot round-trip."""

    def refuse_constant(name: str) -> Any:
        said = gettext("JSON body: %(name)s is not a number this API accepts")
        raise BodyRefused(400, said % {"name": name})

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            said = gettext("JSON body: the number %(number)s is out of range")
            raise BodyRefused(400, said % {"number": text[:40]})
        return value

    try:
        data = json.loads(body, parse_constant=refuse_constant, parse_float=finite)
    except (ValueError, RecursionError):
        return  # not JSON at all: the route's own validation says so
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                said = gettext("JSON body: a text holds a lone surrogate (\\ud800-\\udfff)")
                raise BodyRefused(400, said) from None


class RequestGuard:
    """Body size cap and JSON sanity for every HTTP request; security headers on answers."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY) -> None:
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        try:
            receive = await self.checked_body(scope, receive)
        except BodyRefused as refused:
            await self.refuse(refused, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def checked_body(self, scope: Scope, receive: Receive) -> Receive:
        """Read the body (at most ``max_body`` bytes), check it, and replay it to the app."""
        headers = dict(scope.get("headers", []))
        declared = headers.get(b"content-length", b"").decode("latin-1").strip()
        if declared.isdecimal() and int(declared) > self.max_body:
            said = gettext("the request body is over %(most)s bytes")
            raise BodyRefused(413, said % {"most": self.max_body})
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                chunks, more = [], False
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                said = gettext("the request body is over %(most)s bytes")
                raise BodyRefused(413, said % {"most": self.max_body})
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if body and b"json" in headers.get(b"content-type", b""):
            check_json(body)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()  # the disconnect, once the app waits for it
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay

    @staticmethod
    async def refuse(refused: BodyRefused, send: Send) -> None:
        payload = json.dumps({"detail": refused.detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": refused.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


class LimitExcept:
    """``limiter(app, **options)`` for every HTTP request except those whose path starts with
    one of ``exempt`` or ends with one of ``exempt_suffixes``, which go to ``app`` directly.

    An in-flight cap counts requests the web process is working on; an analysis waits seconds
    for a worker without using the process, and a few of them holding every place would shed
    all the moves.  Analyses are capped by their own queue
    (:mod:`slimetrail.web.service.admission`)."""

    def __init__(
        self,
        app: ASGIApp,
        /,  # positional only: ``options`` may hold any name (Starlette's middleware protocol)
        limiter: Callable[..., ASGIApp],
        exempt: tuple[str, ...],
        exempt_suffixes: tuple[str, ...] = (),
        **options: Any,
    ) -> None:
        self.app, self.exempt, self.exempt_suffixes = app, exempt, exempt_suffixes
        self.limited = limiter(app, **options)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"] if scope["type"] == "http" else ""
        if path and (path.startswith(self.exempt) or path.endswith(self.exempt_suffixes)):
            await self.app(scope, receive, send)
        else:
            await self.limited(scope, receive, send)


class ServerTiming:
    """Adds ``Server-Timing: app;dur=<ms>`` to every HTTP answer (the outermost middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                took = f"app;dur={(time.perf_counter() - began) * 1000:.1f}".encode()
                message["headers"] = [*message.get("headers", []), (b"server-timing", took)]
            await send(message)

        await self.app(scope, receive, timed)


SEAT_TOKEN = re.compile(r"(seat=)[^&\s\"]+")


class RedactSeats(logging.Filter):
    """Replaces seat tokens in log lines (uvicorn's access and websocket lines) by ``…``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(
                SEAT_TOKEN.sub(r"\1…", arg) if isinstance(arg, str) else arg
                for arg in (record.args if isinstance(record.args, tuple) else (record.args,))
            )
        if isinstance(record.msg, str):
            record.msg = SEAT_TOKEN.sub(r"\1…", record.msg)
        return True


def redact_logs() -> None:
    """Install :class:`RedactSeats` on the loggers that print request lines."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSeats) for f in logger.filters):
            logger.addFilter(RedactSeats())


ERROR_STATUSES = {
    "400": "Bad input: an unknown game or option, an illegal move, a malformed record",
    "403": "No seat: a wrong or missing seat token, or not this seat's turn",
    "404": "No such match",
    "409": "Stale or finished: the match moved on; reload it",
    "413": "The request body is too large",
    "429": "Too many requests from this client (a rate or its queued jobs); see Retry-After",
    "503": "The server is busy (its queues or in-flight requests are full); see Retry-After",
}


def document_errors(app: FastAPI) -> None:
    """Make the OpenAPI spec list the error answers (``{"detail": text}``) of every route."""
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = original()
        error = {
            "type": "object",
            "properties": {"detail": {"type": "string"}},
            "required": ["detail"],
        }
        schema.setdefault("components", {}).setdefault("schemas", {})["Error"] = error
        for path, operations in schema.get("paths", {}).items():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                for status, text in ERROR_STATUSES.items():
                    if status == "404" and "{" not in path:
                        continue
                    responses.setdefault(
                        status,
                        {
                            "description": text,
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Error"}
                                }
                            },
                        },
                    )
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
