"""Clicks on the board: a move that loses at once is marked as a warning, and a click that
does nothing says why."""

from __future__ import annotations

import httpx2 as httpx
import pytest

pytestmark = pytest.mark.browser

WARNING = "rgb(176, 58, 0)"  # the palette's "error" colour


def friend_game(base: str, moves: list[str]) -> dict:
    """A friend game with ``moves`` played; returns the creator's match JSON."""
    match = httpx.post(
        f"{base}/api/matches", json={"game": "slimetrail", "opponent": "friend"}
    ).json()
    tokens = {int(k): url.split("seat=")[1] for k, url in match["links"].items() if k != "watch"}
    for ply, text in enumerate(moves):
        body = {"seat": tokens[ply % 2 + 1], "move": text, "ply": ply}
        assert httpx.post(f"{base}/api/matches/{match['id']}/move", json=body).status_code == 200
    return match | {"tokens": tokens}


def cell(page, name: str):
    return page.locator(f'#board [data-cell="{name}"]')


def style(page, selector: str, prop: str) -> str:
    """The computed ``prop`` of the element at ``selector``, looked up and read in one go."""
    return page.eval_on_selector(selector, "(e, p) => getComputedStyle(e)[p]", prop)


def classes(page, name: str) -> list[str]:
    return (cell(page, name).get_attribute("class") or "").split()


def test_a_step_into_the_opponents_goal_is_a_warning(live_server, open_page) -> None:
    match = friend_game(live_server, ["e5", "f6"])  # player 1 to move, next to g7 (player 2's)
    page = open_page(f"{live_server}/play/{match['id']}?seat={match['tokens'][1]}")
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    assert {"legal", "losing"} <= set(classes(page, "g7"))
    assert "legal" in classes(page, "f7") and "losing" not in classes(page, "f7")
    # Each look is one call into the page: the live connection may redraw the board between
    # two calls, and an element looked up in one is gone in the next.
    target = '#board [data-cell="g7"] .target'
    assert style(page, target, "stroke") == WARNING
    # A ring round the goal's badge, not a dot over its number.
    assert style(page, target, "fill") == "none"
    assert float(page.eval_on_selector(target, "e => e.getAttribute('r')")) >= 0.4
    assert style(page, '#board [data-cell="f7"] .target', "fill") != WARNING
    assert "loses at once" in cell(page, "g7").get_attribute("aria-label")
    # A warning sign in the cell's corner, drawn above the goal's badge, off its number.
    signs = page.eval_on_selector_all("#board svg .warning", "s => s.map(e => e.dataset.for)")
    assert signs == ["g7"]
    sign, goal = page.evaluate(
        """() => [document.querySelector('#board svg .warning'),
                  document.querySelector('#board [data-cell="g7"]')].map(e => {
            const r = e.getBoundingClientRect();
            return {x: r.x, y: r.y, width: r.width, height: r.height};
        })"""
    )
    middle = (sign["x"] + sign["width"] / 2, sign["y"] + sign["height"] / 2)
    assert goal["x"] <= middle[0] <= goal["x"] + goal["width"] * 0.35
    assert goal["y"] <= middle[1] <= goal["y"] + goal["height"] * 0.35
    assert style(page, "#board svg .warning polygon", "fill") == WARNING


def test_an_illegal_click_says_why(live_server, open_page) -> None:
    match = friend_game(live_server, ["e5", "f6"])
    player1 = open_page(f"{live_server}/play/{match['id']}?seat={match['tokens'][1]}")
    player1.wait_for_selector("#board [data-cell].legal", state="attached")
    note = player1.locator("#board-note")
    cell(player1, "a1").click()
    assert note.inner_text() == "a1 is not next to the snail on f6."
    cell(player1, "e5").click()
    assert note.inner_text() == "e5 is slimed."
    cell(player1, "f6").click()
    assert note.inner_text() == "f6: the snail is already there."
    assert note.is_visible()
    cell(player1, "f7").click()  # a legal move clears the note
    player1.wait_for_function("document.querySelectorAll('#move-list .mv').length === 3")
    assert note.inner_text() == ""
    cell(player1, "g6").click()
    assert (
        note.inner_text()
        == "Not your turn: waiting for " + (player1.locator(".player.p2 .name").inner_text()) + "."
    )
    watcher = open_page(f"{live_server}/play/{match['id']}")
    watcher.wait_for_selector("#board [data-cell]", state="attached")
    cell(watcher, "g6").click()
    assert "watching" in watcher.locator("#board-note").inner_text()
