"""The FastAPI app: ``create_app`` builds the site's services and includes the routers.

A request reads top-down: route (:mod:`slimetrail.web.routes`) -> service
(:mod:`slimetrail.web.service`) -> game / storage (:mod:`slimetrail.web.storage`) -> view
(:mod:`slimetrail.web.views`); the services and their lifespan are
:class:`slimetrail.web.site.Site`'s.  Rates, load shedding, watcher caps and retention follow
:class:`slimetrail.web.settings.Limits`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from slimetrail.web.errors import install_api_errors
from slimetrail.web.hardening import LimitExcept, RequestGuard, ServerTiming, document_errors
from slimetrail.web.language import LanguageChoice
from slimetrail.web.players import PlayerCookie
from slimetrail.web.ratelimit import InFlightLimit
from slimetrail.web.routes import (
    analysis,
    atlas,
    bots,
    live,
    lobby,
    matches,
    pages,
    puzzles,
    review,
)
from slimetrail.web.settings import Limits
from slimetrail.web.site import Site


def create_app(
    db_url: str | None = None,
    *,
    workers: int = 2,
    move_time: float = 1.0,
    limits: Limits | None = None,
    secret_key: str | None = None,
) -> FastAPI:
    """``workers=0`` (PostgreSQL only): a web-only process, whose computer moves and analyses
    go to the shared job queue for ``slimetrail worker``."""
    site = Site(
        db_url,
        workers=workers,
        move_time=move_time,
        limits=limits or Limits(),
        secret_key=secret_key,
    )
    app = FastAPI(title="Slimetrail", lifespan=site.lifespan)
    site.install(app.state)
    app.add_middleware(RequestGuard)
    app.add_middleware(PlayerCookie, key=site.player_key)
    # Around the guard: sheds before a body is read.
    app.add_middleware(
        LimitExcept,
        limiter=InFlightLimit,
        exempt=analysis.UNLIMITED_PATHS + atlas.UNLIMITED_PATHS,
        exempt_suffixes=review.UNLIMITED_SUFFIXES,
        limit=site.limits.in_flight,
        wait=site.limits.in_flight_wait,
        page=pages.shed_page,  # a browser opening a page gets a page, not JSON
    )
    app.add_middleware(ServerTiming)  # the time includes any wait for a place
    app.add_middleware(LanguageChoice)  # outermost: a shed page speaks the language too
    document_errors(app)
    install_api_errors(app)
    for module in (matches, analysis, review, atlas, puzzles, live, lobby, bots, pages):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static")
    pages.install_error_pages(app)  # styled error pages; the API keeps its JSON errors
    return app
