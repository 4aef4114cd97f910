"""The web server's API: every endpoint, the bad-input cases, WebSocket updates, restarts.

In-process tests use Starlette's TestClient on one app per module (SQLite, and PostgreSQL
when the opt-in fixture is enabled); the WebSocket-over-network and restart tests run a real
``slimetrail serve`` subprocess (the ``live_server`` fixture).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from liveserver import TLS
from starlette.websockets import WebSocketDisconnect
from waiting import computer_idle, wait_until

from slimetrail import render
from slimetrail.core.registry import GAMES, get_game
from slimetrail.games.trail import solver
from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits

# These tests make many matches and analyses from one address (the rates: test_ratelimit.py).
# An analysis the solver cannot finish takes its whole time: they read what it says.
UNLIMITED = Limits(
    create_rate="100000/minute",
    analyse_rate="100000/minute",
    client_jobs=1000,
    in_flight=1000,
    analyse_time=0.5,
)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'api.db'}"
    else:
        url = request.getfixturevalue("pg_database")()
    app = create_app(url, workers=2, move_time=0.2, limits=UNLIMITED)
    with TestClient(app) as test_client:
        yield test_client


SLOW_MOVE = 1.5


@pytest.fixture(scope="module")
def slow_client(tmp_path_factory) -> Iterator[TestClient]:
    """One worker and a long move time: the computer is certainly still thinking at first."""
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'slow.db'}"
    with TestClient(
        create_app(url, workers=1, move_time=SLOW_MOVE, limits=UNLIMITED)
    ) as test_client:
        yield test_client


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/matches", json={"game": "slimetrail", **body})
    assert response.status_code == 201, response.text
    return response.json()


def token_of(match: dict[str, Any], side: int | str) -> str:
    return match["links"][str(side)].split("seat=")[1]


def get(client: TestClient, match_id: str, token: str | None = None) -> dict[str, Any]:
    params = {"seat": token} if token else {}
    response = client.get(f"/api/matches/{match_id}", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def move(client: TestClient, match: dict[str, Any], token: str, text: str, ply=None):
    body = {"seat": token, "move": text, "ply": match["ply"] if ply is None else ply}
    return client.post(f"/api/matches/{match['id']}/move", json=body)


def wait_for(client: TestClient, match_id: str, token: str | None, done, timeout: float = 30):
    fetch = lambda: get(client, match_id, token)  # noqa: E731
    return wait_until(fetch, done, timeout, what=f"match {match_id}")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_migrations_build_exactly_the_models_schema(backend, tmp_path, request) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from slimetrail.web.storage.tables import Base, make_engine, upgrade

    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'schema.db'}"
    else:
        url = request.getfixturevalue("pg_database")()
    engine = make_engine(url)
    upgrade(engine)
    upgrade(engine)  # a second start finds the schema current and changes nothing
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    engine.dispose()


# -- basic endpoints ---------------------------------------------------------------------


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"ok": True}


def test_games_lists_every_game_with_options_and_presets(client: TestClient) -> None:
    games = {g["id"]: g for g in client.get("/api/games").json()}
    assert set(games) == set(GAMES)
    rastros = games["slimetrail"]
    assert rastros["num_players"] == 2 and len(rastros["player_names"]) == 2
    size = next(o for o in rastros["options"] if o["name"] == "size")
    assert size["default"] == "7" and "15" in size["choices"] and "6" not in size["choices"]
    assert rastros["presets"]["portuguese"] == {"start": "e5"}
    assert games["slimetrail-hex"]["player_names"] == ["Green", "Red"]


def test_hotseat_match_json(client: TestClient) -> None:
    match = create(client, opponent="hotseat", options={"size": 5})
    assert match["seat"] == "both" and match["opponent"] == "hotseat"
    assert match["options"]["size"] == "5" and match["spec"] == "slimetrail size=5"
    assert match["computer_side"] is None and match["level"] is None
    assert match["moves"] == [] and match["ply"] == 0 and match["to_move"] == 1
    assert match["outcome"] is None and not match["thinking"]
    # The players' colours are the palette's, as in every board the server draws.
    state = get_game("slimetrail", size=5).new_state()
    assert match["player_colours"] == [render.PALETTE[c] for c in state.colours()]
    assert [p["colour"] for p in match["players"]] == match["player_colours"]
    assert [p["kind"] for p in match["players"]] == ["human", "human"]
    assert [p["to_move"] for p in match["players"]] == [True, False]
    assert match["view"] == state.view() and match["clicks"] == state.next_clicks()
    # The board is the server's SVG, every cell clickable by its name.
    cells = {c["name"] for c in get_game("slimetrail", size=5).describe_board()["cells"]}
    assert set(re.findall(r'data-cell="([^"]+)"', match["svg"])) == cells
    assert (
        match["links"]["1"]
        == match["links"]["2"]
        == f"/play/{match['id']}?seat=" + (token_of(match, 1))
    )
    assert match["links"]["watch"] == f"/play/{match['id']}"


def test_create_rejects_bad_parameters(client: TestClient) -> None:
    cases = [
        ({"game": "chess"}, "chess"),
        ({"game": "slimetrail", "options": {"size": 6}}, "size"),
        ({"game": "slimetrail", "options": {"colour": "red"}}, "colour"),
        ({"game": "slimetrail", "options": {"start": "z9"}}, "z9"),
        ({"game": "slimetrail", "opponent": "robot"}, "robot"),
        ({"game": "slimetrail", "level": 99}, "99"),
        ({"game": "slimetrail", "side": 3}, "side"),
    ]
    for body, named in cases:
        response = client.post("/api/matches", json=body)
        assert response.status_code == 400, (body, response.text)
        assert named in response.json()["detail"], (body, response.text)
    for body in ({}, {"game": 5}, {"game": "slimetrail", "level": "3"}, [1, 2]):
        assert client.post("/api/matches", json=body).status_code == 422, body


def test_new_redirects_to_the_creators_seat(client: TestClient) -> None:
    # A link shows a confirmation page; its form POSTs the same query to create the match.
    page = client.get(
        "/new/slimetrail-hex", params={"opponent": "friend", "side": "2", "size": "6"}
    )
    assert page.status_code == 200 and 'method="post"' in page.text
    response = client.post(
        "/new/slimetrail-hex",
        params={"opponent": "friend", "side": "2", "size": "6"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    path, _, token = response.headers["location"].partition("?seat=")
    match_id = path.removeprefix("/play/")
    match = get(client, match_id, token)
    assert match["seat"] == 2 and match["opponent"] == "friend"
    assert match["game"] == "slimetrail-hex" and match["options"]["size"] == "6"
    # Defaults: computer opponent, level 3, side 1.
    response = client.post("/new/slimetrail", follow_redirects=False)
    path, _, token = response.headers["location"].partition("?seat=")
    match = get(client, path.removeprefix("/play/"), token)
    assert (match["opponent"], match["level"], match["seat"]) == ("computer", 3, 1)


@pytest.mark.parametrize(
    "path",
    [
        "/new/nosuchgame",
        "/new/slimetrail?opponent=robot",
        "/new/slimetrail?level=abc",
        "/new/slimetrail?level=0",
        "/new/slimetrail?side=3",
        "/new/slimetrail?side=x",
        "/new/slimetrail?size=6",
        "/new/slimetrail?rules=chess",
        "/new/slimetrail?start=a1",
    ],
)
def test_new_rejects_bad_parameters(client: TestClient, path: str) -> None:
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 400, response.text
    # A link a person opened: the answer is the styled error page saying what was wrong.
    assert response.headers["content-type"].startswith("text/html")
    assert 'class="error-detail">' in response.text


def test_bad_seats_are_named_as_the_request_wrote_them_all_at_once(client: TestClient) -> None:
    # level=99 of a link: the level is named, not a "seat 2" the player never mentioned.
    page = client.get("/new/slimetrail?level=99", follow_redirects=False)
    assert page.status_code == 400
    detail = page.text.split('class="error-detail">')[1].split("<")[0]
    assert detail == "level 99 is not one of 1, 2, 3, 4, 5, 6 for slimetrail"
    both = client.post("/api/matches", json={"game": "slimetrail", "side": 3, "level": 0})
    assert both.json()["detail"] == (
        "side 3 is not a player of slimetrail (1 to 2); "
        "level 0 is not one of 1, 2, 3, 4, 5, 6 for slimetrail"
    )
    seats = [{"kind": "me"}, {"kind": "computer", "level": 99}, {"kind": "robot"}]
    every = client.post("/api/matches", json={"game": "snake-pit", "seats": seats})
    assert every.status_code == 400
    assert every.json()["detail"] == (
        "seat 2: level 99 is not one of 1, 2, 3, 4, 5; "
        "seat 3: kind 'robot' is not one of me, friend, computer, bot"
    )


# -- moves -------------------------------------------------------------------------------


def test_hotseat_game_to_the_end(client: TestClient) -> None:
    match = create(client, opponent="hotseat", options={"size": 5})
    token = token_of(match, 1)
    # d4 leads straight to player 2's corner e5: entering it wins for player 2.
    for text in ("d4", "e5"):
        response = move(client, match, token, text)
        assert response.status_code == 200, response.text
        match = response.json()
    assert match["moves"] == ["d4", "e5"] and match["ply"] == 2
    assert match["outcome"] == {
        "winner": 2,
        "reason": "goal",
        "result": "0-1",
        "places": [2, 1],
    }
    assert [(p["place"], p["result"]) for p in match["players"]] == [(2, "loss"), (1, "win")]
    assert match["clicks"] == {}
    response = move(client, match, token, "d5")
    assert response.status_code == 409 and "over" in response.json()["detail"]


def test_moves_accept_directions_and_store_canonical_text(client: TestClient) -> None:
    match = create(client, opponent="hotseat")
    response = move(client, match, token_of(match, 1), "NE")
    assert response.status_code == 200 and response.json()["moves"] == ["e5"]


def test_a_swap_renames_the_players_after_the_colours_they_now_wear(client: TestClient) -> None:
    match = create(client, game="slither", options={"size": "5"}, opponent="friend")
    one, two = token_of(match, 1), token_of(match, 2)
    names = [p["name"] for p in match["players"]]
    assert names == ["Black", "White"]
    match = move(client, match, one, "c3").json()
    match = move(client, match, two, "swap").json()
    assert [(p["name"], p["colour_name"]) for p in match["players"]] == [
        ("White", "white"),
        ("Black", "black"),
    ]
    # What the page says of it: the game's words for the action, and who plays what now.
    assert match["action_words"]["swap"] == "swapped colours"
    assert match["renamed"] == [
        {"player": 1, "was": "Black", "now": "White"},
        {"player": 2, "was": "White", "now": "Black"},
    ]
    assert 'data-cell="c3" aria-label="c3, stone of Black' in match["svg"]
    assert move(client, match, one, "b3").json()["renamed"] == []


def test_bad_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    match = create(client, opponent="friend")
    one, two = token_of(match, 1), token_of(match, 2)
    match = move(client, match, one, "d5").json()
    before = get(client, match["id"], two)
    cases = [
        (two, "d4", None, 400, "d4"),  # slimed (the start cell)
        (two, "a1", None, 400, "a1"),  # not next to the snail
        (two, "z99", None, 400, "z99"),  # no cell at all
        (two, "", None, 400, ""),
        (two, "e6", 0, 409, "stale"),
        (two, "e6", 5, 409, "stale"),
        (one, "e6", None, 403, "turn"),  # seat 1 cannot move for seat 2
        (None, "e6", None, 403, "seat"),
        ("not-a-token", "e6", None, 403, "seat"),
        ("sn\u00e4il", "e6", None, 403, "seat"),  # non-ASCII: compare_digest needs bytes
    ]
    for token, text, ply, status, named in cases:
        response = move(client, match, token, text, ply)
        assert response.status_code == status, (token, text, response.text)
        assert named in response.json()["detail"], (text, response.text)
    assert get(client, match["id"], two) == before
    response = client.post("/api/matches/nosuch/move", json={"seat": two, "move": "e6", "ply": 1})
    assert response.status_code == 404
    for body in ({"seat": two, "move": "e6"}, {"seat": two, "ply": 1}, {"move": 5, "ply": 1}):
        response = client.post(f"/api/matches/{match['id']}/move", json=body)
        assert response.status_code == 422, body
    response = client.post(f"/api/matches/{match['id']}/move", content=b"{not json")
    assert response.status_code == 422
    assert get(client, match["id"], two) == before


def test_concurrent_moves_on_one_ply_only_one_wins(client: TestClient) -> None:
    match = create(client, opponent="hotseat")
    token = token_of(match, 1)
    statuses: list[int] = []

    def attempt(text: str) -> None:
        statuses.append(move(client, match, token, text).status_code)

    threads = [threading.Thread(target=attempt, args=(t,)) for t in ("c3", "d3", "e3", "c4")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409, 409, 409]
    assert get(client, match["id"])["ply"] == 1


# -- friend games and spectators ---------------------------------------------------------


def test_friend_game_seats_and_links(client: TestClient) -> None:
    match = create(client, opponent="friend", side=2)
    assert match["seat"] == 2 and set(match["links"]) == {"1", "2", "watch"}
    invite = token_of(match, 1)
    assert invite != token_of(match, 2)
    guest = get(client, match["id"], invite)
    # The invited player sees their own link only, never the creator's.
    assert guest["seat"] == 1 and set(guest["links"]) == {"1", "watch"}
    assert guest["clicks"] and not get(client, match["id"], token_of(match, 2))["clicks"]
    spectator = get(client, match["id"])
    assert spectator["seat"] == 0 and spectator["links"] == {"watch": f"/play/{match['id']}"}
    assert spectator["clicks"] == {}
    response = client.get(f"/api/matches/{match['id']}", params={"seat": "forged"})
    assert response.status_code == 403
    response = client.post(
        f"/api/matches/{match['id']}/undo", json={"seat": invite, "ply": match["ply"]}
    )
    assert response.status_code == 409 and "two people" in response.json()["detail"]


def test_unknown_match(client: TestClient) -> None:
    for path in ("/api/matches/nosuch", "/api/matches/nosuch/view", "/api/matches/nosuch/record"):
        assert client.get(path).status_code == 404, path
    response = client.post("/api/matches/nosuch/undo", json={"seat": "x", "ply": 0})
    assert response.status_code == 404


# -- the computer ------------------------------------------------------------------------


def test_computer_replies_and_moves_first_when_it_has_side_one(client: TestClient) -> None:
    match = create(client, level=1, side=2)
    assert (
        match["computer_side"] == 1
        and match["seat"] == 2
        and set(match["links"])
        == {
            "2",
            "watch",
        }
    )
    token = token_of(match, 2)
    match = wait_for(client, match["id"], token, lambda m: m["ply"] == 1)
    assert not match["thinking"] and match["clicks"]
    match = move(client, match, token, next(iter(match["clicks"]))).json()
    match = wait_for(client, match["id"], token, lambda m: m["ply"] >= 3 or m["outcome"])
    state = get_game("slimetrail").new_state()
    for text in match["moves"]:
        state.push_str(text)  # every move the computer made is legal


def test_requests_are_answered_while_the_computer_thinks(slow_client: TestClient) -> None:
    from slimetrail.ai import levels_for
    from slimetrail.core.registry import get_game

    top = max(levels_for(get_game("slimetrail")))

    client = slow_client
    # The strongest level on the largest board searches for its whole time cap: requests
    # made meanwhile are answered while the move is being searched in a worker process.
    match = create(client, level=top, side=2, options={"size": 15})
    token = token_of(match, 2)
    assert get(client, match["id"], token)["thinking"]
    assert client.get("/healthz").status_code == 200
    response = move(client, match, token, "h9", ply=0)
    assert response.status_code == 403 and "computer" in response.json()["detail"]
    wait_for(client, match["id"], token, lambda m: m["ply"] == 1)


def test_undo_against_the_computer(client: TestClient) -> None:
    match = create(client, level=1, options={"size": 5})
    token = token_of(match, 1)
    response = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 0})
    assert response.status_code == 409
    match = move(client, match, token, "b2").json()
    match = wait_for(client, match["id"], token, lambda m: m["ply"] == 2)
    undo = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 1})
    assert undo.status_code == 409 and "stale" in undo.json()["detail"]
    undone = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 2})
    assert undone.status_code == 200, undone.text
    assert undone.json()["moves"] == [] and undone.json()["clicks"]
    spectator = client.post(f"/api/matches/{match['id']}/undo", json={"ply": 0})
    assert spectator.status_code == 403


def test_undo_while_the_computer_thinks_cancels_its_move(slow_client: TestClient) -> None:
    from slimetrail.ai import levels_for
    from slimetrail.core.registry import get_game

    top = max(levels_for(get_game("slimetrail")))

    client = slow_client
    match = create(client, level=top, options={"size": 15})
    token = token_of(match, 1)
    match = move(client, match, token, "h9").json()
    assert match["thinking"]
    undone = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 1})
    assert undone.status_code == 200 and undone.json()["moves"] == []
    # Once the cancelled search has ended (its worker is free again), its move must not appear.
    wait_until(lambda: computer_idle(client.app, match["id"]), what="the search to end")
    assert get(client, match["id"], token)["moves"] == []


def test_hotseat_undo_takes_back_one_move(client: TestClient) -> None:
    match = create(client, opponent="hotseat")
    token = token_of(match, 1)
    match = move(client, match, token, "c3").json()
    match = move(client, match, token, "b2").json()
    undone = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 2})
    assert undone.json()["moves"] == ["c3"] and undone.json()["to_move"] == 2


def test_move_and_undo_answers_are_the_stored_match(client: TestClient) -> None:
    """The JSON a move or an undo answers with is the match as a fresh GET reads it."""
    match = create(client, opponent="hotseat")
    token = token_of(match, 1)
    for text in ("c3", "b2", "b1"):
        match = move(client, match, token, text).json()
        assert match == get(client, match["id"], token)
    undone = client.post(f"/api/matches/{match['id']}/undo", json={"seat": token, "ply": 3})
    assert undone.json() == get(client, match["id"], token)


# -- view, records, import, analysis -----------------------------------------------------


def test_view_at_each_ply(client: TestClient) -> None:
    match = create(client, opponent="hotseat")
    token = token_of(match, 1)
    for text in ("c3", "b2"):
        match = move(client, match, token, text).json()
    state = get_game("slimetrail").new_state()
    for ply, text in enumerate([*match["moves"], None]):
        view = client.get(f"/api/matches/{match['id']}/view", params={"ply": ply}).json()
        svg = view.pop("svg")
        # The view the board is drawn from names who made the last move: c3 by 1, b2 by 2.
        drawn = state.view() | ({"last_player": ply} if ply else {})
        assert view == {"ply": ply, "view": drawn, "fen": state.fen()}
        assert svg == render.board_svg(
            state.game, drawn, colours=state.colours(), interactive=True, label=f"after move {ply}"
        )
        if text:
            state.push_str(text)
    assert client.get(f"/api/matches/{match['id']}/view").json()["ply"] == 2
    for bad in ("3", "-1"):
        response = client.get(f"/api/matches/{match['id']}/view", params={"ply": bad})
        assert response.status_code == 400 and "out of range" in response.json()["detail"]
    assert client.get(f"/api/matches/{match['id']}/view?ply=x").status_code == 422


def test_record_download_and_import_round_trip(client: TestClient) -> None:
    match = create(client, opponent="hotseat", options={"size": 9, "start": "e6"})
    token = token_of(match, 1)
    for text in ("d5", "c4", "b3"):
        match = move(client, match, token, text).json()
    for fmt in ("pgn", "json"):
        response = client.get(f"/api/matches/{match['id']}/record", params={"format": fmt})
        assert response.status_code == 200
        assert "attachment" in response.headers["content-disposition"]
        imported = client.post("/api/import", json={"record": response.text})
        assert imported.status_code == 201, imported.text
        copy = imported.json()["match"]
        assert copy["moves"] == match["moves"] and copy["options"] == match["options"]
        assert copy["opponent"] == "hotseat" and copy["id"] != match["id"]
        assert imported.json()["url"] == copy["links"]["1"]
    computer = create(client, level=2, side=2)
    pgn = client.get(f"/api/matches/{computer['id']}/record").text
    assert '[Player1 "Computer (level 2)"]' in pgn and '[Result "*"]' in pgn
    response = client.get(f"/api/matches/{match['id']}/record", params={"format": "xml"})
    assert response.status_code == 400


def test_import_rejects_bad_records(client: TestClient) -> None:
    for text in ("", "garbage", '[Game "slimetrail"]\n\n1. d4 a1 *\n', "{"):
        response = client.post("/api/import", json={"record": text})
        assert response.status_code == 400, (text, response.text)
        assert response.json()["detail"]
    state = get_game("slimetrail").new_state()
    state.push_str("c3")
    setup = f'[Game "slimetrail"]\n[FEN "{state.fen()}"]\n\n1... b2 *\n'
    response = client.post("/api/import", json={"record": setup})
    assert response.status_code == 400 and "FEN" in response.json()["detail"]
    assert client.post("/api/import", json={"record": 5}).status_code == 422
    assert client.post("/api/import", json={}).status_code == 422


def test_analyse_small_board_exactly(client: TestClient) -> None:
    moves = ["c2"]
    response = client.post(
        "/api/analyse", json={"game": "slimetrail", "options": {"size": "5"}, "moves": moves}
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    state = get_game("slimetrail", size=5).new_state()
    state.push_str("c2")
    expected = solver.solve(state, distance=True)
    assert answer["solved"] and answer["to_move"] == 2
    assert answer["value"] == expected.value and answer["plies"] == expected.plies
    assert answer["moves"] == {state.move_str(m): v for m, v in expected.move_values.items()}


def test_analyse_reports_what_it_cannot_solve(client: TestClient) -> None:
    response = client.post("/api/analyse", json={"game": "slimetrail", "options": {"size": 15}})
    answer = response.json()
    assert response.status_code == 200 and answer["solved"] is False and answer["detail"]
    assert answer["value"] is None and answer["moves"] == {}


def test_analyse_uses_each_games_own_solver(client: TestClient) -> None:
    """Slither's solver answers its 4x4 board; a game without a solver gets the engine."""
    body = {"game": "slither", "options": {"size": "4"}, "moves": []}
    answer = client.post("/api/analyse", json=body).json()
    state = get_game("slither", size=4).new_state()
    expected = state.game.exact_solver().solve(state)
    assert answer["solved"] and answer["value"] == expected.value
    assert answer["moves"] == {state.move_str(m): v for m, v in expected.move_values.items()}
    body = {"game": "slime-moku", "options": {"size": "9", "k": "4"}, "moves": []}
    answer = client.post("/api/analyse", json=body).json()
    assert answer["solved"] is False and "no exact solver" in answer["detail"]
    assert answer["engine"] is not None and answer["engine"]["best"]


