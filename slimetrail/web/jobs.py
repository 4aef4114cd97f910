"""Computer moves and analyses on a shared, durable job queue: procrastinate on PostgreSQL.

Why procrastinate: the site already needs PostgreSQL to run several processes, and
procrastinate keeps its jobs in that same database (no Redis or broker to run, back up and
watch), takes them with ``SELECT ... FOR UPDATE SKIP LOCKED`` (each job goes to one worker),
wakes workers with ``LISTEN/NOTIFY`` (no polling delay), has per-key ``lock`` (one job of a
match runs at a time) and ``queueing_lock`` (one waiting job per match), priorities, retries,
and worker heartbeats from which a job whose worker died can be found and retried.

* Web processes (``slimetrail serve --db postgresql://... --workers 0``) enqueue through
  :class:`JobQueue`: a computer move whenever the computer is to move, an analysis per
  ``/api/analyse`` request (whose answer comes back by ``NOTIFY`` on
  :data:`ANALYSIS_CHANNEL`).  Admission is decided on the jobs in the database, so the caps
  hold across every process: :meth:`JobQueue.admit`.
* Workers (``slimetrail worker --db ...``, :class:`Worker`) run the jobs in their own process
  pools: computer moves first (their own procrastinate worker, higher priority), analyses in
  a separate, smaller pool so that they can never starve the games.
* A job never plays twice into a game: a computer-move job plays the move of whatever ply
  the match is at when it runs, and the match service applies it only if the match is still
  at that ply (the version-checked write).  A job whose worker was killed is found by its
  stale heartbeat and retried (:meth:`Worker.sweep`), and a match whose computer is to move
  but has no job (its web process died between storing the move and enqueueing) gets one.

With SQLite (one process) none of this runs: the in-process pool of ``slimetrail.web.app``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import procrastinate
from procrastinate.exceptions import AlreadyEnqueued, UniqueViolation
from procrastinate.jobs import Status
from starlette.concurrency import run_in_threadpool

from slimetrail.web.admission import Refused
from slimetrail.web.live import libpq_url
from slimetrail.web.matches import ApiError, Live, MatchService, move_seed
from slimetrail.web.settings import Limits
from slimetrail.web.workers import (
    WorkerPool,
    analyse,
    computer_move,
    hard_cap,
    unsolved,
    warm_up,
)

log = logging.getLogger("slimetrail.web.jobs")

COMPUTER_QUEUE, ANALYSIS_QUEUE = "computer", "analysis"
COMPUTER_TASK, ANALYSIS_TASK = "slimetrail.computer_move", "slimetrail.analyse"
ANALYSIS_CHANNEL = "slimetrail_analysis"
COMPUTER_PRIORITY, ANALYSIS_PRIORITY = 10, 0
# How long a web process waits for an analysis beyond its time cap.
ANALYSIS_MARGIN = 10.0
# Retry-After of a refusal: the workers are elsewhere, so a short, fixed guess.
RETRY_AFTER = 5
# A worker whose heartbeat is older than this is taken for dead and its jobs retried.
STALL_SECONDS = 30.0
# Any two processes starting at once must not both create the queue's tables.
SCHEMA_LOCK = 0x5E1E_7A11
# What ``slimetrail worker`` prints once it takes jobs.
READY = "slimetrail worker: ready"

# Jobs waiting in one queue, and one client's jobs waiting or running in any.
COUNT_WAITING = """
SELECT count(*) AS n FROM procrastinate_jobs WHERE queue_name = %(queue)s AND status = 'todo'
"""
COUNT_CLIENT = """
SELECT count(*) AS n FROM procrastinate_jobs
 WHERE status IN ('todo', 'doing') AND args->>'client' = %(client)s
"""
MATCHES_WITH_JOBS = """
SELECT DISTINCT args->>'match_id' AS match_id FROM procrastinate_jobs
 WHERE task_name = %(task)s AND status IN ('todo', 'doing')
