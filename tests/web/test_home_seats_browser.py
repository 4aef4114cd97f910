"""The home page's "Choose each seat": any mix of you, friends by link and computers at any
level, started from a game's card through the /new confirmation page (a real browser against
a real ``slimetrail serve``, the ``live_server`` fixture).  The card's one-click default stays
you against computers.
"""

from __future__ import annotations

import pytest
from pagetools import match_api

pytestmark = pytest.mark.browser

PHONE = (390, 844)


def start(card, page) -> None:
    card.get_by_role("button", name="Start a game").click()
    page.wait_for_url("**/play/**")
    page.wait_for_selector("#board [data-cell]", state="attached")


def test_snake_pit_me_a_friend_and_computer_level_2_on_a_phone(live_server, open_page) -> None:
    page = open_page(f"{live_server}/", size=PHONE)
    card = page.locator("#game-snake-pit")
    card.get_by_text("Choose each seat").click()
    # Open, the seats replace the one-opponent choice; each select is labelled by its player.
    # (Waited for: the page's script hides it just after the click; an immediate look raced it.)
    card.locator("fieldset.opponent").wait_for(state="hidden", timeout=5000)
    card.get_by_role("combobox", name="Blue").select_option("friend")
    card.get_by_role("combobox", name="Red").select_option(label="computer level 2")
    assert card.get_by_role("combobox", name="Green (first)").input_value() == "me"
    start(card, page)

    match = match_api(live_server, page)
    assert [(p["kind"], p["you"], p["level"]) for p in match["players"]] == [
        ("human", True, None),
        ("human", False, None),
        ("computer", False, 2),
    ]
    # The page shows the friend's invitation and names the computer with its level.
    assert page.locator("#links").get_attribute("open") is not None
    invite = page.locator("#link-2").input_value()
    assert "seat=" in invite and invite != page.locator("#link-1").input_value()
    players = page.locator("#players").inner_text()
    assert "computer, level 2" in players and players.count("computer") == 1
    # The link is the friend's seat: they play Blue there, and only Blue.
    friend = match_api(live_server, page, invite.split("seat=")[1])
    assert [p["you"] for p in friend["players"]] == [False, True, False]


def test_the_one_click_default_is_still_you_against_computers(live_server, open_page) -> None:
    page = open_page(f"{live_server}/")
    card = page.locator("#game-snake-pit")
    level = card.locator("select[name=level]").input_value()
    start(card, page)
    match = match_api(live_server, page)
    assert [(p["kind"], p["you"], p["level"]) for p in match["players"]] == [
        ("human", True, None),
        ("computer", False, int(level)),
        ("computer", False, int(level)),
    ]
    # Opened, the seats start from that same choice, and follow it while closed.
    page.goto(f"{live_server}/")
    card.locator("input[name=opponent][value=friend]").check()
    card.get_by_text("Choose each seat").click()
    seats = card.locator("select[data-seat]")
    assert [seats.nth(i).input_value() for i in range(3)] == ["me", "friend", "friend"]
    # No seat of yours: the browser refuses to send it, nothing is created.
    for i in range(3):
        seats.nth(i).select_option(f"computer:{level}")
    card.get_by_role("button", name="Start a game").click()
    assert "/play/" not in page.url and "/new/" not in page.url
    assert seats.nth(0).evaluate("s => s.validationMessage") == "At least one seat must be yours."
