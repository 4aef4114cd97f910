"""The boards the server sends for a match (the match JSON, its WebSocket message, a past
position, the board with a compound move's next clicks) draw the last move's mark in the
colour of the player who made it, as the match's moves record it."""

from __future__ import annotations

import random
import re
from typing import Any

from fastapi.testclient import TestClient

from slimetrail import render
from slimetrail.core.registry import get_game

RING = re.compile(r'<circle class="last-mark"[^>]*stroke="([^"]+)"')


def ring_colour(svg: str) -> str:
    """The stroke of the board's one last-move mark."""
    (stroke,) = set(RING.findall(svg))
    return stroke


def create(client: TestClient, game: str, **body: Any) -> tuple[dict[str, Any], str]:
    response = client.post("/api/matches", json={"game": game, "opponent": "hotseat", **body})
    assert response.status_code == 201, response.text
    match = response.json()
    return match, match["links"]["1"].split("seat=")[1]


def play(client: TestClient, match: dict[str, Any], token: str, text: str) -> dict[str, Any]:
    body = {"seat": token, "move": text, "ply": match["ply"]}
    response = client.post(f"/api/matches/{match['id']}/move", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_slimetrail_last_move_in_the_movers_colour(client: TestClient) -> None:
    match, token = create(client, "slimetrail")
    green, red = match["player_colours"]
    assert len({green, red, render.PALETTE["last"]}) == 3
    with client.websocket_connect(f"/ws/matches/{match['id']}?seat={token}") as ws:
        assert ws.receive_json()["match"]["ply"] == 0
        match = play(client, match, token, "c3")
        assert ring_colour(match["svg"]) == green
        assert ring_colour(ws.receive_json()["match"]["svg"]) == green
        reply = sorted(match["clicks"])[0]
        match = play(client, match, token, reply)
        assert match["moves"] == ["c3", reply] and match["movers"] == [1, 2]
        assert ring_colour(match["svg"]) == red
        assert ring_colour(ws.receive_json()["match"]["svg"]) == red
    # A past position and the board with the next clicks: the same colours.
    past = client.get(f"/api/matches/{match['id']}/view", params={"ply": 1}).json()
    assert ring_colour(past["svg"]) == green
    now = client.get(f"/api/matches/{match['id']}/view").json()
    assert ring_colour(now["svg"]) == red
    clicks = client.get(f"/api/matches/{match['id']}/clicks", params={"seat": token}).json()
    assert ring_colour(clicks["svg"]) == red


def a_move_before_a_skip(seed_limit: int = 50) -> tuple[list[str], int]:
    """Snake Pit moves after whose last one the player to move does not follow its mover in
    turn order (the player between them is out), and that mover's number."""
    game = get_game("snake-pit")
    for seed in range(seed_limit):
        rng, state, texts = random.Random(seed), game.new_state(), []
        while state.outcome() is None:
            move, mover = rng.choice(state.legal_moves()), state.to_move
            texts.append(state.move_str(move))
            state.push(move)
            if state.outcome() is None and state.to_move != mover % 3 + 1:
                return texts, mover
    raise AssertionError("no seeded playout had a player out before the end")


def test_snake_pit_mark_is_in_the_colour_of_who_moved_not_of_the_player_before(
    client: TestClient,
) -> None:
    texts, mover = a_move_before_a_skip()
    match, token = create(client, "snake-pit", moves=texts[:-1])
    match = play(client, match, token, texts[-1])
    assert match["movers"][-1] == mover and match["outcome"] is None
    # The player "before" the one to move is someone else: the one who is out.
    assert (match["to_move"] - 2) % 3 + 1 != mover
    assert ring_colour(match["svg"]) == match["player_colours"][mover - 1]
    # Without the match's record (a diagram), taking the move back finds the same player.
    state = get_game("snake-pit").new_state()
    for text in texts:
        state.push_str(text)
    assert render.board_view(state)["last_player"] == mover