"""
NOTIFY = "SELECT pg_notify(%(channel)s, %(payload)s)"


def make_queue_app(url: str) -> procrastinate.App:
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=libpq_url(url)))


async def ensure_schema(url: str) -> None:
    """Create procrastinate's tables unless they exist (under an advisory lock)."""
    import psycopg
    from procrastinate.schema import SchemaManager

    async with await psycopg.AsyncConnection.connect(libpq_url(url), autocommit=True) as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            cursor = await conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL")
            row = await cursor.fetchone()
            if not (row and row[0]):
                await conn.execute(SchemaManager.get_schema())
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


async def enqueue_computer(app: procrastinate.App, match_id: str, ply: int, client: str) -> bool:
    """Queue the computer's move in ``match_id``; False if a job of the match already waits
    (it reads the match when it runs, so it plays this move)."""
    deferrer = app.configure_task(
        COMPUTER_TASK,
        queue=COMPUTER_QUEUE,
        priority=COMPUTER_PRIORITY,
        lock=f"match:{match_id}",
        queueing_lock=f"match:{match_id}",
    )
    try:
        await deferrer.defer_async(match_id=match_id, ply=ply, client=client)
    except AlreadyEnqueued:
        return False
    return True


def current_job(
    service: MatchService, match_id: str
) -> tuple[int, str, dict[str, str], str, int] | None:
    """The ply the match is at and what a worker needs for the computer's move there (game
    id, options, position, level), or ``None`` if the computer is not to move."""
    ply = service.locked(match_id, lambda live: live.ply)
    job = service.computer_job(match_id, ply)
    return None if job is None else (ply, *job)


class JobQueue:
    """The web side: enqueue computer moves and analyses, admit work by the jobs queued.

    Takes the place of the in-process computer player (``follow``/``schedule``/``cancel``).
    """

    def __init__(self, url: str, limits: Limits | None = None) -> None:
        self.app = make_queue_app(url)
        self.url = url
        self.limits = limits or Limits()
        self.deferring: set[asyncio.Task[bool]] = set()
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def open(self) -> None:
        await ensure_schema(self.url)
        await self.app.open_async()

    async def close(self) -> None:
        if self.deferring:
            await asyncio.gather(*self.deferring, return_exceptions=True)
        await self.app.close_async()

    # -- computer moves --------------------------------------------------------------

    def follow(self, live: Live, client: str = "") -> None:
        """Queue the computer's move if it is to move in this match."""
        with live.lock:
            thinking, match_id, ply = live.thinking, live.id, live.ply
        if thinking:
            self.schedule(match_id, ply, client)

    def schedule(self, match_id: str, ply: int, client: str = "") -> None:
        task = asyncio.create_task(self._enqueue(match_id, ply, client))
        self.deferring.add(task)
        task.add_done_callback(self.deferring.discard)

    async def _enqueue(self, match_id: str, ply: int, client: str) -> bool:
        try:
            return await enqueue_computer(self.app, match_id, ply, client)
        except Exception:  # the workers' sweep queues it later: the move is stored
            log.exception("could not queue the computer's move in match %s", match_id)
            return False

    def cancel(self, match_id: str) -> None:
        """Nothing to do: a queued job that finds the match changed plays nothing."""

    def cancel_all(self) -> None:
        """Nothing to do: queued jobs belong to the site, not to this process."""

    # -- admission -------------------------------------------------------------------

    async def waiting(self, queue: str) -> int:
        row = await self.app.connector.execute_query_one_async(COUNT_WAITING, queue=queue)
        return int(row["n"])

    async def of_client(self, client: str) -> int:
        row = await self.app.connector.execute_query_one_async(COUNT_CLIENT, client=client)
        return int(row["n"])

    async def admit(self, queue: str, client: str) -> None:
        """Refuse work beyond the caps of :class:`~slimetrail.web.settings.Limits`, counted
        over the jobs of every process: 429 when ``client`` has ``client_jobs`` jobs waiting
        or running, 503 when ``move_queue`` computer moves or ``analysis_queue`` analyses
        wait."""
        mine = await self.of_client(client)
        if mine >= self.limits.client_jobs:
            raise Refused(
                429,
                f"you already have {mine} computer moves or analyses queued or running "
                f"(at most {self.limits.client_jobs}); wait for them to finish",
                RETRY_AFTER,
            )
        cap = self.limits.move_queue if queue == COMPUTER_QUEUE else self.limits.analysis_queue
        waiting = await self.waiting(queue)
        if waiting >= cap:
            what = "computer moves" if queue == COMPUTER_QUEUE else "analyses"
            raise Refused(
                503,
                f"the server is busy: {waiting} {what} are waiting (at most {cap}); "
                "try again shortly",
                RETRY_AFTER,
            )

    async def admit_move(self, client: str) -> None:
        await self.admit(COMPUTER_QUEUE, client)

    # -- analyses --------------------------------------------------------------------

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], None]]:
        """What the process's listener hands to this queue: the answers of analyses."""
        return {ANALYSIS_CHANNEL: self.answered}

    def answered(self, payload: dict[str, Any]) -> None:
        """The listener's handler of :data:`ANALYSIS_CHANNEL`."""
        waiter = self.waiters.get(str(payload.get("key")))
        if waiter is not None and not waiter.done():
            waiter.set_result(payload["result"])

    async def analyse(
        self,
        game_id: str,
        options: dict[str, str],
        moves: list[str],
        time_limit: float,
        client: str,
        to_move: int,
    ) -> dict[str, Any]:
        await self.admit(ANALYSIS_QUEUE, client)
        key = secrets.token_urlsafe(12)
        start_by = self.limits.analysis_wait
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[key] = waiter
        try:
            job_id = await self.app.configure_task(
                ANALYSIS_TASK, queue=ANALYSIS_QUEUE, priority=ANALYSIS_PRIORITY
            ).defer_async(
                key=key,
                game=game_id,
                options=options,
                moves=moves,
                time_limit=time_limit,
                client=client,
                to_move=to_move,
                # A worker reaching the job after this skips it: nobody waits any more.
                deadline=time.time() + start_by + ANALYSIS_MARGIN,
            )
            try:
                return await asyncio.wait_for(asyncio.shield(waiter), start_by)
            except TimeoutError:
                pass
            # Cancelling succeeds only while no worker has taken the job.
            if await self.app.job_manager.cancel_job_by_id_async(job_id):
                raise Refused(
                    503,
                    f"the server is busy: no worker was free for this analysis within "
                    f"{start_by:g} s; try again shortly",
                    RETRY_AFTER,
                )
            try:
                return await asyncio.wait_for(waiter, hard_cap(time_limit) + ANALYSIS_MARGIN)
            except TimeoutError:
                return unsolved(to_move, "the analysis ran past its time; try again")
        finally:
            del self.waiters[key]


