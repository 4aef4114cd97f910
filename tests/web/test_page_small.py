"""Small things a new player ran into on the play page (issue 24, item 7): a seat chip that
must read on any player's colour, and a page that does nothing a player did not ask for
before their first key press or click (no focus ring, no audio warning)."""

from __future__ import annotations

import httpx2 as httpx
import pytest
from pagetools import BEHIND, contrast, wait_for_moves, wait_frames, wait_loaded

pytestmark = pytest.mark.browser


CHIPS = """() => [...document.querySelectorAll('#players .chip')].map((chip) => {
  const style = getComputedStyle(chip);
  return [chip.textContent, style.color, style.backgroundColor];
})"""


@pytest.mark.parametrize("game", ["slither", "slime-moku", "snake-pit"])
def test_every_seat_chip_reads_on_its_colour(live_server, open_page, game: str) -> None:
    page = open_page(f"{live_server}/new/{game}?opponent=hotseat")
    wait_loaded(page)
    chips = page.evaluate(CHIPS)
    assert len(chips) >= 2
    for number, ink, background in chips:
        # WCAG's 3:1 for large bold text (White's chip was white on white: 1:1).
        assert contrast(ink, background) >= 3, (number, ink, background)


def test_the_opponents_first_move_sets_off_no_focus_ring_and_no_audio_warning(
    live_server, open_page
) -> None:
    match = httpx.post(
        f"{live_server}/api/matches", json={"game": "slimetrail", "opponent": "friend"}
    ).json()
    first_seat = match["links"]["1"].split("seat=")[1]
    page = open_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.goto(live_server + match["links"]["2"])
    wait_loaded(page)
    # The friend moves first; the page hears it over its live connection, before this
    # player has pressed any key or clicked anything.
    move = next(iter(match["clicks"]))
    answer = httpx.post(
        f"{live_server}/api/matches/{match['id']}/move",
        json={"seat": first_seat, "move": move, "ply": 0},
    )
    assert answer.status_code == 200, answer.text
    wait_for_moves(page, 1)
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    wait_frames(page)
    board = page.evaluate(
        "() => { const b = document.getElementById('board');"
        " return [b.matches(':focus-visible'), getComputedStyle(b).outlineStyle,"
        " b.querySelectorAll('[data-cell].focus').length]; }"
    )
    assert board == [False, "none", 0]
    assert not [line for line in console if "AudioContext" in line], console
    # A keyboard player still gets the ring: Tab to the board.
    for _ in range(30):
        if page.evaluate("document.activeElement.id") == "board":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('board').matches(':focus-visible')")
    assert page.locator("#board [data-cell].focus").count() == 1


# The frame of the player to move and of the turn banner, and the page behind them.
TURN_FRAMES = (
    "() => { "
    + BEHIND
    + """ const bar = document.querySelector('#players .player.to-move');
    const banner = document.getElementById('turn-banner');
    return [getComputedStyle(bar).borderTopColor, behind(bar),
            getComputedStyle(banner).borderTopColor, behind(banner)]; }"""
)


def test_whites_turn_is_framed_in_a_colour_that_shows(live_server, open_page) -> None:
    # White's own colour is white: its turn was framed white on the light page (1.1:1).
    page = open_page(f"{live_server}/new/slither?opponent=hotseat", (390, 844))
    page.wait_for_selector("#board [data-cell].legal")
    page.click('#board [data-cell="e5"]')
    wait_for_moves(page, 1)
    page.wait_for_function("document.querySelector('#players .player.p2.to-move')")
    bar, bar_behind, banner, banner_behind = page.evaluate(TURN_FRAMES)
    assert contrast(bar, bar_behind) >= 3, (bar, bar_behind)
    assert contrast(banner, banner_behind) >= 3, (banner, banner_behind)
