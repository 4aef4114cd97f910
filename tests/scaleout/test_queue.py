"""The pieces of the scale-out on one PostgreSQL, in this process: notifications sent in a
transaction, admission counted over the queued jobs, the CLI's refusals."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text

from slimetrail.core.registry import get_game
from slimetrail.web import jobs
from slimetrail.web.live import MATCH_CHANNEL, Listener, MatchAnnouncer, libpq_url, notify
from slimetrail.web.service import queue as job_queue
from slimetrail.web.service.admission import Refused
from slimetrail.web.service.errors import MatchError
from slimetrail.web.service.matches import MatchService
from slimetrail.web.settings import Limits
from slimetrail.web.storage.tables import make_engine, make_sessionmaker, upgrade


@pytest.fixture
def db_url(pg_database: Callable[[], str]) -> str:
    return pg_database()


def test_a_notification_is_delivered_on_commit_and_never_on_rollback(db_url: str) -> None:
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    received: list[dict[str, Any]] = []

    async def scenario() -> None:
        listener = Listener(db_url, {MATCH_CHANNEL: received.append})
        await listener.start()
        try:

            def send(payload: dict[str, Any], commit: bool) -> None:
                with sessions() as session:
                    notify(session, MATCH_CHANNEL, payload)
                    session.commit() if commit else session.rollback()

            await asyncio.to_thread(send, {"id": "rolled-back"}, False)
            await asyncio.to_thread(send, {"id": "kept"}, True)
            # Notifications arrive in commit order: once a last one has come, whatever the
            # first two were going to deliver has come before it.
            await asyncio.to_thread(send, {"id": "last"}, True)
            async with asyncio.timeout(30):
                while {"id": "last"} not in received:
                    await asyncio.sleep(0.02)
        finally:
            await listener.stop()

    asyncio.run(scenario())
    engine.dispose()
    assert received == [{"id": "kept"}, {"id": "last"}]


def test_a_listener_whose_connection_is_cut_reconnects_and_says_so(db_url: str) -> None:
    """PostgreSQL keeps nothing for a disconnected listener: after reconnecting, the
    listener calls ``on_reconnect`` (the app re-sends every watched match) and hears again."""
    import psycopg

    received: list[dict[str, Any]] = []
    reconnects: list[int] = []

    async def on_reconnect() -> None:
        reconnects.append(1)

    async def scenario() -> None:
        listener = Listener(db_url, {MATCH_CHANNEL: received.append}, on_reconnect)
        await listener.start()
        try:
            async with await psycopg.AsyncConnection.connect(
                libpq_url(db_url), autocommit=True
            ) as other:
                await other.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE query LIKE 'LISTEN%%' AND pid <> pg_backend_pid()"
                    " AND datname = current_database()"
                )
                async with asyncio.timeout(30):
                    while not reconnects:
                        await asyncio.sleep(0.05)
                    await other.execute("SELECT pg_notify(%s, %s)", (MATCH_CHANNEL, '{"id": 1}'))
                    while not received:
                        await asyncio.sleep(0.05)
        finally:
            await listener.stop()

    asyncio.run(scenario())
    assert reconnects == [1] and received == [{"id": 1}]


def test_every_stored_change_of_a_match_is_announced_with_its_version(db_url: str) -> None:
    engine = make_engine(db_url)
    upgrade(engine)
    announced: list[tuple[str, int]] = []

    class Recorder(MatchAnnouncer):
        def __call__(self, session: Any, match_id: str, version: int) -> None:
            super().__call__(session, match_id, version)
            announced.append((match_id, version))

    service = MatchService(make_sessionmaker(engine), on_change=Recorder("me"))
    live, token = service.create("slimetrail", {}, opponent="hotseat")
    service.move(live.id, token, "c3", 0)
    with pytest.raises(MatchError):  # refused: nothing stored, nothing announced
        service.move(live.id, token, "c3", 0)
    service.undo(live.id, token, 1)
    service.resign(live.id, token)
    engine.dispose()
    # The creation too (version 0): a bot connected to another process may be to move.
    assert announced == [(live.id, 0), (live.id, 1), (live.id, 2), (live.id, 3)]


def test_admission_counts_the_jobs_queued_in_the_database(db_url: str) -> None:
    """Caps hold across processes: two queues (as two web processes would) share one count,
    with the numbers of the server's Limits."""
    limits = Limits(client_jobs=2, analysis_queue=3)

    async def scenario() -> list[int]:
        first, second = (
            job_queue.QueueComputer(db_url, limits),
            job_queue.QueueComputer(db_url, limits),
        )
        await first.start()
        await second.start()
        statuses = []

        async def ask(queue: job_queue.QueueComputer, kind: str, client: str) -> None:
            try:
                await queue.admit(kind, client)
            except Refused as refused:
                statuses.append(refused.status)
                return
            statuses.append(200)
            await queue.app.configure_task(job_queue.ANALYSIS_TASK, queue=kind).defer_async(
                client=client
            )

        try:
            await ask(first, job_queue.ANALYSIS_QUEUE, "x")
            await ask(second, job_queue.ANALYSIS_QUEUE, "x")
            await ask(first, job_queue.ANALYSIS_QUEUE, "x")  # x has 2 jobs: 429
            await ask(second, job_queue.ANALYSIS_QUEUE, "y")
            await ask(first, job_queue.ANALYSIS_QUEUE, "z")  # 3 analyses wait: 503 for anyone
            await ask(second, job_queue.COMPUTER_QUEUE, "z")  # computer moves are counted apart
            assert await first.of_client("z") == 1
            assert await first.waiting(job_queue.COMPUTER_QUEUE) == 1
        finally:
            await first.stop()
            await second.stop()
        return statuses

    assert asyncio.run(scenario()) == [200, 200, 429, 200, 503, 200]


