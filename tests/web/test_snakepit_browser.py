"""Snake Pit in a real browser: turns of k snake/destination click pairs, three seats.

Against a real ``slimetrail serve`` (the session's ``live_server`` fixture, 0.3 s computer
moves, matches of the test's own), the way people play: one person against two computers for a whole
game, and three people in three browser contexts by their seat links with a spectator.
"""

from __future__ import annotations

import httpx2 as httpx
import pytest
from pagetools import legal_cells, match_api, moves, wait_for_moves, wait_for_note

from slimetrail.core.registry import get_game

pytestmark = pytest.mark.browser

SNAKE_PIT = get_game("snake-pit")
CELLS = {cell["name"] for cell in SNAKE_PIT.describe_board()["cells"]}


def chosen_cells(page) -> list[str]:
    return page.eval_on_selector_all(
        "#board [data-cell].chosen", "cells => cells.map(c => c.dataset.cell)"
    )


def pick(page, cell: str, clicked: list[str]) -> None:
    """One click of a partial turn; waits until the page shows it chosen."""
    page.click(f'#board [data-cell="{cell}"]')
    page.wait_for_selector(f'#board [data-cell="{cell}"].chosen')
    clicked.append(cell)
    assert page.locator("#partial").inner_text() == "Move so far: " + " ".join(clicked)


def roomiest_turn(played: list[str], *, least: bool = False) -> list[str]:
    """The clicks of the turn after ``played`` that leaves the mover's snakes the most room
    (their free neighbours, fewest first, compared): first-offered clicks walk snakes into
    corners, and a player with two snakes shut in is out before the turns this test needs.
    With ``least``, the turn that leaves them the least room instead."""
    state = SNAKE_PIT.new_state()
    for move in played:
        state.push_str(move)
    mover = state.to_move  # players count from 1

    def room(move) -> list[int]:
        after = state.copy()
        after.push(move)
        sides = after.fen().split()[:3]
        taken = {cell for side in sides for part in side.split("/") for cell in part.split(",")}
        snakes = sides[mover - 1].split("/")[0].split(",")
        return sorted(sum(n not in taken for n in neighbours(snake)) for snake in snakes)

    return state.click_path((min if least else max)(state.legal_moves(), key=room))


def neighbours(cell: str) -> list[str]:
    """RULES.md 5: (L, N) touches (L±1, N), (L, N±1), (L+1, N+1) and (L-1, N-1)."""
    letter, number = ord(cell[0]), int(cell[1:])
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))
    names = (f"{chr(letter + dl)}{number + dn}" for dl, dn in steps)
    return [name for name in names if name in CELLS]


def play_turn(page, steps: int, *, cancel_first: bool = False, chosen: list[str]) -> str:
    """Click a turn of ``steps`` snake/destination pairs (the ``chosen`` clicks) and send it
    with the last click; with ``cancel_first`` a first pair (the first offered) is chosen,
    checked unsent, and cancelled before the turn is clicked for real.  Returns the clicks."""
    requests: list[str] = []

    def seen(request) -> None:
        requests.append(request.url)

    page.on("request", seen)
    before = len(moves(page))
    if cancel_first:
        clicked: list[str] = []
        snake = legal_cells(page)[0]
        pick(page, snake, clicked)
        pick(page, legal_cells(page)[0], clicked)
        assert sorted(chosen_cells(page)) == sorted(clicked)
        assert snake not in legal_cells(page)  # a snake steps once a turn
        assert page.locator("#cancel").is_visible()
        page.click("#cancel")
        page.wait_for_selector("#board [data-cell].chosen", state="detached")
        assert page.locator("#partial").is_hidden() and snake in legal_cells(page)
    clicked = []
    assert len(chosen) == 2 * steps
    for step in range(steps):
        snake, destination = chosen[2 * step : 2 * step + 2]
        assert snake in legal_cells(page)
        pick(page, snake, clicked)
        assert destination in legal_cells(page)
        if step < steps - 1:
            pick(page, destination, clicked)
        else:
            assert not [url for url in requests if url.endswith("/move")]  # nothing sent yet
            page.click(f'#board [data-cell="{destination}"]')
            clicked.append(destination)
    wait_for_moves(page, before + 1)
    assert page.locator("#partial").is_hidden()
    assert len([url for url in requests if url.endswith("/move")]) == 1
    page.remove_listener("request", seen)
    return " ".join(clicked)


def turn_cells(move: str) -> str:
    """The clicks of a move's text, in the text's order: ``a7-b7,g1-h2`` -> ``a7 b7 g1 h2``."""
    return " ".join(cell for step in move.split(",") for cell in step.split("-"))


