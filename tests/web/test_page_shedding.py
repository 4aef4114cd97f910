"""The page under load shedding: a move answered 503 (refused before anything changed) is sent
again after the server's Retry-After, and only a server that stays busy shows the error."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

BUSY = json.dumps({"detail": "the server is overloaded (2 requests in progress, 0 waiting)"})


def hotseat_page(live_server, open_page, refusals: int):
    """A hotseat game whose first ``refusals`` move requests are answered 503 (Retry-After 1)
    before they reach the server; the list of move requests the page sent."""
    page = open_page(f"{live_server}/new/slimetrail?opponent=hotseat")
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    sent: list[str] = []

    def shed(route) -> None:
        sent.append(route.request.post_data or "")
        if len(sent) <= refusals:
            route.fulfill(status=503, headers={"Retry-After": "1"}, body=BUSY)
        else:
            route.continue_()

    page.route("**/api/matches/*/move", shed)
    return page, sent


def test_a_shed_move_is_sent_again_and_lands(live_server, open_page) -> None:
    page, sent = hotseat_page(live_server, open_page, refusals=1)
    page.click('#board [data-cell="c3"]')
    page.wait_for_function("document.querySelectorAll('#move-list .mv').length === 1")
    assert len(sent) == 2 and sent[0] == sent[1]  # the same request, once more
    assert page.locator("#move-error").text_content() == ""


def test_a_server_that_stays_busy_says_so(live_server, open_page) -> None:
    page, sent = hotseat_page(live_server, open_page, refusals=100)
    page.click('#board [data-cell="c3"]')
    page.wait_for_function("document.getElementById('move-error').textContent !== ''")
    assert "overloaded" in page.locator("#move-error").text_content()
    assert len(sent) == 4  # the first try and three more
    assert page.locator("#move-list .mv").count() == 0
