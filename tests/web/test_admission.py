"""Admission to the worker pool (issue 14, item 1): computer moves before analyses, capped
queues refused at once (429 per client, 503 in total), and never a random computer move.

The unit tests drive :class:`Admission` over a pool of in-process jobs (asyncio events, no
worker processes); the API tests run the app with one worker process and slow analyses.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from waiting import wait_until

from slimetrail.core.registry import get_game
from slimetrail.web import workers
from slimetrail.web.app import create_app
from slimetrail.web.service.admission import ANALYSIS, MOVE, Admission, Refused
from slimetrail.web.service.matches import move_seed
from slimetrail.web.settings import Limits
from slimetrail.web.storage.tables import MatchRow

# -- the admission class over fake workers -------------------------------------------------


class FakePool:
    """``workers`` slots; a job is an ``asyncio.Event`` the test sets to end it."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.running: list[str] = []
        self.log: list[str] = []

    async def run(self, name: str, done: asyncio.Event) -> str:
        self.running.append(name)
        self.log.append(name)
        await done.wait()
        self.running.remove(name)
        return name


def admission(workers: int = 1, **limits: Any) -> tuple[Admission, FakePool]:
    pool = FakePool(workers)
    return Admission(pool, Limits(**limits), job_seconds=1.0), pool  # type: ignore[arg-type]


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_free_worker_takes_a_computer_move_before_any_analysis() -> None:
    async def scenario() -> list[str]:
        gate, pool = admission(workers=1)
        events = {name: asyncio.Event() for name in ("a1", "a2", "m1", "a3", "m2")}
        tasks = []
        for name in events:  # a1 takes the worker; the rest queue in this order
            kind = MOVE if name.startswith("m") else ANALYSIS
            tasks.append(asyncio.create_task(gate.submit(kind, name, name, events[name])))
            await settle()
        assert pool.running == ["a1"]
        for name in ("a1", "m1", "m2", "a2", "a3"):
            events[name].set()
            await settle()
        assert [task.result() for task in tasks] == list(events)
        return pool.log

    assert asyncio.run(scenario()) == ["a1", "m1", "m2", "a2", "a3"]


def test_queues_are_capped_per_client_and_in_total() -> None:
    async def scenario() -> None:
        gate, pool = admission(workers=1, client_jobs=2, move_queue=2, analysis_queue=1)
        done = asyncio.Event()
        first = asyncio.create_task(gate.submit(MOVE, "alice", "m", done))
        await settle()
        gate.reserve(MOVE, "alice").release()  # her second job fits ...
        held = gate.reserve(MOVE, "alice")
        with pytest.raises(Refused) as refused:  # ... a third does not
            gate.reserve(ANALYSIS, "alice")
        assert refused.value.status == 429 and "at most 2" in refused.value.message
        assert refused.value.retry_after >= 1
        held.release()
        gate.reserve(MOVE, "bob")
        gate.reserve(MOVE, "carol")  # two moves wait: the move queue is full
        with pytest.raises(Refused) as refused:
            gate.reserve(MOVE, "dave")
        assert (
            refused.value.status == 503 and "2 computer moves are waiting" in refused.value.message
        )
        gate.reserve(ANALYSIS, "dave")  # analyses have a queue of their own
        with pytest.raises(Refused) as refused:
            gate.reserve(ANALYSIS, "erin")
        assert refused.value.status == 503 and "analyses" in refused.value.message
        gate.reserve(MOVE, "server", force=True)  # the server's own moves are never refused
        done.set()
        await first
        assert gate.stats()["waiting"] == {MOVE: 3, ANALYSIS: 1}
        assert pool.log == ["m"]

    asyncio.run(scenario())


def test_places_are_given_back_whatever_happens_to_the_caller() -> None:
    async def scenario() -> None:
        gate, pool = admission(workers=1, client_jobs=5)
        blocker, job = asyncio.Event(), asyncio.Event()
        running = asyncio.create_task(gate.submit(MOVE, "a", "blocker", blocker))
        await settle()
        waiting = asyncio.create_task(gate.submit(MOVE, "b", "waiting", job))
        await settle()
        waiting.cancel()  # gave up while queued: its place is gone at once
        await settle()
        assert gate.stats()["waiting"][MOVE] == 0 and "b" not in gate.per_client
        running.cancel()  # gave up while running: the worker stays busy until the job ends
        await settle()
        assert gate.free == 0 and pool.running == ["blocker"]
        later = asyncio.create_task(gate.submit(MOVE, "c", "later", job))
        await settle()
        assert pool.running == ["blocker"]
        blocker.set()
        await settle()
        assert pool.running == ["later"]
        job.set()
        assert await later == "later"
        assert gate.free == 1 and gate.per_client == {}

    asyncio.run(scenario())


def test_an_analysis_waits_at_most_its_wait_then_is_refused() -> None:
    async def scenario() -> None:
        gate, _ = admission(workers=1)
        blocker = asyncio.Event()
        running = asyncio.create_task(gate.submit(MOVE, "a", "blocker", blocker))
        await settle()
        with pytest.raises(Refused) as refused:
            await gate.submit(ANALYSIS, "b", "late", asyncio.Event(), wait=0.05)
        assert refused.value.status == 503 and "no worker was free" in refused.value.message
        assert gate.stats()["waiting"][ANALYSIS] == 0
        blocker.set()
        await running

    asyncio.run(scenario())


# -- the API: one worker process, analyses that take SHORT seconds ------------------------