@pytest.mark.slow
def test_whole_game_against_two_computers_by_clicks(live_server, new_page) -> None:
    # My first turns keep my snakes free; should the computers' random turns still end a game
    # before my third turn (a turn of three pairs), another game, every check made again.
    for _ in range(3):
        if whole_game_by_clicks(live_server, new_page) >= 3:
            return
    pytest.fail("three games in a row ended before my third turn")


def whole_game_by_clicks(live_server: str, new_page) -> int:
    """One game as Green against two level-1 computers, to its end; my turns played."""
    page = new_page(f"{live_server}/new/snake-pit?seats=me,computer:1,computer:1")
    match = match_api(live_server, page)
    assert [p["kind"] for p in match["players"]] == ["human", "computer", "computer"]
    my_turns = 0
    for _ in range(80):
        page.wait_for_function(
            "document.querySelector('#board [data-cell].legal') || "
            "!document.getElementById('result').hidden"
        )
        match = match_api(live_server, page)
        if match["outcome"] is not None:
            break
        if match["to_move"] != 1 or match["thinking"]:
            wait_for_moves(page, match["ply"] + 1)
            continue
        steps = match["view"]["to_move_steps"]
        assert steps == min(match["ply"] + 1, 3)  # k = 1, 2, then 3 (nobody out yet)
        # Past my third turn (every size of turn clicked) my snakes seek the corners: I am
        # out sooner, and the computers play the game to its end (11 turns of mine -> 7).
        clicks = play_turn(
            page,
            steps,
            cancel_first=steps >= 2 and my_turns == 1,
            chosen=roomiest_turn(match["moves"], least=my_turns >= 3),
        )
        my_turns += 1
        sent = match_api(live_server, page)["moves"][match["ply"]]
        assert sorted(turn_cells(sent).split()) == sorted(clicks.split())
    else:
        pytest.fail("the game did not end")
    page.wait_for_selector("#result:not([hidden])")
    match = match_api(live_server, page)
    assert match["outcome"]["result"] in page.locator("#result").inner_text()
    assert sorted(match["outcome"]["places"]) == [1, 2, 3]
    assert moves(page) == match["moves"] and legal_cells(page) == []
    return my_turns


def test_three_people_by_seat_links_see_each_other_live_and_a_spectator_cannot_move(
    live_server, new_page
) -> None:
    green = new_page(f"{live_server}/new/snake-pit?seats=me,friend,friend")
    links = {
        name: green.locator(f'#link-list input[data-link="{name}"]').input_value()
        for name in ("2", "3", "watch")
    }
    assert all("seat=" in links[n] for n in ("2", "3")) and "seat=" not in links["watch"]
    blue, red, watcher = new_page(links["2"]), new_page(links["3"]), new_page(links["watch"])
    people = {1: green, 2: blue, 3: red}
    assert "watching" in watcher.locator("#status").inner_text()
    # The spectator's clicks on Green's snake do nothing, and the API refuses a seatless move.
    requests: list[str] = []
    watcher.on("request", lambda request: requests.append(request.url))
    watcher.click('#board [data-cell="b9"]')
    wait_for_note(watcher, "You are watching")  # the click was handled: by a note only
    assert not [url for url in requests if "/move" in url or "/clicks" in url]
    assert legal_cells(watcher) == [] and chosen_cells(watcher) == []
    match_id = links["watch"].rsplit("/", 1)[1].split("?")[0]
    answer = httpx.post(
        f"{live_server}/api/matches/{match_id}/move",
        json={"seat": "", "move": "b9-c9", "ply": 0},
    )
    assert answer.status_code == 403
    for ply, steps in enumerate([1, 2, 3, 3, 3]):
        mover = 1 + ply % 3
        page = people[mover]
        page.wait_for_selector("#board [data-cell].legal")
        for other, other_page in people.items():
            if other != mover:
                assert legal_cells(other_page) == []  # only the mover is offered clicks
        play_turn(page, steps, chosen=roomiest_turn(match_api(live_server, page)["moves"]))
        sent = match_api(live_server, page)["moves"]
        assert len(sent) == ply + 1
        for other_page in [*people.values(), watcher]:
            wait_for_moves(other_page, ply + 1)  # over the WebSocket, no reload
            assert moves(other_page) == sent
        # Everyone's board shows the mover's snakes where they went.
        heads = [step.split("-")[1] for step in sent[-1].split(",")]
        for other_page in (*people.values(), watcher):
            for cell in heads:
                classes = other_page.get_attribute(f'#board [data-cell="{cell}"]', "class")
                assert f"mark-head-{mover}" in (classes or "").split()
    assert legal_cells(watcher) == []
    assert not watcher.locator("#move-form").is_visible()
