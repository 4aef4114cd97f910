"""The FastAPI app: JSON API, WebSocket updates, computer moves in a worker pool.

``create_app(db_url, workers=..., move_time=...)`` opens (and migrates) the database and wires
the routes.  Request handlers do their database work in threads; computer moves run as
asyncio tasks that await the process pool, so the event loop only ever routes messages.
At startup every unfinished match whose computer is to move gets its move again, so a server
killed mid-game carries on where it was.
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
from slimetrail.web.db import default_db_url, make_engine, make_sessionmaker, upgrade
from slimetrail.web.hardening import RequestGuard, document_errors, redact_logs
from slimetrail.web.matches import (
    ApiError,
    Loaded,
    MatchStore,
    Seat,
    games_json,
    make_game,
    move_seed,
    replay_moves,
)
from slimetrail.web.workers import WorkerPool, analyse, computer_move, hard_cap, unsolved

log = logging.getLogger("slimetrail.web")

ANALYSE_TIME = 3.0
# How long the event loop waits for a worker beyond the worker's own hard cap.
POOL_MARGIN = 10.0
PLAY_ATTEMPTS, RETRY_DELAY = 3, 2.0
TEXT_LIMIT = 200
MAX_MOVES = 10_000
OptionValue = StrictStr | StrictInt


class CreateBody(BaseModel):
    game: StrictStr = Field(max_length=TEXT_LIMIT)
    options: dict[Annotated[str, Field(max_length=TEXT_LIMIT)], OptionValue] = {}
    opponent: StrictStr = Field("computer", max_length=TEXT_LIMIT)
    level: StrictInt = 3
    side: StrictInt = 1


class MoveBody(BaseModel):
    seat: StrictStr | None = Field(None, max_length=TEXT_LIMIT)
    move: StrictStr = Field(max_length=TEXT_LIMIT)
    ply: StrictInt = Field(ge=0)


class UndoBody(BaseModel):
    seat: StrictStr | None = Field(None, max_length=TEXT_LIMIT)
    ply: StrictInt = Field(ge=0)


class ImportBody(BaseModel):
    record: StrictStr


class AnalyseBody(BaseModel):
    game: StrictStr = Field(max_length=TEXT_LIMIT)
    options: dict[Annotated[str, Field(max_length=TEXT_LIMIT)], OptionValue] = {}
    moves: list[Annotated[str, Field(max_length=TEXT_LIMIT)]] = Field([], max_length=MAX_MOVES)


class Hub:
    """The WebSocket clients watching each match, each with the seat it holds."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self.clients: dict[str, dict[WebSocket, Seat]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.sending: set[asyncio.Task[None]] = set()

    def _lock(self, match_id: str) -> asyncio.Lock:
        return self.locks.setdefault(match_id, asyncio.Lock())

    async def attach(self, match_id: str, websocket: WebSocket, seat: Seat) -> None:
        # Registered before the first send, under the match's lock: no update can slip between.
        async with self._lock(match_id):
            self.clients.setdefault(match_id, {})[websocket] = seat
            loaded = await run_in_threadpool(self.store.load, match_id)
            await self._send(match_id, loaded, {websocket: seat})

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
            loaded = await run_in_threadpool(self.store.load, match_id)
            await self._send(match_id, loaded, dict(self.clients.get(match_id, {})))

    async def _send(self, match_id: str, loaded: Loaded, targets: dict[WebSocket, Seat]) -> None:
        async def send(websocket: WebSocket, seat: Seat) -> None:
            message = {"type": "match", "match": self.store.match_json(loaded, seat)}
            try:
                await asyncio.wait_for(websocket.send_json(message), timeout=10)
            except Exception:  # a client gone or stuck: drop it, the others still get theirs
                self.detach(match_id, websocket)

        await asyncio.gather(*(send(ws, seat) for ws, seat in targets.items()))


class ComputerPlayer:
    """Plays the computer's moves: one asyncio task per match awaiting the worker pool."""

    def __init__(self, store: MatchStore, pool: WorkerPool, hub: Hub, move_time: float) -> None:
        self.store, self.pool, self.hub, self.move_time = store, pool, hub, move_time
        self.tasks: dict[str, tuple[int, asyncio.Task[None]]] = {}

    def follow(self, loaded: Loaded) -> None:
        """Start the computer's move if it is to move in this match."""
        if loaded.thinking:
            self.schedule(loaded.row.id, loaded.ply)

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
        loaded = await run_in_threadpool(self.store.load, match_id)
        if loaded.ply != ply or not loaded.thinking:
            return
        row = loaded.row
        args = (row.game, dict(row.options), list(row.moves), row.level, self.move_time)
        seed = move_seed(match_id, ply)
        try:
            text = await asyncio.wait_for(
                self.pool.run(computer_move, *args, seed),
                timeout=hard_cap(self.move_time) + POOL_MARGIN,
            )
        except Exception:  # timed out or failed: the game must still go on
            log.exception("computer move in match %s failed; playing a random move", match_id)
            state = loaded.state
            text = state.move_str(random.Random(seed).choice(state.legal_moves()))
        applied = await run_in_threadpool(self.store.computer_move, match_id, ply, text)
        if applied is not None:
            self.hub.notify(match_id)
            if applied.thinking:
                self.schedule(match_id, applied.ply)


