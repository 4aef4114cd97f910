"""Every refusal a browser can meet by opening a page (a 31st new match in a minute, a full
queue, shed load) shows the error page saying when to try again; an API client, or a page's
own script, keeps the JSON refusal as it was (issue 24, item 3)."""

from __future__ import annotations

import re

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from liveserver import running_server

from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits

# What Chromium sends when a link or a form opens a page, and when a page's script fetches.
BROWSER = {
    "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "sec-fetch-mode": "navigate",
    "sec-fetch-dest": "document",
}
SCRIPT = {"accept": "*/*", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty"}
NEW = "/new/slimetrail?opponent=hotseat&size=5"
COMPUTER_FIRST = "/new/slimetrail?opponent=computer&level=1&side=2&size=5"

# Each refusal: the limits that make it, the request refused (after ``before`` requests that
# pass), its status and words of its detail.
REFUSALS = {
    "creation rate": (Limits(create_rate="1/minute"), ("post", NEW), 1, 429, "too many new"),
    "jobs per client": (Limits(client_jobs=0), ("post", COMPUTER_FIRST), 0, 429, "queued"),
    "move queue full": (Limits(move_queue=0), ("post", COMPUTER_FIRST), 0, 503, "busy"),
    "shed load": (Limits(in_flight=0), ("get", "/"), 0, 503, "overloaded"),
}


def refused(tmp_path, name: str, headers: dict[str, str]) -> httpx.Response:
    limits, (method, path), before, _, _ = REFUSALS[name]
    app = create_app(f"sqlite:///{tmp_path / 'refusals.db'}", workers=1, limits=limits)
    with TestClient(app) as client:
        for _ in range(before):
            passed = client.request(method, path, headers=headers, follow_redirects=False)
            assert passed.status_code == 303, passed.text
        return client.request(method, path, headers=headers, follow_redirects=False)


@pytest.mark.parametrize("name", REFUSALS)
def test_a_browser_opening_a_page_gets_the_error_page(tmp_path, name: str) -> None:
    _, (_, path), _, status, words = REFUSALS[name]
    answer = refused(tmp_path, name, BROWSER)
    assert answer.status_code == status
    assert answer.headers["content-type"].startswith("text/html")
    retry_after = int(answer.headers["retry-after"])
    assert retry_after >= 1
    assert words in answer.text.lower()
    # When to come back, in words, from Retry-After; and a link that tries again.
    assert re.search(r"Please try again (in a moment|in \d+ seconds)\.", answer.text), answer.text
    assert f'href="{path.replace("&", "&amp;")}">Try again</a>' in answer.text
    assert '<link rel="stylesheet" href="/static/style.css">' in answer.text


@pytest.mark.parametrize("headers", [{}, SCRIPT], ids=["api client", "page script"])
@pytest.mark.parametrize("name", REFUSALS)
def test_an_api_client_keeps_the_json_refusal(tmp_path, name: str, headers) -> None:
    _, _, _, status, words = REFUSALS[name]
    answer = refused(tmp_path, name, headers)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    assert words in answer.json()["detail"]
    assert int(answer.headers["retry-after"]) >= 1


@pytest.mark.slow
@pytest.mark.browser
def test_play_now_past_the_creation_rate_shows_when_to_try_again(
    tmp_path, compiled_kernels, open_page
) -> None:
    with running_server(tmp_path, "--workers", "1", "--limit", "create_rate=1/minute") as server:
        page = open_page(f"{server}/")
        page.get_by_role("button", name="Play now").click()
        page.wait_for_url("**/play/**")
        page.goto(f"{server}/")
        page.get_by_role("button", name="Play now").click()
        page.wait_for_selector(".error-box")
        assert page.locator("h1").inner_text() == "Too many requests"
        assert "Too many new matches" in page.locator(".error-detail").inner_text()
        assert re.fullmatch(
            r"Please try again in \d+ seconds\.", page.locator(".error-retry").inner_text()
        )
        assert page.locator(".site-header .brand").is_visible()  # styled, not raw JSON
        assert page.get_by_role("link", name="Try again").get_attribute("href").startswith("/new/")
