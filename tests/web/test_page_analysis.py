"""Analysis on the page: where the exact solver gives up, the engine's evaluation and best
move; and a Hint button, like the terminal's ``hint``."""

from __future__ import annotations

import re

import httpx2 as httpx
import pytest
from pagetools import legal_cells

pytestmark = pytest.mark.browser


def test_an_unsolved_position_shows_the_engines_view(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slimetrail?opponent=hotseat&size=15")
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    page.click("#analyse")
    page.wait_for_selector("#analysis .engine", timeout=60_000)
    text = page.locator("#analysis").inner_text()
    assert text.startswith("Could not solve this position exactly")
    best = re.search(r"best move (\w+), (score [+-]?\d+ for Green|Green (wins|loses|draws))", text)
    assert best, text
    assert best.group(1) in legal_cells(page)


def test_hint_suggests_a_winning_move_where_there_is_one(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slimetrail?opponent=hotseat&size=5")
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    page.click("#hint")
    page.wait_for_function("document.getElementById('hint-text').textContent.startsWith('Hint:')")
    move = re.match(r"Hint: (\w+) \(", page.locator("#hint-text").inner_text()).group(1)
    assert move in legal_cells(page)
    assert "hint" in page.get_attribute(f'#board [data-cell="{move}"]', "class").split()
    solved = httpx.post(
        f"{live_server}/api/analyse",
        json={"game": "slimetrail", "options": {"size": "5"}, "moves": []},
        timeout=60,
    ).json()
    assert solved["solved"]
    values = solved["moves"]
    best = "win" if "win" in values.values() else "draw" if "draw" in values.values() else "loss"
    assert values[move] == best
    # The hint belongs to its position: after a move it is gone.
    page.click(f'#board [data-cell="{move}"]')
    page.wait_for_function("document.querySelectorAll('#move-list .mv').length === 1")
    assert page.locator("#board [data-cell].hint").count() == 0
    assert not page.locator("#hint-text").is_visible()


def test_no_hint_button_when_it_is_not_your_move(live_server, open_page) -> None:
    match = httpx.post(
        f"{live_server}/api/matches", json={"game": "slimetrail", "opponent": "friend"}
    ).json()
    watcher = open_page(f"{live_server}/play/{match['id']}")
    watcher.wait_for_selector("#board [data-cell]", state="attached")
    assert not watcher.locator("#hint").is_visible()


# Each badge's disc and outline, against the snail's cell: how far the badge reaches.
BADGES_AND_SNAIL = """() => {
  const cell = document.querySelector('#board [data-cell].mark-snail').getBBox();
  return [...document.querySelectorAll('#board .badge circle')].map((c) => {
    const [x, y, r] = ['cx', 'cy', 'r'].map((name) => Number(c.getAttribute(name)));
    const dx = Math.max(cell.x - x, 0, x - (cell.x + cell.width));
    const dy = Math.max(cell.y - y, 0, y - (cell.y + cell.height));
    return { r, stroke: parseFloat(getComputedStyle(c).strokeWidth), gap: Math.hypot(dx, dy) };
  });
}"""


def test_analysis_badges_are_small_and_leave_the_snail_in_view(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slimetrail?opponent=hotseat&size=5")
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    page.click(f'#board [data-cell="{legal_cells(page)[0]}"]')
    page.wait_for_function("document.querySelectorAll('#move-list .mv').length === 1")
    page.click("#analyse")
    page.wait_for_selector("#board .badge circle", state="attached", timeout=60_000)
    badges = page.evaluate(BADGES_AND_SNAIL)
    assert len(badges) == len(legal_cells(page))
    for badge in badges:
        # A thin outline (the board's own stroke width is a whole cell here)...
        assert 0 < badge["stroke"] <= 0.3 * badge["r"], badge
        # ...and nothing of the badge drawn on the snail's cell.
        assert badge["r"] + badge["stroke"] / 2 < badge["gap"], badge
