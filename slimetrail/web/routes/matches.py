"""The matches API: create (JSON, or a ``/new`` link), read, move, undo, resign, rematch,
download a record, import one.

Each route parses, calls the match service in a thread (the event loop only routes
messages), and answers with the JSON of :mod:`slimetrail.web.views`.  The answer to a change
is built in the same thread as the change, before the computer can reply: it is the
position the change made.  A change after which the computer may be to move takes the
computer's place first (:meth:`Computer.replying`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool

from slimetrail.core.game import Game
from slimetrail.core.i18n import N_
from slimetrail.core.registry import GAMES
from slimetrail.i18n import gettext
from slimetrail.web import views
from slimetrail.web.deps import (
    Client,
    ComputerMoves,
    Pairs,
    Players,
    Rates,
    Service,
    Waiters,
    Watchers,
)
from slimetrail.web.hub import Hub
from slimetrail.web.language import templates
from slimetrail.web.players import Player
from slimetrail.web.ratelimit import CREATE
from slimetrail.web.routes.lobby import seek
from slimetrail.web.routes.review import match_review
from slimetrail.web.service.clock import parse_clock
from slimetrail.web.service.computer import Computer
from slimetrail.web.service.errors import InvalidRequest
from slimetrail.web.service.matches import Live, MatchService, make_game, seats_from_request
from slimetrail.web.service.people import People
from slimetrail.web.storage.tables import HUMAN

TEXT_LIMIT = 200
SEEK_SUMMARY = N_("You, against the first person online seeking the same game (colours at random)")
MAX_MOVES = 10_000
MAX_SEATS = 16
MAX_CLICKS = 64
FORM_TYPE = "application/x-www-form-urlencoded"
OptionValue = StrictStr | StrictInt
Text = Annotated[str, Field(max_length=TEXT_LIMIT)]

router = APIRouter()


class SeatBody(BaseModel):
    kind: StrictStr = Field(max_length=TEXT_LIMIT)
    level: StrictInt | None = None
    name: StrictStr | None = Field(None, max_length=TEXT_LIMIT)  # a bot seat's bot


class CreateBody(BaseModel):
    game: StrictStr = Field(max_length=TEXT_LIMIT)
    options: dict[Text, OptionValue] = {}
    # Either one seat per player, or the two-player shape opponent/side/level.
    seats: list[SeatBody] | None = Field(None, max_length=MAX_SEATS)
    opponent: StrictStr = Field("computer", max_length=TEXT_LIMIT)
    level: StrictInt = 3
    side: StrictInt = 1
    # Moves already played: a game continued from a record.
    moves: list[Text] = Field([], max_length=MAX_MOVES)
    # A time control: "3+2" (minutes + increment seconds) or "d1" (days per move).
    clock: StrictStr | None = Field(None, max_length=TEXT_LIMIT)


class MoveBody(BaseModel):
    seat: StrictStr | None = Field(None, max_length=TEXT_LIMIT)
    move: StrictStr = Field(max_length=TEXT_LIMIT)
    ply: StrictInt = Field(ge=0)


class UndoBody(BaseModel):
    seat: StrictStr | None = Field(None, max_length=TEXT_LIMIT)
    ply: StrictInt = Field(ge=0)


class SeatOnlyBody(BaseModel):
    seat: StrictStr | None = Field(None, max_length=TEXT_LIMIT)


class ImportBody(BaseModel):
    record: StrictStr


# -- helpers: a change and its answer ---------------------------------------------------


def answering(
    change: Callable[[], Live], token: str | None
) -> Callable[[], tuple[Live, dict[str, Any]]]:
    """``change`` followed, in the same thread, by its answer for the holder of ``token``."""

    def run() -> tuple[Live, dict[str, Any]]:
        live = change()
        return live, views.match_for(live, token)

    return run


async def answered(live: Live, token: str | None) -> dict[str, Any]:
    return await run_in_threadpool(views.match_for, live, token)


async def in_memory(service: MatchService, match_id: str) -> Live:
    """The live match, from memory first (no thread), else loaded."""
    live = service.cached(match_id)
    if live is None:
        live = await run_in_threadpool(service.load, match_id)
    return live


async def arrived(people: People, hub: Hub, live: Live, token: str | None, player: str) -> bool:
    """A seat's holder using the API has arrived as one opening the page has: their seats
    become theirs, and the clocks start if they were the last; whether the match changed."""
    if not token or not await run_in_threadpool(people.opened, live, token, player):
        return False
    hub.notify(live.id)
    return True


async def has_computer(service: MatchService, match_id: str) -> bool:
    """Whether the computer may reply to a change of the match."""
    return (await in_memory(service, match_id)).has_computer()


async def create(
    service: MatchService,
    computer: Computer,
    client: str,
    wanted: dict[str, Any],
    moves: list[str] | None = None,
    owner: str | None = None,
) -> tuple[Live, dict[str, Any]]:
    """A new match as ``wanted`` (``game``, ``options``, ``seats`` or ``opponent``/``level``/
    ``side``), its answer for the creator, the computer's move reserved first if it plays."""
    seats = wanted["seats"]
    may_reply = (
        wanted["opponent"] == "computer"
        if seats is None
        else any(seat.get("kind") == "computer" for seat in seats)
    )

    def run() -> tuple[Live, dict[str, Any]]:
        live, token = service.create(
            wanted["game"],
            wanted["options"],
            seats,
            opponent=wanted["opponent"],
            level=wanted["level"],
            side=wanted["side"],
            moves=moves or (),
            clock=wanted["clock"],
            owner=owner,
        )
        return live, {"token": token, "match": views.match_for(live, token)}

    return await computer.replying(client, may_reply, run)


