"""A simulated browser seeking an opponent over HTTP and a WebSocket, as the seek page does
(the pairing load test and the PostgreSQL pairing test; test machinery, not the package)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass

import httpx2 as httpx
from liveserver import TLS
from websockets.asyncio.client import connect

from slimetrail.web.players import COOKIE

BUSY = 503  # shed under load: the page would ask again


@dataclass(frozen=True)
class Seated:
    player: str  # the browser's player id (its cookie, unsigned part)
    url: str  # /play/{id}?seat=TOKEN
    waited: bool  # sent by the WebSocket (True) or paired at once by the POST

    @property
    def match_id(self) -> str:
        return self.url.removeprefix("/play/").split("?")[0]


async def seek(
    base: str,
    link: str,
    ws_base: str | None = None,
    timeout: float = 120.0,
    arriving: asyncio.Semaphore | None = None,
) -> Seated:
    """One browser: POST the /new link, and if sent to a seek page, wait on its WebSocket
    (at ``ws_base``, another server of the site, if given) until paired.  ``arriving``:
    how many browsers may be opening the link at once (the rest arrive as they finish)."""
    # The shared TLS context: a client made in 0.6 ms, so that 200 of them arrive at once
    # (each reading the CA bundle, 72 ms, spread them over seconds).
    async with httpx.AsyncClient(base_url=base, timeout=timeout, verify=TLS) as client:
        async with arriving or contextlib.nullcontext():
            while True:
                answer = await client.post(link, follow_redirects=False)
                if answer.status_code != BUSY:
                    break
                await asyncio.sleep(0.05)
        assert answer.status_code == 303, answer.text
        location = answer.headers["location"]
        cookie = client.cookies[COOKIE]
    player = cookie.split(".")[0]
    if location.startswith("/play/"):
        return Seated(player, location, False)
    seek_id = location.rsplit("/", 1)[1]
    socket_base = (ws_base or base).replace("http://", "ws://")
    headers = {"Cookie": f"{COOKIE}={cookie}"}
    async with connect(f"{socket_base}/ws/seeks/{seek_id}", additional_headers=headers) as ws:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    assert message["type"] == "paired", message
    return Seated(player, message["url"], True)
