"""``/ws/matches/{id}``: a watcher of a match, sent the match JSON at once and after every
change (:class:`slimetrail.web.hub.Hub`)."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool

from slimetrail.web.deps import Service, Watchers
from slimetrail.web.errors import status_of
from slimetrail.web.service.errors import MatchError

router = APIRouter()


@router.websocket("/ws/matches/{match_id}")
async def watch(
    websocket: WebSocket, match_id: str, service: Service, hub: Watchers, seat: str | None = None
) -> None:
    await websocket.accept()
    try:
        held = (await run_in_threadpool(service.load, match_id)).held_by(seat)
    except MatchError as exc:
        # 4404 / 4403: the HTTP status in the application's close-code range.
        await websocket.close(code=4000 + status_of(exc), reason=exc.message[:120])
        return
    await hub.serve(match_id, websocket, held)
