"""The FastAPI app: JSON API, WebSocket updates, computer moves in a worker pool.

``create_app(db_url, workers=..., move_time=...)`` opens (and migrates) the database and wires
the routes to the match service (:mod:`slimetrail.web.matches`).  Request handlers do their
work in threads; computer moves run as asyncio tasks that await the process pool (the worker
gets the position, not the history), so the event loop only ever routes messages.  At startup
every unfinished match whose computer is to move gets its move again, so a server killed
mid-game carries on where it was.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from slimetrail.core.game import GameError
from slimetrail.core.registry import GAMES
from slimetrail.web.db import default_db_url, make_engine, make_sessionmaker, upgrade
from slimetrail.web.hardening import RequestGuard, document_errors, redact_logs
from slimetrail.web.matches import (
    ApiError,
    Live,
    MatchService,
    games_json,
    make_game,
    move_seed,
    replay_moves,
    result_text,
)
from slimetrail.web.workers import WorkerPool, analyse, computer_move, hard_cap, unsolved

log = logging.getLogger("slimetrail.web")

ANALYSE_TIME = 3.0
# How long the event loop waits for a worker beyond the worker's own hard cap.
POOL_MARGIN = 10.0
PLAY_ATTEMPTS, RETRY_DELAY = 3, 2.0
TEXT_LIMIT = 200
MAX_MOVES = 10_000
MAX_SEATS = 16
MAX_CLICKS = 64
OptionValue = StrictStr | StrictInt
Text = Annotated[str, Field(max_length=TEXT_LIMIT)]


class SeatBody(BaseModel):
    kind: StrictStr = Field(max_length=TEXT_LIMIT)
    level: StrictInt | None = None


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


class AnalyseBody(BaseModel):
    game: StrictStr = Field(max_length=TEXT_LIMIT)
    options: dict[Text, OptionValue] = {}
    moves: list[Text] = Field([], max_length=MAX_MOVES)


class Hub:
    """The WebSocket clients watching each match, each with the seats its token holds."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        self.clients: dict[str, dict[WebSocket, tuple[int, ...]]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.sending: set[asyncio.Task[None]] = set()

    def _lock(self, match_id: str) -> asyncio.Lock:
        return self.locks.setdefault(match_id, asyncio.Lock())

    async def attach(self, match_id: str, websocket: WebSocket, held: tuple[int, ...]) -> None:
        # Registered before the first send, under the match's lock: no update can slip between.
        async with self._lock(match_id):
            self.clients.setdefault(match_id, {})[websocket] = held
            await self._send(match_id, {websocket: held})

    def detach(self, match_id: str, websocket: WebSocket) -> None:
        watchers = self.clients.get(match_id, {})
        watchers.pop(websocket, None)
        if not watchers:
            self.clients.pop(match_id, None)
            lock = self.locks.get(match_id)
            if lock is not None and not lock.locked():
                del self.locks[match_id]

    def notify(self, match_id: str) -> None:
        """Publish in the background: a slow watcher must not hold up the request."""
        if self.clients.get(match_id):
            task = asyncio.create_task(self.publish(match_id))
            self.sending.add(task)
            task.add_done_callback(self.sending.discard)

    async def publish(self, match_id: str) -> None:
        """Send every watcher of the match its current JSON (always the latest state)."""
        if not self.clients.get(match_id):
            return
        async with self._lock(match_id):
            await self._send(match_id, dict(self.clients.get(match_id, {})))

    async def _send(self, match_id: str, targets: dict[WebSocket, tuple[int, ...]]) -> None:
        # One message per kind of viewer (the seats held), built off the event loop.
        kinds = set(targets.values())

        def build(live: Live) -> dict[tuple[int, ...], str]:
            import json

            return {
                held: json.dumps({"type": "match", "match": self.service.match_json(live, held)})
                for held in kinds
            }

        messages = await run_in_threadpool(self.service.locked, match_id, build)

        async def send(websocket: WebSocket, held: tuple[int, ...]) -> None:
            try:
                await asyncio.wait_for(websocket.send_text(messages[held]), timeout=10)
            except Exception:  # a client gone or stuck: drop it, the others still get theirs
                self.detach(match_id, websocket)

        await asyncio.gather(*(send(ws, held) for ws, held in targets.items()))


