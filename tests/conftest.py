"""Shared fixtures: the web app in-process, a real ``slimetrail serve`` subprocess, PostgreSQL.

* ``live_server``: ``slimetrail serve`` on 127.0.0.1 with a free port and a temporary SQLite
  database; the value is the base URL (a ``str``) with ``.restart()`` (kill -9 and start again
  on the same database and port), ``.kill()``, ``.start()`` and ``.db_url``.
* ``pg_url``: a PostgreSQL URL for an empty database: on the server named by
  ``SLIMETRAIL_TEST_PG_URL`` (``postgresql://user@host/db``), else on a throwaway cluster run
  with the machine's ``initdb``/``pg_ctl`` (Debian package ``postgresql``).  Without either the
  PostgreSQL tests skip, except in CI (``CI`` set) or with ``SLIMETRAIL_TEST_POSTGRES=1``,
  where they fail; ``SLIMETRAIL_TEST_POSTGRES=0`` turns them off.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import toygames  # noqa: F401  (registers the toy games for every test)
from liveserver import LiveServer, free_port, pg_program, temp_postgres


@pytest.fixture(scope="session")
def compiled_kernels() -> None:
    """Every game's kernels compiled into numba's cache once, before any server starts: its
    worker then loads them at once, instead of compiling them during a test's first computer
    move (a minute on a fresh checkout of a loaded 2-core machine)."""
    from slimetrail.web.workers import warm_up

    warm_up()


def _live_server(tmp_path: Path, *extra_args: str, db_url: str = "") -> Iterator[LiveServer]:
    db_url = db_url or f"sqlite:///{tmp_path / 'live.db'}"
    server = LiveServer(free_port(), db_url, tmp_path / "serve.log", extra_args)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def live_server(tmp_path: Path, compiled_kernels: None) -> Iterator[LiveServer]:
    """A real server (1 worker, 0.3 s computer moves) on a fresh database."""
    yield from _live_server(tmp_path, "--workers", "1", "--move-time", "0.3")


@pytest.fixture
def slow_live_server(tmp_path: Path, compiled_kernels: None) -> Iterator[LiveServer]:
    """A real server whose computer takes 3 s a move: it is surely mid-move when killed."""
    yield from _live_server(tmp_path, "--workers", "1", "--move-time", "3")


@pytest.fixture
def pg_slow_live_server(
    tmp_path: Path, pg_database: Callable[[], str], compiled_kernels: None
) -> Iterator[LiveServer]:
    """``slow_live_server`` on a PostgreSQL database (opt-in, see above)."""
    args = ("--workers", "1", "--move-time", "3")
    yield from _live_server(tmp_path, *args, db_url=pg_database())


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of a PostgreSQL server (without a database name), if enabled; see above."""
    url = os.environ.get("SLIMETRAIL_TEST_PG_URL")
    if url:
        yield url
        return
    wanted = os.environ.get("SLIMETRAIL_TEST_POSTGRES", "")
    if wanted == "0":
        pytest.skip("PostgreSQL tests turned off by SLIMETRAIL_TEST_POSTGRES=0")
    required = wanted == "1" or bool(os.environ.get("CI"))
    initdb, pg_ctl = pg_program("initdb"), pg_program("pg_ctl")
    missing = None
    try:
        import psycopg  # noqa: F401
    except ModuleNotFoundError:
        missing = "the driver psycopg (pip install -e '.[test]')"
    if not (initdb and pg_ctl):
        missing = "initdb/pg_ctl (Debian package postgresql)"
    if missing:
        (pytest.fail if required else pytest.skip)(f"PostgreSQL tests need {missing}")
    with temp_postgres() as url:
        yield url


@pytest.fixture(scope="session")
def pg_database(pg_server: str) -> Callable[[], str]:
    """A function making a new, empty PostgreSQL database and returning its URL."""
    import psycopg

    plain = pg_server.replace("postgresql+psycopg://", "postgresql://")

    def create() -> str:
        name = f"slimetrail_test_{secrets.token_hex(4)}"
        with psycopg.connect(f"{plain}/postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"{pg_server}/{name}"

    return create


@pytest.fixture
def pg_url(pg_database: Callable[[], str]) -> str:
    """A new, empty PostgreSQL database on the opt-in server."""
    return pg_database()
