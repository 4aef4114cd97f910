"""Who a browser is, without an account: a player id in a signed cookie.

Every HTTP request passes :class:`PlayerCookie`: a valid cookie names the player; a missing
or forged one gets a new id, set on the answer.  The signature (HMAC-SHA256 with the site's
key, :attr:`Site.player_key <slimetrail.web.site.Site>`) stops a browser from claiming
another's id, so it cannot list another's games or pair as somebody else.  A WebSocket
reads the cookie its page was given (no answer to set one on).  Routes take the id with
:data:`Player` (``Depends``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from http.cookies import SimpleCookie
from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slimetrail.i18n import gettext
from slimetrail.web.service.errors import SeatRefused

COOKIE = "slimetrail_player"
MAX_AGE = 2 * 365 * 24 * 3600  # two years: a browser's games stay its own
SCOPE_KEY = "slimetrail.player"


class PlayerKey:
    """Signs player ids and checks signed ones."""

    def __init__(self, secret: str) -> None:
        if len(secret) < 16:
            raise ValueError("the player cookie key must be at least 16 characters")
        self.secret = secret.encode()

    def signature(self, player_id: str) -> str:
        return hmac.new(self.secret, player_id.encode(), hashlib.sha256).hexdigest()[:32]

    def sign(self, player_id: str) -> str:
        return f"{player_id}.{self.signature(player_id)}"

    def verify(self, value: str) -> str | None:
        """The player id of a signed ``value``, or ``None`` if it is not one of ours."""
        player_id, _, signature = value.partition(".")
        if player_id and hmac.compare_digest(signature, self.signature(player_id)):
            return player_id
        return None


def new_player_id() -> str:
    return secrets.token_urlsafe(12)


def cookie_of(scope: Scope, cookie: str = COOKIE) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            morsel = SimpleCookie(value.decode("latin-1")).get(cookie)
            if morsel is not None:
                return morsel.value
    return ""


class PlayerCookie:
    """ASGI middleware: ``scope[SCOPE_KEY]`` is the player id (``None`` for a WebSocket
    without a valid cookie); an HTTP answer sets the cookie of a new player."""

    def __init__(self, app: ASGIApp, key: PlayerKey) -> None:
        self.app, self.key = app, key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        player = self.key.verify(cookie_of(scope))
        if player is not None or scope["type"] == "websocket":
            scope[SCOPE_KEY] = player
            await self.app(scope, receive, send)
            return
        player = scope[SCOPE_KEY] = new_player_id()
        cookie = (
            f"{COOKIE}={self.key.sign(player)}; Max-Age={MAX_AGE}; Path=/; HttpOnly; SameSite=Lax"
        )
        await self.app(scope, receive, setting_cookie(send, cookie))


def setting_cookie(send: Send, cookie: str) -> Send:
    """``send`` with a ``Set-Cookie: cookie`` header added to the answer."""

    async def send_with_cookie(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            headers.append((b"set-cookie", cookie.encode("latin-1")))
            message = {**message, "headers": headers}
        await send(message)

    return send_with_cookie


async def player_of(connection: HTTPConnection) -> str:
    """The player id of the request; a WebSocket without the cookie is refused."""
    player = connection.scope.get(SCOPE_KEY)
    if player is None:
        raise SeatRefused(gettext("no player cookie: open the page that starts this first"))
    return str(player)


Player = Annotated[str, Depends(player_of)]