async def warm(pool: WorkerPool) -> None:
    """Start the pool's processes and load the AI and the solver in each."""
    try:
        await asyncio.gather(*(pool.run(warm_up) for _ in range(pool.workers)))
    except Exception:  # the first job shows the same problem in its own log line
        log.exception("the worker pool could not be warmed up")


class Worker:
    """``slimetrail worker``: runs the queue's jobs in process pools of its own."""

    def __init__(
        self,
        service: MatchService,
        url: str,
        *,
        workers: int,
        analysis_workers: int = 1,
        move_time: float = 1.0,
        stall_seconds: float = STALL_SECONDS,
    ) -> None:
        self.service, self.url, self.move_time = service, url, move_time
        self.workers, self.analysis_workers = workers, analysis_workers
        self.stall_seconds = stall_seconds
        self.pool, self.analysis_pool = WorkerPool(workers), WorkerPool(analysis_workers)
        self.app = make_queue_app(url)
        self.app.task(
            name=COMPUTER_TASK,
            queue=COMPUTER_QUEUE,
            retry=procrastinate.RetryStrategy(max_attempts=3, wait=2),
        )(self.play)
        self.app.task(name=ANALYSIS_TASK, queue=ANALYSIS_QUEUE)(self.analyse)

    async def play(self, match_id: str, ply: int, client: str = "") -> None:
        """The computer's move in ``match_id`` at the ply it is at now (``ply``: when queued)."""
        try:
            job = await run_in_threadpool(current_job, self.service, match_id)
        except ApiError:  # the match is gone (expired)
            return
        if job is None:
            return  # the match moved on, was taken back or is over: nothing to play
        now, game_id, options, fen, level = job
        seed = move_seed(match_id, now)
        # A failure (a pool process that died, a search past its hard cap) fails the job,
        # which is retried: the computer never plays a random move.
        text = await asyncio.wait_for(
            self.pool.run(computer_move, game_id, options, fen, level, self.move_time, seed),
            timeout=hard_cap(self.move_time) + ANALYSIS_MARGIN,
        )
        applied = await run_in_threadpool(self.service.computer_move, match_id, now, text)
        if applied is not None:
            with applied.lock:
                again, ply_now = applied.thinking, applied.ply
            if again:  # computer against computer, or several computer seats in a row
                await enqueue_computer(self.app, match_id, ply_now, client)

    async def analyse(
        self,
        key: str,
        game: str,
        options: dict[str, str],
        moves: list[str],
        time_limit: float,
        client: str,
        to_move: int,
        deadline: float,
    ) -> None:
        if time.time() > deadline:
            return
        try:
            result = await asyncio.wait_for(
                self.analysis_pool.run(analyse, game, options, moves, time_limit),
                timeout=hard_cap(time_limit) + ANALYSIS_MARGIN,
            )
        except Exception as exc:
            log.exception("analysis of %s %s failed", game, moves)
            result = unsolved(to_move, f"the analysis failed: {exc}")
        payload = json.dumps({"key": key, "result": result}, separators=(",", ":"))
        await self.app.connector.execute_query_async(
            NOTIFY, channel=ANALYSIS_CHANNEL, payload=payload
        )

    async def sweep(self) -> None:
        """Retry the jobs of dead workers; queue a move for every match whose computer is to
        move but has no job."""
        manager = self.app.job_manager
        for job in await manager.get_stalled_jobs(seconds_since_heartbeat=self.stall_seconds):
            log.warning("retrying job %s (%s): its worker stopped", job.id, job.task_name)
            try:
                await manager.retry_job(job)
            except UniqueViolation:
                # A job of the match was queued while this one ran (by a web process or a
                # sweep: the two cannot see each other's insert in time), and only one may
                # wait.  That one plays the move; ending this one frees the match's lock for
                # it (left as it was, the dead job would hold the lock for ever).
                log.warning("job %s ended: another job of its match waits to play", job.id)
                await manager.finish_job(job, status=Status.FAILED, delete_job=False)
        # Pending matches first, then the jobs: a job queued in between is seen.
        pending = await run_in_threadpool(self.service.pending_computer_moves)
        rows = await self.app.connector.execute_query_all_async(
            MATCHES_WITH_JOBS, task=COMPUTER_TASK
        )
        queued = {row["match_id"] for row in rows}
        for match_id, ply in pending:
            if match_id not in queued:
                await enqueue_computer(self.app, match_id, ply, "")

    async def sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:
                log.exception("the queue sweep failed; trying again")
            await asyncio.sleep(self.stall_seconds / 3)

    async def run(self) -> None:
        """Run until cancelled: the pools, the two procrastinate workers and the sweep."""
        await ensure_schema(self.url)
        heartbeat = {
            "update_heartbeat_interval": self.stall_seconds / 4,
            "stalled_worker_timeout": self.stall_seconds,
            "install_signal_handlers": False,
            "delete_jobs": "successful",
        }
        async with self.app.open_async():
            try:
                # Ready before taking a job: a job must not wait behind the JIT compilation.
                await asyncio.gather(warm(self.pool), warm(self.analysis_pool))
                print(READY, flush=True)
                await asyncio.gather(
                    self.sweep_forever(),
                    self.app.run_worker_async(
                        queues=[COMPUTER_QUEUE],
                        concurrency=self.workers,
                        name="computer",
                        **heartbeat,
                    ),
                    self.app.run_worker_async(
                        queues=[ANALYSIS_QUEUE],
                        concurrency=self.analysis_workers,
                        name="analysis",
                        **heartbeat,
                    ),
                )
            finally:
                self.pool.shutdown()
                self.analysis_pool.shutdown()
