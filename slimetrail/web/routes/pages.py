"""HTML pages of the web front end: the home page, the rules pages and the play page.

The play page is a thin shell: ``static/play.js`` fetches the match JSON and follows the
WebSocket, and draws any game from ``board`` + ``view`` + ``legal``, so a new game needs no
page code.  Each game's rules text is an HTML fragment in its own package folder
(``<game package>/rules/<game id>.html``), rendered as a Jinja template whose
``{{ diagram(...) }}`` calls draw board diagrams from the engine (``slimetrail.web.diagrams``).
Errors on a page (rather than the API) answer with a styled error page; so does a refusal
(a rate, a full queue, shed load) of a person's browser opening a page, saying when to try
again, where an API client or a page's own script keeps the JSON refusal.
"""

from __future__ import annotations

import json
from typing import Any

import jinja2
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Scope

from slimetrail.ai import levels_for
from slimetrail.core.game import Game, GameError
from slimetrail.core.i18n import N_
from slimetrail.core.registry import GAMES
from slimetrail.i18n import gettext
from slimetrail.render import fit_size, palette_css, state_svg
from slimetrail.web.deps import Bots, Players, Service, Watchers
from slimetrail.web.diagrams import page_diagrams
from slimetrail.web.errors import refused as json_refusal
from slimetrail.web.errors import status_of
from slimetrail.web.language import environment, templates
from slimetrail.web.players import Player
from slimetrail.web.ratelimit import refusal_headers
from slimetrail.web.service.admission import Refused
from slimetrail.web.service.clock import CLOCK_CHOICES
from slimetrail.web.service.errors import MatchError, NotFound, SeatRefused
from slimetrail.web.views import option_label

router = APIRouter()
# Rules fragments: a name the fragment does not define is an error, not an empty string.
# Their sentences are gettext messages, in the request's language.
fragments = environment(autoescape=True, undefined=jinja2.StrictUndefined)

OPPONENTS = (
    ("computer", N_("the computer")),
    ("human", N_("a person online")),
    ("hotseat", N_("a friend on this device")),
    ("friend", N_("a friend by link")),
)


def opponents() -> list[tuple[str, str]]:
    return [(value, gettext(label)) for value, label in OPPONENTS]


def clocks() -> list[tuple[str, str]]:
    """The clock choices with their names in the request's language."""
    return [(value, gettext(label)) for value, label in CLOCK_CHOICES]


