"""The waiting pages of seeks: one WebSocket each, sent the match when the seek is paired.

A seek's page keeps a WebSocket open (``/ws/seeks/{id}``); while it is open the seek waits,
and when it closes the seek leaves the pool.  Every :data:`~slimetrail.web.service.pairing.TICK`
seconds (or at once when woken: a pairing in this process, or a notification from another
on PostgreSQL, :data:`SEEK_CHANNEL`) the socket runs one round of
:meth:`Pairing.wait <slimetrail.web.service.pairing.Pairing.wait>` in a thread: the seek is
renewed, tries to pair itself, and on a match the page is sent ``{"type": "paired", "url"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable
from typing import Any

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from slimetrail.web.live import notify
from slimetrail.web.service.errors import MatchError
from slimetrail.web.service.pairing import TICK, Pairing

SEEK_CHANNEL = "slimetrail_seek"
GONE = 4404  # the close code of a seek that timed out or was cancelled


class SeekAnnouncer:
    """The pairing's hook: a notification naming the seeks paired (PostgreSQL)."""

    def __call__(self, session: Any, seek_ids: list[str]) -> None:
        notify(session, SEEK_CHANNEL, {"ids": seek_ids})


class Seekers:
    def __init__(self, pairing: Pairing) -> None:
        self.pairing = pairing
        self.waiting: dict[str, asyncio.Event] = {}

    def wake(self, seek_ids: list[str]) -> None:
        for seek_id in seek_ids:
            event = self.waiting.get(seek_id)
            if event is not None:
                event.set()

    def handler(self) -> Callable[[dict[str, Any]], None]:
        """The handler of :data:`SEEK_CHANNEL` notifications."""
        return lambda payload: self.wake([str(i) for i in payload.get("ids", [])])

    async def serve(self, websocket: WebSocket, seek_id: str, owner: str) -> None:
        """Keep the seek while its page is connected; send it its match when paired."""
        event = self.waiting[seek_id] = asyncio.Event()
        left = asyncio.create_task(self.until_closed(websocket))
        paired = False
        try:
            while not left.done():
                # Cleared before the round, not after: a pairing made while it looks still
                # wakes the wait that follows.
                event.clear()
                try:
                    found = await run_in_threadpool(self.pairing.wait, seek_id, owner)
                except MatchError as exc:
                    await websocket.close(code=GONE, reason=exc.message[:120])
                    return
                if found is not None:
                    paired = True  # the match is in the player's games if the page left
                    with contextlib.suppress(Exception):
                        await websocket.send_text(json.dumps({"type": "paired", "url": found.url}))
                        await websocket.close()
                    return
                woken = asyncio.ensure_future(event.wait())
                try:
                    # Until woken or the page leaves (whichever comes first), or the tick,
                    # jittered: two seeks that keep missing each other stop trying in step.
                    await asyncio.wait(
                        {left, woken},
                        timeout=TICK * random.uniform(0.5, 1.5),
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    woken.cancel()
        finally:
            left.cancel()
            if self.waiting.get(seek_id) is event:
                del self.waiting[seek_id]
            if not paired:
                # Shielded: a server cancelling the handler as the page goes still drops it.
                await asyncio.shield(run_in_threadpool(self.pairing.cancel, seek_id))

    @staticmethod
    async def until_closed(websocket: WebSocket) -> None:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass
