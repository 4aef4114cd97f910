"""``/api/puzzles``: the next puzzle (without its solution), answers checked against the
shipped proof (right, wrong with the refutation, played out to the win), bad input named."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from slimetrail import puzzles
from slimetrail.web.app import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'puzzles.db'}"
    with TestClient(create_app(url, workers=1, move_time=0.2)) as test_client:
        yield test_client


def a_puzzle() -> dict:
    """A 7x7 puzzle of at least two of the solver's turns, with a wrong first move and a
    choice of replies for the defender."""
    return next(
        p
        for p in puzzles.puzzles("slimetrail")
        if len(p["line"]) >= 3
        and p["tree"]["refute"]
        and len(puzzles.position(p, p["line"][:1]).legal_moves()) > 1
    )


def test_next_gives_a_puzzle_near_the_rating_without_its_solution(client) -> None:
    answer = client.get("/api/puzzles/next", params={"game": "slimetrail", "rating": 1500})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {
        *("id", "game", "options", "moves", "to_move", "rating", "svg", "players", "clicks", "goal")
    }
    puzzle = puzzles.find(body["id"])
    assert body["moves"] == puzzle["moves"] and body["to_move"] == puzzle["to_move"]
    assert body["game"] == "slimetrail" and "<svg" in body["svg"]
    ratings = sorted(p["rating"] for p in puzzles.puzzles("slimetrail"))
    nearest = min(abs(r - 1500) for r in ratings)
    assert abs(body["rating"] - 1500) <= max(nearest, puzzles.RATING_WINDOW)
    # A named puzzle, and the ones already seen are skipped.
    again = client.get("/api/puzzles/next", params={"game": "slimetrail", "id": body["id"]})
    assert again.json()["id"] == body["id"]
    other = client.get("/api/puzzles/next", params={"game": "slimetrail", "skip": body["id"]})
    assert other.json()["id"] != body["id"]


def test_the_whole_line_is_played_out_to_the_win(client) -> None:
    puzzle = a_puzzle()
    line = puzzle["line"]
    for index in range(0, len(line), 2):
        answer = client.post(
            f"/api/puzzles/{puzzle['id']}/answer", json={"moves": line[: index + 1]}
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["correct"] is True
        reply = line[index + 1] if index + 1 < len(line) else None
        assert body["next"] == reply
        assert body["solved"] is (index + 2 >= len(line))
    assert body["moves"] == line


def test_a_wrong_move_is_refuted(client) -> None:
    puzzle = a_puzzle()
    wrong, refutation = next(iter(puzzle["tree"]["refute"].items()))
    answer = client.post(f"/api/puzzles/{puzzle['id']}/answer", json={"moves": [wrong]})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["correct"] is False and body["refutation"] == refutation and "next" not in body
    # The refutation wins for the computer (or the wrong move ended the game).
    state = puzzles.position(puzzle, [wrong])
    assert refutation is None or state.game.exact_solver().solve(state).value == "win"


@pytest.mark.parametrize(
    ("moves", "status", "words"),
    [
        ([], 400, "moves is empty"),
        (["z9"], 400, "move 1 ('z9')"),
        (["FIRST", "OTHER"], 400, "is not the computer's answer"),
        (["FIRST", "REPLY"], 400, "ends with the computer's move"),
    ],
)
def test_bad_answers_are_named(client, moves, status, words) -> None:
    puzzle = a_puzzle()
    after = puzzles.position(puzzle, puzzle["line"][:1])
    other = next(t for t in after.legal_move_strs() if t != puzzle["line"][1])
    names = {"FIRST": puzzle["line"][0], "REPLY": puzzle["line"][1], "OTHER": other}
    moves = [names.get(m, m) for m in moves]
    answer = client.post(f"/api/puzzles/{puzzle['id']}/answer", json={"moves": moves})
    assert answer.status_code == status, answer.text
    assert words in answer.json()["detail"]


def test_unknown_puzzles_and_games_are_named(client) -> None:
    answer = client.post("/api/puzzles/nope/answer", json={"moves": ["c3"]})
    assert answer.status_code == 404 and "no puzzle has the id 'nope'" in answer.json()["detail"]
    answer = client.get("/api/puzzles/next", params={"game": "chess"})
    assert answer.status_code == 404 and "no puzzles for game 'chess'" in answer.json()["detail"]
    answer = client.get("/api/puzzles/next", params={"game": "slimetrail", "id": "nope"})
    assert answer.status_code == 404
    answer = client.post(f"/api/puzzles/{a_puzzle()['id']}/answer", json={"moves": "c3"})
    assert answer.status_code == 422
    assert client.get("/puzzles/chess").status_code == 404


def test_the_pages_list_the_sets_and_link_from_home(client) -> None:
    page = client.get("/puzzles")
    assert page.status_code == 200
    for game in puzzles.games():
        assert f'href="/puzzles/{game}"' in page.text
    assert 'href="/puzzles"' in client.get("/").text
    assert client.get("/puzzles/slimetrail").status_code == 200


def a_compound_puzzle() -> dict:
    """A Slither puzzle whose first move steps a stone before its placement."""
    return next(
        p for p in puzzles.puzzles("slither") if "-" in p["line"][0] and len(p["line"]) >= 3
    )


def clicks(client, puzzle: dict, moves: list[str], prefix: list[str]):
    query = {"moves": ",".join(moves), "prefix": ",".join(prefix)}
    return client.get(f"/api/puzzles/{puzzle['id']}/clicks", params=query)


def test_a_compound_move_is_clicked_through_and_answered(client) -> None:
    puzzle = a_compound_puzzle()
    first = client.get("/api/puzzles/next", params={"game": "slither", "id": puzzle["id"]})
    path = puzzles.position(puzzle).click_path(
        puzzles.position(puzzle).parse_move(puzzle["line"][0])
    )
    assert len(path) == 3 and first.json()["clicks"][path[0]] is None  # a stone: more follow
    for made in range(1, 3):
        answer = clicks(client, puzzle, [], path[:made])
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["prefix"] == path[:made] and "<svg" in body["svg"]
        done = made == 2
        assert body["clicks"][path[made]] == (puzzle["line"][0] if done else None)
        assert body["to_go"] == [1, 1] if done else body["to_go"][0] == 2
    # After the first move and the computer's answer: the next clicks of the puzzle's line.
    line = puzzle["line"][:2]
    assert (
        client.post(f"/api/puzzles/{puzzle['id']}/answer", json={"moves": line[:1]}).json()["next"]
        == line[1]
    )
    after = clicks(client, puzzle, line, [])
    assert after.status_code == 200, after.text
    assert after.json()["clicks"] == puzzles.position(puzzle, line).next_clicks()


@pytest.mark.parametrize(
    ("moves", "prefix", "words"),
    [
        (["FIRST"], [], "ends with the player's move"),
        (["FIRST", "OTHER"], [], "is not the computer's answer"),
        (["WRONG", "REFUTATION"], [], "loses: the line ends there"),
        (["z9", "a1"], [], "move 1 ('z9')"),
        ([], ["z9"], "no legal move starts with z9"),
        ([], ["a1"] * 65, "longer than any move"),
    ],
)
def test_bad_clicks_are_named(client, moves, prefix, words) -> None:
    puzzle = a_compound_puzzle()
    after = puzzles.position(puzzle, puzzle["line"][:1])
    wrong, refutation = next((m, r) for m, r in puzzle["tree"]["refute"].items() if r)
    names = {
        "FIRST": puzzle["line"][0],
        "OTHER": next(t for t in after.legal_move_strs() if t != puzzle["line"][1]),
        "WRONG": wrong,
        "REFUTATION": refutation,
    }
    answer = clicks(client, puzzle, [names.get(m, m) for m in moves], prefix)
    assert answer.status_code == 400, answer.text
    assert words in answer.json()["detail"]


def test_clicks_of_an_unknown_puzzle_are_refused(client) -> None:
    answer = client.get("/api/puzzles/nope/clicks", params={"moves": "", "prefix": "a1"})
    assert answer.status_code == 404 and "no puzzle has the id 'nope'" in answer.json()["detail"]


def test_a_draw_saving_puzzle_says_its_goal_and_is_played_out_to_the_draw(client) -> None:
    puzzle = next(p for p in puzzles.puzzles("slime-moku") if p.get("goal") == "draw")
    shown = client.get("/api/puzzles/next", params={"game": "slime-moku", "id": puzzle["id"]})
    assert shown.json()["goal"] == "draw"
    line = puzzle["line"]
    moves = line if len(line) % 2 else line[:-1]  # ending with the player's move
    body = client.post(f"/api/puzzles/{puzzle['id']}/answer", json={"moves": moves}).json()
    assert body["correct"] is True and body["solved"] is True and body["moves"] == line
    state = puzzles.position(puzzle, line)
    assert state.outcome() is not None and state.outcome().for_player(state.to_move) == "draw"