class ComputerPlayer:
    """Plays the computer's moves: one asyncio task per match awaiting the worker pool."""

    def __init__(self, service: MatchService, pool: WorkerPool, hub: Hub, move_time: float) -> None:
        self.service, self.pool, self.hub, self.move_time = service, pool, hub, move_time
        self.tasks: dict[str, tuple[int, asyncio.Task[None]]] = {}

    def follow(self, live: Live) -> None:
        """Start the computer's move if it is to move in this match."""
        with live.lock:
            thinking, match_id, ply = live.thinking, live.id, live.ply
        if thinking:
            self.schedule(match_id, ply)

    def schedule(self, match_id: str, ply: int) -> None:
        current = self.tasks.get(match_id)
        if current is not None and current[0] == ply and not current[1].done():
            return
        self.cancel(match_id)
        task = asyncio.create_task(self._play(match_id, ply), name=f"computer {match_id}")
        self.tasks[match_id] = (ply, task)
        task.add_done_callback(lambda done: self._forget(match_id, done))

    def _forget(self, match_id: str, task: asyncio.Task[None]) -> None:
        if match_id in self.tasks and self.tasks[match_id][1] is task:
            del self.tasks[match_id]

    def cancel(self, match_id: str) -> None:
        current = self.tasks.pop(match_id, None)
        if current is not None:
            current[1].cancel()

    def cancel_all(self) -> None:
        for match_id in list(self.tasks):
            self.cancel(match_id)

    async def _play(self, match_id: str, ply: int) -> None:
        # A failure outside the search (the database, say) is retried, so that a passing
        # problem does not leave a game waiting for ever (a restart would resume it too).
        for attempt in range(1, PLAY_ATTEMPTS + 1):
            try:
                await self._play_once(match_id, ply)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("computer move in match %s failed (attempt %d)", match_id, attempt)
                await asyncio.sleep(RETRY_DELAY)

    async def _play_once(self, match_id: str, ply: int) -> None:
        job = await run_in_threadpool(self.service.computer_job, match_id, ply)
        if job is None:
            return
        game_id, options, fen, level = job
        seed = move_seed(match_id, ply)
        try:
            text = await asyncio.wait_for(
                self.pool.run(computer_move, game_id, options, fen, level, self.move_time, seed),
                timeout=hard_cap(self.move_time) + POOL_MARGIN,
            )
        except Exception:  # timed out or failed: the game must still go on
            log.exception("computer move in match %s failed; playing a random move", match_id)
            state = make_game(game_id, options).state_from_fen(fen)
            text = state.move_str(random.Random(seed).choice(state.legal_moves()))
        applied = await run_in_threadpool(self.service.computer_move, match_id, ply, text)
        if applied is not None:
            self.hub.notify(match_id)
            self.follow(applied)


