"""``/api/analyse``: the exact values of a position (or the engine's estimate), searched by
the computer's backend, admitted as an analysis (after any computer move)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field, StrictStr

from slimetrail.web.deps import Client, ComputerMoves, Rates
from slimetrail.web.ratelimit import ANALYSE
from slimetrail.web.routes.matches import MAX_MOVES, TEXT_LIMIT, OptionValue, Text
from slimetrail.web.service.matches import make_game
from slimetrail.web.views import analysis_said

router = APIRouter()
# Requests outside the in-flight cap: an analysis waits for a worker, in its own queue.
UNLIMITED_PATHS = ("/api/analyse",)


class AnalyseBody(BaseModel):
    game: StrictStr = Field(max_length=TEXT_LIMIT)
    options: dict[Text, OptionValue] = {}
    moves: list[Text] = Field([], max_length=MAX_MOVES)


@router.post("/api/analyse")
async def analyse_position(
    body: AnalyseBody, computer: ComputerMoves, rates: Rates, client: Client
) -> dict[str, Any]:
    await rates.hit(ANALYSE, client)
    game = make_game(body.game, body.options)
    return analysis_said(await computer.analyse(game, body.moves, client))