# -- routes -------------------------------------------------------------------------------


@router.get("/healthz")
async def healthz() -> dict[str, bool]:
    return {"ok": True}


@router.get("/api/games")
async def games() -> list[dict[str, Any]]:
    return views.games_json()


@router.post("/api/matches", status_code=201)
async def create_match(
    body: CreateBody,
    service: Service,
    computer: ComputerMoves,
    hub: Watchers,
    rates: Rates,
    client: Client,
    player: Player,
) -> dict[str, Any]:
    await rates.hit(CREATE, client)
    wanted = body.model_dump(exclude={"moves"})
    if wanted["seats"] is not None:  # as a link gives them: no empty fields
        wanted["seats"] = [
            {name: value for name, value in seat.items() if value is not None}
            for seat in wanted["seats"]
        ]
    live, made = await create(service, computer, client, wanted, body.moves, player)
    hub.notify(live.id)  # a bot may be to move
    return made["match"]


@router.get("/new/{game_id}")
async def confirm_new_match(request: Request, game_id: str) -> HTMLResponse:
    """A link to a new match shows what it will start and a button that POSTs: a link
    prefetcher or a crawler following it creates nothing."""
    wanted = new_match_request(game_id, dict(request.query_params))
    game = make_game(game_id, wanted["options"])
    query = urlencode(list(request.query_params.multi_items()))
    return templates.TemplateResponse(
        request,
        "new.html",
        {
            "game": {"title": gettext(game.title)},
            "summary": new_match_summary(game, wanted),
            "action": f"/new/{game_id}" + (f"?{query}" if query else ""),
        },
        headers={"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow"},
    )


@router.post("/new/{game_id}")
async def new_match(
    request: Request,
    game_id: str,
    service: Service,
    computer: ComputerMoves,
    hub: Watchers,
    rates: Rates,
    client: Client,
    player: Player,
    pairing: Pairs,
    seekers: Waiters,
) -> RedirectResponse:
    """A new match from a link or a form: ``opponent``/``level``/``side`` or ``seats=me,
    computer:2,friend``, and any option the game declares, by its name (in the query or
    a form body); ``opponent=human`` seeks a person online instead
    (:mod:`slimetrail.web.routes.lobby`)."""
    fields = dict(request.query_params)
    if request.headers.get("content-type", "").startswith(FORM_TYPE):
        fields.update(parse_qsl((await request.body()).decode("utf-8", "replace")))
    wanted = new_match_request(game_id, fields)
    if wanted["opponent"] == HUMAN:
        return await seek(pairing, seekers, rates, client, player, wanted)
    await rates.hit(CREATE, client)
    live, made = await create(service, computer, client, wanted, owner=player)
    hub.notify(live.id)
    return RedirectResponse(f"/play/{live.id}?seat={made['token']}", status_code=303)


