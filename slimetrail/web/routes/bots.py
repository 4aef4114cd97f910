"""Bots: ``/ws/bot``, where a bot's engine connects (:mod:`slimetrail.web.bots`), and
``/api/bots``, the bots online now (the home page offers them as opponents)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool

from slimetrail.web.bots import BAD_TOKEN
from slimetrail.web.deps import Bots, Client, Rates
from slimetrail.web.hub import TRY_AGAIN_LATER
from slimetrail.web.ratelimit import BOT
from slimetrail.web.service.admission import Refused

router = APIRouter()
BEARER = "bearer "


@router.get("/api/bots")
async def online_bots(bots: Bots) -> list[dict[str, Any]]:
    return await run_in_threadpool(bots.online)


@router.websocket("/ws/bot")
async def bot(websocket: WebSocket, bots: Bots, rates: Rates, client: Client) -> None:
    """A bot's connection: its token in ``Authorization: Bearer T``; rate-limited per client
    like match creation (a bot that reconnects in a loop is held back)."""
    await websocket.accept()
    try:
        await rates.hit(BOT, client)
    except Refused as exc:
        await websocket.close(code=TRY_AGAIN_LATER, reason=exc.message[:120])
        return
    header = websocket.headers.get("authorization", "")
    token = header[len(BEARER) :].strip() if header.lower().startswith(BEARER) else ""
    name = await run_in_threadpool(bots.repository.name_of, token) if token else None
    if name is None:
        reason = "bad token: give a token from 'slimetrail bot-token create NAME'"
        await websocket.close(code=BAD_TOKEN, reason=reason)
        return
    await bots.serve(websocket, name)
