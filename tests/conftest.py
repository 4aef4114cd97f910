"""Shared fixtures: the web app in-process, a real ``slimetrail serve`` subprocess, PostgreSQL.

* ``live_server``: one ``slimetrail serve`` on 127.0.0.1 (a free port, a temporary SQLite
  database) shared by the whole session: the value is the base URL (a ``str``).  A test keeps
  to itself by creating its own matches.  The function-scoped servers (``restartable_server``,
  ``slow_live_server``, ``pg_slow_live_server``) are for tests that kill and restart theirs:
  each also has ``.restart()`` (kill -9 and start again on the same database and port),
  ``.kill()``, ``.start()`` and ``.db_url``.
* ``pg_url``: a PostgreSQL URL for an empty database: on the server named by
  ``SLIMETRAIL_TEST_PG_URL`` (``postgresql://user@host/db``), else on a throwaway cluster run
  with the machine's ``initdb``/``pg_ctl`` (Debian package ``postgresql``).  Without either the
  PostgreSQL tests skip, except in CI (``CI`` set) or with ``SLIMETRAIL_TEST_POSTGRES=1``,
  where they fail; ``SLIMETRAIL_TEST_POSTGRES=0`` turns them off.

Under pytest-xdist (pyproject's addopts) each worker process has session fixtures of its own:
its servers on free ports, its temporary folders, its PostgreSQL cluster and Chromium.  Only
numba's cache is shared, and numba writes it by atomic renames.

Hypothesis runs the ``quick`` profile (few examples, no deadline: a loaded machine is slow
anyway); ``HYPOTHESIS_PROFILE=soak`` runs the big searches, as ``-m soak`` runs the soak
tests.  A test that names its own ``max_examples`` keeps it in both.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import toygames  # noqa: F401  (registers the toy games for every test)
from hypothesis import settings
from liveserver import LiveServer, pg_program, running_server, temp_postgres

import slimetrail
from slimetrail.cli.compile import forget_stale_kernels
from slimetrail.web.settings import WARM_UP_VARIABLE

# The suite's servers load a game's kernels when it is first played: most of its many
# short-lived servers play no computer move, and each warm-up of every game costs seconds of
# processor time (tests/web/test_warm_up.py checks both settings).
os.environ.setdefault(WARM_UP_VARIABLE, "0")
# ``slimetrail play`` speaks the terminal's language (LANGUAGE first): the suite's commands
# speak English whatever the machine's locale (tests/cli/test_play_languages.py sets its own).
os.environ["LANGUAGE"] = "en"

settings.register_profile("quick", max_examples=50, deadline=None)
settings.register_profile("soak", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """pyproject's addopts hand the suite to pytest-xdist's workers; with xdist blocked
    (``-p no:xdist``, to debug in this process) its options are accepted and do nothing."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist", "accepted, unused: pytest-xdist is blocked")
    group.addoption("--numprocesses", dest="numprocesses", default=None)
    group.addoption("--maxprocesses", dest="maxprocesses", default=None)
    group.addoption("--dist", dest="dist", default="no")


def pytest_configure(config: pytest.Config) -> None:
    """No test runs a kernel numba cached from older sources (it checks a kernel's own file
    only, so an edited kernel would go on running inside its unchanged callers): after an
    edit, every cached kernel of the package is dropped, once, before the workers start."""
    if not hasattr(config, "workerinput"):
        forget_stale_kernels(Path(slimetrail.__file__).parent)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules with a test marked ``slow`` run first, each kept whole (its module fixtures
    set up once), in their order otherwise: xdist's workers start on the long tests and end
    the run on short ones, instead of one worker finishing a long test while the other idles."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(autouse=True)
def own_event_loop_allowed(request: pytest.FixtureRequest) -> Iterator[None]:
    """Playwright's sync API marks its event loop as running in this thread for as long as
    the session's Chromium lives, and ``asyncio.run`` refuses to start under that mark: a test
    that does not use the browser runs without it (put back afterwards for Playwright)."""
    playwright_loop = asyncio.events._get_running_loop()
    if playwright_loop is None or "browser" in request.fixturenames:
        yield
        return
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(playwright_loop)


@pytest.fixture(scope="session")
def compiled_kernels() -> None:
    """Every game's kernels compiled into numba's cache once, before any server starts: its
    worker then loads them at once, instead of compiling them during a test's first computer
    move (a minute on a fresh checkout of a loaded 2-core machine)."""
    from slimetrail.web.workers import warm_up

    warm_up()


# Every test of the session comes from 127.0.0.1: the shared servers' per-client rates are
# raised so that they count no test against another (the rate limit tests set their own).
SHARED_LIMITS = (
    *("--limit", "create_rate=10000/minute", "--limit", "analyse_rate=10000/minute"),
    *("--limit", "seek_rate=10000/minute"),
)


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, compiled_kernels: None
) -> Iterator[LiveServer]:
    """A real server (1 worker, 0.3 s computer moves, 0.5 s analyses) shared by the session:
    tests must not kill it or change its settings (``restartable_server`` is for that)."""
    folder = tmp_path_factory.mktemp("live")
    # An analysis the exact solver cannot finish searches its whole time (and the engine half
    # as long again): the pages' tests read what it says, not how deep it looked.
    args = ("--workers", "1", "--move-time", "0.3", "--limit", "analyse_time=0.5")
    with running_server(folder, *args, *SHARED_LIMITS) as server:
        yield server


@pytest.fixture
def restartable_server(tmp_path: Path, compiled_kernels: None) -> Iterator[LiveServer]:
    """A real server of the test's own (as ``live_server``), for a test that kills it and
    starts it again: function-scoped, since the kill would break any other test using it."""
    with running_server(tmp_path, "--workers", "1", "--move-time", "0.3") as server:
        yield server


@pytest.fixture
def slow_live_server(tmp_path: Path, compiled_kernels: None) -> Iterator[LiveServer]:
    """A real server whose computer takes 3 s a move: it is surely mid-move when killed.
    Function-scoped: the test kills and restarts it."""
    with running_server(tmp_path, "--workers", "1", "--move-time", "3") as server:
        yield server


@pytest.fixture
def pg_slow_live_server(
    tmp_path: Path, pg_database: Callable[[], str], compiled_kernels: None
) -> Iterator[LiveServer]:
    """``slow_live_server`` on a PostgreSQL database (opt-in, see above); function-scoped for
    the same reason."""
    args = ("--workers", "1", "--move-time", "3")
    with running_server(tmp_path, *args, db_url=pg_database()) as server:
        yield server


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