def test_analyse_rejects_bad_input(client: TestClient) -> None:
    cases = [
        ({"game": "nosuch"}, 400),
        ({"game": "slimetrail", "options": {"size": 4}}, 400),
        ({"game": "slimetrail", "moves": ["a1"]}, 400),
        ({"game": "slimetrail", "moves": ["c3", "zz"]}, 400),
        ({"game": "slimetrail", "moves": "c3"}, 422),
        ({"moves": []}, 422),
    ]
    for body, status in cases:
        response = client.post("/api/analyse", json=body)
        assert response.status_code == status, (body, response.text)
    response = client.post("/api/analyse", json={"game": "slimetrail", "moves": ["c3", "zz"]})
    assert "move 2" in response.json()["detail"]


# -- WebSocket (in process) --------------------------------------------------------------


def test_websocket_sends_each_viewer_its_own_view(client: TestClient) -> None:
    match = create(client, opponent="friend")
    one, two = token_of(match, 1), token_of(match, 2)
    path = f"/ws/matches/{match['id']}"
    with (
        client.websocket_connect(f"{path}?seat={two}") as seat_two,
        client.websocket_connect(path) as watcher,
    ):
        first = seat_two.receive_json()
        assert first["type"] == "match" and first["match"]["seat"] == 2
        assert watcher.receive_json()["match"]["seat"] == 0
        move(client, match, one, "e4")
        update = seat_two.receive_json()["match"]
        assert update["moves"] == ["e4"] and update["clicks"] and update["seat"] == 2
        seen = watcher.receive_json()["match"]
        assert seen["moves"] == ["e4"] and seen["clicks"] == {} and set(seen["links"]) == {"watch"}


