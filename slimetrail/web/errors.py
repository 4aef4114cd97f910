"""The web layer's answer to a refusal: each domain error becomes an HTTP status and the JSON
body ``{"detail": message}`` (pages answer with an error page instead:
:func:`slimetrail.web.routes.pages.install_error_pages`)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from slimetrail.core.game import GameError
from slimetrail.i18n import gettext
from slimetrail.web.ratelimit import refusal_headers
from slimetrail.web.service.admission import Refused
from slimetrail.web.service.errors import (
    Conflict,
    InvalidRequest,
    MatchError,
    NotFound,
    NotYourTurn,
    SeatRefused,
)

STATUS = {
    InvalidRequest: 400,
    SeatRefused: 403,
    NotYourTurn: 403,
    NotFound: 404,
    Conflict: 409,
}


def status_of(exc: MatchError) -> int:
    """The HTTP status of a refusal of the match service."""
    return next(status for kind, status in STATUS.items() if isinstance(exc, kind))


async def match_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MatchError)
    return JSONResponse({"detail": exc.message}, status_code=status_of(exc))


async def game_error(_request: Request, exc: Exception) -> JSONResponse:
    """A game's refusal, in the request's language."""
    assert isinstance(exc, GameError)
    return JSONResponse({"detail": exc.translated(gettext)}, status_code=400)


async def refused(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refused)
    return JSONResponse(
        {"detail": exc.message}, status_code=exc.status, headers=refusal_headers(exc)
    )


def install_api_errors(app: FastAPI) -> None:
    app.add_exception_handler(MatchError, match_error)
    app.add_exception_handler(GameError, game_error)
    app.add_exception_handler(Refused, refused)
