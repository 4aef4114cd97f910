"""Per-client rates that hold across processes: the ``limits`` storage on PostgreSQL.

The storage is checked against the rules of a rate limit written here (at most N accepted
hits of a key in any window; the others refused), by two storages on one database as two
processes would hold them, from many threads at once.  The server chooses it by default on
PostgreSQL and keeps each process's memory on SQLite.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from limits import parse
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter
from scaleout_site import START_TIMEOUT
from waiting import wait_until

from slimetrail.web.ratelimit import RateLimits, rate_storage_uri
from slimetrail.web.settings import Limits
from slimetrail.web.storage.pgstorage import PostgresStorage


@pytest.fixture
def db_url(pg_database: Callable[[], str]) -> str:
    return pg_database()


@pytest.fixture
def storages(db_url: str) -> Iterator[tuple[PostgresStorage, PostgresStorage]]:
    first, second = storage_from_string(db_url), storage_from_string(db_url)
    assert isinstance(first, PostgresStorage) and isinstance(second, PostgresStorage)
    yield first, second
    first.close()
    second.close()


def test_the_postgresql_schemes_name_this_storage(db_url: str) -> None:
    plain = db_url.replace("postgresql+psycopg://", "postgresql://")
    for uri in (db_url, plain, plain.replace("postgresql://", "postgres://")):
        storage = storage_from_string(uri)
        assert isinstance(storage, PostgresStorage) and storage.check()
        storage.close()


def test_two_storages_on_one_database_share_one_moving_window(storages) -> None:
    first, second = (MovingWindowRateLimiter(storage) for storage in storages)
    item = parse("5/minute")
    hits = [(first if n % 2 else second).hit(item, "create", "1.2.3.4") for n in range(8)]
    assert hits == [True] * 5 + [False] * 3
    assert second.hit(item, "create", "5.6.7.8")  # another client has its own window
    stats = first.get_window_stats(item, "create", "1.2.3.4")
    assert stats.remaining == 0 and 0 < stats.reset_time - time.time() <= 60


def test_hits_racing_from_many_threads_are_counted_one_at_a_time(storages) -> None:
    limiters = [MovingWindowRateLimiter(storage) for storage in storages]
    item = parse("25/minute")

    def hit(n: int) -> bool:
        return limiters[n % 2].hit(item, "create", "racer")

    with ThreadPoolExecutor(16) as threads:
        results = list(threads.map(hit, range(80)))
    assert results.count(True) == 25
    window_start, count = storages[0].get_moving_window(item.key_for("create", "racer"), 25, 60)
    assert count == 25 and window_start <= time.time() + 1


def test_a_hit_leaves_the_window_when_its_time_has_passed(storages) -> None:
    limiter = MovingWindowRateLimiter(storages[0])
    item = parse("2 per 3 seconds")  # room for a pause of the machine between the hits
    assert [limiter.hit(item, "k") for _ in range(3)] == [True, True, False]
    wait_until(
        lambda: limiter.get_window_stats(item, "k").remaining == 2,
        timeout=30,
        what="both hits to leave the window",
    )
    assert [limiter.hit(item, "k") for _ in range(3)] == [True, True, False]
    assert not limiter.hit(parse("1/minute"), "k", cost=2)  # more than the whole rate


def test_fixed_window_counters_and_clearing(storages) -> None:
    first, second = storages
    assert [first.incr("c", 60), second.incr("c", 60, amount=2), first.get("c")] == [1, 3, 3]
    assert 50 < second.get_expiry("c") - time.time() <= 60
    limiter = FixedWindowRateLimiter(second)
    item = parse("2/minute")
    assert [limiter.hit(item, "f") for _ in range(3)] == [True, True, False]
    first.clear("c")
    assert second.get("c") == 0 and abs(second.get_expiry("c") - time.time()) < 5
    MovingWindowRateLimiter(first).hit(item, "m")
    assert first.reset() == 2  # the counters of "f" and the window of "m"
    assert limiter.hit(item, "f")


def test_the_server_counts_rates_in_postgresql_and_keeps_sqlite_in_memory(
    db_url: str, tmp_path
) -> None:
    sqlite = f"sqlite:///{tmp_path / 'x.db'}"
    assert rate_storage_uri("", sqlite) == "memory://"
    assert rate_storage_uri("", db_url) == db_url
    assert rate_storage_uri("memory://", db_url) == "memory://"  # a deployment's own choice
    assert isinstance(RateLimits(Limits(), sqlite).storage, MemoryStorage)
    shared = RateLimits(Limits(), db_url)
    assert isinstance(shared.storage, PostgresStorage)
    shared.close()


@pytest.mark.slow
def test_two_web_processes_share_one_clients_creation_rate(db_url: str, tmp_path) -> None:
    """3 creations a minute: the 4th is refused whichever process it reaches."""
    import httpx2 as httpx
    from liveserver import LiveServer, free_port

    args = ("--workers", "0", "--limit", "create_rate=3/minute")
    servers = [LiveServer(free_port(), db_url, tmp_path / f"{n}.log", args) for n in "ab"]
    try:
        for server in servers:
            server.start(START_TIMEOUT)
        body = {"game": "slimetrail", "opponent": "hotseat"}
        statuses = [
            httpx.post(f"{servers[n % 2]}/api/matches", json=body, timeout=30).status_code
            for n in range(3)
        ]
        refused = [httpx.post(f"{server}/api/matches", json=body, timeout=30) for server in servers]
    finally:
        for server in servers:
            server.kill()
    assert statuses == [201, 201, 201]
    for response in refused:
        assert response.status_code == 429, response.text
        assert "too many new matches from your address" in response.json()["detail"]
        assert 1 <= int(response.headers["retry-after"]) <= 60


def test_rows_whose_window_has_passed_are_deleted_now_and_then(storages) -> None:
    from sqlalchemy import text

    from slimetrail.web.storage.pgstorage import CLEANUP_INTERVAL, COUNTERS, WINDOWS

    storage = storages[0]
    limiter = MovingWindowRateLimiter(storage)
    assert limiter.hit(parse("1/second"), "gone") and storage.incr("counter", 1) == 1
    assert limiter.hit(parse("1/minute"), "kept")
    wait_until(
        lambda: limiter.get_window_stats(parse("1/second"), "gone").remaining == 1,
        timeout=30,
        what="the hit to leave its window",
    )
    storage.cleaned -= CLEANUP_INTERVAL  # the next hit finds the interval over
    assert limiter.hit(parse("1/minute"), "new")
    with storage.engine.connect() as connection:
        windows = connection.execute(text(f"SELECT key FROM {WINDOWS}")).scalars().all()
        counters = connection.execute(text(f"SELECT count(*) FROM {COUNTERS}")).scalar()
    assert sorted(key.split("/")[1] for key in windows) == ["kept", "new"] and counters == 0