@pytest.mark.parametrize(("query", "code"), [("", 4404), ("?seat=forged", 4403)])
def test_websocket_refuses_unknown_match_and_forged_seat(client, query, code) -> None:
    match_id = "nosuch" if code == 4404 else create(client, opponent="hotseat")["id"]
    with client.websocket_connect(f"/ws/matches/{match_id}{query}") as ws:
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == code


def test_websocket_with_odd_seat_values(client: TestClient) -> None:
    match = create(client, opponent="hotseat")
    for seat in ("", "x" * 5000, "sn\u00e4il", "%00", token_of(match, 1) + "x"):
        with client.websocket_connect(f"/ws/matches/{match['id']}?seat={quote(seat)}") as ws:
            if seat == "":
                assert ws.receive_json()["match"]["seat"] == 0
                continue
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4403, seat


# -- no input gives a server error -------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)
field_names = st.sampled_from(
    ["game", "options", "opponent", "level", "side", "seat", "move", "seats", "kind"]
)
bodies = json_values | st.dictionaries(
    field_names | st.sampled_from(["ply", "record", "moves"]), json_values, max_size=6
)
words = st.text(max_size=10) | st.sampled_from(
    ["1", "2", "0", "-1", "99", "c3", "e5", "pgn", "c3,d4", "me,computer:2", "me,me"]
)


