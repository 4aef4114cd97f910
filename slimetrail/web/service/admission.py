"""Admission of computer moves and analyses: one policy, one set of caps and messages.

:class:`AdmissionPolicy` decides for both backends of :mod:`slimetrail.web.service.computer`
on the numbers of :class:`slimetrail.web.settings.Limits`: 429 when a client already has
``client_jobs`` jobs queued or running, 503 when ``move_queue`` computer moves or
``analysis_queue`` analyses wait, and 503 when no worker was free within the wait.  The
in-process pool counts its jobs here (:class:`Admission`); the durable queue counts them in
the database, over every process.

:class:`Admission` is the worker pool's gate.  The pool's own queue is first come, first
served and unbounded, so jobs are handed to it only when a worker is free (it never holds a
backlog); the backlog waits here instead, one queue per kind, and a freed worker takes the
oldest computer move before any analysis.  A job is admitted in two steps, so that a request
can be refused before it changes anything: :meth:`Admission.reserve` takes a place (or raises
:class:`Refused` at once), and :meth:`Admission.run` waits for a worker and runs the job;
:meth:`Admission.submit` does both.  A job's time limit starts when it starts: waiting is
never a reason to cut a search short.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from slimetrail.core.i18n import N_
from slimetrail.i18n import gettext
from slimetrail.web.settings import Limits

MOVE, ANALYSIS = "move", "analysis"
KINDS = (MOVE, ANALYSIS)  # in priority order
NAMES = {MOVE: N_("computer moves"), ANALYSIS: N_("analyses")}
JOB_NAMES = {MOVE: N_("computer move"), ANALYSIS: N_("analysis")}
RESERVED, RUNNING, DONE = "reserved", "running", "done"
SERVER = "server"  # the client the server's own work (warm-up, resumed games) counts against


class Refused(Exception):
    """Work the server will not take now: ``status`` 429 (this client) or 503 (everybody),
    ``retry_after`` the seconds after which trying again makes sense."""

    def __init__(self, status: int, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class AdmissionPolicy:
    """Whether a client may have one more job of a kind, by the jobs counted so far;
    ``retry_after(jobs)``: the seconds after which ``jobs`` jobs ahead have likely gone."""

    def __init__(self, limits: Limits, retry_after: Callable[[int], int]) -> None:
        self.limits, self.retry_after = limits, retry_after

    def capacity(self, kind: str) -> int:
        return self.limits.move_queue if kind == MOVE else self.limits.analysis_queue

    def check_client(self, mine: int) -> None:
        """429 when the client already has ``client_jobs`` jobs queued or running."""
        if mine >= self.limits.client_jobs:
            raise Refused(
                429,
                gettext(
                    "you already have %(mine)s computer moves or analyses queued or running "
                    "(at most %(most)s); wait for them to finish"
                )
                % {"mine": mine, "most": self.limits.client_jobs},
                self.retry_after(mine),
            )

    def check_queue(self, kind: str, waiting: int) -> None:
        """503 when the kind's queue is full."""
        if waiting >= self.capacity(kind):
            raise Refused(
                503,
                gettext(
                    "the server is busy: %(waiting)s %(kind)s are waiting (at most %(most)s); "
                    "try again shortly"
                )
                % {"waiting": waiting, "kind": gettext(NAMES[kind]), "most": self.capacity(kind)},
                self.retry_after(waiting),
            )

    def no_worker(self, kind: str, wait: float | None, waiting: int) -> Refused:
        """The refusal of a job that found no worker free within ``wait`` seconds."""
        return Refused(
            503,
            gettext(
                "the server is busy: no worker was free for this %(kind)s within %(wait)s s; "
                "try again shortly"
            )
            % {"kind": gettext(JOB_NAMES[kind]), "wait": f"{wait:g}"},
            self.retry_after(waiting),
        )


class Workers(Protocol):
    """What the gate needs of a pool: its size, and running a job in a worker."""

    workers: int

    async def run(self, func: Callable[..., Any], *args: Any) -> Any: ...


class Ticket:
    """A job's place: reserved (counted, not yet running), running (holds a worker), done."""

    def __init__(self, admission: Admission, kind: str, client: str) -> None:
        self.admission, self.kind, self.client = admission, kind, client
        self.state = RESERVED
        self.turn: asyncio.Future[None] | None = None  # while waiting for a worker

    def release(self) -> None:
        """Give the place back if the job will not run (a no-op once it started)."""
        self.admission.release(self)


