"""Playing people: quick pairing, the lobby, and a browser's own games.

``/new/{game}?opponent=human`` (with the game's options and a ``clock``; the POST is in
:mod:`slimetrail.web.routes.matches`, which hands it to :func:`seek`) pairs the visitor at
once or sends them to their seek's waiting page ``/seek/{id}``, whose WebSocket
``/ws/seeks/{id}`` keeps the seek and brings the match (:mod:`slimetrail.web.seekers`).
``/lobby`` lists the open seeks (joined with one click) and the live games between people,
``/api/lobby`` the same lists in JSON; ``/my-games`` this browser's matches, its display
name, and every record as one PGN file.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from slimetrail.core.game import ABORTED
from slimetrail.core.i18n import N_
from slimetrail.core.registry import GAMES
from slimetrail.i18n import gettext
from slimetrail.web import views
from slimetrail.web.deps import Client, Pairs, Players, Rates, Service, Waiters
from slimetrail.web.errors import status_of
from slimetrail.web.language import templates
from slimetrail.web.players import SCOPE_KEY, Player
from slimetrail.web.ratelimit import SEEK, RateLimits
from slimetrail.web.seekers import Seekers
from slimetrail.web.service.errors import MatchError, NotFound
from slimetrail.web.service.pairing import Paired, Pairing
from slimetrail.web.service.people import People
from slimetrail.web.storage.people import MatchOf, SeatOf, Seek
from slimetrail.web.storage.tables import COMPUTER, UNFINISHED

router = APIRouter()
FORM_TYPE = "application/x-www-form-urlencoded"
NAME_FIELD_LIMIT = 200
# What a player reads of the seats and results listed (one place, for the translations).
WORDS = {
    "computer": N_("the computer (level %(level)s)"),
    "invited": N_("an invited friend"),
    "anonymous": N_("an anonymous player"),
    "yourself": N_("yourself (one device)"),
    "ongoing": N_("ongoing"),
    "won": N_("won"),
    "lost": N_("lost"),
    "draw": N_("draw"),
    "shared": N_("shared first place"),
    "aborted": N_("aborted"),
}


def word(key: str) -> str:
    return gettext(WORDS[key])


def game_title(game_id: str) -> str:
    cls = GAMES.get(game_id)
    return gettext(cls.title) if cls else game_id


def seek_link(seek: Seek) -> str:
    """The ``/new`` link that seeks the same again."""
    fields = {**seek.options, "opponent": "human"}
    if seek.clock:
        fields["clock"] = seek.clock
    return f"/new/{seek.game}?{urlencode(fields)}"


async def seek(
    pairing: Pairing,
    seekers: Seekers,
    rates: RateLimits,
    client: str,
    player: str,
    wanted: dict[str, Any],
) -> RedirectResponse:
    """A visitor's seek: to the match if paired at once, else to the seek's waiting page."""
    await rates.hit(SEEK, client)
    found = await run_in_threadpool(
        pairing.seek, player, wanted["game"], wanted["options"], wanted["clock"] or ""
    )
    if isinstance(found, Paired):
        seekers.wake(list(found.seeks))
        return RedirectResponse(found.url, status_code=303)
    return RedirectResponse(f"/seek/{found.id}", status_code=303)


@router.get("/seek/{seek_id}", response_class=HTMLResponse, include_in_schema=False)
async def waiting_page(request: Request, seek_id: str, pairing: Pairs, player: Player) -> Response:
    found = await run_in_threadpool(pairing.find, seek_id, player)
    return templates.TemplateResponse(
        request,
        "seek.html",
        {
            "seek": found,
            "title": game_title(found.game),
            "again": seek_link(found),
            "timeout_minutes": round(pairing.limits.seek_timeout / 60),
        },
        headers={"Cache-Control": "no-store"},
    )


@router.websocket("/ws/seeks/{seek_id}")
async def waiting_socket(websocket: WebSocket, seek_id: str, seekers: Waiters) -> None:
    await websocket.accept()
    player = websocket.scope.get(SCOPE_KEY)
    if player is None:
        await websocket.close(code=4403, reason="no player cookie: open the seek's page")
        return
    try:
        await seekers.serve(websocket, seek_id, player)
    except MatchError as exc:
        await websocket.close(code=4000 + status_of(exc), reason=exc.message[:120])


# -- the lobby --------------------------------------------------------------------------


def seat_name(seat: SeatOf) -> str:
    """How a seat's holder is shown to others."""
    if seat.kind == COMPUTER:
        return word("computer") % {"level": seat.level}
    if seat.owner is None:
        return word("invited")
    return seat.name or word("anonymous")


def live_row(match: MatchOf) -> dict[str, Any]:
    names = [seat_name(seat) for seat in match.seats]
    return {
        "id": match.id,
        "game": match.game,
        "title": game_title(match.game),
        "players": gettext(" vs ").join(names),
        "names": names,
        "ply": match.ply,
        "link": f"/play/{match.id}",
    }