@pytest.mark.parametrize("match_id", ["%00", "a%00b", "%C3%A9t%C3%A9", "x" * 200])
def test_match_ids_that_cannot_exist_are_not_found(client: TestClient, match_id: str) -> None:
    # Found by the fuzz test below: PostgreSQL refuses NUL bytes in a query parameter.
    for path in (f"/api/matches/{match_id}", f"/api/matches/{match_id}/view?ply=0"):
        response = client.get(path)
        assert response.status_code == 404, (path, response.text)
        assert "no match" in response.json()["detail"]


@settings(suppress_health_check=list(HealthCheck))  # examples: the profile's (conftest.py)
@given(data=st.data())
def test_fuzzed_requests_never_give_a_server_error(client: TestClient, data) -> None:
    match = create(client, opponent="hotseat") if data.draw(st.booleans()) else None
    match_id = match["id"] if match else data.draw(st.text(min_size=1, max_size=12))
    match_id = quote(match_id, safe="")
    body = data.draw(bodies)
    if match and isinstance(body, dict) and data.draw(st.booleans()):
        body["seat"] = token_of(match, 1)
    params = data.draw(
        st.dictionaries(
            st.sampled_from(
                [
                    *("seat", "ply", "format", "level", "side", "opponent", "size", "rules"),
                    *("start", "prefix", "seats"),
                ]
            ),
            words,
            max_size=4,
        )
    )
    posts = [
        f"/api/matches/{match_id}/move",
        f"/api/matches/{match_id}/undo",
        f"/api/matches/{match_id}/resign",
        f"/api/matches/{match_id}/rematch",
        "/api/matches",
        "/api/import",
        "/api/analyse",
    ]
    gets = [
        f"/api/matches/{match_id}",
        f"/api/matches/{match_id}/view",
        f"/api/matches/{match_id}/record",
        f"/api/matches/{match_id}/clicks",
        "/new/slimetrail",
        f"/new/{match_id}",
    ]
    path = data.draw(st.sampled_from(posts + gets))
    if path in posts:
        response = client.post(path, params=params, content=json.dumps(body))
    else:
        response = client.get(path, params=params, follow_redirects=False)
    assert response.status_code < 500, (path, params, body, response.text)


