"""The solved atlas (``/solved``: every proven result, from :mod:`slimetrail.atlas`, each
with its diagram) and the 7x7 opening explorer (``/explore``, its positions from
``/api/explore``: every move with its proven value and game length, from the shipped books
and the solver, searched by the workers as an analysis)."""

from __future__ import annotations

import functools
import json
from typing import Any

from cachetools import LRUCache
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from slimetrail import atlas
from slimetrail.core.game import GameError
from slimetrail.core.registry import GAMES
from slimetrail.i18n import CURRENT, gettext, speaking
from slimetrail.render import state_svg
from slimetrail.web.deps import Client, ComputerMoves, Rates
from slimetrail.web.language import templates
from slimetrail.web.ratelimit import ANALYSE
from slimetrail.web.routes.matches import MAX_MOVES, TEXT_LIMIT
from slimetrail.web.service.errors import InvalidRequest
from slimetrail.web.service.matches import make_game, replay_moves
from slimetrail.web.views import analysis_said, options_words

router = APIRouter()
# The explorer's positions wait for a worker in the analyses' queue, outside the in-flight cap.
UNLIMITED_PATHS = ("/api/explore",)

EXPLORER_GAME, EXPLORER_SIZE = "slimetrail", "7"
EXPLORER_RULES = ("rastros", "taylor")
CENTRE = "d4"
# Seconds the solver may take over an explorer position (the books answer at once).
EXPLORE_TIME = 10.0
DIAGRAM_PX = 168
# Explorer answers already searched: the positions near the start are asked again and again.
ANSWERS: LRUCache[tuple[str, str, tuple[str, ...]], dict[str, Any]] = LRUCache(maxsize=4096)


@functools.cache
def diagram(index: int, lang: str) -> Markup:
    """Result ``index``'s start position, its winning first moves shaded, labelled in
    ``lang``."""
    result = atlas.results()[index]
    state = result.start_state()
    cells = {cell["name"] for cell in state.game.describe_board()["cells"]}
    with speaking(lang):
        label = gettext("%(game)s %(options)s, start %(cell)s") % {
            "game": gettext(result.make_game().title),
            "options": options_said(result),
            "cell": result.start,
        }
    return Markup(
        state_svg(
            state,
            size=DIAGRAM_PX,
            coordinates=True,
            targets=[move for move in result.winning_moves if move in cells],
            label=label,
            css_class="atlas-diagram",
        )
    )


def explorer_starts() -> list[str]:
    """Every 7x7 start square the atlas has proven (mirror images included), sorted."""
    starts: set[str] = set()
    for result in atlas.results():
        if result.game == EXPLORER_GAME and result.options.get("size") == EXPLORER_SIZE:
            starts.update(filter(None, (result.start, result.mirror)))
    return sorted(starts, key=lambda cell: (int(cell[1:]), cell[0]))


def options_said(result: atlas.Result) -> str:
    """A result's options as players read them (its start is said apart)."""
    return options_words({name: value for name, value in result.options.items() if name != "start"})


def heading(result: atlas.Result) -> str:
    """The game and options of a result as players read them."""
    return f"{gettext(GAMES[result.game].title)} · {options_said(result)}"


@router.get("/solved", response_class=HTMLResponse, include_in_schema=False)
def solved(request: Request) -> HTMLResponse:
    rows = [
        {"result": result, "diagram": diagram(index, CURRENT.get()), "heading": heading(result)}
        for index, result in enumerate(atlas.results())
    ]
    return templates.TemplateResponse(request, "solved.html", {"rows": rows})


@router.get("/explore", response_class=HTMLResponse, include_in_schema=False)
def explore_page(request: Request, rules: str = "rastros", start: str = "d4") -> HTMLResponse:
    return templates.TemplateResponse(
        request,
        "explore.html",
        {
            "rules": rules if rules in EXPLORER_RULES else EXPLORER_RULES[0],
            "all_rules": EXPLORER_RULES,
            "start": start,
            "starts": explorer_starts(),
            "players": json.dumps(
                [gettext(name) for name in make_game(EXPLORER_GAME, {}).player_names]
            ),
        },
    )