def seek_row(seek: Seek, names: dict[str, str], player: str) -> dict[str, Any]:
    return {
        "id": seek.id,
        "game": seek.game,
        "title": game_title(seek.game),
        "options": ", ".join(f"{k}={v}" for k, v in seek.options.items()),
        "game_options": seek.options,
        "clock": seek.clock,
        "who": names.get(seek.owner) or word("anonymous"),
        "mine": seek.owner == player,
        "join": f"/lobby/join/{seek.id}",  # POST: pairs the visitor with the seek's owner
    }


def lobby_lists(pairing: Pairing, people: People, player: str) -> dict[str, Any]:
    """The open seeks and the live games, as the lobby page and ``/api/lobby`` give them."""
    seeks = pairing.open_seeks()
    names = pairing.names({s.owner for s in seeks})
    return {
        "seeks": [seek_row(s, names, player) for s in seeks],
        "live": [live_row(m) for m in people.live_games()],
    }


@router.get("/lobby", response_class=HTMLResponse, include_in_schema=False)
async def lobby(request: Request, pairing: Pairs, people: Players, player: Player) -> Response:
    lists = await run_in_threadpool(lobby_lists, pairing, people, player)
    return templates.TemplateResponse(
        request, "lobby.html", lists, headers={"Cache-Control": "no-store"}
    )


@router.get("/api/lobby")
async def lobby_json(pairing: Pairs, people: Players, player: Player) -> dict[str, Any]:
    """The lobby's lists (served under the same in-flight limit as the page): open seeks
    (``join``: the link to POST to play its owner) and live games to watch (``link``)."""
    return await run_in_threadpool(lobby_lists, pairing, people, player)


@router.post("/lobby/join/{seek_id}", include_in_schema=False)
async def join(
    seek_id: str, pairing: Pairs, seekers: Waiters, rates: Rates, client: Client, player: Player
) -> RedirectResponse:
    await rates.hit(SEEK, client)
    paired = await run_in_threadpool(pairing.join, player, seek_id)
    seekers.wake(list(paired.seeks))
    return RedirectResponse(paired.url, status_code=303)


# -- my games ---------------------------------------------------------------------------


def my_result(match: MatchOf) -> str:
    """The result as this player reads it: ongoing, won, lost, or a shared first place."""
    if match.result == UNFINISHED:
        return word("ongoing")
    if match.result == ABORTED:
        return word("aborted")
    shares = match.result.split("-")
    mine = {shares[p - 1] for p in match.mine if p <= len(shares)}
    if len(match.mine) == len(match.seats):
        return match.result  # every seat yours (one device): the plain result
    if mine == {"1"}:
        return word("won")
    if mine == {"0"}:
        return word("lost")
    return word("draw") if len(shares) == 2 else word("shared")


def my_row(match: MatchOf) -> dict[str, Any]:
    others = [seat_name(seat) for seat in match.seats if seat.player not in match.mine]
    return {
        "id": match.id,
        "title": game_title(match.game),
        "opponents": ", ".join(others) or word("yourself"),
        "result": my_result(match),
        "ongoing": match.result == UNFINISHED,
        "ply": match.ply,
        "updated": match.updated,
        "link": f"/play/{match.id}" + (f"?seat={match.token}" if match.token else ""),
    }


@router.get("/my-games", response_class=HTMLResponse, include_in_schema=False)
async def my_games(request: Request, people: Players, player: Player) -> Response:
    games = await run_in_threadpool(people.games_of, player)
    name = await run_in_threadpool(people.name, player)
    return templates.TemplateResponse(
        request,
        "my_games.html",
        {"games": [my_row(m) for m in games], "name": name or ""},
        headers={"Cache-Control": "no-store"},
    )


@router.post("/my-games/name", include_in_schema=False)
async def rename(request: Request, people: Players, player: Player) -> RedirectResponse:
    body = (await request.body()).decode("utf-8", "replace")
    if not request.headers.get("content-type", "").startswith(FORM_TYPE):
        body = ""
    text = dict(parse_qsl(body)).get("name", "")[:NAME_FIELD_LIMIT]
    await run_in_threadpool(people.rename, player, text)
    return RedirectResponse("/my-games", status_code=303)


@router.get("/my-games.pgn", include_in_schema=False)
async def export_all(people: Players, service: Service, player: Player) -> Response:
    """Every game of this browser, one PGN file (oldest first, as a collection reads)."""

    def records() -> str:
        texts = []
        for match in reversed(people.games_of(player)):
            try:
                texts.append(service.locked(match.id, lambda live: views.record_text(live, "pgn")))
            except NotFound:  # deleted since it was listed
                continue
        return "\n\n".join(text.strip() for text in texts) + "\n"

    stamp = datetime.now(UTC).strftime("%Y%m%d")
    return Response(
        await run_in_threadpool(records),
        media_type="application/x-chess-pgn",
        headers={"Content-Disposition": f'attachment; filename="slimetrail-my-games-{stamp}.pgn"'},
    )
