"""The FastAPI app: JSON API, WebSocket updates, computer moves in a worker pool.

``create_app(db_url, workers=..., move_time=..., limits=...)`` opens (and migrates) the
database and wires the routes to the match service (:mod:`slimetrail.web.matches`).  Request
handlers do their work in threads; computer moves run as asyncio tasks that await the process
pool through its admission (:mod:`slimetrail.web.admission`: computer moves first, capped
queues; the worker gets the position, not the history), so the event loop only ever routes
messages.  A request that would queue a computer move takes its place before it changes
anything, so a full queue refuses the request, never the move.  Rates, load shedding,
watcher caps and retention follow :class:`slimetrail.web.settings.Limits`.  At startup every
unfinished match whose computer is to move gets its move again, so a server killed mid-game
carries on where it was.  On PostgreSQL every change is announced to the other processes
(:mod:`slimetrail.web.live`), and with ``workers=0`` the computer's moves and analyses go to
the shared job queue instead of a pool (:mod:`slimetrail.web.jobs`, ``slimetrail worker``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import parse_qsl, urlencode

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, Field, StrictInt, StrictStr
from sqlalchemy.orm import sessionmaker
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocketDisconnect

from slimetrail.core.game import Game, GameError
from slimetrail.core.registry import GAMES
from slimetrail.web.admission import ANALYSIS, MOVE, SERVER, Admission, Refused, Ticket
from slimetrail.web.db import COMPUTER, default_db_url, make_engine, make_sessionmaker, upgrade
from slimetrail.web.hardening import (
    LimitExcept,
    RequestGuard,
    ServerTiming,
    document_errors,
    redact_logs,
)
from slimetrail.web.live import MATCH_CHANNEL, Listener, MatchAnnouncer, match_handler, new_origin
from slimetrail.web.matches import (
    ApiError,
    Live,
    MatchService,
    games_json,
    make_game,
    move_seed,
    replay_moves,
    result_text,
    seats_from_request,
)
from slimetrail.web.ratelimit import ANALYSE, CREATE, InFlightLimit, RateLimits, refusal_headers
from slimetrail.web.retention import expire_matches
from slimetrail.web.settings import Limits
from slimetrail.web.workers import (
    WorkerPool,
    analyse,
    computer_move,
    hard_cap,
    unsolved,
    warm_up,
)

if TYPE_CHECKING:  # imported when used: procrastinate is needed only with PostgreSQL
    from slimetrail.web.jobs import JobQueue

log = logging.getLogger("slimetrail.web")

ANALYSE_TIME = 3.0
# How long the event loop waits for a worker beyond the worker's own hard cap.
POOL_MARGIN = 10.0
PLAY_ATTEMPTS, RETRY_DELAY = 3, 2.0
TEXT_LIMIT = 200
MAX_MOVES = 10_000
MAX_SEATS = 16
MAX_CLICKS = 64
# The WebSocket close code of a watcher refused by a cap (RFC 6455 "Try Again Later").
TRY_AGAIN_LATER = 1013
FORM_TYPE = "application/x-www-form-urlencoded"
# Requests outside the in-flight cap: an analysis waits for the worker pool, in its own queue.
UNLIMITED_PATHS = ("/api/analyse",)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
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
    """The WebSocket clients watching each match, each with the seats its token holds.

    Each kind of viewer (by the seats held: a spectator, a seat, a hotseat pair) has its
    message built once per change of the match, in a thread, and the same text goes to every
    watcher of that kind; the watchers are capped per match and in total."""

    def __init__(self, service: MatchService, limits: Limits) -> None:
        self.service, self.limits = service, limits
        self.clients: dict[str, dict[WebSocket, tuple[int, ...]]] = {}
        # Per match and kind of viewer: (the match's version, its message).
        self.built: dict[str, dict[tuple[int, ...], tuple[int, str]]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.sending: set[asyncio.Task[None]] = set()
        self.total = 0
        self.builds = 0  # messages built so far

    def _lock(self, match_id: str) -> asyncio.Lock:
        return self.locks.setdefault(match_id, asyncio.Lock())

    def admit(self, match_id: str, websocket: WebSocket, held: tuple[int, ...]) -> str | None:
        """Register a watcher, or say why not (a cap is reached)."""
        watchers = self.clients.get(match_id, {})
        if len(watchers) >= self.limits.match_watchers:
            return f"this match has {len(watchers)} watchers (at most {self.limits.match_watchers})"
        if self.total >= self.limits.total_watchers:
            return f"the server has {self.total} watchers (at most {self.limits.total_watchers})"
        self.clients.setdefault(match_id, {})[websocket] = held
        self.total += 1
        return None

    async def attach(self, match_id: str, websocket: WebSocket) -> None:
        """Send an admitted watcher the match (under the match's lock: no update can pass it)."""
        async with self._lock(match_id):
            held = self.clients.get(match_id, {}).get(websocket)
            if held is not None:
                await self._send(match_id, {websocket: held})

    def detach(self, match_id: str, websocket: WebSocket) -> None:
        watchers = self.clients.get(match_id, {})
        if watchers.pop(websocket, None) is not None:
            self.total -= 1
        if not watchers:
            self.clients.pop(match_id, None)
            self.built.pop(match_id, None)
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
        kinds = set(targets.values())
        built = self.built.setdefault(match_id, {})

        def build(live: Live) -> tuple[dict[tuple[int, ...], str], int]:
            messages, count = {}, 0
            for held in kinds:
                known = built.get(held)
                if known is None or known[0] != live.version:
                    match = self.service.match_json(live, held)
                    known = (live.version, json.dumps({"type": "match", "match": match}))
                    built[held] = known
                    count += 1
                messages[held] = known[1]
            return messages, count

        messages, count = await run_in_threadpool(self.service.locked, match_id, build)
        self.builds += count

        async def send(websocket: WebSocket, held: tuple[int, ...]) -> None:
            try:
                await asyncio.wait_for(websocket.send_text(messages[held]), timeout=10)
            except Exception:  # a client gone or stuck: drop it, the others still get theirs
                self.detach(match_id, websocket)

        await asyncio.gather(*(send(ws, held) for ws, held in targets.items()))


class ComputerPlayer:
    """Plays the computer's moves: one asyncio task per match, its search admitted to the
    worker pool as a computer move (before any analysis).  However long it waited, the move
    is the level's own search: nothing here ever plays a random move."""

    def __init__(
        self, service: MatchService, admission: Admission, hub: Hub, move_time: float
    ) -> None:
        self.service, self.admission, self.hub, self.move_time = service, admission, hub, move_time
        self.tasks: dict[str, tuple[int, asyncio.Task[None]]] = {}

    def follow(self, live: Live, ticket: Ticket | None = None) -> None:
        """Start the computer's move if it is to move in this match, on ``ticket`` (the place
        reserved for it by the request; released if not needed)."""
        with live.lock:
            thinking, match_id, ply = live.thinking, live.id, live.ply
        if thinking:
            self.schedule(match_id, ply, ticket)
        elif ticket is not None:
            ticket.release()

    def schedule(self, match_id: str, ply: int, ticket: Ticket | None = None) -> None:
        current = self.tasks.get(match_id)
        if current is not None and current[0] == ply and not current[1].done():
            if ticket is not None:
                ticket.release()
            return
        self.cancel(match_id)
        if ticket is None:  # the server's own work (a resumed game, an undo): never refused
            ticket = self.admission.reserve(MOVE, SERVER, force=True)
        task = asyncio.create_task(self._play(match_id, ply, ticket), name=f"computer {match_id}")
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

    async def _play(self, match_id: str, ply: int, ticket: Ticket) -> None:
        # A failure (the database, a worker that died or overran) is retried, so that a
        # passing problem does not leave a game waiting for ever (a restart resumes it too).
        try:
            for attempt in range(1, PLAY_ATTEMPTS + 1):
                if attempt > 1:
                    ticket = self.admission.reserve(MOVE, ticket.client, force=True)
                try:
                    await self._play_once(match_id, ply, ticket)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("computer move in %s failed (attempt %d)", match_id, attempt)
                    await asyncio.sleep(RETRY_DELAY)
        finally:
            ticket.release()  # a no-op once its job started

    async def _play_once(self, match_id: str, ply: int, ticket: Ticket) -> None:
        job = await run_in_threadpool(self.service.computer_job, match_id, ply)
        if job is None:
            return
        game_id, options, fen, level = job
        seed = move_seed(match_id, ply)
        # The time limit starts with the search: waiting for a worker does not count.
        text = await self.admission.run(
            ticket,
            computer_move,
            game_id,
            options,
            fen,
            level,
            self.move_time,
            seed,
            timeout=hard_cap(self.move_time) + POOL_MARGIN,
        )
        applied = await run_in_threadpool(self.service.computer_move, match_id, ply, text)
        if applied is not None:
            self.hub.notify(match_id)
            self.follow(applied)


def create_app(
    db_url: str | None = None,
    *,
    workers: int = 2,
    move_time: float = 1.0,
    limits: Limits | None = None,
) -> FastAPI:
    """``workers=0`` (PostgreSQL only): a web-only process, whose computer moves and analyses
    go to the shared job queue (:mod:`slimetrail.web.jobs`) for ``slimetrail worker``."""
    if move_time <= 0:
        raise ValueError(f"move_time must be positive, not {move_time}")
    limits = limits or Limits()
    url = db_url or default_db_url()
    engine = make_engine(url)
    postgres = engine.dialect.name == "postgresql"
    if workers < 0 or (workers == 0 and not postgres):
        raise ValueError(
            f"workers={workers}: a web-only server (0 workers) needs PostgreSQL, whose job "
            "queue the workers share; give 1 or more workers with SQLite"
        )
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    # PostgreSQL: every change is announced to the other processes (slimetrail.web.live).
    origin = new_origin()
    service = MatchService(sessions, on_change=MatchAnnouncer(origin) if postgres else None)
    rates = RateLimits(limits, url)
    hub = Hub(service, limits)
    pool: WorkerPool | None = None
    admission: Admission | None = None
    queue: JobQueue | None = None
    computer: ComputerPlayer | JobQueue
    if workers == 0:
        from slimetrail.web.jobs import JobQueue

        computer = queue = JobQueue(url, limits)
    else:
        pool = WorkerPool(workers)
        admission = Admission(pool, limits, job_seconds=move_time)
        computer = ComputerPlayer(service, admission, hub, move_time)
    listener: Listener | None = None
    if postgres:

        async def tell_all() -> None:  # notifications missed while reconnecting
            for match_id in list(hub.clients):
                hub.notify(match_id)

        handlers = {MATCH_CHANNEL: match_handler(origin, hub.notify)}
        if queue is not None:
            handlers.update(queue.handlers())
        listener = Listener(url, handlers, on_reconnect=tell_all)

    async def reserve_move(client: str) -> Ticket | None:
        """A place for a computer move of ``client`` (429/503 when full): in this process's
        pool, or counted over the shared queue's jobs."""
        if queue is not None:
            await queue.admit_move(client)
            return None
        assert admission is not None
        return admission.reserve(MOVE, client)

    def follow(live: Live, ticket: Ticket | None, client: str) -> None:
        """The computer's move if it is to move: played here, or queued in the client's name."""
        if queue is not None:
            queue.follow(live, client)
        else:
            assert isinstance(computer, ComputerPlayer)
            computer.follow(live, ticket)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        redact_logs()
        if listener is not None:
            await listener.start()
        if queue is not None:
            await queue.open()
        background = [] if admission is None else [asyncio.create_task(start_pool(admission))]
        if limits.expiry_interval > 0:
            background.append(asyncio.create_task(expire_periodically(sessions, limits)))
        for match_id, ply in await run_in_threadpool(service.pending_computer_moves):
            computer.schedule(match_id, ply)
        try:
            yield
        finally:
            for task in background:
                task.cancel()
            computer.cancel_all()
            if pool is not None:
                pool.shutdown()
            if queue is not None:
                await queue.close()
            if listener is not None:
                await listener.stop()
            rates.close()
            engine.dispose()

    app = FastAPI(title="Slimetrail", lifespan=lifespan)
    app.add_middleware(RequestGuard)
    # Around the guard: sheds before a body is read.
    app.add_middleware(
        LimitExcept,
        limiter=InFlightLimit,
        exempt=UNLIMITED_PATHS,
        limit=limits.in_flight,
        wait=limits.in_flight_wait,
    )
    app.add_middleware(ServerTiming)  # outermost: the time includes any wait for a place
    document_errors(app)
    # ``store``: the name the pages module reads the service by.
    app.state.service = app.state.store = service
    app.state.pool, app.state.computer, app.state.hub = pool, computer, hub
    app.state.admission, app.state.limits = admission, limits

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=exc.status)

    @app.exception_handler(GameError)
    async def game_error(_request: Request, exc: GameError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(Refused)
    async def refused(_request: Request, exc: Refused) -> JSONResponse:
        return JSONResponse(
            {"detail": exc.message}, status_code=exc.status, headers=refusal_headers(exc)
        )

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

    async def reserve_for(match_id: str, client: str) -> Ticket | None:
        """A place for the computer's reply to a change of this match, if it has a computer
        seat: refused (429/503) before the change is made, never after."""
        live = service.cache.get(match_id) or await run_in_threadpool(service.load, match_id)
        if any(seat.kind == COMPUTER for seat in live.seats):
            return await reserve_move(client)
        return None

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return games_json()

    async def create(
        client: str,
        game_id: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]] | None,
        **old: Any,
    ) -> tuple[Live, str, dict[str, Any]]:
        await rates.hit(CREATE, client)
        wants_computer = (
            old.get("opponent", "computer") == "computer"
            if seats is None
            else any(seat.get("kind") == "computer" for seat in seats)
        )
        ticket = await reserve_move(client) if wants_computer else None

        def run() -> tuple[Live, str, dict[str, Any]]:
            live, token = service.create(game_id, options, seats, **old)
            return live, token, answer(live, token)

        try:
            live, token, json = await run_in_threadpool(run)
        except BaseException:
            if ticket is not None:
                ticket.release()
            raise
        follow(live, ticket, client)
        return live, token, json

    @app.post("/api/matches", status_code=201)
    async def create_match(request: Request, body: CreateBody) -> dict[str, Any]:
        seats = None if body.seats is None else [seat.model_dump() for seat in body.seats]
        _, _, json = await create(
            client_of(request),
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
    async def confirm_new_match(request: Request, game_id: str) -> HTMLResponse:
        """A link to a new match shows what it will start and a button that POSTs: a link
        prefetcher or a crawler following it creates nothing."""
        wanted = new_match_request(game_id, dict(request.query_params))
        game = make_game(game_id, wanted["options"])
        seats_from_request(
            game, wanted["seats"], wanted["opponent"], wanted["level"], wanted["side"]
        )
        query = urlencode(list(request.query_params.multi_items()))
        return templates.TemplateResponse(
            request,
            "new.html",
            {
                "game": game,
                "summary": new_match_summary(game, wanted),
                "action": f"/new/{game_id}" + (f"?{query}" if query else ""),
            },
            headers={"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow"},
        )

    @app.post("/new/{game_id}")
    async def new_match(request: Request, game_id: str) -> RedirectResponse:
        """A new match from a link or a form: ``opponent``/``level``/``side`` or ``seats=me,
        computer:2,friend``, and any option the game declares, by its name (in the query or
        a form body)."""
        fields = dict(request.query_params)
        if request.headers.get("content-type", "").startswith(FORM_TYPE):
            fields.update(parse_qsl((await request.body()).decode("utf-8", "replace")))
        wanted = new_match_request(game_id, fields)
        live, token, _ = await create(
            client_of(request),
            game_id,
            wanted["options"],
            wanted["seats"],
            opponent=wanted["opponent"],
            level=wanted["level"],
            side=wanted["side"],
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

    async def changed_with_reply(
        request: Request, match_id: str, method: Any, *args: Any, token: str | None
    ) -> tuple[Live, dict[str, Any]]:
        """A change after which the computer may be to move, its reply admitted first."""
        client = client_of(request)
        ticket = await reserve_for(match_id, client)
        try:
            live, json = await change(method, *args, token=token)
        except BaseException:
            if ticket is not None:
                ticket.release()
            raise
        follow(live, ticket, client)
        return live, json

    @app.post("/api/matches/{match_id}/move")
    async def move(request: Request, match_id: str, body: MoveBody) -> dict[str, Any]:
        _, json = await changed_with_reply(
            request,
            match_id,
            service.move,
            match_id,
            body.seat,
            body.move,
            body.ply,
            token=body.seat,
        )
        hub.notify(match_id)
        return json

    @app.post("/api/matches/{match_id}/undo")
    async def undo(match_id: str, body: UndoBody) -> dict[str, Any]:
        live, json = await change(service.undo, match_id, body.seat, body.ply, token=body.seat)
        computer.cancel(match_id)
        follow(live, None, SERVER)
        hub.notify(match_id)
        return json

    @app.post("/api/matches/{match_id}/resign")
    async def resign(match_id: str, body: SeatOnlyBody) -> dict[str, Any]:
        _, json = await change(service.resign, match_id, body.seat, token=body.seat)
        computer.cancel(match_id)
        hub.notify(match_id)
        return json

    @app.post("/api/matches/{match_id}/rematch", status_code=201)
    async def rematch(request: Request, match_id: str, body: SeatOnlyBody) -> dict[str, Any]:
        await rates.hit(CREATE, client_of(request))
        _, json = await changed_with_reply(
            request, match_id, service.rematch, match_id, body.seat, token=body.seat
        )
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
    async def import_record(request: Request, body: ImportBody) -> dict[str, Any]:
        await rates.hit(CREATE, client_of(request))
        live, token = await run_in_threadpool(service.import_record, body.record)
        return {"url": f"/play/{live.id}?seat={token}", "match": await answered(live, token)}

    @app.post("/api/analyse")
    async def analyse_position(request: Request, body: AnalyseBody) -> dict[str, Any]:
        client = client_of(request)
        await rates.hit(ANALYSE, client)
        game = make_game(body.game, body.options)
        state, moves, _ = await run_in_threadpool(replay_moves, game, body.moves)
        if queue is not None:  # refused (429/503) the same way, counted over every process
            return await queue.analyse(
                game.id, game.option_texts(), moves, ANALYSE_TIME, client, state.to_move
            )
        assert admission is not None
        try:
            # Refused (429/503) when this client or the analysis queue is full.
            return await admission.submit(
                ANALYSIS,
                client,
                analyse,
                game.id,
                game.option_texts(),
                moves,
                ANALYSE_TIME,
                wait=limits.analysis_wait,
                timeout=hard_cap(ANALYSE_TIME) + POOL_MARGIN,
            )
        except Refused:
            raise
        except TimeoutError:
            return unsolved(state.to_move, "the analysis ran past its time; try again")
        except Exception as exc:  # a failed solve: say so, never a 500
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
        full = hub.admit(match_id, websocket, held)
        if full is not None:
            await websocket.close(code=TRY_AGAIN_LATER, reason=full[:120])
            return
        try:
            await hub.attach(match_id, websocket)
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


def client_of(connection: HTTPConnection) -> str:
    """Whom per-client limits count a request against: its address."""
    return connection.client.host if connection.client else "unknown"


def new_match_request(game_id: str, fields: dict[str, str]) -> dict[str, Any]:
    """The match a ``/new`` link asks for; a 400 names the unknown game or a bad field."""
    cls = GAMES.get(game_id)
    if cls is None:
        make_game(game_id, {})  # the 400 naming the known games
    assert cls is not None
    wanted: dict[str, Any] = {}
    for name, default in (("level", "3"), ("side", "1")):
        text = fields.get(name, default)
        try:
            wanted[name] = int(text)
        except ValueError:
            raise ApiError(400, f"{name}={text!r} is not a whole number") from None
    wanted["options"] = {
        spec.name: fields[spec.name] for spec in cls.option_specs if fields.get(spec.name)
    }
    wanted["seats"] = parse_seats(fields["seats"]) if "seats" in fields else None
    wanted["opponent"] = fields.get("opponent", "computer")
    return wanted


def new_match_summary(game: Game, wanted: dict[str, Any]) -> list[str]:
    """Who plays each seat of the match ``wanted`` (checked: a 400 names a bad seat)."""
    seats = seats_from_request(
        game, wanted["seats"], wanted["opponent"], wanted["level"], wanted["side"]
    )
    who = {"me": "you", "friend": "a friend you invite by link"}
    return [
        f"{game.player_names[number - 1]}: "
        + who.get(seat["kind"], f"the computer (level {seat.get('level')})")
        for number, seat in enumerate(seats, 1)
    ]


async def start_pool(admission: Admission) -> None:
    try:
        await admission.start(warm_up)
    except Exception:  # the first real job will show the same problem to its caller
        log.exception("the worker pool could not be warmed up")


async def expire_periodically(sessions: sessionmaker, limits: Limits) -> None:
    """The retention policy, applied now and every ``limits.expiry_interval`` seconds."""
    while True:
        try:
            count = await run_in_threadpool(
                expire_matches, sessions, limits.unfinished_days, limits.finished_days
            )
            if count:
                log.info("deleted %d expired matches", count)
        except Exception:  # a database hiccup: the next round tries again
            log.exception("deleting expired matches failed")
        await asyncio.sleep(limits.expiry_interval)


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
