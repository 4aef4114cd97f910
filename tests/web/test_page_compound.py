"""Compound turns on the page: how many clicks are still to make (for any game, from
next_clicks), and the move box's placeholder in the game's own notation."""

from __future__ import annotations

import random

import httpx2 as httpx
import pytest

from slimetrail.core.registry import get_game

pytestmark = pytest.mark.browser


def long_turn_moves(game_id: str, clicks: int) -> list[str]:
    """Random moves until the player to move has turns of at least ``clicks`` clicks."""
    state = get_game(game_id).new_state()
    rng = random.Random(5)
    texts: list[str] = []
    while len(state.click_path(state.legal_moves()[0])) < clicks:
        move = rng.choice(state.legal_moves())
        texts.append(state.move_str(move))
        state.push(move)
        assert not state.is_over()
    return texts


def test_snake_pit_says_how_many_clicks_are_left(live_server, open_page) -> None:
    moves = long_turn_moves("snake-pit", 4)
    body = {"game": "snake-pit", "opponent": "hotseat", "moves": moves}
    created = httpx.post(f"{live_server}/api/matches", json=body)
    assert created.status_code == 201, created.text
    match = created.json()
    state = get_game("snake-pit").new_state()
    for text in moves:
        state.push_str(text)
    total = len(state.click_path(state.legal_moves()[0]))  # 2 clicks a snake: all turns alike
    page = open_page(live_server + match["links"][str(match["to_move"])])
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    for made in range(1, total):
        first = page.eval_on_selector("#board [data-cell].legal", "c => c.dataset.cell")
        page.locator(f'#board [data-cell="{first}"]').click()
        left = total - made
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