# -- a real server: WebSocket over the network, restarts, many games ----------------------


def http_json(method: str, url: str, **kwargs) -> Any:
    response = httpx.request(method, url, timeout=30, verify=TLS, **kwargs)
    assert response.status_code < 300, response.text
    return response.json()


def poll(url: str, done, timeout: float = 60) -> dict[str, Any]:
    return wait_until(lambda: http_json("GET", url), done, timeout, what=url, interval=0.1)


def test_live_websocket_moves_appear_for_the_other_seat(live_server) -> None:
    import websockets

    match = http_json(
        "POST", f"{live_server}/api/matches", json={"game": "slimetrail", "opponent": "friend"}
    )
    one, two = token_of(match, 1), token_of(match, 2)
    ws_url = live_server.replace("http://", "ws://") + f"/ws/matches/{match['id']}"

    async def scenario() -> list[dict[str, Any]]:
        async with (
            websockets.connect(f"{ws_url}?seat={two}") as seat_two,
            websockets.connect(ws_url) as watcher,
        ):
            received = [json.loads(await seat_two.recv()), json.loads(await watcher.recv())]
            await asyncio.to_thread(
                http_json,
                "POST",
                f"{live_server}/api/matches/{match['id']}/move",
                json={"seat": one, "move": "c3", "ply": 0},
            )
            received.append(json.loads(await asyncio.wait_for(seat_two.recv(), 10)))
            received.append(json.loads(await asyncio.wait_for(watcher.recv(), 10)))
            return received

    first_two, first_watch, then_two, then_watch = asyncio.run(scenario())
    assert first_two["match"]["seat"] == 2 and first_two["match"]["clicks"] == {}
    assert first_watch["match"]["seat"] == 0
    assert then_two["match"]["moves"] == ["c3"] and then_two["match"]["clicks"]
    assert then_watch["match"]["moves"] == ["c3"] and then_watch["match"]["clicks"] == {}


