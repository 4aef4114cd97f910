"""Providers for ``Depends``: what a route is given (the services ``create_app`` built and
keeps on ``app.state``, and whom per-client limits count a request against).

They are ``async``: FastAPI runs a plain function dependency in a thread, a hop per request
for a lookup."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from slimetrail.web.bots import BotHub
from slimetrail.web.hub import Hub
from slimetrail.web.ratelimit import RateLimits
from slimetrail.web.seekers import Seekers
from slimetrail.web.service.computer import Computer
from slimetrail.web.service.matches import MatchService
from slimetrail.web.service.pairing import Pairing
from slimetrail.web.service.people import People


async def match_service(connection: HTTPConnection) -> MatchService:
    return connection.app.state.service


async def computer(connection: HTTPConnection) -> Computer:
    return connection.app.state.computer


async def hub(connection: HTTPConnection) -> Hub:
    return connection.app.state.hub


async def bots(connection: HTTPConnection) -> BotHub:
    return connection.app.state.bots


async def rates(connection: HTTPConnection) -> RateLimits:
    return connection.app.state.rates


async def pairing(connection: HTTPConnection) -> Pairing:
    return connection.app.state.pairing


async def people(connection: HTTPConnection) -> People:
    return connection.app.state.people


async def seekers(connection: HTTPConnection) -> Seekers:
    return connection.app.state.seekers


async def client_of(connection: HTTPConnection) -> str:
    """Whom per-client limits count a request against: its address."""
    return connection.client.host if connection.client else "unknown"


Service = Annotated[MatchService, Depends(match_service)]
ComputerMoves = Annotated[Computer, Depends(computer)]
Watchers = Annotated[Hub, Depends(hub)]
Bots = Annotated[BotHub, Depends(bots)]
Rates = Annotated[RateLimits, Depends(rates)]
Client = Annotated[str, Depends(client_of)]
Pairs = Annotated[Pairing, Depends(pairing)]
Waiters = Annotated[Seekers, Depends(seekers)]
Players = Annotated[People, Depends(people)]