@router.get("/api/matches/{match_id}")
async def get_match(
    match_id: str,
    service: Service,
    people: Players,
    player: Player,
    hub: Watchers,
    seat: str | None = None,
) -> dict[str, Any]:
    live = await run_in_threadpool(service.load, match_id)
    if await arrived(people, hub, live, seat, player):
        live = await run_in_threadpool(service.load, match_id)  # its seats and clocks changed
    return await answered(live, seat)


@router.get("/api/matches/{match_id}/view")
async def match_view(match_id: str, service: Service, ply: int | None = None) -> dict[str, Any]:
    return await run_in_threadpool(service.locked, match_id, partial(views.view_json, ply=ply))


def click_prefix(text: str) -> list[str]:
    """The clicks of a comma-separated prefix (a match's or a puzzle's), refused past any
    move's length."""
    clicks = [c.strip() for c in text.split(",") if c.strip()]
    if len(clicks) > MAX_CLICKS:
        said = gettext("a prefix of %(n)s clicks is longer than any move")
        raise InvalidRequest(said % {"n": len(clicks)})
    return clicks


@router.get("/api/matches/{match_id}/clicks")
async def match_clicks(
    match_id: str, service: Service, seat: str | None = None, prefix: str = ""
) -> dict[str, Any]:
    clicks = click_prefix(prefix)

    def find(live: Live) -> dict[str, Any]:
        return views.clicks_json(live, clicks, service.next_clicks(live, seat, clicks))

    return await run_in_threadpool(service.locked, match_id, find)


@router.post("/api/matches/{match_id}/move")
async def move(
    match_id: str,
    body: MoveBody,
    service: Service,
    computer: ComputerMoves,
    hub: Watchers,
    client: Client,
    people: Players,
    player: Player,
) -> dict[str, Any]:
    await arrived(people, hub, await in_memory(service, match_id), body.seat, player)
    change = partial(service.move, match_id, body.seat, body.move, body.ply)
    may_reply = await has_computer(service, match_id)
    _, answer = await computer.replying(client, may_reply, answering(change, body.seat))
    hub.notify(match_id)
    return answer


@router.post("/api/matches/{match_id}/undo")
async def undo(
    match_id: str, body: UndoBody, service: Service, computer: ComputerMoves, hub: Watchers
) -> dict[str, Any]:
    change = partial(service.undo, match_id, body.seat, body.ply)
    live, answer = await run_in_threadpool(answering(change, body.seat))
    computer.taken_back(live)
    hub.notify(match_id)
    return answer


@router.post("/api/matches/{match_id}/resign")
async def resign(
    match_id: str, body: SeatOnlyBody, service: Service, computer: ComputerMoves, hub: Watchers
) -> dict[str, Any]:
    change = partial(service.resign, match_id, body.seat)
    _, answer = await run_in_threadpool(answering(change, body.seat))
    computer.cancel(match_id)
    hub.notify(match_id)
    return answer


@router.post("/api/matches/{match_id}/rematch", status_code=201)
async def rematch(
    match_id: str,
    body: SeatOnlyBody,
    service: Service,
    computer: ComputerMoves,
    hub: Watchers,
    rates: Rates,
    client: Client,
) -> dict[str, Any]:
    await rates.hit(CREATE, client)
    change = partial(service.rematch, match_id, body.seat)
    may_reply = await has_computer(service, match_id)
    new, answer = await computer.replying(client, may_reply, answering(change, body.seat))
    hub.notify(match_id)  # every player of the old match is shown the way to the new one
    hub.notify(new.id)
    return answer