@pytest.mark.slow
@pytest.mark.parametrize("server", ["slow_live_server", "pg_slow_live_server"])
def test_live_restart_after_kill_keeps_games_and_resumes_the_computer(server, request) -> None:
    from slimetrail.ai import levels_for
    from slimetrail.core.registry import get_game

    top = max(levels_for(get_game("slimetrail")))

    slow_live_server = request.getfixturevalue(server)

    base = f"{slow_live_server}/api/matches"
    hotseat = http_json("POST", base, json={"game": "slimetrail", "opponent": "hotseat"})
    token = token_of(hotseat, 1)
    for ply, text in enumerate(("c3", "b2")):
        http_json(
            "POST", f"{base}/{hotseat['id']}/move", json={"seat": token, "move": text, "ply": ply}
        )
    # A computer game killed while the computer is to move: its move must come after restart.
    body = {"game": "slimetrail", "level": top, "side": 2, "options": {"size": 15}}
    computer = http_json("POST", base, json=body)
    seat = token_of(computer, 2)
    assert http_json("GET", f"{base}/{computer['id']}?seat={seat}")["thinking"]
    # Killed mid-move; started again with quick moves, so the two to come take no 3 s each.
    slow_live_server.restart("--workers", "1", "--move-time", "0.3")
    assert http_json("GET", f"{base}/{hotseat['id']}")["moves"] == ["c3", "b2"]
    assert http_json("GET", f"{base}/{computer['id']}")["ply"] == 0
    match = poll(f"{base}/{computer['id']}?seat={seat}", lambda m: m["ply"] == 1)
    assert match["clicks"] and not match["thinking"]
    # The player plays on after the restart and the computer answers again.
    reply = http_json(
        "POST",
        f"{base}/{computer['id']}/move",
        json={"seat": seat, "move": next(iter(match["clicks"])), "ply": 1},
    )
    assert reply["thinking"]
    poll(f"{base}/{computer['id']}?seat={seat}", lambda m: m["ply"] == 3)