HARD = {"game": "slimetrail", "options": {"size": "15"}}  # not solved within the time
SHORT = 1.5  # seconds an analysis searches


def app_client(tmp_path, limits: Limits, client: str = "testclient") -> TestClient:
    app = create_app(
        f"sqlite:///{tmp_path / 'admission.db'}", workers=1, move_time=0.2, limits=limits
    )
    return TestClient(app, client=(client, 50000))


def matches(client: TestClient) -> int:
    with client.app.state.service.sessions() as session:
        return session.scalar(select(func.count()).select_from(MatchRow))


def in_thread(call, *args, **kwargs) -> tuple[threading.Thread, list]:
    result: list = []
    thread = threading.Thread(target=lambda: result.append(call(*args, **kwargs)))
    thread.start()
    return thread, result


@pytest.mark.slow  # the worker loads the solver first
def test_full_queues_are_refused_at_once_with_429_and_503(tmp_path) -> None:
    limits = Limits(client_jobs=2, analysis_queue=1, analysis_wait=300, analyse_time=SHORT)
    with app_client(tmp_path, limits) as client:
        gate = client.app.state.admission
        first, _ = in_thread(client.post, "/api/analyse", json=HARD)
        wait_until(lambda: gate.stats()["started"][ANALYSIS] == 1, timeout=120)
        second, answers = in_thread(client.post, "/api/analyse", json=HARD)
        wait_until(lambda: gate.stats()["waiting"][ANALYSIS] == 1)
        # This client has two jobs: a third is refused at once, and creates nothing.
        before = matches(client)
        for request in (
            lambda: client.post("/api/analyse", json=HARD),
            lambda: client.post("/api/matches", json={"game": "slimetrail", "side": 2}),
        ):
            refused = request()
            assert refused.status_code == 429, refused.text
            assert "at most 2" in refused.json()["detail"]
            assert int(refused.headers["retry-after"]) >= 1
        assert matches(client) == before
        # Another client finds the analysis queue full: 503, but a game is still welcome.
        with TestClient(client.app, client=("10.0.0.2", 1)) as other:
            refused = other.post("/api/analyse", json=HARD)
            assert refused.status_code == 503, refused.text
            assert "analyses are waiting" in refused.json()["detail"]
            assert int(refused.headers["retry-after"]) >= 1
            assert other.post("/api/matches", json={"game": "slimetrail"}).status_code == 201
        first.join()
        second.join()
        assert answers[0].status_code == 200 and answers[0].json()["solved"] is False


@pytest.mark.slow
def test_computer_moves_overtake_analyses_and_are_real_searches(tmp_path, monkeypatch) -> None:
    # Waiting for a worker used to count against the computer's time: a move queued longer
    # than its cap was replaced by a random one.  With these constants the old cap was 2.2 s,
    # shorter than the analyses queued ahead of the moves.
    monkeypatch.setattr(workers, "OVERRUN_FACTOR", 1.0)
    monkeypatch.setattr(workers, "OVERRUN_SECONDS", 0.0)
    monkeypatch.setattr("slimetrail.web.service.pool.POOL_MARGIN", 2.0)
    limits = Limits(client_jobs=10, analysis_wait=300, analyse_time=SHORT)
    with app_client(tmp_path, limits) as client:
        first, _ = in_thread(client.post, "/api/analyse", json=HARD)
        wait_until(
            lambda: client.app.state.admission.stats()["started"][ANALYSIS] == 1, timeout=120
        )
        second, answers = in_thread(client.post, "/api/analyse", json=HARD)
        wait_until(lambda: client.app.state.admission.stats()["waiting"][ANALYSIS] == 1)
        games = [
            client.post("/api/matches", json={"game": "slimetrail", "level": 2, "side": 2}).json()
            for _ in range(3)
        ]
        second.join()
        # When the second analysis answers, every computer move (asked for after it) is made.
        seen = [client.get(f"/api/matches/{match['id']}").json() for match in games]
        assert [match["ply"] for match in seen] == [1, 1, 1]
        first.join()
        assert answers[0].status_code == 200
    start = get_game("slimetrail").new_state()
    for match in seen:
        real = workers.computer_move(
            "slimetrail", match["options"], start.fen(), 2, 0.2, move_seed(match["id"], 0)
        )
        assert match["moves"] == [real], "the computer's move is its level's own search"


def test_a_search_over_its_cap_falls_back_to_the_weakest_level_not_a_random_move(
    monkeypatch,
) -> None:
    import random

    real_choose = workers.choose

    def slow_above_level_one(state, level, time_limit, seed):
        if level > 1:
            time.sleep(5)  # stopped by the worker's cap
        return real_choose(state, level, time_limit, seed)

    monkeypatch.setattr(workers, "OVERRUN_FACTOR", 1.0)
    monkeypatch.setattr(workers, "OVERRUN_SECONDS", 0.3)
    monkeypatch.setattr(workers, "choose", slow_above_level_one)
    state = get_game("slimetrail").new_state()
    legal = state.legal_move_strs()
    weakest = {seed: state.move_str(real_choose(state, 1, 0.2, seed)) for seed in range(20)}
    # A seed whose random move differs from the weakest level's, so the two cannot be confused.
    seed = next(s for s in weakest if random.Random(s).choice(legal) != weakest[s])
    fen = state.fen()
    assert workers.computer_move("slimetrail", {}, fen, 3, 0.2, seed) == weakest[seed]
