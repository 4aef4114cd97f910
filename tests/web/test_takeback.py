"""Take-back (undo) in the API: refused once the game is over, as the page's button is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'takeback.db'}"
    with TestClient(create_app(url, workers=1, limits=Limits(expiry_interval=0))) as test_client:
        yield test_client


def hotseat(client: TestClient) -> tuple[dict, str]:
    answer = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"})
    assert answer.status_code == 201, answer.text
    match = answer.json()
    return match, match["links"]["1"].split("seat=")[1]


def play(client: TestClient, match: dict, token: str, text: str) -> dict:
    answer = client.post(
        f"/api/matches/{match['id']}/move", json={"seat": token, "move": text, "ply": match["ply"]}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_finished_game_cannot_be_taken_back(client: TestClient) -> None:
    match, token = hotseat(client)
    for text in ("c3", "b2"):
        match = play(client, match, token, text)
    assert match["can_undo"]  # unfinished: the last move may be taken back
    match = play(client, match, token, "a1")  # the snail enters player 1's corner
    assert match["outcome"]["winner"] == 1 and not match["can_undo"]
    refused = client.post(
        f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": match["ply"]}
    )
    assert refused.status_code == 409
    assert "the game is over (1-0)" in refused.json()["detail"]
    assert "cannot be taken back" in refused.json()["detail"]
    after = client.get(f"/api/matches/{match['id']}", params={"seat": token}).json()
    assert after["moves"] == ["c3", "b2", "a1"] and after["outcome"] == match["outcome"]


def test_an_unfinished_game_is_still_taken_back(client: TestClient) -> None:
    match, token = hotseat(client)
    match = play(client, match, token, "c3")
    undone = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 1})
    assert undone.status_code == 200 and undone.json()["moves"] == []
