"""The in-process backend: computer moves and analyses in this server's own worker processes.

Computer moves run as asyncio tasks (one per match) that await the process pool through its
gate (:class:`~slimetrail.web.service.admission.Admission`: computer moves first, capped
queues; the worker gets the position, not the history), so the event loop only ever routes
messages.  A failed move (the database, a worker that died or overran) is retried, and at
startup every unfinished match whose computer is to move gets its move again, so a server
killed mid-game carries on where it was.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.concurrency import run_in_threadpool

from slimetrail.core.game import Game
from slimetrail.web.service.admission import ANALYSIS, MOVE, SERVER, Admission, Refused, Ticket
from slimetrail.web.service.computer import Computer, Reservation
from slimetrail.web.service.matches import Live, MatchService, move_seed
from slimetrail.web.settings import Limits, warm_up_wanted
from slimetrail.web.workers import (
    ANALYSIS_JOBS,
    FAILED,
    PAST_TIME,
    computer_move,
    hard_cap,
    unsolved,
    warm_up,
)

log = logging.getLogger("slimetrail.web")

# How long the event loop waits for a worker beyond the worker's own hard cap.
POOL_MARGIN = 10.0
PLAY_ATTEMPTS, RETRY_DELAY = 3, 2.0


def watch_parent() -> None:
    """Worker initializer: exit once the server process is gone (even after kill -9)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


class SpawnContext(multiprocessing.context.SpawnContext):
    """The ``spawn`` start method (forking a process that runs threads, the server's, is
    unsafe) that remembers the worker processes it starts, so that a stopping server can end
    them (a pool only waits for its workers to finish their jobs)."""

    def __init__(self) -> None:
        super().__init__()
        self.processes: weakref.WeakSet[multiprocessing.process.BaseProcess] = weakref.WeakSet()

    def Process(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        process = multiprocessing.context.SpawnProcess(*args, **kwargs)
        self.processes.add(process)
        return process


class WorkerPool:
    """A bounded process pool, created on first use; jobs are awaited from the event loop."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self.context = SpawnContext()

    @property
    def executor(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=self.context,
                initializer=watch_parent,
            )
        return self._executor

    async def run(self, func: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor, func, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool and try once more.
            self.shutdown()
            return await loop.run_in_executor(self.executor, func, *args)

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def stop(self) -> None:
        """End the workers (a job under way is of no use to a stopping server) and join the
        pool, which closes its queues: a process leaving with them open, as one does when
        uvicorn re-raises the stopping signal, leaves their semaphores to the resource tracker
        ("leaked semaphore objects")."""
        if self._executor is None:
            return
        for process in list(self.context.processes):
            if process.is_alive():
                process.terminate()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None


class PoolComputer(Computer):
    """Plays the computer's moves: one asyncio task per match, its search admitted to the
    worker pool as a computer move (before any analysis).  However long it waited, the move
    is the level's own search: nothing here ever plays a random move."""

    def __init__(
        self,
        service: MatchService,
        workers: int,
        move_time: float,
        limits: Limits,
        on_move: Callable[[str], None],
    ) -> None:
        self.service, self.move_time, self.limits, self.on_move = (
            service,
            move_time,
            limits,
            on_move,
        )
        self.pool = WorkerPool(workers)
        self.admission: Admission = Admission(self.pool, limits, job_seconds=move_time)
        self.tasks: dict[str, tuple[int, asyncio.Task[None]]] = {}
        self.warming: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if warm_up_wanted():
            self.warming = asyncio.create_task(self.warm())

    async def warm(self) -> None:
        try:
            await self.admission.start(warm_up)
        except Exception:  # the first real job will show the same problem to its caller
            log.exception("the worker pool could not be warmed up")

    async def stop(self) -> None:
        if self.warming is not None:
            self.warming.cancel()
        for match_id in list(self.tasks):
            self.cancel(match_id)
        self.pool.stop()

    async def reserve(self, client: str) -> Ticket:
        return self.admission.reserve(MOVE, client)

    def follow(self, live: Live, client: str, reservation: Reservation | None = None) -> None:
        with live.lock:
            thinking, match_id, ply = live.thinking, live.id, live.ply
        ticket = reservation if isinstance(reservation, Ticket) else None
        if thinking:
            self.play(match_id, ply, ticket)
        elif ticket is not None:
            ticket.release()

    def schedule(self, match_id: str, ply: int) -> None:
        self.play(match_id, ply, None)

    def play(self, match_id: str, ply: int, ticket: Ticket | None) -> None:
        """The computer's move at ``ply`` on ``ticket`` (the server's own without one)."""
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
        game_id, options, fen, level, budget = job
        seed = move_seed(match_id, ply)
        # Under a clock the computer moves within its level's limit and what its clock allows.
        limit = self.move_time if budget is None else min(self.move_time, budget)
        # The time limit starts with the search: waiting for a worker does not count.
        text = await self.admission.run(
            ticket,
            computer_move,
            game_id,
            options,
            fen,
            level,
            limit,
            seed,
            timeout=hard_cap(limit) + POOL_MARGIN,
        )
        applied = await run_in_threadpool(self.service.computer_move, match_id, ply, text)
        if applied is not None:
            self.on_move(match_id)
            self.follow(applied, SERVER)

    async def run_analysis(
        self,
        game: Game,
        moves: list[str],
        to_move: int,
        client: str,
        time_limit: float,
        job: str = "analyse",
    ) -> dict[str, Any]:
        try:
            # Refused (429/503) when this client or the analysis queue is full.
            return await self.admission.submit(
                ANALYSIS,
                client,
                ANALYSIS_JOBS[job],
                game.id,
                game.option_texts(),
                moves,
                time_limit,
                wait=self.limits.analysis_wait,
                timeout=hard_cap(time_limit) + POOL_MARGIN,
            )
        except Refused:
            raise
        except TimeoutError:
            return unsolved(to_move, PAST_TIME)
        except Exception as exc:  # a failed solve: say so, never a 500
            log.exception("analysis of %s %s failed", game.spec, moves)
            return unsolved(to_move, FAILED, error=exc)
