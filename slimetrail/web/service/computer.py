"""The computer's moves and analyses: one interface, two backends chosen once.

* :class:`~slimetrail.web.service.pool.PoolComputer`: the web process's own pool of worker
  processes (SQLite or PostgreSQL, ``workers >= 1``);
* :class:`~slimetrail.web.service.queue.QueueComputer`: the durable job queue on PostgreSQL
  (``workers=0``), whose jobs ``slimetrail worker`` runs (:mod:`slimetrail.web.jobs`).

:func:`make_computer` picks one; nothing above it asks which.  A request that may make the
computer move takes its place first (:meth:`Computer.replying`), so a full queue refuses the
request before it changes anything, never the move after; both backends admit work by the
one policy of :mod:`slimetrail.web.service.admission`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from starlette.concurrency import run_in_threadpool

from slimetrail.core.game import Game
from slimetrail.web.live import Handler
from slimetrail.web.service.admission import SERVER, Admission, Refused
from slimetrail.web.service.matches import Live, MatchService, replay_moves
from slimetrail.web.settings import Limits

# Seconds a whole game review may search (an analysis: ``Limits.analyse_time``).
REVIEW_TIME = 60.0
T = TypeVar("T")


class Reservation(Protocol):
    """A place taken for a computer move before the change that calls for it."""

    def release(self) -> None:
        """Give the place back: the move will not be needed."""


class Computer(ABC):
    """Plays the computer's moves in matches and analyses positions for ``/api/analyse``."""

    # The in-process gate (its stats are read by tests and benches); None where the
    # jobs are counted elsewhere.
    admission: Admission | None = None
    limits: Limits

    @abstractmethod
    async def start(self) -> None:
        """Get ready (the process's notification listener is already listening)."""

    @abstractmethod
    async def stop(self) -> None:
        """Stop playing and free what :meth:`start` took."""

    def channels(self) -> dict[str, Handler]:
        """The notification channels this backend listens to (PostgreSQL), with handlers."""
        return {}

    @abstractmethod
    async def reserve(self, client: str) -> Reservation | None:
        """A place for a computer move of ``client``, or :class:`Refused` (429/503)."""

    @abstractmethod
    def follow(self, live: Live, client: str, reservation: Reservation | None = None) -> None:
        """The computer's move if it is to move in ``live``, on ``reservation`` (released if
        not needed) or, without one, as the server's own work (never refused)."""

    @abstractmethod
    def schedule(self, match_id: str, ply: int) -> None:
        """The computer's move at ``ply`` of a match found waiting for it (at startup)."""

    @abstractmethod
    def cancel(self, match_id: str) -> None:
        """Forget the computer's move in the match (it was taken back or resigned)."""

    def taken_back(self, live: Live) -> None:
        """After an undo: the move thought of is no longer wanted; the computer may be to
        move again in the position taken back to."""
        self.cancel(live.id)
        self.follow(live, SERVER)

    async def replying(
        self, client: str, may_reply: bool, change: Callable[[], tuple[Live, T]]
    ) -> tuple[Live, T]:
        """``change()`` in a thread, after which the computer may be to move: its reply is
        admitted first if ``may_reply`` (refused before the change is made, never after),
        then played."""
        reservation = await self.reserve(client) if may_reply else None
        try:
            live, answer = await run_in_threadpool(change)
        except BaseException:
            if reservation is not None:
                reservation.release()
            raise
        self.follow(live, client, reservation)
        return live, answer

    async def analyse(self, game: Game, texts: list[str], client: str) -> dict[str, Any]:
        """The exact values (or the engine's estimate) of the position after ``texts``."""
        state, moves, _ = await run_in_threadpool(replay_moves, game, texts)
        return await self.run_analysis(game, moves, state.to_move, client, self.limits.analyse_time)

    async def review(self, game: Game, moves: list[str], client: str) -> dict[str, Any]:
        """The review of the game ``moves`` (:mod:`slimetrail.review`), run as an analysis:
        admitted for ``client`` and searched by the workers; :class:`Refused` if it failed."""
        answer = await self.run_analysis(game, moves, 0, client, REVIEW_TIME, job="review")
        if not isinstance(answer.get("plies"), list):  # an analysis's answer to a failure
            raise Refused(503, f"the review could not be made: {answer['detail']}", 5)
        return answer

    @abstractmethod
    async def run_analysis(
        self,
        game: Game,
        moves: list[str],
        to_move: int,
        client: str,
        time_limit: float,
        job: str = "analyse",
    ) -> dict[str, Any]:
        """The analysis ``job`` (a name of :data:`slimetrail.web.workers.ANALYSIS_JOBS`) of
        checked ``moves``, admitted for ``client`` (or :class:`Refused`)."""


def make_computer(
    service: MatchService,
    db_url: str,
    *,
    workers: int,
    move_time: float,
    limits: Limits,
    on_move: Callable[[str], None],
) -> Computer:
    """The backend: ``workers`` processes of this server, or (0) the PostgreSQL job queue;
    ``on_move(match id)`` is told of each computer move this process makes."""
    # Imported here: the backends import this module (and procrastinate, the queue's, is
    # needed only with PostgreSQL).
    if workers == 0:
        from slimetrail.web.service.queue import QueueComputer

        return QueueComputer(db_url, limits)
    from slimetrail.web.service.pool import PoolComputer

    return PoolComputer(service, workers, move_time, limits, on_move)