class Admission:
    def __init__(self, pool: Workers, limits: Limits, job_seconds: float = 1.0) -> None:
        self.pool, self.limits, self.job_seconds = pool, limits, job_seconds
        self.policy = AdmissionPolicy(limits, self.retry_after)
        self.free = pool.workers
        self.queues: dict[str, deque[Ticket]] = {kind: deque() for kind in KINDS}
        self.waiting = dict.fromkeys(KINDS, 0)  # reserved tickets per kind
        self.per_client: dict[str, int] = {}
        self.started = dict.fromkeys(KINDS, 0)  # jobs run so far, per kind
        # reserve() and release() of a reserved ticket may be called from request threads;
        # everything touching the futures runs on the event loop.
        self.lock = threading.Lock()

    def reserve(self, kind: str, client: str, *, force: bool = False) -> Ticket:
        """A place in ``kind``'s queue for ``client``, or :class:`Refused`; ``force``: the
        server's own work (a game resumed at startup, a retry) is never refused."""
        if kind not in KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        with self.lock:
            if not force:
                self.policy.check_client(self.per_client.get(client, 0))
                self.policy.check_queue(kind, self.waiting[kind])
            self.waiting[kind] += 1
            self.per_client[client] = self.per_client.get(client, 0) + 1
        return Ticket(self, kind, client)

    def retry_after(self, jobs: int) -> int:
        """Seconds until ``jobs`` jobs ahead have likely gone through the workers."""
        return max(1, math.ceil(self.job_seconds * (1 + jobs / self.pool.workers)))

    async def submit(
        self, kind: str, client: str, func: Callable[..., Any], *args: Any, **options: Any
    ) -> Any:
        """``func(*args)`` in a worker, or :class:`Refused`; ``options`` as for :meth:`run`."""
        return await self.run(self.reserve(kind, client), func, *args, **options)

    async def run(
        self,
        ticket: Ticket,
        func: Callable[..., Any],
        *args: Any,
        wait: float | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Wait for a worker (at most ``wait`` seconds, then 503) and run ``func(*args)``
        there, for at most ``timeout`` seconds once it has started (then TimeoutError).

        The worker stays counted as busy until the job really ends, even if the caller
        stops waiting for it: a worker process cannot be interrupted from here."""
        if ticket.state != RESERVED:
            raise ValueError("a ticket runs one job")
        try:
            await asyncio.wait_for(self._turn(ticket), wait)
        except TimeoutError:
            self._done(ticket)  # reserved, or given a worker just as the wait ran out
            raise self.policy.no_worker(ticket.kind, wait, self.waiting[ticket.kind]) from None
        except BaseException:
            self._done(ticket)
            raise
        job = asyncio.ensure_future(self.pool.run(func, *args))
        job.add_done_callback(lambda done: self._finished(ticket, done))
        return await asyncio.wait_for(asyncio.shield(job), timeout)

    async def _turn(self, ticket: Ticket) -> None:
        if self.free > 0:
            self.free -= 1
            self._start(ticket)
            return
        ticket.turn = asyncio.get_running_loop().create_future()
        self.queues[ticket.kind].append(ticket)
        await ticket.turn  # set by _hand_over, which has started the ticket

    def _start(self, ticket: Ticket) -> None:
        with self.lock:
            ticket.state = RUNNING
            self.waiting[ticket.kind] -= 1
            self.started[ticket.kind] += 1

    def _finished(self, ticket: Ticket, job: asyncio.Future[Any]) -> None:
        if not job.cancelled():
            job.exception()  # retrieved: the caller may have stopped waiting for it
        self._done(ticket)

    def release(self, ticket: Ticket) -> None:
        """Give back a reserved place whose job will not run; a running job keeps its worker
        until it ends (:meth:`_done`), whoever stopped waiting for it."""
        if ticket.state == RESERVED:
            self._done(ticket)

    def _done(self, ticket: Ticket) -> None:
        with self.lock:
            state, ticket.state = ticket.state, DONE
            if state == DONE:
                return
            if state == RESERVED:
                self.waiting[ticket.kind] -= 1
            count = self.per_client[ticket.client] - 1
            if count:
                self.per_client[ticket.client] = count
            else:
                del self.per_client[ticket.client]
        if state == RESERVED and ticket.turn is not None and ticket in self.queues[ticket.kind]:
            self.queues[ticket.kind].remove(ticket)  # it stopped waiting (cancelled)
        if state == RUNNING:
            self._hand_over()

    def _hand_over(self) -> None:
        """A worker is free: to the first waiting job of the most urgent kind."""
        for kind in KINDS:
            queue = self.queues[kind]
            while queue:
                ticket = queue.popleft()
                assert ticket.turn is not None
                if ticket.turn.done():
                    continue
                self._start(ticket)
                ticket.turn.set_result(None)
                return
        self.free += 1

    async def start(self, warm_up: Callable[[], Any]) -> None:
        """Run ``warm_up`` once per worker, as the server's own work ahead of any request's."""
        tickets = [self.reserve(MOVE, SERVER, force=True) for _ in range(self.pool.workers)]
        await asyncio.gather(*(self.run(ticket, warm_up) for ticket in tickets))

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "free_workers": self.free,
                "waiting": dict(self.waiting),
                "started": dict(self.started),
                "clients": len(self.per_client),
            }
