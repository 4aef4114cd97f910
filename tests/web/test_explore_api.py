"""``/api/explore``: 7x7 positions with every move's proven value and game length, and bad
input named."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import solve
from slimetrail.web.app import create_app
from slimetrail.web.routes.atlas import explorer_starts, mirrored
from slimetrail.web.settings import Limits


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'explore.db'}"
    limits = Limits(analyse_rate="10000/minute")
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=limits)) as test_client:
        yield test_client


def test_a_position_gets_every_moves_value_and_length_as_the_solver_proves(client) -> None:
    moves = ["e4", "d3", "c3", "c2"]
    params = {"rules": "taylor", "start": "e5", "moves": " ".join(moves)}
    answer = client.get("/api/explore", params=params)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    state = get_game("slimetrail", rules="taylor", start="e5").new_state()
    for text in moves:
        state.push_str(text)
    proof = solve(state, distance=True, book=False)
    assert body["solved"] and body["value"] == proof.value and body["plies"] == proof.plies
    assert body["values"] == {
        state.move_str(m): {"value": v, "plies": proof.move_plies[m]}
        for m, v in proof.move_values.items()
    }
    assert body["moves"] == moves and body["to_move"] == state.to_move
    # The board offers the legal moves as clicks.
    for text in state.legal_move_strs():
        assert f'<g class="cell legal" data-cell="{text}"' in body["svg"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rules": "chess"}, "rules='chess' is not one of rastros, taylor"),
        ({"start": "a1"}, "start='a1' is not a proven start square of 7x7"),
        ({"moves": "d4 zz"}, "move 1 ('d4')"),
    ],
)
def test_bad_input_is_named(client, params, message) -> None:
    answer = client.get("/api/explore", params=params)
    assert answer.status_code == 400
    assert message in answer.json()["detail"]


def test_every_start_square_of_7x7_can_be_explored() -> None:
    starts = explorer_starts()
    assert len(starts) == 47 and "a1" not in starts and "g7" not in starts
    assert mirrored("b1") == "a2" and mirrored("e3") == "c5"
