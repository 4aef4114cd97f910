"""Turns of several steps and players who are out, on the play page, for any game that
declares them: Snake Pit's mover is told how many snakes the turn moves and how many are
still to move, and a player who is out is shown as out while the others play on."""

from __future__ import annotations

import random
from collections.abc import Iterator

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from slimetrail.core.registry import get_game
from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits
from slimetrail.web.views import steps_to_go

SNAKE_PIT = get_game("snake-pit")


def moves_until_out(seed: int = 9) -> tuple[list[str], int]:
    """Random turns until a player is out with the game still on: the moves and who is out."""
    rng = random.Random(seed)
    state = SNAKE_PIT.new_state()
    texts = []
    while not state.view()["out"]:
        move = rng.choice(state.legal_moves())
        texts.append(state.move_str(move))
        state.push(move)
    assert not state.is_over(), "this seed ends the game: pick another"
    (out,) = state.view()["out"]
    return texts, out


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'steps.db'}"
    limits = Limits(create_rate="1000/minute", client_jobs=100, in_flight=100)
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=limits)) as test_client:
        yield test_client


def hotseat(client: TestClient, game: str, moves: list[str]) -> dict:
    body = {"game": game, "opponent": "hotseat", "moves": moves}
    answer = client.post("/api/matches", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def seat_of(match: dict) -> str:
    return match["links"][str(match["to_move"])].split("seat=")[1]


# -- the JSON -----------------------------------------------------------------------


def test_steps_to_go_counts_whole_steps_of_two_clicks() -> None:
    view = {"to_move_steps": 3}
    left = [steps_to_go(SNAKE_PIT, view, made)["text"] for made in range(6)]
    assert left == ["3 snakes", "3 snakes", "2 snakes", "2 snakes", "1 snake", "1 snake"]
    assert steps_to_go(SNAKE_PIT, {"to_move_steps": 1}, 0) == {
        "left": 1,
        "total": 1,
        "text": "1 snake",
    }
    # A game whose turns declare no steps, and a view without the count: no steps.
    slimetrail = get_game("slimetrail")
    assert steps_to_go(slimetrail, slimetrail.new_state().view(), 0) is None
    assert steps_to_go(SNAKE_PIT, {}, 0) is None


def test_the_match_and_its_clicks_say_the_steps_still_to_move(client: TestClient) -> None:
    state = SNAKE_PIT.new_state()
    texts = []
    for _ in range(2):
        move = state.legal_moves()[0]
        texts.append(state.move_str(move))
        state.push(move)
    match = hotseat(client, "snake-pit", texts)
    assert match["steps"] == {"left": 3, "total": 3, "text": "3 snakes"}
    path = state.click_path(state.legal_moves()[0])
    url = f"/api/matches/{match['id']}/clicks"
    seen = []
    for made in range(1, len(path)):
        answer = client.get(url, params={"seat": seat_of(match), "prefix": ",".join(path[:made])})
        assert answer.status_code == 200, answer.text
        seen.append(answer.json()["steps"]["left"])
    assert seen == [3, 2, 2, 1, 1]
    # Games without steps keep their generic click count only.
    other = hotseat(client, "slimetrail", [])
    assert other["steps"] is None
    assert [p["out"] for p in other["players"]] == [False, False]


def test_a_player_out_is_marked_in_the_match_json(client: TestClient) -> None:
    texts, out = moves_until_out()
    before = hotseat(client, "snake-pit", texts[:-1])
    assert [p["out"] for p in before["players"]] == [False, False, False]
    match = hotseat(client, "snake-pit", texts)
    assert match["outcome"] is None
    assert [p["player"] for p in match["players"] if p["out"]] == [out]
    assert match["to_move"] != out and match["view"]["out"] == [out]
    # Once the game is over the places say it, not "out".
    state = SNAKE_PIT.new_state()
    for text in texts:
        state.push_str(text)
    rng = random.Random(1)
    while not state.is_over():
        move = rng.choice(state.legal_moves())
        texts.append(state.move_str(move))
        state.push(move)
    over = hotseat(client, "snake-pit", texts)
    assert over["outcome"] is not None and over["steps"] is None
    assert not any(p["out"] for p in over["players"])


# -- the page -----------------------------------------------------------------------


def status(page) -> str:
    return page.locator("#status").inner_text()


@pytest.mark.browser
def test_the_mover_is_told_how_many_snakes_are_still_to_move(live_server, open_page) -> None:
    state = SNAKE_PIT.new_state()
    texts = []
    for _ in range(2):  # Green moved 1 snake, Blue 2: Red's turn moves 3
        move = state.legal_moves()[0]
        texts.append(state.move_str(move))
        state.push(move)
    created = httpx.post(
        f"{live_server}/api/matches",
        json={"game": "snake-pit", "opponent": "hotseat", "moves": texts},
    )
    assert created.status_code == 201, created.text
    match = created.json()
    page = open_page(live_server + match["links"][str(match["to_move"])])
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    assert status(page) == "Red to move 3 snakes."
    assert page.locator("#to-go").is_hidden()
    expected = ["3 snakes", "2 snakes", "2 snakes", "1 snake", "1 snake"]
    for made, left in enumerate(expected, 1):
        cell = page.eval_on_selector("#board [data-cell].legal", "c => c.dataset.cell")
        page.locator(f'#board [data-cell="{cell}"]').click()
        page.wait_for_function(
            "n => document.querySelectorAll('#board [data-cell].chosen').length === n", arg=made
        )
        assert page.locator("#to-go").inner_text() == f"{left} still to move this turn"
    cell = page.eval_on_selector("#board [data-cell].legal", "c => c.dataset.cell")
    page.locator(f'#board [data-cell="{cell}"]').click()
    page.wait_for_function("document.querySelectorAll('#move-list .mv').length === 3")
    page.wait_for_function(
        "t => document.getElementById('status').textContent === t", arg="Green to move 3 snakes."
    )
    assert page.locator("#to-go").is_hidden()


@pytest.mark.browser
def test_a_player_who_is_out_is_shown_out_while_the_game_goes_on(live_server, open_page) -> None:
    texts, out = moves_until_out()
    body = {"game": "snake-pit", "opponent": "hotseat", "moves": texts}
    created = httpx.post(f"{live_server}/api/matches", json=body)
    assert created.status_code == 201, created.text
    match = created.json()
    name = SNAKE_PIT.player_names[out - 1]
    page = open_page(live_server + match["links"]["watch"])
    page.wait_for_selector("#board [data-cell]", state="attached")
    bar = page.locator(f".player.p{out}")
    assert "out" in bar.get_attribute("class").split()
    assert bar.locator(".note").inner_text() == "out"
    # Looked up and measured in one call: the live socket may redraw the bars at any moment,
    # and a detached bar has no computed style.
    measure = "s => getComputedStyle(document.querySelector(s)).opacity"
    opacity = page.evaluate(measure, f".player.p{out}")
    assert float(opacity) < 1  # dimmed
    for other in {1, 2, 3} - {out}:
        assert "out" not in page.locator(f".player.p{other}").get_attribute("class").split()
    mover = SNAKE_PIT.player_names[match["to_move"] - 1]
    assert status(page) == f"{name} is out. {mover} to move 3 snakes. You are watching."
