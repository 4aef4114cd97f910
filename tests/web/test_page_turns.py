"""The play page during a game: whose turn it is, the phone layout, focus, take back, and
carrying an imported record on against the computer."""

from __future__ import annotations

import random

import httpx2 as httpx
import pytest
from pagetools import legal_cells, wait_frames, wait_my_turn

from slimetrail.core.records import Record
from slimetrail.core.registry import get_game

pytestmark = pytest.mark.browser

PHONE = (390, 844)  # a phone held upright, in CSS pixels


def move_count(page) -> int:
    return page.locator("#move-list .mv").count()


def play_a_move(page, cell: str) -> None:
    """Tap ``cell`` where it is on screen and wait for the computer's reply (or the end)."""
    before = move_count(page)
    # A locator click waits until the cell is on screen and steady (the board is redrawn when
    # the live connection delivers the state), then taps its centre as a finger would.
    page.locator(f'#board [data-cell="{cell}"]').click()
    page.wait_for_function(
        "n => document.querySelectorAll('#move-list .mv').length >= n + 2"
        " || !document.getElementById('result').hidden",
        arg=before,
    )


def test_the_phone_page_never_scrolls_by_itself(live_server, open_page) -> None:
    page = open_page(
        f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1&size=11", PHONE
    )
    wait_my_turn(page)
    positions = [page.evaluate("scrollY")]
    rng = random.Random(3)
    for _ in range(6):
        if page.locator("#result").is_visible():
            break
        wait_my_turn(page)
        play_a_move(page, rng.choice(legal_cells(page)))
        wait_frames(page)  # any late scrolling (focus, layout) has happened
        positions.append(page.evaluate("scrollY"))
    assert len(positions) >= 4
    assert positions == [0] * len(positions)
    # The opponent's bar is still on screen; only the move list scrolls.
    assert page.locator(".player.p2").bounding_box()["y"] >= 0
    overflow = page.eval_on_selector("#move-list", "e => getComputedStyle(e).overflowY")
    assert overflow == "auto"


def test_whose_turn_is_unmissable(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1", PHONE)
    wait_my_turn(page)
    assert page.title().startswith("(Your move) ")
    banner = page.locator("#turn-banner")
    assert banner.is_visible() and banner.inner_text() == "Your move"
    board = page.locator("#board").bounding_box()
    assert banner.bounding_box()["y"] + banner.bounding_box()["height"] <= board["y"]
    assert banner.bounding_box()["y"] < PHONE[1] / 4  # seen without scrolling
    mine, theirs = page.locator(".player.p1"), page.locator(".player.p2")
    assert "to-move" in mine.get_attribute("class").split()
    assert "to-move" not in theirs.get_attribute("class").split()
    lit = "e => getComputedStyle(e).boxShadow + getComputedStyle(e).backgroundColor"
    assert mine.evaluate(lit) != theirs.evaluate(lit)
    # The computer's turn: the title no longer says it is mine.  A warm server's reply may
    # come within a frame of the move, so every title shown is recorded, not polled for.
    page.evaluate(
        """() => { window.titles = []; new MutationObserver(() => titles.push(document.title))
            .observe(document.querySelector('title'), {childList: true, subtree: true,
                                                       characterData: true}); }"""
    )
    cell = legal_cells(page)[0]
    page.locator(f'#board [data-cell="{cell}"]').click()
    page.wait_for_function("window.titles.some(t => !t.startsWith('(Your move)'))")
    page.wait_for_function("document.title.startsWith('(Your move)')")
    wait_my_turn(page)
    # On a desktop the status box beside the board says it; the banner is not repeated.
    desktop = open_page(page.url)
    wait_my_turn(desktop)
    assert not desktop.locator("#turn-banner").is_visible()
    assert desktop.locator("#status").inner_text().startswith("Your move")


def test_keyboard_focus_returns_to_the_snail_after_the_reply(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1")
    wait_my_turn(page)
    page.locator("#board").focus()
    before = move_count(page)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "n => document.querySelectorAll('#move-list .mv').length >= n + 2", arg=before
    )
    wait_my_turn(page)
    assert page.evaluate("document.activeElement.id") == "board"
    focused = page.locator("#board [data-cell].focus")
    assert focused.count() == 1
    assert "mark-snail" in focused.get_attribute("class").split()
    assert page.evaluate("scrollY") == 0


def finished_record(size: str = "5") -> str:
    state = get_game("slimetrail", size=size).new_state()
    rng = random.Random(1)
    while not state.is_over():
        state.push(rng.choice(state.legal_moves()))
    return Record.from_state(state).to_pgn()


def test_take_back_is_disabled_once_the_game_is_over(live_server, open_page) -> None:
    imported = httpx.post(f"{live_server}/api/import", json={"record": finished_record()}).json()
    page = open_page(live_server + imported["url"])
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#undo").is_visible() and page.locator("#undo").is_disabled()
    assert not page.locator("#continue").is_visible()


def test_an_imported_record_continues_against_the_computer(live_server, open_page) -> None:
    record = '[Game "slimetrail"]\n\n1. c3 c2 2. d2 *\n'
    imported = httpx.post(f"{live_server}/api/import", json={"record": record}).json()
    page = open_page(live_server + imported["url"])
    wait_my_turn(page)
    assert page.locator("#move-list .mv").all_inner_texts() == ["c3", "c2", "d2"]
    page.locator("#continue").click()
    page.wait_for_url(lambda url: imported["match"]["id"] not in url)
    wait_my_turn(page)  # player 2 was to move: that is me now
    assert page.locator("#move-list .mv").all_inner_texts() == ["c3", "c2", "d2"]
    assert "computer" in page.locator(".player.p1").inner_text()
    assert "you" in page.locator(".player.p2").inner_text()
    play_a_move(page, legal_cells(page)[0])
    assert move_count(page) >= 5  # the computer answered
