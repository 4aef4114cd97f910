"""``GET /api/matches/{id}/review``: a verdict on every move of a finished (or hotseat) game
and its evaluation graph, made by the workers as an analysis and kept per match."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from slimetrail.web import views
from slimetrail.web.deps import Client, ComputerMoves, Rates, Service
from slimetrail.web.ratelimit import ANALYSE
from slimetrail.web.service.computer import Computer
from slimetrail.web.service.matches import MatchService

router = APIRouter()
# A review waits for a worker in the analyses' queue, outside the in-flight cap.
UNLIMITED_SUFFIXES = ("/review",)


async def match_review(
    match_id: str, service: MatchService, computer: Computer, rates: Rates, client: str
) -> dict[str, Any]:
    """The match's review (``plies`` of :func:`slimetrail.review.review_moves`): the one
    kept for its current version, or made now (counted as an analysis) and kept."""
    game, moves, version, kept = await run_in_threadpool(service.review_job, match_id)
    if kept is not None:
        return kept
    await rates.hit(ANALYSE, client)
    made = await computer.review(game, moves, client)
    await run_in_threadpool(service.keep_review, match_id, version, made)
    return made


@router.get("/api/matches/{match_id}/review")
async def review(
    match_id: str, service: Service, computer: ComputerMoves, rates: Rates, client: Client
) -> dict[str, Any]:
    made = await match_review(match_id, service, computer, rates, client)
    game = await run_in_threadpool(service.locked, match_id, lambda live: live.game)
    return await run_in_threadpool(views.review_json, game, made)
