"""The durable backend: computer moves and analyses on a shared job queue (procrastinate on
PostgreSQL), run by ``slimetrail worker`` (:mod:`slimetrail.web.jobs`).

Why procrastinate: the site already needs PostgreSQL to run several processes, and
procrastinate keeps its jobs in that same database (no Redis or broker to run, back up and
watch), takes them with ``SELECT ... FOR UPDATE SKIP LOCKED`` (each job goes to one worker),
wakes workers with ``LISTEN/NOTIFY`` (no polling delay), has per-key ``lock`` (one job of a
match runs at a time) and ``queueing_lock`` (one waiting job per match), priorities, retries,
and worker heartbeats from which a job whose worker died can be found and retried.

Web processes (``slimetrail serve --db postgresql://... --workers 0``) enqueue through
:class:`QueueComputer`: a computer move whenever the computer is to move, an analysis per
``/api/analyse`` request (whose answer comes back by ``NOTIFY`` on :data:`ANALYSIS_CHANNEL`).
Admission is decided on the jobs in the database, so the caps hold across every process.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any

import procrastinate
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.types import JSONValue

from slimetrail.core.game import Game
from slimetrail.web.live import Handler, libpq_url
from slimetrail.web.service.admission import ANALYSIS, MOVE, AdmissionPolicy
from slimetrail.web.service.computer import Computer, Reservation
from slimetrail.web.service.matches import Live
from slimetrail.web.settings import Limits
from slimetrail.web.workers import PAST_TIME, hard_cap, unsolved

log = logging.getLogger("slimetrail.web.jobs")

COMPUTER_QUEUE, ANALYSIS_QUEUE = "computer", "analysis"
# The admission kind of each queue's jobs.
KIND_OF = {COMPUTER_QUEUE: MOVE, ANALYSIS_QUEUE: ANALYSIS}
COMPUTER_TASK, ANALYSIS_TASK = "slimetrail.computer_move", "slimetrail.analyse"
ANALYSIS_CHANNEL = "slimetrail_analysis"
COMPUTER_PRIORITY, ANALYSIS_PRIORITY = 10, 0
# How long a web process waits for an analysis beyond its time cap.
ANALYSIS_MARGIN = 10.0
# Retry-After of a refusal: the workers are elsewhere, so a short, fixed guess.
RETRY_AFTER = 5
# Any two processes starting at once must not both create the queue's tables.
SCHEMA_LOCK = 0x5E1E_7A11

# Jobs waiting in one queue, and one client's jobs waiting or running in any.
COUNT_WAITING = """
SELECT count(*) AS n FROM procrastinate_jobs WHERE queue_name = %(queue)s AND status = 'todo'
"""
COUNT_CLIENT = """
SELECT count(*) AS n FROM procrastinate_jobs
 WHERE status IN ('todo', 'doing') AND args->>'client' = %(client)s
"""


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


class QueueComputer(Computer):
    """The web side: enqueue computer moves and analyses, admit work by the jobs queued.

    A queued job belongs to the site, not to this process: nothing is cancelled here (a job
    that finds the match changed plays nothing)."""

    def __init__(self, url: str, limits: Limits | None = None) -> None:
        self.app = make_queue_app(url)
        self.url = url
        self.limits = limits or Limits()
        self.policy = AdmissionPolicy(self.limits, lambda _jobs: RETRY_AFTER)
        self.deferring: set[asyncio.Task[bool]] = set()
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def start(self) -> None:
        await ensure_schema(self.url)
        await self.app.open_async()

    async def stop(self) -> None:
        if self.deferring:
            await asyncio.gather(*self.deferring, return_exceptions=True)
        await self.app.close_async()

    # -- computer moves --------------------------------------------------------------

    async def reserve(self, client: str) -> Reservation | None:
        """Refused (429/503) by the jobs counted over every process; no place is held here:
        the move's job is its place once queued."""
        await self.admit(COMPUTER_QUEUE, client)
        return None

    def follow(self, live: Live, client: str, reservation: Reservation | None = None) -> None:
        """Queue the computer's move if it is to move in this match, in ``client``'s name."""
        with live.lock:
            thinking, match_id, ply = live.thinking, live.id, live.ply
        if thinking:
            self.enqueue(match_id, ply, client)

    def schedule(self, match_id: str, ply: int) -> None:
        self.enqueue(match_id, ply, "")

    def enqueue(self, match_id: str, ply: int, client: str) -> None:
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

    # -- admission -------------------------------------------------------------------

    async def waiting(self, queue: str) -> int:
        row = await self.app.connector.execute_query_one_async(COUNT_WAITING, queue=queue)
        return int(row["n"])

    async def of_client(self, client: str) -> int:
        row = await self.app.connector.execute_query_one_async(COUNT_CLIENT, client=client)
        return int(row["n"])

    async def admit(self, queue: str, client: str) -> None:
        """The admission policy on the jobs of every process: ``client``'s jobs waiting or
        running, then the jobs waiting in ``queue``."""
        self.policy.check_client(await self.of_client(client))
        self.policy.check_queue(KIND_OF[queue], await self.waiting(queue))

    # -- analyses --------------------------------------------------------------------

    def channels(self) -> dict[str, Handler]:
        """The answers of analyses come back on :data:`ANALYSIS_CHANNEL`."""
        return {ANALYSIS_CHANNEL: self.answered}

    def answered(self, payload: dict[str, Any]) -> None:
        waiter = self.waiters.get(str(payload.get("key")))
        if waiter is not None and not waiter.done():
            waiter.set_result(payload["result"])

    async def run_analysis(
        self,
        game: Game,
        moves: list[str],
        to_move: int,
        client: str,
        time_limit: float,
        job: str = "analyse",
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
                job=job,
                game=game.id,
                options=dict[str, JSONValue](game.option_texts()),
                moves=list[JSONValue](moves),
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
                raise self.policy.no_worker(ANALYSIS, start_by, 0)
            try:
                return await asyncio.wait_for(waiter, hard_cap(time_limit) + ANALYSIS_MARGIN)
            except TimeoutError:
                return unsolved(to_move, PAST_TIME)
        finally:
            del self.waiters[key]