def create_app(db_url: str | None = None, *, workers: int = 2, move_time: float = 1.0) -> FastAPI:
    if move_time <= 0:
        raise ValueError(f"move_time must be positive, not {move_time}")
    engine = make_engine(db_url or default_db_url())
    upgrade(engine)
    store = MatchStore(make_sessionmaker(engine))
    pool = WorkerPool(workers)
    hub = Hub(store)
    computer = ComputerPlayer(store, pool, hub, move_time)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        redact_logs()
        warm_up = asyncio.create_task(start_pool(pool))
        for match_id, ply in await run_in_threadpool(store.pending_computer_moves):
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
    app.state.store, app.state.pool, app.state.computer = store, pool, computer

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=exc.status)

    @app.exception_handler(GameError)
    async def game_error(_request: Request, exc: GameError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return games_json()

    async def create(
        game_id: str, options: dict[str, Any], opponent: str, level: int, side: int
    ) -> tuple[Loaded, str]:
        loaded, token = await run_in_threadpool(
            store.create, game_id, options, opponent, level, side
        )
        computer.follow(loaded)
        return loaded, token

    @app.post("/api/matches", status_code=201)
    async def create_match(body: CreateBody) -> dict[str, Any]:
        loaded, token = await create(body.game, body.options, body.opponent, body.level, body.side)
        return store.match_json(loaded, store.seat_of(loaded.row, token))

    @app.get("/new/{game_id}")
    async def new_match(
        game_id: str,
        opponent: str = "computer",
        level: str = "3",
        side: str = "1",
        size: str | None = None,
        rules: str | None = None,
        start: str | None = None,
    ) -> RedirectResponse:
        numbers = {}
        for name, text in (("level", level), ("side", side)):
            try:
                numbers[name] = int(text)
            except ValueError:
                raise ApiError(400, f"{name}={text!r} is not a whole number") from None
        options = {k: v for k, v in (("size", size), ("rules", rules), ("start", start)) if v}
        loaded, token = await create(game_id, options, opponent, numbers["level"], numbers["side"])
        return RedirectResponse(f"/play/{loaded.row.id}?seat={token}", status_code=303)

    @app.get("/api/matches/{match_id}")
    async def get_match(match_id: str, seat: str | None = None) -> dict[str, Any]:
        loaded = await run_in_threadpool(store.load, match_id)
        return store.match_json(loaded, store.seat_of(loaded.row, seat))

    @app.get("/api/matches/{match_id}/view")
    async def match_view(match_id: str, ply: int | None = None) -> dict[str, Any]:
        return await run_in_threadpool(store.view_at, match_id, ply)

    @app.post("/api/matches/{match_id}/move")
    async def move(match_id: str, body: MoveBody) -> dict[str, Any]:
        loaded = await run_in_threadpool(store.move, match_id, body.seat, body.move, body.ply)
        computer.follow(loaded)
        hub.notify(match_id)
        return store.match_json(loaded, store.seat_of(loaded.row, body.seat))

    @app.post("/api/matches/{match_id}/undo")
    async def undo(match_id: str, body: UndoBody) -> dict[str, Any]:
        loaded = await run_in_threadpool(store.undo, match_id, body.seat, body.ply)
        computer.cancel(match_id)
        computer.follow(loaded)
        hub.notify(match_id)
        return store.match_json(loaded, store.seat_of(loaded.row, body.seat))

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str, format: str = "pgn") -> Response:
        if format not in ("pgn", "json"):
            raise ApiError(400, f"format={format!r} is not pgn or json")
        loaded = await run_in_threadpool(store.load, match_id)
        text = record_text(loaded, format)
        return Response(
            text,
            media_type="application/json" if format == "json" else "application/x-chess-pgn",
            headers={
                "Content-Disposition": f'attachment; filename="slimetrail-{match_id}.{format}"'
            },
        )

    @app.post("/api/import", status_code=201)
    async def import_record(body: ImportBody) -> dict[str, Any]:
        loaded, token = await run_in_threadpool(store.import_record, body.record)
        return {
            "url": f"/play/{loaded.row.id}?seat={token}",
            "match": store.match_json(loaded, "both"),
        }

    @app.post("/api/analyse")
    async def analyse_position(body: AnalyseBody) -> dict[str, Any]:
        game = make_game(body.game, body.options)
        state, moves = await run_in_threadpool(replay_moves, game, body.moves)
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
            loaded = await run_in_threadpool(store.load, match_id)
            viewer = store.seat_of(loaded.row, seat)
        except ApiError as exc:
            # 4404 / 4403: the HTTP status in the application's close-code range.
            await websocket.close(code=4000 + exc.status, reason=exc.message[:120])
            return
        await hub.attach(match_id, websocket, viewer)
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
    return app


async def start_pool(pool: WorkerPool) -> None:
    try:
        await pool.start()
    except Exception:  # the first real job will show the same problem to its caller
        log.exception("the worker pool could not be warmed up")


def record_text(loaded: Loaded, format: str) -> str:
    from slimetrail.core.records import Record

    row, names = loaded.row, list(loaded.game.player_names)
    if row.computer_side is not None:
        names[row.computer_side - 1] = f"Computer (level {row.level})"
    tags = {
        "Event": f"Slimetrail {row.opponent} match",
        "Site": f"/play/{row.id}",
        "Player1": names[0],
        "Player2": names[1],
    }
    record = Record.from_state(loaded.state, **tags)
    return record.to_json() if format == "json" else record.to_pgn()
