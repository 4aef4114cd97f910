"""A /new link in a real browser: the confirmation page goes on to the game by itself."""

from __future__ import annotations

import httpx2 as httpx
import pytest

pytestmark = pytest.mark.browser


def test_a_new_link_opened_in_a_browser_starts_the_game(live_server, browser) -> None:
    link = f"{live_server}/new/slimetrail?opponent=hotseat"
    assert httpx.get(link).status_code == 200  # what a prefetcher gets: the page only
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(link)  # the page's script posts the form in a visible tab
        page.wait_for_url("**/play/**", timeout=20_000)
        match_id = page.url.split("/play/")[1].split("?")[0]
    finally:
        context.close()
    assert httpx.get(f"{live_server}/api/matches/{match_id}").json()["ply"] == 0