def test_live_many_computer_games_at_once(live_server) -> None:
    base = f"{live_server}/api/matches"
    matches = [
        http_json("POST", base, json={"game": game, "level": 1, "side": 2})
        for game in ("slimetrail", "slimetrail-hex", "slimetrail-square") * 2
    ]
    for match in matches:
        poll(f"{base}/{match['id']}?seat={token_of(match, 2)}", lambda m: m["ply"] == 1)


@pytest.mark.parametrize("url", ["nonsense://x", "sqlite:////nonexistent/folder/x.db"])
def test_serve_names_a_database_it_cannot_open(url: str, capsys) -> None:
    from slimetrail.cli.main import main

    assert main(["serve", "--db", url]) == 2
    assert f"cannot open the database {url}" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["-5", "65536", "http"])
def test_serve_refuses_a_port_that_is_no_port(port: str, capsys) -> None:
    from slimetrail.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--port", port])
    assert exit_info.value.code == 2
    assert "is not a port number" in capsys.readouterr().err


def test_worker_jobs_are_stopped_at_their_hard_cap() -> None:
    from slimetrail.web import workers

    began = time.monotonic()
    with pytest.raises(workers.JobTimeout):
        workers._capped(0.2, time.sleep, 5)
    assert time.monotonic() - began < 4
    assert workers._capped(5, sum, [1, 2]) == 3  # a job within its cap is untouched
    state = get_game("slimetrail-hex", size=6).new_state()
    state.push_str("d4")
    # The worker is given the position, not the moves that led there.
    move = workers.computer_move("slimetrail-hex", {"size": "6"}, state.fen(), 1, 0.5, seed=7)
    assert move in state.legal_move_strs()


