"""The Review button of the play page: verdicts in the move list, the evaluation graph that
jumps to a move, the turning point marked on the board."""

from __future__ import annotations

import httpx2 as httpx
import pytest
from pagetools import moves, wait_for_moves, wait_my_turn

from slimetrail.core.registry import get_game

pytestmark = pytest.mark.browser


def test_review_shows_verdicts_graph_and_turning_point(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slimetrail?opponent=hotseat")
    wait_my_turn(page)
    assert page.locator("#review").is_visible()  # one person plays both sides
    for count, cell in enumerate(["c3", "c2", "b2"], 1):
        page.click(f'#board [data-cell="{cell}"]')
        wait_for_moves(page, count)
        wait_my_turn(page)
    assert moves(page) == ["c3", "c2", "b2"]
    page.click("#review")
    page.wait_for_selector("#review-graph svg .ply-hit", state="attached", timeout=90_000)
    # b2 threw the win away: marked in the move list with its verdict.
    thrown = page.locator('#move-list .mv[data-ply="3"]')
    assert thrown.get_attribute("data-verdict") == "threw-win"
    assert "turning" in (thrown.get_attribute("class") or "").split()
    assert page.locator("#move-list .mv-verdict").all_inner_texts() == ["threw away the win"]
    assert page.locator('#move-list .mv[data-ply="1"]').get_attribute("data-verdict") == "best"
    # On the board after b2 (the live position): its cell ringed as a turning point.
    assert page.locator('#board .turning-mark[data-for="b2"]').count() == 1
    detail = page.locator("#review-detail").inner_text()
    assert "Move 3, b2: threw away the win." in detail
    assert "Winning moves instead: d2." in detail
    # The graph jumps to a move: the position after c3, with no turning point on it.
    page.locator('#review-graph .ply-hit[data-ply="1"]').dispatch_event("click")
    page.wait_for_function("!document.getElementById('viewing').hidden")
    assert "after move 1 of 3" in page.locator("#viewing").inner_text()
    assert page.locator("#board .turning-mark").count() == 0
    assert "Move 1, c3: best." in page.locator("#review-detail").inner_text()
    link = page.get_attribute("#export-review", "href")
    assert link.endswith("review=1")


def test_no_review_button_while_a_game_against_the_computer_goes_on(live_server, open_page):
    page = open_page(f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1")
    wait_my_turn(page)
    assert page.locator("#review").is_hidden()


def test_a_verdict_is_never_split_across_lines(live_server, open_page) -> None:
    """A 5x5 game to its end with many turning points: in the narrow move list, a move's
    verdict ("missed a win") goes to the next line whole, never "missed a" and "win"."""
    options = {"size": 5}
    match = httpx.post(
        f"{live_server}/api/matches",
        json={"game": "slimetrail", "options": options, "opponent": "hotseat"},
    ).json()
    token = match["links"]["1"].split("seat=")[1]
    state = get_game("slimetrail", **options).new_state()
    ply = 0
    while state.outcome() is None:  # a move a third of the way down the list each turn
        choices = state.legal_move_strs()
        move = choices[len(choices) // 3]
        body = {"seat": token, "move": move, "ply": ply}
        state.push_str(move)
        ply += 1
        httpx.post(f"{live_server}/api/matches/{match['id']}/move", json=body).raise_for_status()
    page = open_page(live_server + match["links"]["1"])
    page.click("#review")
    page.wait_for_selector("#review-graph svg .ply-hit", state="attached", timeout=90_000)
    lines = page.eval_on_selector_all(
        "#move-list .mv-verdict", "notes => notes.map(n => n.getClientRects().length)"
    )
    assert len(lines) >= 4 and set(lines) == {1}, lines