def test_an_analysis_no_worker_takes_in_time_is_refused_and_taken_off_the_queue(
    db_url: str,
) -> None:
    queue = job_queue.QueueComputer(db_url, Limits(analysis_wait=0.5))

    async def scenario() -> tuple[int, int]:
        await queue.start()
        try:
            with pytest.raises(Refused) as refused:
                await queue.run_analysis(get_game("slimetrail"), ["c3"], 1, "x", 1.0)
            return refused.value.status, await queue.waiting(job_queue.ANALYSIS_QUEUE)
        finally:
            await queue.stop()

    assert asyncio.run(scenario()) == (503, 0)


def test_one_waiting_computer_job_per_match(db_url: str) -> None:
    async def scenario() -> list[bool]:
        queue = job_queue.QueueComputer(db_url)
        await queue.start()
        try:
            return [
                await job_queue.enqueue_computer(queue.app, "m1", 4, "c"),
                await job_queue.enqueue_computer(queue.app, "m1", 5, "c"),  # the waiting one plays
                await job_queue.enqueue_computer(queue.app, "m2", 0, "c"),
            ]
        finally:
            await queue.stop()

    assert asyncio.run(scenario()) == [True, False, True]


def test_the_queue_tables_are_made_once_by_processes_starting_together(db_url: str) -> None:
    async def scenario() -> None:
        await asyncio.gather(*(job_queue.ensure_schema(db_url) for _ in range(3)))

    asyncio.run(scenario())
    engine = make_engine(db_url)
    with engine.connect() as connection:
        assert connection.scalar(text("SELECT count(*) FROM procrastinate_jobs")) == 0
    engine.dispose()


def test_libpq_url_drops_the_driver_and_refuses_other_databases() -> None:
    assert libpq_url("postgresql+psycopg://u:p@h:5/d") == "postgresql://u:p@h:5/d"
    assert libpq_url("postgres://h/d") == "postgresql://h/d"
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        libpq_url("sqlite:///x.db")


def test_serve_without_workers_needs_postgresql(tmp_path, capsys) -> None:
    from slimetrail.cli.main import main

    assert main(["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}", "--workers", "0"]) == 2
    assert "needs PostgreSQL" in capsys.readouterr().err


def test_worker_needs_postgresql(tmp_path, capsys) -> None:
    from slimetrail.cli.main import main

    assert main(["worker", "--db", f"sqlite:///{tmp_path / 'x.db'}"]) == 2
    assert "the job queue needs PostgreSQL" in capsys.readouterr().err


def test_the_sweep_queues_a_move_for_a_computer_turn_that_has_no_job(db_url: str) -> None:
    """A web process killed between storing a human move and queueing the reply leaves a
    match whose computer is to move without a job: a worker's sweep queues one, once."""
    engine = make_engine(db_url)
    upgrade(engine)
    service = MatchService(make_sessionmaker(engine))
    waiting, _ = service.create("slimetrail", {}, opponent="computer", side=2)
    service.create("slimetrail", {}, opponent="computer", side=1)  # the human is to move
    worker = jobs.Worker(service, db_url, workers=1)

    async def scenario() -> list[list[str]]:
        await job_queue.ensure_schema(db_url)
        async with worker.app.open_async():
            counts = []
            for _ in range(2):  # a second sweep finds the job and queues no other
                await worker.sweep()
                rows = await worker.app.connector.execute_query_all_async(
                    jobs.MATCHES_WITH_JOBS, task=job_queue.COMPUTER_TASK
                )
                counts.append(sorted(row["match_id"] for row in rows))
            return counts

    assert asyncio.run(scenario()) == [[waiting.id], [waiting.id]]
    engine.dispose()


def test_a_dead_workers_job_whose_match_has_a_waiting_job_is_ended_not_retried(
    db_url: str,
) -> None:
    """A second job of a match can be queued while the first runs (a sweep and a web process
    racing); if the first one's worker dies, retrying it would break the one-waiting-job rule
    and leave its lock held for ever: the sweep ends it, and the waiting job can run."""
    engine = make_engine(db_url)
    upgrade(engine)
    worker = jobs.Worker(MatchService(make_sessionmaker(engine)), db_url, workers=1)

    async def scenario() -> tuple[str, bool, bool]:
        await job_queue.ensure_schema(db_url)
        async with worker.app.open_async():
            manager = worker.app.job_manager
            dead = await manager.register_worker()
            assert await job_queue.enqueue_computer(worker.app, "m1", 0, "c")
            running = await manager.fetch_job([job_queue.COMPUTER_QUEUE], worker_id=dead)
            assert running is not None
            assert await job_queue.enqueue_computer(worker.app, "m1", 0, "c")  # a second one
            await manager.unregister_worker(dead)  # its heartbeat is gone: it is stalled
            await worker.sweep()
            ended = list(await manager.list_jobs_async(id=running.id))
            alive = await manager.register_worker()
            waiting = await manager.fetch_job([job_queue.COMPUTER_QUEUE], worker_id=alive)
            again = await manager.fetch_job([job_queue.COMPUTER_QUEUE], worker_id=alive)
            return (
                ended[0].status,
                waiting is not None and waiting.id != running.id,
                again is None,
            )

    assert asyncio.run(scenario()) == ("failed", True, True)
    engine.dispose()
