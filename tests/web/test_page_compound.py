"""Compound turns on the page: how many clicks are still to make (for any game, from
next_clicks, unless its turns declare steps), and the move box's placeholder in the game's
own notation."""

from __future__ import annotations

import random

import httpx2 as httpx
import pytest

from slimetrail.core.registry import get_game

pytestmark = pytest.mark.browser


def long_turn(game_id: str, clicks: int) -> tuple[list[str], list[str]]:
    """Random moves until the player to move has a move of at least ``clicks`` clicks: the
    moves, and that move's clicks."""
    state = get_game(game_id).new_state()
    rng = random.Random(5)
    texts: list[str] = []
    while True:
        paths = [state.click_path(m) for m in state.legal_moves()]
        long = [path for path in paths if len(path) >= clicks]
        if long:
            return texts, long[0]
        move = rng.choice(state.legal_moves())
        texts.append(state.move_str(move))
        state.push(move)
        assert not state.is_over()


def test_a_compound_move_says_how_many_clicks_are_left(live_server, open_page) -> None:
    # Slither's turns declare no steps (unlike Snake Pit's snakes, test_page_steps.py): the
    # page counts clicks, from next_clicks.
    moves, path = long_turn("slither", 3)
    body = {"game": "slither", "opponent": "hotseat", "moves": moves}
    created = httpx.post(f"{live_server}/api/matches", json=body)
    assert created.status_code == 201, created.text
    match = created.json()
    page = open_page(live_server + match["links"][str(match["to_move"])])
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    for made in range(1, len(path)):
        page.locator(f'#board [data-cell="{path[made - 1]}"]').click()
        left = len(path) - made
        word = "click" if left == 1 else "clicks"
        page.wait_for_function(
            "t => document.getElementById('to-go').textContent === t",
            arg=f"{left} more {word} to finish this turn",
        )
    assert page.locator("#to-go").is_visible()
    page.locator("#cancel").click()
    assert not page.locator("#partial").is_visible() and not page.locator("#to-go").is_visible()


def test_the_move_box_shows_the_games_notation(live_server, open_page) -> None:
    expected = {"slimetrail": "e.g. c3", "slither": "e.g. b2-c3/e5"}
    state = get_game("snake-pit").new_state()
    expected["snake-pit"] = "e.g. " + state.move_str(state.legal_moves()[0])
    assert "-" in expected["snake-pit"]
    for game_id, placeholder in expected.items():
        page = open_page(f"{live_server}/new/{game_id}?opponent=hotseat")
        page.wait_for_selector("#board [data-cell]", state="attached")
        assert page.get_attribute("#move-input", "placeholder") == placeholder
        page.locator("#move-form button[type=submit]").click()
        assert placeholder.removeprefix("e.g. ") in page.locator("#move-error").inner_text()
