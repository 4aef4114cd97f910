"""Game review: ``GET /api/matches/{id}/review``, its verdicts against the reference solver,
the 409 rule, the cache, the record's comments, the engine's per-player values."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver.reference import reference_solve
from slimetrail.review import engine_verdict, exact_verdict, win_probability
from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits

UNLIMITED = Limits(create_rate="10000/minute", analyse_rate="10000/minute")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'review.db'}"
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=UNLIMITED)) as test_client:
        yield test_client


def thrown_win_game(seed: int) -> tuple[list[str], int]:
    """A finished 7x7 game of random moves in which, once few cells are left, the mover
    throws a proven win away; the moves and the ply (1-based) of that move."""
    game = get_game("slimetrail")
    rng = random.Random(seed)
    while True:
        state = game.new_state()
        thrown = 0
        while state.outcome() is None:
            free = len(state.legal_moves())
            if not thrown and len(state.move_stack) >= 18 and free > 1:
                proof = reference_solve(state)
                losing = [m for m, v in proof.move_values.items() if v != "win"]
                if proof.value == "win" and losing:
                    state.push(rng.choice(losing))
                    thrown = len(state.move_stack)
                    continue
            state.push(rng.choice(state.legal_moves()))
        if thrown:
            start = game.new_state()
            texts = []
            for move in state.move_stack:
                texts.append(start.move_str(move))
                start.push(move)
            return texts, thrown


TOKENS: dict[str, str] = {}  # match id -> the hotseat player's seat token


def hotseat(client: TestClient, game: str, moves: list[str], **options: str) -> str:
    response = client.post(
        "/api/matches",
        json={"game": game, "opponent": "hotseat", "moves": moves, "options": options},
    )
    assert response.status_code == 201, response.text
    match = response.json()
    TOKENS[match["id"]] = match["links"]["1"].split("seat=")[1]
    return match["id"]


def test_the_review_flags_the_move_that_threw_away_a_win_as_the_reference_solver_does(
    client: TestClient,
) -> None:
    moves, thrown = thrown_win_game(7)
    match_id = hotseat(client, "slimetrail", moves)
    response = client.get(f"/api/matches/{match_id}/review")
    assert response.status_code == 200, response.text
    review = response.json()
    plies = review["plies"]
    assert [entry["move"] for entry in plies] == moves
    entry = plies[thrown - 1]
    assert entry["verdict"] == "threw-win" and entry["verdict_text"] == "threw away the win"
    assert entry["proven"] and entry["turning"]
    assert (entry["value_before"], entry["value_after"]) == ("win", "loss")
    # The winning alternatives, exactly as the independent solver lists them.
    state = get_game("slimetrail").new_state()
    for text in moves[: thrown - 1]:
        state.push_str(text)
    reference = reference_solve(state, distance=True)
    expected = sorted(state.move_str(m) for m in reference.winning_moves)
    assert sorted(entry["winning_moves"]) == expected
    assert entry["plies_before"] == reference.plies
    assert entry["plies_after"] == reference.move_plies[state.parse_move(moves[thrown - 1])]
    assert entry["mover"] == state.to_move
    # The graph: an SVG with a strip per position and the turning point marked.
    graph = review["graph"]
    assert graph.startswith("<svg") and graph.count('class="ply-hit"') == len(moves) + 1
    assert f'data-ply="{thrown}"' in graph and 'class="turning"' in graph


def test_an_unfinished_game_against_the_computer_is_not_reviewed(client: TestClient) -> None:
    response = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "computer", "side": 2}
    )
    match_id = response.json()["id"]
    answer = client.get(f"/api/matches/{match_id}/review")
    assert answer.status_code == 409
    assert "review opens when it ends" in answer.json()["detail"]
    assert client.get("/api/matches/nosuchmatch/review").status_code == 404


def test_a_review_is_kept_per_match_and_made_again_after_a_change(client: TestClient) -> None:
    match_id = hotseat(client, "slimetrail", ["c3", "c2", "b2"])
    admission = client.app.state.computer.admission  # type: ignore[attr-defined]
    started = admission.stats()["started"]["analysis"]
    first = client.get(f"/api/matches/{match_id}/review").json()
    again = client.get(f"/api/matches/{match_id}/review").json()
    assert again == first
    assert admission.stats()["started"]["analysis"] == started + 1  # the second was kept
    token = TOKENS[match_id]
    played = client.post(
        f"/api/matches/{match_id}/move", json={"seat": token, "move": "b1", "ply": 3}
    )
    assert played.status_code == 200, played.text
    after = client.get(f"/api/matches/{match_id}/review").json()
    assert [entry["move"] for entry in after["plies"]] == ["c3", "c2", "b2", "b1"]


def test_the_record_carries_the_verdicts_as_comments(client: TestClient) -> None:
    moves, _ = thrown_win_game(11)
    match_id = hotseat(client, "slimetrail", moves)
    text = client.get(f"/api/matches/{match_id}/record", params={"review": "1"}).text
    comments = re.findall(r"\{([^}]*)\}", text)
    assert len(comments) == len(moves)
    assert any(c.startswith("threw away the win; winning: ") for c in comments)
    plain = client.get(f"/api/matches/{match_id}/record").text
    assert "{" not in plain
    # The commented record is still a record: importing it replays the same moves.
    imported = client.post("/api/import", json={"record": text})
    assert imported.status_code == 201, imported.text
    assert imported.json()["match"]["moves"] == moves


def test_snake_pit_gets_the_engines_review_with_per_player_values(client: TestClient) -> None:
    state = get_game("snake-pit").new_state()
    rng = random.Random(3)
    for _ in range(4):
        state.push(rng.choice(state.legal_moves()))
    moves = state_texts(state)
    match_id = hotseat(client, "snake-pit", moves)
    review = client.get(f"/api/matches/{match_id}/review").json()
    for entry in review["plies"]:
        assert not entry["proven"] and entry["value_before"] is None
        next_mover = str(entry["mover"] % 3 + 1)
        assert set(entry["eval"]) == {next_mover}
        assert 0.0 <= entry["eval"][next_mover] <= 1.0
    assert review["graph"].count("<polyline") == 3  # a line per player


def state_texts(state) -> list[str]:
    start = state.game.new_state()
    texts = []
    for move in state.move_stack:
        texts.append(start.move_str(move))
        start.push(move)
    return texts


def test_verdict_rules() -> None:
    assert exact_verdict("win", "loss", False, True) == "threw-win"
    assert exact_verdict("win", "draw", True, True) == "missed-win"
    assert exact_verdict("draw", "loss", False, True) == "threw-draw"
    assert exact_verdict("loss", "loss", False, False) == "good"
    assert exact_verdict("win", "win", False, True) == "best"
    assert [engine_verdict(d) for d in (None, 0.05, 0.1, 0.25, 0.5)] == [
        None,
        None,
        "inaccuracy",
        "mistake",
        "blunder",
    ]
    assert win_probability(None, None, "win") == 1.0
    assert win_probability(None, 0.25, None) == 0.25
    assert win_probability(0, None, None) == 0.5
    assert win_probability(1200, None, None) > 0.85


def test_without_the_solver_the_engine_calls_the_thrown_win_a_blunder() -> None:
    from slimetrail.review import review_moves

    moves, thrown = thrown_win_game(7)
    review = review_moves(get_game("slimetrail"), moves, solve_time=0.0, engine_time=0.3)
    entry = review["plies"][thrown - 1]
    assert not entry["proven"] and entry["value_before"] is None
    assert entry["verdict"] == "blunder", entry
    # The engine's best moves are not called mistakes: far fewer verdicts than moves.
    flagged = [e for e in review["plies"] if e["verdict"] is not None]
    assert len(flagged) < len(moves)