def default_level(available: dict[int, str]) -> int:
    # The server's default level is 3; fall back to the middle one if there is no level 3.
    keys = sorted(available)
    return 3 if 3 in available else keys[len(keys) // 2]


def game_card(cls: type[Game]) -> dict[str, Any]:
    """What the home page shows for one game: its options as form fields and its variants."""
    presets: dict[str, dict[str, str]] = getattr(cls, "presets", {}) or {}
    options = []
    for spec in cls.option_specs:
        choices = [(value, value) for value in spec.texts()]
        if not choices:
            # A free option (the start cell): offer the default and every named variant.
            choices = [(spec.default_text, gettext("standard"))]
            for name, preset in presets.items():
                if spec.name in preset:
                    value = preset[spec.name]
                    variant = gettext("%(value)s (%(name)s variant)")
                    called = gettext(cls.preset_names.get(name, name))
                    choices.append((value, variant % {"value": value, "name": called}))
        options.append(
            {
                "name": spec.name,
                "label": option_label(spec.name),
                "default": spec.default_text,
                "choices": choices,
                "help": gettext(spec.help) if spec.help else "",
            }
        )
    return {
        "id": cls.id,
        "title": gettext(cls.title),
        "preview": board_preview(cls()),
        "players": [
            {"name": gettext(name), "colour": colour}
            for name, colour in zip(cls.player_names, cls.player_colours, strict=False)
        ],
        "player_names": [gettext(name) for name in cls.player_names],
        "num_players": cls.num_players,
        "options": options,
        "has_rules": rules_fragment(cls) is not None,
        # Each game has its own ladder (Snake Pit has fewer levels than Slime Trail).
        "levels": levels(cls()),
    }


def levels(game: Game) -> dict[int, str]:
    """The game's computer levels with their descriptions in the request's language."""
    return {level: gettext(text) for level, text in levels_for(game).items()}


# A preview fits in this many pixels (the tall 10x10 hex diamond: 162 x 270).
PREVIEW_BOX = (200, 270)


def board_preview(game: Game) -> Markup:
    """The start position as a small SVG, for the game cards of the home page."""
    return Markup(
        state_svg(
            game.new_state(),
            size=fit_size(game, *PREVIEW_BOX, coordinates=False),
            coordinates=False,
            label=gettext("The start position of %(game)s") % {"game": gettext(game.title)},
            css_class="preview",
        )
    )


def rules_fragment(cls: type[Game]) -> str | None:
    """The game's rules fragment (see :meth:`Game.rules_fragment`), or ``None``."""
    return cls.rules_fragment()


def render_fragment(source: str) -> Markup:
    """A rules fragment rendered, its diagrams drawn; a bad diagram call raises ``DiagramError``."""
    return Markup(fragments.from_string(source).render(diagram=page_diagrams()))


@router.get("/palette.css", include_in_schema=False)
def palette() -> Response:
    """The board and page colours of :data:`slimetrail.render.PALETTE` as CSS variables."""
    return Response(
        palette_css(),
        media_type="text/css",
        headers={"Cache-Control": "public, max-age=3600"},
    )


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def home(request: Request, bots: Bots) -> HTMLResponse:
    cards = [game_card(cls) for cls in GAMES.values()]
    # "Play now" is the headline game's: its levels and their default.
    available = cards[0]["levels"] if cards else {}
    return templates.TemplateResponse(
        request,
        "home.html",
        {
            "games": cards,
            # "Play now": the first registered game against the computer, as player 1.
            "headline": cards[0] if cards else None,
            "levels": available,
            "default_level": default_level(available),
            "opponents": opponents(),
            "clocks": clocks(),
            # Only the bots online now are offered as opponents.
            "bots": bots.online(),
        },
    )


@router.get("/rules/{game_id}", response_class=HTMLResponse, include_in_schema=False)
def rules(request: Request, game_id: str) -> HTMLResponse:
    cls = GAMES.get(game_id)
    fragment = rules_fragment(cls) if cls else None
    if cls is None or fragment is None:
        detail = gettext("There are no rules for a game %(game)r here (games: %(games)s).")
        raise HTTPException(404, detail % {"game": game_id, "games": ", ".join(GAMES)})
    return templates.TemplateResponse(
        request,
        "rules.html",
        {
            "game": game_card(cls),
            "fragment": render_fragment(fragment),
            "games": [{"id": other.id, "title": gettext(other.title)} for other in GAMES.values()],
        },
    )


@router.get("/play/{match_id}", response_class=HTMLResponse, include_in_schema=False)
async def play(
    request: Request,
    match_id: str,
    service: Service,
    people: Players,
    player: Player,
    hub: Watchers,
    seat: str = "",
) -> HTMLResponse:
    try:
        loaded = await run_in_threadpool(service.load, match_id)
    except NotFound:
        detail = gettext("There is no game %(game)r here: the link may be mistyped or incomplete.")
        return error_page(
            request, 404, detail % {"game": match_id}, heading=gettext("No such game")
        )
    try:
        held = loaded.held_by(seat)
    except SeatRefused:
        # A mistyped seat link: say so rather than draw a spectator's page with a dead token.
        detail = gettext(
            "This seat link is not valid for this game: it may be mistyped or incomplete."
        )
        ways = [
            (f"/play/{match_id}", gettext("Watch this game")),
            ("/", gettext("Start a new game")),
        ]
        return error_page(request, 403, detail, heading=gettext("Not your seat"), ways=ways)
    # A friend's seat is theirs once opened; the last to arrive starts the clocks.
    if held:
        arrived = await run_in_threadpool(people.opened, loaded, seat, player)
        if arrived:
            hub.notify(match_id)
    available = levels(loaded.game)
    return templates.TemplateResponse(
        request,
        "play.html",
        {
            "match_id": match_id,
            "seat": seat,
            "title": gettext(loaded.game.title),
            "opponents": opponents(),
            "move_example": loaded.game.example_move(),
            "levels_json": json.dumps({str(k): v for k, v in available.items()}),
            "default_level": default_level(available),
        },
    )


# -- error pages --------------------------------------------------------------------------

HEADINGS = {
    400: N_("That link does not work"),
    403: N_("Not allowed"),
    404: N_("Page not found"),
    405: N_("Not allowed"),
    409: N_("That changed meanwhile"),
    413: N_("Too large"),
    422: N_("That link does not work"),
    429: N_("Too many requests"),
    503: N_("The server is busy"),
}
# Paths answered in JSON (or plain text) whatever goes wrong: the API and its machinery.
MACHINE_PREFIXES = ("/api/", "/ws/", "/static/", "/healthz", "/openapi.json", "/docs", "/redoc")


def is_page(request: Request) -> bool:
    """Whether the request is for a page a person opened (errors answer with a page)."""
    return not request.url.path.startswith(MACHINE_PREFIXES)


def is_navigation(request: Request) -> bool:
    """Whether a browser is opening what it gets as the page (a link, a form): it accepts
    HTML and, where it says, it navigates (a page's ``fetch`` says ``cors``; an API client
    such as curl accepts anything, ``*/*``, not HTML by name)."""
    navigating = request.headers.get("sec-fetch-mode", "navigate") == "navigate"
    return navigating and "text/html" in request.headers.get("accept", "")


def wait_text(seconds: int) -> str:
    if seconds <= 1:
        return gettext("Please try again in a moment.")
    if seconds < 120:
        return gettext("Please try again in %(seconds)s seconds.") % {"seconds": seconds}
    return gettext("Please try again in about %(minutes)s minutes.") % {
        "minutes": round(seconds / 60)
    }


def refusal_page(request: Request, refused: Refused) -> HTMLResponse:
    """The error page of a refusal, with when to try again (and ``Retry-After``)."""
    again = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    message = refused.message.split("; try again")[0]  # the page says when, in words
    context = {
        "status": refused.status,
        "heading": gettext(HEADINGS[refused.status]),
        "detail": message[:1].upper() + message[1:] + ".",
        "retry": wait_text(refused.retry_after),
        # A /new link or form asks again (its page re-sends it); any other page reloads.
        "ways": [(again, gettext("Try again")), ("/", gettext("Back to the games"))],
    }
    return templates.TemplateResponse(
        request,
        "error.html",
        context,
        status_code=refused.status,
        headers=refusal_headers(refused),
    )


def shed_page(scope: Scope, refused: Refused) -> ASGIApp | None:
    """The answer to a request shed under load: its refusal page if a browser is opening a
    page, else ``None`` (the JSON refusal)."""
    request = Request(scope)
    return refusal_page(request, refused) if is_page(request) and is_navigation(request) else None


def error_page(
    request: Request,
    status: int,
    detail: str,
    *,
    heading: str | None = None,
    ways: list[tuple[str, str]] | None = None,
) -> HTMLResponse:
    """A styled error page saying what went wrong, with a way back."""
    if ways is None:
        rules = "/rules/" + next(iter(GAMES), "")
        ways = [("/", gettext("Start a new game")), (rules, gettext("Read the rules"))]
    context = {
        "status": status,
        "heading": heading or gettext(HEADINGS.get(status, N_("Something went wrong"))),
        "detail": detail,
        "ways": ways,
    }
    return templates.TemplateResponse(request, "error.html", context, status_code=status)


def install_error_pages(app: FastAPI) -> None:
    """Answer errors on pages with :func:`error_page`; the API keeps the JSON handlers
    already installed (or FastAPI's own)."""
    fallbacks = {
        StarletteHTTPException: http_exception_handler,
        RequestValidationError: request_validation_exception_handler,
        Refused: json_refusal,
    }

    for kind in (MatchError, GameError, StarletteHTTPException, RequestValidationError):
        previous = app.exception_handlers.get(kind) or fallbacks[kind]

        async def handler(request: Request, exc: Exception, previous: Any = previous) -> Response:
            if not is_page(request):
                return await previous(request, exc)
            return error_page(request, *error_detail(request, exc))

        app.add_exception_handler(kind, handler)

    # A refusal of a page keeps its JSON for an API client posting to /new.
    previous_refusal: Any = app.exception_handlers.get(Refused) or fallbacks[Refused]

    async def refusal(request: Request, exc: Exception) -> Response:
        if isinstance(exc, Refused) and is_page(request) and is_navigation(request):
            return refusal_page(request, exc)
        return await previous_refusal(request, exc)

    app.add_exception_handler(Refused, refusal)


def error_detail(request: Request, exc: Exception) -> tuple[int, str]:
    """The status and the sentence an error page shows for ``exc``."""
    if isinstance(exc, MatchError):
        return status_of(exc), exc.message
    if isinstance(exc, StarletteHTTPException):
        text = exc.detail if isinstance(exc.detail, str) else ""
        if exc.status_code == 404 and text in ("", "Not Found"):
            text = gettext("There is no page at %(path)s") % {"path": request.url.path}
        return exc.status_code, text
    if isinstance(exc, RequestValidationError):
        problems = (
            f"{'.'.join(map(str, e.get('loc', ())[1:])) or 'request'}: {e.get('msg', '')}"
            for e in exc.errors()
        )
        return 422, "; ".join(problems)
    # A GameError: a bad option, move or position in the link.
    return 400, exc.translated(gettext) if isinstance(exc, GameError) else str(exc)
