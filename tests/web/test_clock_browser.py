"""Clocks in the browser: a game started from the home page with a clock waits, clocks
stopped, until the friend opens their link; then both clocks show, the running one ticking
and warned when low; left alone (the pages closed, nobody connected) the 1+0 game is lost on
time, as the page shows when opened again.  The server's ``clock_scale`` makes a minute six
seconds (under ten: low time from the start)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx2 as httpx
import pytest
from liveserver import TLS, LiveServer, running_server
from pagetools import match_api, start_from_home

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def quick_clock_server(
    tmp_path_factory: pytest.TempPathFactory, compiled_kernels: None
) -> Iterator[LiveServer]:
    """Shared by the module: each test makes its own match and none restarts the server."""
    args = ("--workers", "1", "--limit", "clock_scale=0.1", "--limit", "clock_sweep=0.2")
    with running_server(tmp_path_factory.mktemp("clocks"), *args) as server:
        yield server


@pytest.mark.slow
def test_a_one_minute_game_is_lost_on_time_with_nobody_connected(
    quick_clock_server, open_page
) -> None:
    page = open_page()
    start_from_home(page, quick_clock_server, "slimetrail", opponent="friend", clock="1+0")
    match = match_api(quick_clock_server, page)
    assert match["clock"]["control"] == "1+0"
    friend = open_page(f"{quick_clock_server}{match['links']['2']}")
    friend.wait_for_selector("#clock-1.running")
    friend.close()
    # Both clocks shown; mine runs, under ten seconds it is marked low, and it ticks.
    page.wait_for_selector("#clock-1.running.low")
    assert "running" not in (page.get_attribute("#clock-2", "class") or "")
    assert page.inner_text("#clock-2") == "6.0"
    first = page.inner_text("#clock-1")
    page.wait_for_function("t => document.getElementById('clock-1').textContent !== t", arg=first)
    page.close()  # nobody is connected now
    # The server alone ends the game (reading the match ends nothing: the sweeper does).
    url = f"{quick_clock_server}/api/matches/{match['id']}"
    deadline = time.monotonic() + 30
    while httpx.get(url, verify=TLS).json()["outcome"] is None:
        assert time.monotonic() < deadline, "the flag did not fall"
        time.sleep(0.2)
    later = open_page(f"{quick_clock_server}/play/{match['id']}")
    later.wait_for_selector("#result:not([hidden])")
    assert "ran out of time" in later.inner_text("#result")
    assert later.inner_text("#clock-1") == "0.0"
    assert match_api(quick_clock_server, later)["outcome"]["reason"] == "time"


def test_a_friend_game_waits_for_the_friend_and_starts_when_they_arrive(
    quick_clock_server, open_page
) -> None:
    page = open_page()
    start_from_home(page, quick_clock_server, "slimetrail", opponent="friend", clock="1+0")
    made = time.monotonic()
    page.wait_for_selector("#clock-wait:not([hidden])")
    assert "the clocks start when they arrive" in page.inner_text("#clock-wait")
    assert page.inner_text("#clock-1") == "6.0" and page.inner_text("#clock-2") == "6.0"
    assert page.locator(".clock.running").count() == 0
    # Till the (scaled) minute has passed since the match was made: nobody's flag falls.
    time.sleep(max(0.0, made + 7 - time.monotonic()))
    match = match_api(quick_clock_server, page)
    assert match["outcome"] is None and match["clock"]["remaining_ms"] == [6_000, 6_000]
    assert page.inner_text("#clock-1") == "6.0"
    friend = open_page(f"{quick_clock_server}{match['links']['2']}")
    friend.wait_for_selector("#clock-1.running")
    assert friend.is_hidden("#clock-wait")
    # The creator's page is told at once: the sentence goes, their clock ticks.
    page.wait_for_selector("#clock-1.running")
    page.wait_for_selector("#clock-wait", state="hidden")
    page.wait_for_function("() => document.getElementById('clock-1').textContent !== '6.0'")
    assert match_api(quick_clock_server, page)["outcome"] is None
