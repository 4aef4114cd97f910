"""``slimetrail worker``: runs the jobs of the shared queue (:mod:`slimetrail.web.service.queue`).

Workers run the jobs in their own process pools: computer moves first (their own
procrastinate worker, higher priority), analyses in a separate, smaller pool so that they can
never starve the games.  A job never plays twice into a game: a computer-move job plays the
move of whatever ply the match is at when it runs, and the match service applies it only if
the match is still at that ply (the version-checked write).  A job whose worker was killed is
found by its stale heartbeat and retried (:meth:`Worker.sweep`), and a match whose computer
is to move but has no job (its web process died between storing the move and enqueueing)
gets one.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time

import procrastinate
from procrastinate.exceptions import UniqueViolation
from procrastinate.jobs import Status
from starlette.concurrency import run_in_threadpool

from slimetrail.web.service.errors import NotFound
from slimetrail.web.service.matches import MatchService, move_seed
from slimetrail.web.service.pool import WorkerPool
from slimetrail.web.service.queue import (
    ANALYSIS_CHANNEL,
    ANALYSIS_MARGIN,
    ANALYSIS_QUEUE,
    ANALYSIS_TASK,
    COMPUTER_QUEUE,
    COMPUTER_TASK,
    enqueue_computer,
    ensure_schema,
    make_queue_app,
)
from slimetrail.web.workers import (
    ANALYSIS_JOBS,
    FAILED,
    computer_move,
    hard_cap,
    unsolved,
    warm_up,
)

log = logging.getLogger("slimetrail.web.jobs")

# A worker whose heartbeat is older than this is taken for dead and its jobs retried.
STALL_SECONDS = 30.0
# What ``slimetrail worker`` prints once it takes jobs.
READY = "slimetrail worker: ready"
MATCHES_WITH_JOBS = """
SELECT DISTINCT args->>'match_id' AS match_id FROM procrastinate_jobs
 WHERE task_name = %(task)s AND status IN ('todo', 'doing')
"""
NOTIFY = "SELECT pg_notify(%(channel)s, %(payload)s)"


def current_job(
    service: MatchService, match_id: str
) -> tuple[int, str, dict[str, str], str, int, float | None] | None:
    """The ply the match is at and what a worker needs for the computer's move there (game
    id, options, position, level, its clock's seconds), or ``None`` if the computer is not
    to move."""
    ply = service.locked(match_id, lambda live: live.ply)
    job = service.computer_job(match_id, ply)
    return None if job is None else (ply, *job)


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
        except NotFound:  # the match is gone (expired)
            return
        if job is None:
            return  # the match moved on, was taken back or is over: nothing to play
        now, game_id, options, fen, level, budget = job
        seed = move_seed(match_id, now)
        limit = self.move_time if budget is None else min(self.move_time, budget)
        # A failure (a pool process that died, a search past its hard cap) fails the job,
        # which is retried: the computer never plays a random move.
        text = await asyncio.wait_for(
            self.pool.run(computer_move, game_id, options, fen, level, limit, seed),
            timeout=hard_cap(limit) + ANALYSIS_MARGIN,
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
        job: str = "analyse",
    ) -> None:
        if time.time() > deadline:
            return
        try:
            result = await asyncio.wait_for(
                self.analysis_pool.run(ANALYSIS_JOBS[job], game, options, moves, time_limit),
                timeout=hard_cap(time_limit) + ANALYSIS_MARGIN,
            )
        except Exception as exc:
            log.exception("analysis of %s %s failed", game, moves)
            result = unsolved(to_move, FAILED, error=exc)
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
        # Both workers: heartbeats that let the sweep find a stalled worker's jobs.
        run_worker = functools.partial(
            self.app.run_worker_async,
            update_heartbeat_interval=self.stall_seconds / 4,
            stalled_worker_timeout=self.stall_seconds,
            install_signal_handlers=False,
            delete_jobs="successful",
        )
        async with self.app.open_async():
            try:
                # Ready before taking a job: a job must not wait behind the JIT compilation.
                await asyncio.gather(warm(self.pool), warm(self.analysis_pool))
                print(READY, flush=True)
                await asyncio.gather(
                    self.sweep_forever(),
                    run_worker(queues=[COMPUTER_QUEUE], concurrency=self.workers, name="computer"),
                    run_worker(
                        queues=[ANALYSIS_QUEUE], concurrency=self.analysis_workers, name="analysis"
                    ),
                )
            finally:
                self.pool.shutdown()
                self.analysis_pool.shutdown()
