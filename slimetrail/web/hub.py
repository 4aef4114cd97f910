"""The WebSocket watchers of each match, told of every change (a move here, or a notification
from another process: :mod:`slimetrail.web.live`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from slimetrail.i18n import CURRENT, speaking
from slimetrail.web import views
from slimetrail.web.service.matches import Live, MatchService
from slimetrail.web.settings import Limits

# The WebSocket close code of a watcher refused by a cap (RFC 6455 "Try Again Later").
TRY_AGAIN_LATER = 1013
# A kind of watcher: the seats it holds and its language.
Viewer = tuple[tuple[int, ...], str]


class Hub:
    """The WebSocket clients watching each match, each with the seats its token holds.

    Each kind of viewer (by the seats held: a spectator, a seat, a hotseat pair; and by the
    language its page speaks) has its message built once per change of the match, in a
    thread, and the same text goes to every watcher of that kind; the watchers are capped per
    match and in total."""

    def __init__(self, service: MatchService, limits: Limits) -> None:
        self.service, self.limits = service, limits
        self.clients: dict[str, dict[WebSocket, Viewer]] = {}
        # Per match and kind of viewer: (the match's version, its message).
        self.built: dict[str, dict[Viewer, tuple[int, str]]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.sending: set[asyncio.Task[None]] = set()
        self.total = 0
        self.builds = 0  # messages built so far
        # Told of every change too, watched or not (the bots' connections).
        self.listeners: list[Callable[[str], None]] = []

    def _lock(self, match_id: str) -> asyncio.Lock:
        return self.locks.setdefault(match_id, asyncio.Lock())

    def admit(self, match_id: str, websocket: WebSocket, held: tuple[int, ...]) -> str | None:
        """Register a watcher, or say why not (a cap is reached)."""
        watchers = self.clients.get(match_id, {})
        if len(watchers) >= self.limits.match_watchers:
            return f"this match has {len(watchers)} watchers (at most {self.limits.match_watchers})"
        if self.total >= self.limits.total_watchers:
            return f"the server has {self.total} watchers (at most {self.limits.total_watchers})"
        # The watcher's language is its connection's (its page's cookie or ?lang=).
        self.clients.setdefault(match_id, {})[websocket] = (held, CURRENT.get())
        self.total += 1
        return None

    async def serve(self, match_id: str, websocket: WebSocket, held: tuple[int, ...]) -> None:
        """Keep an accepted watcher holding the seats ``held`` until it leaves, or close it
        at once if a cap is reached."""
        full = self.admit(match_id, websocket, held)
        if full is not None:
            await websocket.close(code=TRY_AGAIN_LATER, reason=full[:120])
            return
        try:
            await self.attach(match_id, websocket)
            while True:  # clients send nothing; reading notices the disconnect
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
        except WebSocketDisconnect:
            pass
        finally:
            self.detach(match_id, websocket)

    async def attach(self, match_id: str, websocket: WebSocket) -> None:
        """Send an admitted watcher the match (under the match's lock: no update can pass it)."""
        async with self._lock(match_id):
            viewer = self.clients.get(match_id, {}).get(websocket)
            if viewer is not None:
                await self._send(match_id, {websocket: viewer}, fresh=True)

    def detach(self, match_id: str, websocket: WebSocket) -> None:
        watchers = self.clients.get(match_id, {})
        if watchers.pop(websocket, None) is not None:
            self.total -= 1
        if not watchers:
            self.clients.pop(match_id, None)
            self.built.pop(match_id, None)
            lock = self.locks.get(match_id)
            if lock is not None and not lock.locked():
                del self.locks[match_id]

    def notify(self, match_id: str) -> None:
        """Publish in the background: a slow watcher must not hold up the request."""
        for listener in self.listeners:
            listener(match_id)
        if self.clients.get(match_id):
            task = asyncio.create_task(self.publish(match_id))
            self.sending.add(task)
            task.add_done_callback(self.sending.discard)

    async def publish(self, match_id: str) -> None:
        """Send every watcher of the match its current JSON (always the latest state)."""
        if not self.clients.get(match_id):
            return
        async with self._lock(match_id):
            await self._send(match_id, dict(self.clients.get(match_id, {})))

    async def _send(
        self, match_id: str, targets: dict[WebSocket, Viewer], fresh: bool = False
    ) -> None:
        """Send ``targets`` the match; ``fresh``: rebuilt if its clock runs (an attach)."""
        kinds = set(targets.values())
        built = self.built.setdefault(match_id, {})

        def build(live: Live) -> tuple[dict[Viewer, str], int]:
            messages, count = {}, 0
            # A running clock's time is read when the message is built: a watcher attaching
            # later is built a fresh one rather than sent what was read at the last change.
            ticking = live.clock is not None and live.outcome() is None
            for viewer in kinds:
                known = built.get(viewer)
                if known is None or known[0] != live.version or (ticking and fresh):
                    held, lang = viewer
                    with speaking(lang):
                        match = views.match_json(live, held)
                    known = (live.version, json.dumps({"type": "match", "match": match}))
                    built[viewer] = known
                    count += 1
                messages[viewer] = known[1]
            return messages, count

        messages, count = await run_in_threadpool(self.service.locked, match_id, build)
        self.builds += count

        async def send(websocket: WebSocket, viewer: Viewer) -> None:
            try:
                await asyncio.wait_for(websocket.send_text(messages[viewer]), timeout=10)
            except Exception:  # a client gone or stuck: drop it, the others still get theirs
                self.detach(match_id, websocket)

        await asyncio.gather(*(send(ws, viewer) for ws, viewer in targets.items()))
