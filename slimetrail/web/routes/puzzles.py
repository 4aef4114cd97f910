"""Puzzles from solved positions: ``/puzzles`` (choose a game), ``/puzzles/{game}`` (play
them by clicks), ``GET /api/puzzles/next``, ``GET /api/puzzles/{id}/clicks`` (a compound
move click by click, as on the play page) and ``POST /api/puzzles/{id}/answer`` (the server
checks every move against the shipped solution, :mod:`slimetrail.puzzles`)."""

from __future__ import annotations

import random
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from slimetrail import puzzles
from slimetrail.core.game import GameError, State
from slimetrail.core.registry import get_game
from slimetrail.i18n import gettext
from slimetrail.render import state_svg
from slimetrail.web import views
from slimetrail.web.language import templates
from slimetrail.web.routes.matches import TEXT_LIMIT, click_prefix
from slimetrail.web.service.errors import InvalidRequest, NotFound

router = APIRouter()

DEFAULT_RATING = 1500
MAX_SKIP = 200  # ids of puzzles already seen that a request may name


class AnswerBody(BaseModel):
    moves: list[str] = Field(max_length=puzzles.MAX_ANSWER_MOVES)


def board(state: State, clicks: dict[str, str | None]) -> str:
    """The position by the one renderer, the cells of ``clicks`` (the next legal clicks while
    the player moves, else none) clickable."""
    actions = state.game.turn.actions
    return state_svg(
        state,
        interactive=bool(clicks),
        targets=[click for click in clicks if click not in actions],
        label=gettext("%(game)s: puzzle") % {"game": gettext(state.game.title)},
    )


def playing(state: State) -> dict[str, Any]:
    """The board of a position where the player moves, and their first clicks (as a match's
    JSON gives them)."""
    clicks = state.next_clicks()
    return {"svg": board(state, clicks), "clicks": clicks}


def known_game(game: str) -> str:
    if game not in puzzles.games():
        detail = gettext("no puzzles for game %(game)r; there are: %(games)s")
        raise NotFound(detail % {"game": game[:TEXT_LIMIT], "games": ", ".join(puzzles.games())})
    return game


@router.get("/puzzles", response_class=HTMLResponse, include_in_schema=False)
def puzzles_page(request: Request) -> HTMLResponse:
    sets = [
        {"id": game, "title": gettext(get_game(game).title), "count": len(puzzles.puzzles(game))}
        for game in puzzles.games()
    ]
    return templates.TemplateResponse(request, "puzzles.html", {"sets": sets})


@router.get("/puzzles/{game}", response_class=HTMLResponse, include_in_schema=False)
def puzzle_page(request: Request, game: str) -> HTMLResponse:
    title = gettext(get_game(known_game(game)).title)
    return templates.TemplateResponse(
        request,
        "puzzle.html",
        {"game": game, "title": title, "count": len(puzzles.puzzles(game))},
    )


def next_puzzle(game: str, rating: int, skip: frozenset[str], puzzle_id: str) -> dict[str, Any]:
    puzzle = (
        puzzles.find(puzzle_id) if puzzle_id else puzzles.pick(game, rating, random.Random(), skip)
    )
    state = puzzles.position(puzzle)
    names = [gettext(state.player_name(p)) for p in range(1, state.game.num_players + 1)]
    return puzzles.public(puzzle) | playing(state) | {"players": names}


@router.get("/api/puzzles/next")
async def api_next(
    game: str, rating: int = DEFAULT_RATING, skip: str = "", id: str = ""
) -> dict[str, Any]:
    """A puzzle of ``game`` near ``rating``, none of ``skip`` (comma-separated ids) while
    others are left; ``id`` asks for that one puzzle."""
    known_game(game)
    seen = frozenset(filter(None, skip.split(",")))
    if len(seen) > MAX_SKIP:
        raise InvalidRequest(gettext("skip names at most %(most)s puzzles") % {"most": MAX_SKIP})
    try:
        return await run_in_threadpool(next_puzzle, game, rating, seen, id)
    except puzzles.UnknownPuzzle as exc:
        raise NotFound(exc.translated(gettext)) from None


def known_puzzle(puzzle_id: str) -> dict[str, Any]:
    try:
        return puzzles.find(puzzle_id)
    except puzzles.UnknownPuzzle as exc:
        raise NotFound(exc.translated(gettext)) from None


def check(puzzle_id: str, moves: list[str]) -> dict[str, Any]:
    puzzle = known_puzzle(puzzle_id)
    try:
        verdict = puzzles.answer(puzzle, moves)
    except puzzles.PuzzleError as exc:
        raise InvalidRequest(exc.translated(gettext)) from None
    state = puzzles.position(puzzle, verdict.line)
    reply = {"next": verdict.reply} if verdict.correct else {"refutation": verdict.reply}
    shown = (
        playing(state)
        if verdict.correct and not verdict.solved
        else {"svg": board(state, {}), "clicks": {}}
    )
    return {"correct": verdict.correct, "solved": verdict.solved, "moves": verdict.line} | (
        reply | shown
    )


def next_clicks(puzzle_id: str, moves: list[str], prefix: list[str]) -> dict[str, Any]:
    puzzle = known_puzzle(puzzle_id)
    try:
        state = puzzles.position_after(puzzle, moves)
        clicks = state.next_clicks(prefix)
    except GameError as exc:  # the puzzle's line or the clicks (the game's own words)
        raise InvalidRequest(exc.translated(gettext)) from None
    return {
        "prefix": prefix,
        "clicks": clicks,
        "to_go": views.clicks_to_go(state, prefix, clicks),
        "svg": board(state, clicks),
    }


def listed(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


@router.get("/api/puzzles/{puzzle_id}/clicks")
async def api_clicks(puzzle_id: str, moves: str = "", prefix: str = "") -> dict[str, Any]:
    """The next legal clicks after ``prefix`` (comma-separated clicks) in the position after
    ``moves`` (the line so far from the puzzle's position, comma-separated: it must be the
    puzzle's, ending with the computer's answer): ``{"prefix", "clicks", "to_go", "svg"}``,
    each click naming its move where it completes one, else null."""
    clicks = click_prefix(prefix)
    return await run_in_threadpool(next_clicks, puzzle_id, listed(moves), clicks)


@router.post("/api/puzzles/{puzzle_id}/answer")
async def api_answer(puzzle_id: str, body: AnswerBody) -> dict[str, Any]:
    """Check the line played from the puzzle's position (the player's moves and the
    computer's replies, ending with the player's move): ``correct``, and the computer's
    ``next`` move (null when the puzzle is solved) or its ``refutation`` of a wrong one."""
    return await run_in_threadpool(check, puzzle_id, body.moves)
