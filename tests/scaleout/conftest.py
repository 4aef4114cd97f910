"""Fixtures of the scale-out tests: two web-only servers and one worker on one PostgreSQL.

The PostgreSQL comes from ``pg_database`` (tests/conftest.py: a throwaway cluster, opt-in
outside CI).  ``site`` starts ``a`` and ``b`` (``slimetrail serve --workers 0``) and a
``worker`` (``slimetrail worker``, one process, 2 s time cap a move, taken for dead after 3 s
of silence), all on loopback, once for the module: a test that kills one starts it again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from liveserver import LiveWorker
from scaleout_site import STALL_SECONDS, START_TIMEOUT, Site, web_only


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, pg_database: Callable[[], str]
) -> Iterator[Site]:
    db_url = pg_database()
    tmp_path = tmp_path_factory.mktemp("site")
    a, b = web_only(db_url, tmp_path / "a.log"), web_only(db_url, tmp_path / "b.log")
    worker = LiveWorker(
        db_url,
        tmp_path / "worker.log",
        ("--workers", "1", "--move-time", "2", "--stall-seconds", str(STALL_SECONDS)),
    )
    try:
        a.start(START_TIMEOUT)
        b.start(START_TIMEOUT)
        worker.start(START_TIMEOUT)
        yield Site(a, b, worker, db_url)
    finally:
        for process in (a, b, worker):
            process.kill()
