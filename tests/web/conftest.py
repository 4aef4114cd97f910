"""Fixtures of the web tests: the system Chromium driven by Playwright, and plain servers.

One Chromium serves the whole session (``browser``); each test gets pages in contexts of its
own (``open_page``, ``new_page``), closed after it, so no cookie or storage crosses tests.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from liveserver import CHROMIUM, CHROMIUM_ARGS, LiveServer, running_server

from slimetrail.web.app import create_app

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app on a fresh SQLite file, one worker, 0.2 s a computer move (modules that need
    other settings define their own ``client``)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'app.db'}"
    with TestClient(create_app(url, workers=1, move_time=0.2)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def toy_server(
    tmp_path_factory: pytest.TempPathFactory, compiled_kernels: None
) -> Iterator[LiveServer]:
    """A real server that also knows the toy games of tests/toygames.py, shared by the session
    like ``live_server`` (tests create their own matches on it)."""
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    with running_server(
        tmp_path_factory.mktemp("toys"),
        "--workers",
        "1",
        "--move-time",
        "0.2",
        env={"SLIMETRAIL_GAMES": "toygames", "PYTHONPATH": path},
    ) as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator:
    """Debian's Chromium under Playwright, started once for the session (required in CI,
    skipped elsewhere if missing)."""
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is not installed (Debian package chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


DESKTOP = (1280, 900)


def page_opener(
    browser, timeout_ms: int, wait_for_board: bool, default_size: tuple[int, int]
) -> Iterator[Callable]:
    """``opener(url=None, size=default_size, **context_options)``: a page in a fresh context
    (a separate person), at ``url`` if given; JavaScript errors on any page fail the test."""
    contexts, errors = [], []

    def opener(url: str | None = None, size: tuple[int, int] = default_size, **options):
        # The pages forbid eval (CSP); Playwright's wait_for_function needs it: bypassed here.
        context = browser.new_context(
            viewport={"width": size[0], "height": size[1]}, bypass_csp=True, **options
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        if url:
            page.goto(url)
            if wait_for_board:
                page.wait_for_selector("#board [data-cell]", state="attached")
        return page

    yield opener
    for context in contexts:
        context.close()
    assert errors == [], "JavaScript errors on the page"


@pytest.fixture
def open_page(browser) -> Iterator[Callable]:
    """``open_page(url, size=DESKTOP, **context_options)``: a page in a fresh context, 20 s
    default waits."""
    yield from page_opener(browser, 20_000, wait_for_board=False, default_size=DESKTOP)


@pytest.fixture
def new_page(browser) -> Iterator[Callable]:
    """``new_page(url=None)``: a page in a fresh context at 1200x900, waited for until the
    board is drawn.  The wait is generous: a computer's first move may wait for its worker
    to start."""
    yield from page_opener(browser, 60_000, wait_for_board=True, default_size=(1200, 900))