def test_a_failed_computer_move_is_retried(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("slimetrail.web.service.pool.RETRY_DELAY", 0.05)
    app = create_app(f"sqlite:///{tmp_path / 'retry.db'}", workers=1, move_time=0.2)
    store = app.state.service
    real, failures = store.computer_move, []

    def flaky(*args):
        if not failures:
            failures.append(args)
            raise OSError("disk hiccup")
        return real(*args)

    monkeypatch.setattr(store, "computer_move", flaky)
    with TestClient(app) as client:
        match = create(client, level=1, side=2)
        wait_for(client, match["id"], token_of(match, 2), lambda m: m["ply"] == 1)
    assert len(failures) == 1


def test_the_pool_recovers_when_a_worker_dies() -> None:
    import os
    from concurrent.futures.process import BrokenProcessPool

    from slimetrail.web.service.pool import WorkerPool

    async def scenario() -> int:
        pool = WorkerPool(1)
        try:
            with pytest.raises(BrokenProcessPool):
                await pool.run(os._exit, 1)  # the worker dies, and again on the retry
            return await pool.run(abs, -5)  # a fresh pool serves the next job
        finally:
            pool.shutdown()

    assert asyncio.run(scenario()) == 5


def test_each_move_keeps_the_colour_it_was_played_in_after_a_swap(client: TestClient) -> None:
    match = client.post("/api/matches", json={"game": "slither", "opponent": "hotseat"}).json()
    seat = match["links"]["1"].split("seat=")[1]
    for ply, text in enumerate(["c3", "swap", "b2"]):
        body = {"seat": seat, "move": text, "ply": ply}
        assert client.post(f"/api/matches/{match['id']}/move", json=body).status_code == 200
    shown = client.get(f"/api/matches/{match['id']}").json()
    black, white = render.PALETTE["black"], render.PALETTE["white"]
    # c3 was Black's stone (player 1's then), the swap and b2 White's (b2 is player 1's now).
    assert shown["movers"] == [1, 2, 1]
    assert shown["move_colours"] == [black, white, white]
    assert [p["colour"] for p in shown["players"]] == [white, black]