def mirrored(cell: str) -> str:
    """A cell's mirror image in the a1-g7 diagonal (file and rank swapped)."""
    return f"{chr(ord('a') + int(cell[1:]) - 1)}{ord(cell[0]) - ord('a') + 1}"


def atlas_values(rules: str, start: str) -> dict[str, Any] | None:
    """The proven first moves of a start from the atlas (where the solver ran out of time):
    the winning ones, and under Rastros rules (no draws) the rest as losses."""
    for result in atlas.results():
        options = result.options
        if (
            result.game == EXPLORER_GAME
            and options.get("size") == EXPLORER_SIZE
            and options.get("rules") == rules
            and start in (result.start, result.mirror)
        ):
            winning = result.winning_moves
            if start != result.start:  # the mirror image in the a1-g7 diagonal
                winning = [
                    f"{chr(ord('a') + int(m[1:]) - 1)}{ord(m[0]) - ord('a') + 1}" for m in winning
                ]
            others = "loss" if rules == "rastros" else None
            return {"value": result.value, "winning": winning, "others": others}
    return None


@router.get("/api/explore")
async def explore(
    computer: ComputerMoves,
    rates: Rates,
    client: Client,
    rules: str = "rastros",
    start: str = "d4",
    moves: str = "",
) -> dict[str, Any]:
    """The position after ``moves`` (space-separated) of 7x7 Slimetrail from ``start``
    under ``rules``: its board, and every legal move's proven value and game length."""
    if rules not in EXPLORER_RULES:
        said = gettext("rules=%(rules)r is not one of %(known)s")
        raise InvalidRequest(said % {"rules": rules, "known": ", ".join(EXPLORER_RULES)})
    if len(start) > TEXT_LIMIT or start not in explorer_starts():
        said = gettext("start=%(start)r is not a proven start square of 7x7")
        raise InvalidRequest(said % {"start": start[:20]})
    texts = moves.split()
    if len(texts) > MAX_MOVES:
        raise InvalidRequest(gettext("at most %(most)s moves") % {"most": MAX_MOVES})
    options = {"size": EXPLORER_SIZE, "rules": rules}
    # The centre is the default start: named, it would be another game to the book.
    game = make_game(EXPLORER_GAME, options | ({} if start == CENTRE else {"start": start}))
    state, canonical, _ = await run_in_threadpool(replay_moves, game, texts)
    key = (rules, start, tuple(canonical))
    answer = ANSWERS.get(key)
    if answer is None:
        if state.is_over():
            analysis: dict[str, Any] = {"solved": True, "value": None, "moves": {}, "plies": 0}
        else:
            await rates.hit(ANALYSE, client)
            analysis = await computer.run_analysis(
                game, canonical, state.to_move, client, EXPLORE_TIME, job="explore"
            )
        answer = {
            "rules": rules,
            "start": start,
            "moves": canonical,
            "to_move": state.to_move,
            "over": state.is_over(),
            "solved": analysis["solved"],
            "value": analysis["value"],
            "plies": analysis["plies"],
            "values": {
                move: {"value": value, "plies": analysis.get("move_plies", {}).get(move)}
                for move, value in analysis["moves"].items()
            },
            "detail": analysis_said(analysis).get("detail", ""),
        }
        if not analysis["solved"] and not canonical:
            answer["atlas"] = atlas_values(rules, start)
        if analysis["solved"]:
            ANSWERS[key] = answer
    try:
        svg = state_svg(
            state,
            interactive=True,
            targets=state.legal_move_strs(),
            label=gettext("%(game)s from %(cell)s") % {"game": gettext(game.title), "cell": start},
        )
    except GameError as exc:
        raise InvalidRequest(exc.translated(gettext)) from None
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from None
    return answer | {"svg": svg}