@router.get("/api/matches/{match_id}/record")
async def record(
    match_id: str,
    service: Service,
    computer: ComputerMoves,
    rates: Rates,
    client: Client,
    format: str = "pgn",
    review: bool = False,
) -> Response:
    """The match's record; with ``review=1``, its review's verdicts as PGN comments."""
    if format not in ("pgn", "json"):
        raise InvalidRequest(gettext("format=%(format)r is not pgn or json") % {"format": format})
    verdicts = await match_review(match_id, service, computer, rates, client) if review else None
    text = await run_in_threadpool(
        service.locked, match_id, partial(views.record_text, format=format, review=verdicts)
    )
    return Response(
        text,
        media_type="application/json" if format == "json" else "application/x-chess-pgn",
        headers={"Content-Disposition": f'attachment; filename="slimetrail-{match_id}.{format}"'},
    )


@router.post("/api/import", status_code=201)
async def import_record(
    body: ImportBody, service: Service, rates: Rates, client: Client, player: Player
) -> dict[str, Any]:
    await rates.hit(CREATE, client)
    live, token = await run_in_threadpool(service.import_record, body.record, player)
    return {"url": f"/play/{live.id}?seat={token}", "match": await answered(live, token)}


# -- the fields of a /new link ------------------------------------------------------------


def parse_seats(text: str) -> list[dict[str, Any]]:
    """``me,computer:2,friend,bot:NAME`` -> seat requests (the level or the bot's name after
    a colon)."""
    seats: list[dict[str, Any]] = []
    for word in text.split(","):
        kind, _, level = word.strip().partition(":")
        seat: dict[str, Any] = {"kind": kind}
        if kind == "bot":
            seat["name"] = level
        elif level:
            try:
                seat["level"] = int(level)
            except ValueError:
                said = gettext("seats: level %(level)r is not a whole number")
                raise InvalidRequest(said % {"level": level}) from None
        seats.append(seat)
    return seats


def new_match_request(game_id: str, fields: dict[str, str]) -> dict[str, Any]:
    """The match a ``/new`` link asks for; :class:`InvalidRequest` names the unknown game or
    a bad field."""
    cls = GAMES.get(game_id)
    if cls is None:
        make_game(game_id, {})  # the refusal naming the known games
    assert cls is not None
    wanted: dict[str, Any] = {"game": game_id}
    for name, default in (("level", "3"), ("side", "1")):
        text = fields.get(name, default)
        try:
            wanted[name] = int(text)
        except ValueError:
            said = gettext("%(name)s=%(text)r is not a whole number")
            raise InvalidRequest(said % {"name": name, "text": text}) from None
    wanted["options"] = {
        spec.name: fields[spec.name] for spec in cls.option_specs if fields.get(spec.name)
    }
    wanted["seats"] = parse_seats(fields["seats"]) if "seats" in fields else None
    wanted["opponent"] = fields.get("opponent", "computer")
    clock = fields.get("clock")
    wanted["clock"] = clock if clock else None
    if clock:
        parse_clock(clock)  # refused on the confirmation page already, naming the text
    return wanted


def new_match_summary(game: Game, wanted: dict[str, Any]) -> list[str]:
    """Who plays each seat of the match ``wanted`` (checked: a bad seat is refused)."""
    if wanted["opponent"] == HUMAN:
        return [gettext(SEEK_SUMMARY)]
    seats = seats_from_request(
        game, wanted["seats"], wanted["opponent"], wanted["level"], wanted["side"]
    )
    who = {"me": gettext("you"), "friend": gettext("a friend you invite by link")}
    lines = []
    for number, seat in enumerate(seats, 1):
        if seat["kind"] == "bot":
            holder = gettext("the bot %(name)s") % {"name": seat["name"]}
        else:
            computer = gettext("the computer (level %(level)s)") % {"level": seat.get("level")}
            holder = who.get(seat["kind"], computer)
        lines.append(f"{gettext(game.player_names[number - 1])}: {holder}")
    if wanted["clock"]:
        lines.append(gettext("Clock: %(clock)s") % {"clock": parse_clock(wanted["clock"]).text})
    return lines
