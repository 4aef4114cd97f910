"""Fixtures of the web tests: the system Chromium driven by Playwright, and a plain server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from liveserver import CHROMIUM, CHROMIUM_ARGS

from slimetrail.web.app import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app on a fresh SQLite file, one worker, 0.2 s a computer move (modules that need
    other settings define their own ``client``)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'app.db'}"
    with TestClient(create_app(url, workers=1, move_time=0.2)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Debian's Chromium under Playwright (required in CI, skipped elsewhere if missing)."""
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


@pytest.fixture
def open_page(browser):
    """``open_page(url, size=DESKTOP)``: a page in a fresh context (a separate person);
    JavaScript errors on any of them fail the test."""
    contexts, errors = [], []

    def opener(url: str, size: tuple[int, int] = DESKTOP, **options):
        # The pages forbid eval (CSP); Playwright's wait_for_function needs it: bypassed here.
        context = browser.new_context(
            viewport={"width": size[0], "height": size[1]}, bypass_csp=True, **options
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        page.goto(url)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert errors == [], "JavaScript errors on the page"


@pytest.fixture
def new_page(browser):
    """``new_page(url=None)``: a page in a fresh context (a separate person) at the 1200x900
    desktop size, waited for until the board is drawn; JavaScript errors fail the test.  The
    wait is generous: a computer's first move may wait for its worker to start."""
    contexts, errors = [], []

    def opener(url: str | None = None):
        # The pages forbid eval (CSP); Playwright's wait_for_function needs it: bypassed here.
        context = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        if url:
            page.goto(url)
            page.wait_for_selector("#board [data-cell]", state="attached")
        return page

    yield opener
    for context in contexts:
        context.close()
    assert errors == [], "JavaScript errors on the page"