def create_app(db_url: str | None = None, *, workers: int = 2, move_time: float = 1.0) -> FastAPI:
    if move_time <= 0:
        raise ValueError(f"move_time must be positive, not {move_time}")
    engine = make_engine(db_url or default_db_url())
    upgrade(engine)
    service = MatchService(make_sessionmaker(engine))
    pool = WorkerPool(workers)
    hub = Hub(service)
    computer = ComputerPlayer(service, pool, hub, move_time)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        redact_logs()
        warm_up = asyncio.create_task(start_pool(pool))
        for match_id, ply in await run_in_threadpool(service.pending_computer_moves):
            computer.schedule(match_id, ply)
        try:
            yield
        finally:
            warm_up.cancel()
            computer.cancel_all()
            pool.shutdown()
            engine.dispose()

    app = FastAPI(title="Slimetrail", lifespan=lifespan)
    app.add_middleware(RequestGuard)
    document_errors(app)
    # ``store``: the name the pages module reads the service by.
    app.state.service = app.state.store = service
    app.state.pool, app.state.computer = pool, computer

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=exc.status)

    @app.exception_handler(GameError)
    async def game_error(_request: Request, exc: GameError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    def answer(live: Live, token: str | None) -> dict[str, Any]:
        with live.lock:
            return service.match_json(live, live.held_by(token))

    async def answered(live: Live, token: str | None) -> dict[str, Any]:
        return await run_in_threadpool(answer, live, token)

    async def change(method: Any, *args: Any, token: str | None) -> tuple[Live, dict[str, Any]]:
        """A change and its answer, built in the same thread before the computer can reply:
        the answer is the position the change made."""

        def run() -> tuple[Live, dict[str, Any]]:
            live = method(*args)
            return live, answer(live, token)

        return await run_in_threadpool(run)

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return games_json()

    async def create(
        game_id: str, options: dict[str, Any], seats: list[dict[str, Any]] | None, **old: Any
    ) -> tuple[Live, str, dict[str, Any]]:
        def run() -> tuple[Live, str, dict[str, Any]]:
            live, token = service.create(game_id, options, seats, **old)
            return live, token, answer(live, token)

        live, token, json = await run_in_threadpool(run)
        computer.follow(live)
        return live, token, json

    @app.post("/api/matches", status_code=201)
    async def create_match(body: CreateBody) -> dict[str, Any]:
        seats = None if body.seats is None else [seat.model_dump() for seat in body.seats]
        _, _, json = await create(
            body.game,
            body.options,
            seats,
            opponent=body.opponent,
            level=body.level,
            side=body.side,
            moves=body.moves,
        )
        return json

    @app.get("/new/{game_id}")
    async def new_match(request: Request, game_id: str) -> RedirectResponse:
        """A new match from a link: ``opponent``/``level``/``side`` or ``seats=me,computer:2,
        friend``, and any option the game declares, by its name."""
        query = request.query_params
        cls = GAMES.get(game_id)
        if cls is None:
            make_game(game_id, {})  # the 400 naming the known games
        assert cls is not None
        numbers = {}
        for name, default in (("level", "3"), ("side", "1")):
            text = query.get(name, default)
            try:
                numbers[name] = int(text)
            except ValueError:
                raise ApiError(400, f"{name}={text!r} is not a whole number") from None
        options = {spec.name: query[spec.name] for spec in cls.option_specs if query.get(spec.name)}
        seats = parse_seats(query["seats"]) if "seats" in query else None
        live, token, _ = await create(
            game_id, options, seats, opponent=query.get("opponent", "computer"), **numbers
        )
        return RedirectResponse(f"/play/{live.id}?seat={token}", status_code=303)

    @app.get("/api/matches/{match_id}")
    async def get_match(match_id: str, seat: str | None = None) -> dict[str, Any]:
        live = await run_in_threadpool(service.load, match_id)
        return await answered(live, seat)

    @app.get("/api/matches/{match_id}/view")
    async def match_view(match_id: str, ply: int | None = None) -> dict[str, Any]:
        return await run_in_threadpool(service.view_at, match_id, ply)

    @app.get("/api/matches/{match_id}/clicks")
    async def match_clicks(
        match_id: str, seat: str | None = None, prefix: str = ""
    ) -> dict[str, Any]:
        clicks = [c.strip() for c in prefix.split(",") if c.strip()]
        if len(clicks) > MAX_CLICKS:
            raise ApiError(400, f"a prefix of {len(clicks)} clicks is longer than any move")
        return await run_in_threadpool(service.clicks, match_id, seat, clicks)

    @app.post("/api/matches/{match_id}/move")
    async def move(match_id: str, body: MoveBody) -> dict[str, Any]:
        live, json = await change(
            service.move, match_id, body.seat, body.move, body.ply, token=body.seat
        )
        computer.follow(live)
        hub.notify(match_id)
        return json

    @app.post("/api/matches/{match_id}/undo")
    async def undo(match_id: str, body: UndoBody) -> dict[str, Any]:
        live, json = await change(service.undo, match_id, body.seat, body.ply, token=body.seat)
        computer.cancel(match_id)
        computer.follow(live)
        hub.notify(match_id)
        return json

    @app.post("/api/matches/{match_id}/resign")
    async def resign(match_id: str, body: SeatOnlyBody) -> dict[str, Any]:
        _, json = await change(service.resign, match_id, body.seat, token=body.seat)
        computer.cancel(match_id)
        hub.notify(match_id)
        return json

    @app.post("/api/matches/{match_id}/rematch", status_code=201)
    async def rematch(match_id: str, body: SeatOnlyBody) -> dict[str, Any]:
        live, json = await change(service.rematch, match_id, body.seat, token=body.seat)
        computer.follow(live)
        hub.notify(match_id)  # every player of the old match is shown the way to the new one
        return json

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str, format: str = "pgn") -> Response:
        if format not in ("pgn", "json"):
            raise ApiError(400, f"format={format!r} is not pgn or json")
        text = await run_in_threadpool(
            service.locked, match_id, lambda live: record_text(live, format)
        )
        return Response(
            text,
            media_type="application/json" if format == "json" else "application/x-chess-pgn",
            headers={
                "Content-Disposition": f'attachment; filename="slimetrail-{match_id}.{format}"'
            },
        )

    @app.post("/api/import", status_code=201)
    async def import_record(body: ImportBody) -> dict[str, Any]:
        live, token = await run_in_threadpool(service.import_record, body.record)
        return {"url": f"/play/{live.id}?seat={token}", "match": await answered(live, token)}

    @app.post("/api/analyse")
    async def analyse_position(body: AnalyseBody) -> dict[str, Any]:
        game = make_game(body.game, body.options)
        state, moves, _ = await run_in_threadpool(replay_moves, game, body.moves)
        try:
            return await asyncio.wait_for(
                pool.run(analyse, game.id, dict(game.options), moves, ANALYSE_TIME),
                timeout=hard_cap(ANALYSE_TIME) + POOL_MARGIN,
            )
        # Busy workers or a failed solve: say so, never a 500.
        except TimeoutError:
            return unsolved(state.to_move, "the analysis workers are busy; try again")
        except Exception as exc:
            log.exception("analysis of %s %s failed", game.spec, moves)
            return unsolved(state.to_move, f"the analysis failed: {exc}")

    @app.websocket("/ws/matches/{match_id}")
    async def watch(websocket: WebSocket, match_id: str, seat: str | None = None) -> None:
        await websocket.accept()
        try:
            live = await run_in_threadpool(service.load, match_id)
            held = live.held_by(seat)
        except ApiError as exc:
            # 4404 / 4403: the HTTP status in the application's close-code range.
            await websocket.close(code=4000 + exc.status, reason=exc.message[:120])
            return
        await hub.attach(match_id, websocket, held)
        try:
            while True:  # clients send nothing; reading notices the disconnect
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
        except WebSocketDisconnect:
            pass
        finally:
            hub.detach(match_id, websocket)

    static = Path(__file__).parent / "static"
    if static.is_dir():
        app.mount("/static", StaticFiles(directory=static), name="static")
    try:
        pages = importlib.import_module("slimetrail.web.pages")
    except ModuleNotFoundError as exc:
        if exc.name != "slimetrail.web.pages":
            raise
    else:
        app.include_router(pages.router)
        pages.install_error_pages(app)  # styled error pages; the API keeps its JSON errors
    return app


def parse_seats(text: str) -> list[dict[str, Any]]:
    """``me,computer:2,friend`` -> seat requests (the level after a colon)."""
    seats: list[dict[str, Any]] = []
    for word in text.split(","):
        kind, _, level = word.strip().partition(":")
        seat: dict[str, Any] = {"kind": kind}
        if level:
            try:
                seat["level"] = int(level)
            except ValueError:
                raise ApiError(400, f"seats: level {level!r} is not a whole number") from None
        seats.append(seat)
    return seats


async def start_pool(pool: WorkerPool) -> None:
    try:
        await pool.start()
    except Exception:  # the first real job will show the same problem to its caller
        log.exception("the worker pool could not be warmed up")


def record_text(live: Live, format: str) -> str:
    from slimetrail.core.records import Record

    tags = {"Event": f"Slimetrail {MatchService.opponent(live)} match", "Site": f"/play/{live.id}"}
    for seat in live.seats:
        name = live.game.player_names[seat.player - 1]
        if seat.kind == "computer":
            name = f"Computer (level {seat.level})"
        tags[f"Player{seat.player}"] = name
    record = Record.from_state(live.state, **tags)
    record.result = result_text(live)  # a resignation ends the game too
    return record.to_json() if format == "json" else record.to_pgn()
