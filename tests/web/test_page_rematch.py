"""A Slimetrail game between two friends in two browsers: one resigns, the other wins, and the
rematch reaches both of them, each in their own seat of the new match (seats rotated)."""

from __future__ import annotations

import pytest
from pagetools import match_api

pytestmark = pytest.mark.browser


def test_resign_then_rematch_reaches_both_friends(live_server, new_page) -> None:
    alice = new_page(f"{live_server}/new/slimetrail?opponent=friend&side=1")
    bob = new_page(alice.locator('#link-list input[data-link="2"]').input_value())
    alice.click('#board [data-cell="d5"]')
    bob.wait_for_selector("#board [data-cell].legal")
    first = match_api(live_server, alice)
    # Bob resigns on his turn: both pages show the result, Alice as the winner.
    bob.click("#resign")
    bob.click("#resign-yes")
    for page, verdict in ((bob, "You lose"), (alice, "You win!")):
        page.wait_for_selector("#result:not([hidden])")
        assert page.locator("#result strong").inner_text() == verdict
        assert "resigned" in page.locator("#result").inner_text()
    assert match_api(live_server, alice)["outcome"]["winner"] == 1
    # Bob asks for a rematch; Alice's page is shown the way to her own seat in it.
    bob.click("#rematch")
    bob.wait_for_url(lambda url: first["id"] not in url)
    bob.wait_for_selector("#board [data-cell].legal")  # Bob is player 1 now: his move
    alice.wait_for_selector("#rematch-ready:not([hidden])")
    alice.click("#rematch-ready a")
    alice.wait_for_url(lambda url: first["id"] not in url)
    alice.wait_for_selector("#board [data-cell]", state="attached")
    again = match_api(live_server, alice)
    assert again["id"] != first["id"] and again["id"] == match_api(live_server, bob)["id"]
    assert again["seats"] == [2] and match_api(live_server, bob)["seats"] == [1]
    assert again["moves"] == [] and again["outcome"] is None
