"""The match service through the API: N seats in any mix, next clicks of compound moves, the
pie swap's colours, pass, resign, rematch, and the replays a move costs.

The toy games of tests/toygames.py stand for what Slime Trail lacks: ``toy-three`` (three
players) and ``toy-pie`` (moves of up to three clicks, ``swap``, a forced ``pass``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from waiting import computer_idle, wait_until

from slimetrail import render
from slimetrail.core.registry import get_game
from slimetrail.web.app import create_app
from slimetrail.web.errors import status_of
from slimetrail.web.service.errors import MatchError
from slimetrail.web.service.matches import MatchService
from slimetrail.web.storage.tables import make_engine, make_sessionmaker, upgrade


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'seats.db'}"
    else:
        url = request.getfixturevalue("pg_database")()
    # The worker processes register the toy games too (they start with this environment).
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SLIMETRAIL_GAMES", "toygames")
        patch.setenv(
            "PYTHONPATH",
            os.pathsep.join(
                filter(
                    None, [os.path.dirname(os.path.dirname(__file__)), os.environ.get("PYTHONPATH")]
                )
            ),
        )
        with TestClient(create_app(url, workers=1, move_time=0.2)) as test_client:
            yield test_client


def create(client: TestClient, game: str, seats: list[dict[str, Any]], **body) -> dict:
    response = client.post("/api/matches", json={"game": game, "seats": seats, **body})
    assert response.status_code == 201, response.text
    return response.json()


def token(match: dict[str, Any], player: int) -> str:
    return match["links"][str(player)].split("seat=")[1]


def get(client: TestClient, match_id: str, seat: str | None = None) -> dict[str, Any]:
    response = client.get(f"/api/matches/{match_id}", params={"seat": seat} if seat else {})
    assert response.status_code == 200, response.text
    return response.json()


def play(client: TestClient, match: dict[str, Any], seat: str, move: str) -> dict[str, Any]:
    body = {"seat": seat, "move": move, "ply": match["ply"]}
    response = client.post(f"/api/matches/{match['id']}/move", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def clicks(client: TestClient, match: dict[str, Any], seat: str | None, prefix: str = ""):
    params = {"prefix": prefix, **({"seat": seat} if seat else {})}
    return client.get(f"/api/matches/{match['id']}/clicks", params=params)


def wait_for(client: TestClient, match_id: str, seat: str, done, timeout: float = 60) -> dict:
    fetch = lambda: get(client, match_id, seat)  # noqa: E731
    return wait_until(fetch, done, timeout, what=f"match {match_id}")


# -- N seats -----------------------------------------------------------------------------


def test_three_players_me_a_computer_and_a_friend_to_the_end(client: TestClient) -> None:
    seats = [{"kind": "me"}, {"kind": "computer", "level": 1}, {"kind": "friend"}]
    match = create(client, "toy-three", seats)
    assert [p["kind"] for p in match["players"]] == ["human", "computer", "human"]
    assert [p["you"] for p in match["players"]] == [True, False, False]
    assert [p["colour"] for p in match["players"]] == [
        render.PALETTE[c] for c in ("green", "blue", "red")
    ]
    assert match["players"][1]["level"] == 1
    # The creator sees every person's link; the friend only their own.
    me, friend = token(match, 1), token(match, 3)
    assert set(match["links"]) == {"1", "3", "watch"} and me != friend
    assert set(get(client, match["id"], friend)["links"]) == {"3", "watch"}
    state = get_game("toy-three").new_state()
    while match["outcome"] is None:
        mover = match["to_move"]
        if mover == 2:
            match = wait_for(client, match["id"], me, lambda m, n=match["ply"]: m["ply"] > n)
            continue
        seat = me if mover == 1 else friend
        mine = get(client, match["id"], seat)
        assert mine["players"][mover - 1]["to_move"] and mine["clicks"]
        other = friend if mover == 1 else me
        assert get(client, match["id"], other)["clicks"] == {}  # not their turn
        refused = client.post(
            f"/api/matches/{match['id']}/move",
            json={"seat": other, "move": next(iter(mine["clicks"])), "ply": mine["ply"]},
        )
        assert refused.status_code == 403 and "turn" in refused.json()["detail"]
        match = play(client, mine, seat, next(iter(mine["clicks"])))
    for text_move in match["moves"]:
        state.push_str(text_move)
    expected = state.outcome()
    assert expected is not None
    assert match["outcome"]["places"] == list(expected.places)
    assert match["outcome"]["result"] == expected.result_text()
    assert [p["place"] for p in match["players"]] == list(expected.places)
    assert match["movers"] == [(n % 3) + 1 for n in range(12)]
    record = client.get(f"/api/matches/{match['id']}/record").text
    assert '[Player2 "Computer (level 1)"]' in record and '[Player3 "Red"]' in record


def test_seats_are_validated(client: TestClient) -> None:
    cases = [
        ("toy-three", [{"kind": "me"}, {"kind": "me"}], "3 players"),
        ("toy-three", [{"kind": "me"}, {"kind": "robot"}, {"kind": "me"}], "robot"),
        ("toy-three", [{"kind": "me"}, {"kind": "computer"}, {"kind": "me"}], "level"),
        ("toy-three", [{"kind": "me"}, {"kind": "computer", "level": 99}, {"kind": "me"}], "99"),
        ("toy-pie", [{"kind": "friend"}, {"kind": "computer", "level": 1}], "yours"),
    ]
    for game, seats, named in cases:
        response = client.post("/api/matches", json={"game": game, "seats": seats})
        assert response.status_code == 400, (seats, response.text)
        assert named in response.json()["detail"], (seats, response.text)
    bad = {"game": "toy-pie", "seats": [{"kind": 1}, {"kind": "me"}]}
    assert client.post("/api/matches", json=bad).status_code == 422


def test_the_two_player_shape_and_new_links_work_for_any_game(client: TestClient) -> None:
    # opponent/side/level: the other seats all get the opponent.
    match = client.post(
        "/api/matches", json={"game": "toy-three", "opponent": "computer", "side": 2, "level": 1}
    ).json()
    assert [p["kind"] for p in match["players"]] == ["computer", "human", "computer"]
    assert match["seat"] == 2
    hotseat = client.post("/api/matches", json={"game": "toy-three", "opponent": "hotseat"})
    assert hotseat.json()["seats"] == [1, 2, 3] and hotseat.json()["seat"] == "both"
    # /new reads the seats from a list, and any option by the name the game declares.
    response = client.post(
        "/new/toy-three", params={"seats": "friend,me,me"}, follow_redirects=False
    )
    assert response.status_code == 303
    path, _, seat = response.headers["location"].partition("?seat=")
    made = get(client, path.removeprefix("/play/"), seat)
    assert made["seats"] == [2, 3] and made["players"][0]["kind"] == "human"
    assert not made["players"][0]["you"]
    response = client.post(
        "/new/slimetrail-hex", params={"opponent": "hotseat", "size": "5"}, follow_redirects=False
    )
    path, _, seat = response.headers["location"].partition("?seat=")
    assert get(client, path.removeprefix("/play/"), seat)["options"]["size"] == "5"
    for query in ({"seats": "me,computer:x,me"}, {"seats": "me"}, {"side": "4"}):
        response = client.get("/new/toy-three", params=query, follow_redirects=False)
        assert response.status_code == 400, (query, response.text)


# -- clicks, swap, pass --------------------------------------------------------------------


def test_next_clicks_build_a_compound_move(client: TestClient) -> None:
    match = create(client, "toy-pie", [{"kind": "me"}, {"kind": "me"}])
    seat = token(match, 1)
    first = clicks(client, match, seat).json()
    assert first["clicks"] == match["clicks"] == get_game("toy-pie").new_state().next_clicks()
    match = play(client, match, seat, "b2")  # Black
    match = play(client, match, seat, "d4")  # White
    # Black's stone on b2 may step (to a1, say) and then place elsewhere: three clicks.
    state = get_game("toy-pie").new_state()
    for text_move in match["moves"]:
        state.push_str(text_move)
    assert match["clicks"] == state.next_clicks()
    assert match["clicks"]["b2"] is None  # b2 starts longer moves only
    answer = clicks(client, match, seat, "b2").json()
    assert answer["prefix"] == ["b2"] and answer["clicks"] == state.next_clicks(["b2"])
    assert answer["ply"] == match["ply"] and 'data-cell="a1"' in answer["svg"]
    third = clicks(client, match, seat, "b2,a1").json()["clicks"]
    assert third == state.next_clicks(["b2", "a1"]) and third["c3"] == "b2-a1/c3"
    assert "a1" not in third  # not the cell just stepped to, nor occupied ones
    match = play(client, match, seat, third["c3"])
    assert match["moves"][-1] == "b2-a1/c3"
    # A prefix no move starts with, a spectator, a player out of turn: refused.
    assert clicks(client, match, seat, "a1,a1").status_code == 400
    assert clicks(client, match, None).status_code == 403
    assert clicks(client, match, "forged").status_code == 403
    friend_game = create(client, "toy-pie", [{"kind": "me"}, {"kind": "friend"}])
    response = clicks(client, friend_game, token(friend_game, 2))
    assert response.status_code == 403 and "turn" in response.json()["detail"]


def test_swap_exchanges_the_colours_not_the_seats(client: TestClient) -> None:
    match = create(client, "toy-pie", [{"kind": "me"}, {"kind": "friend"}])
    one, two = token(match, 1), token(match, 2)
    black, white = render.PALETTE["black"], render.PALETTE["white"]
    assert [p["colour"] for p in match["players"]] == [black, white]
    match = play(client, match, one, "b2")
    mine = get(client, match["id"], two)
    assert mine["clicks"]["swap"] == "swap" and "swap" in mine["actions"]
    match = play(client, mine, two, "swap")
    # Player 2 now plays Black's stone (and colour); player 1, still seat 1, is White and
    # moves again.
    assert [p["colour"] for p in match["players"]] == [white, black]
    assert [p["colour_name"] for p in match["players"]] == ["white", "black"]
    assert match["player_colours"] == [white, black]
    assert match["view"]["marks"]["b2"] == ["stone-2"]
    assert match["to_move"] == 1 and match["movers"] == [1, 2]
    assert get(client, match["id"], one)["seats"] == [1]


def test_a_forced_pass_is_the_only_click(client: TestClient) -> None:
    match = create(client, "toy-pie", [{"kind": "me"}, {"kind": "me"}])
    seat = token(match, 1)
    # The board filled with no three in a row of one colour:
    fill = ["a1", "a3", "a4", "c3", "b2", "b4", "b3", "a2", "c1", "c2", "c4", "b1"]
    fill += ["d3", "d4", "d2", "d1"]
    for cell in fill:
        match = play(client, match, seat, cell)
    assert match["outcome"] is None
    assert match["clicks"] == {"pass": "pass"}
    match = play(client, match, seat, "pass")
    match = play(client, match, seat, "pass")
    assert match["outcome"]["places"] == [1, 1] and match["outcome"]["result"] == "1/2-1/2"
    assert [p["result"] for p in match["players"]] == ["draw", "draw"]


# -- resign and rematch ------------------------------------------------------------------


def resign(client: TestClient, match: dict[str, Any], seat: str | None):
    return client.post(f"/api/matches/{match['id']}/resign", json={"seat": seat})


def test_resign_two_players_the_other_wins(client: TestClient) -> None:
    match = create(client, "toy-pie", [{"kind": "me"}, {"kind": "friend"}])
    one, two = token(match, 1), token(match, 2)
    assert resign(client, match, None).status_code == 403
    assert resign(client, match, "forged").status_code == 403
    answer = resign(client, match, two)  # not their turn: a player may resign any time
    assert answer.status_code == 200, answer.text
    done = answer.json()
    assert done["resigned"] == 2 and done["clicks"] == {}
    assert done["outcome"] == {"places": [1, 2], "result": "1-0", "reason": "resigned", "winner": 1}
    again = resign(client, done, one)
    assert again.status_code == 409 and "over" in again.json()["detail"]
    refused = client.post(
        f"/api/matches/{match['id']}/move", json={"seat": one, "move": "a1", "ply": 0}
    )
    assert refused.status_code == 409
    assert '[Result "1-0"]' in client.get(f"/api/matches/{match['id']}/record").text


def test_resign_three_players_the_resigner_is_last(client: TestClient) -> None:
    match = create(client, "toy-three", [{"kind": "me"}, {"kind": "me"}, {"kind": "friend"}])
    seat = token(match, 1)
    match = play(client, match, seat, "a1")
    # A hotseat token resigns for the player to move (player 2 here).
    done = resign(client, match, seat).json()
    assert done["resigned"] == 2
    assert done["outcome"]["places"] == [1, 3, 1] and done["outcome"]["result"] == "1/2-0-1/2"
    assert [p["result"] for p in done["players"]] == ["draw", "loss", "draw"]


def test_resign_against_the_computer_stops_it(client: TestClient) -> None:
    match = create(client, "toy-three", [{"kind": "me"}, *[{"kind": "computer", "level": 1}] * 2])
    seat = token(match, 1)
    match = play(client, match, seat, "a1")
    done = resign(client, match, seat).json()
    assert done["resigned"] == 1 and done["outcome"]["places"] == [3, 1, 1]
    # Once the computer's search (if it had started) has ended: no move of its came after.
    wait_until(lambda: computer_idle(client.app, match["id"]), what="the computer to stop")
    assert get(client, match["id"])["ply"] == done["ply"]


def test_rematch_rotates_the_seats_and_reaches_every_player(client: TestClient) -> None:
    match = create(client, "toy-three", [{"kind": "me"}, {"kind": "friend"}, {"kind": "friend"}])
    tokens = [token(match, p) for p in (1, 2, 3)]
    early = client.post(f"/api/matches/{match['id']}/rematch", json={"seat": tokens[0]})
    assert early.status_code == 409
    resign(client, match, tokens[0])
    with client.websocket_connect(f"/ws/matches/{match['id']}?seat={tokens[2]}") as watcher:
        assert watcher.receive_json()["match"]["rematch"] is None
        response = client.post(f"/api/matches/{match['id']}/rematch", json={"seat": tokens[1]})
        assert response.status_code == 201, response.text
        new = response.json()
        # The live update shows player 3 their own seat in the new match.
        update = watcher.receive_json()["match"]
        assert update["rematch"] == f"/play/{new['id']}?seat={tokens[2]}"
    assert new["id"] != match["id"] and new["moves"] == [] and new["outcome"] is None
    # Rotated: the old player 2 opens now; each person keeps their token.
    assert new["seats"] == [1]
    for old_player, new_player in ((1, 3), (2, 1), (3, 2)):
        mine = get(client, new["id"], tokens[old_player - 1])
        assert mine["seats"] == [new_player]
        old = get(client, match["id"], tokens[old_player - 1])
        assert old["rematch"] == f"/play/{new['id']}?seat={tokens[old_player - 1]}"
    assert get(client, match["id"])["rematch"] == f"/play/{new['id']}"
    # Asked for again (by anyone), it is the same rematch.
    again = client.post(f"/api/matches/{match['id']}/rematch", json={"seat": tokens[2]})
    assert again.json()["id"] == new["id"]
    assert client.post(f"/api/matches/{match['id']}/rematch", json={}).status_code == 403


def test_rematch_against_the_computer_keeps_its_level(client: TestClient) -> None:
    match = create(client, "toy-pie", [{"kind": "me"}, {"kind": "computer", "level": 2}])
    seat = token(match, 1)
    resign(client, match, seat)
    new = client.post(f"/api/matches/{match['id']}/rematch", json={"seat": seat}).json()
    assert [(p["kind"], p["level"]) for p in new["players"]] == [("computer", 2), ("human", None)]
    assert new["seats"] == [2]
    wait_for(client, new["id"], seat, lambda m: m["ply"] == 1)  # the computer opens


# -- the cost of a move ------------------------------------------------------------------


def test_a_human_computer_exchange_costs_one_replay_at_most(client: TestClient) -> None:
    service: MatchService = client.app.state.service
    # On 15x15 no goal corner is within reach of these few moves: the game goes on.
    body = {"game": "slimetrail", "level": 1, "options": {"size": 15}}
    match = client.post("/api/matches", json=body).json()
    seat = token(match, 1)
    for _ in range(2):
        service.cache.clear()  # as after a restart: the match must be loaded once
        before = service.replays
        match = play(client, match, seat, next(iter(match["clicks"])))
        match = wait_for(client, match["id"], seat, lambda m, n=match["ply"]: m["ply"] > n)
        get(client, match["id"], seat)
        assert service.replays - before == 1
    # With the match in memory, an exchange replays nothing.
    before = service.replays
    match = play(client, match, seat, next(iter(match["clicks"])))
    wait_for(client, match["id"], seat, lambda m, n=match["ply"]: m["ply"] > n)
    assert service.replays == before


def test_another_process_writing_the_match_forces_a_reload(client: TestClient) -> None:
    service: MatchService = client.app.state.service
    other = MatchService(service.sessions)  # a second server process on the same database
    match = create(client, "toy-pie", [{"kind": "me"}, {"kind": "me"}])
    seat = token(match, 1)
    match = play(client, match, seat, "a1")
    other.move(match["id"], seat, "d4", 1)
    before = service.replays
    seen = get(client, match["id"], seat)
    assert seen["moves"] == ["a1", "d4"] and service.replays == before + 1
    # A move made on the stale position by the other process is refused, not lost.
    played = play(client, seen, seat, "b1")
    with pytest.raises(MatchError) as refused:
        other.move(match["id"], seat, "c1", 2)
    assert status_of(refused.value) == 409
    assert get(client, match["id"], seat)["moves"] == played["moves"] == ["a1", "d4", "b1"]


# -- the migration -----------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_migration_moves_old_seats_and_moves_into_their_tables(backend, tmp_path, request):
    from alembic import command
    from alembic.config import Config

    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
    else:
        url = request.getfixturevalue("pg_database")()
    engine = make_engine(url)
    config = Config()
    config.set_main_option("script_location", "slimetrail.web.storage:migrations")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        insert = text(
            "INSERT INTO matches (id, game, options, opponent, level, computer_side, "
            "creator_side, seat1, seat2, moves, to_move, result, version, created, updated) "
            "VALUES (:id, 'slimetrail', :options, :opponent, :level, :side, 1, :s1, :s2, "
            ":moves, :to_move, '*', 3, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
        )
        rows = [
            ("computer1", "computer", 2, 2, "tok-a", None, '["c3", "b2"]', 1),
            ("hotseat1", "hotseat", None, None, "tok-b", "tok-b", '["d5"]', 2),
            ("friend1", "friend", None, None, "tok-c", "tok-d", "[]", 1),
        ]
        for match_id, opponent, level, side, s1, s2, moves, to_move in rows:
            connection.execute(
                insert,
                {
                    "id": match_id,
                    "options": '{"size": "7", "rules": "rastros", "start": "centre"}',
                    "opponent": opponent,
                    "level": level,
                    "side": side,
                    "s1": s1,
                    "s2": s2,
                    "moves": moves,
                    "to_move": to_move,
                },
            )
    upgrade(engine)
    service = MatchService(make_sessionmaker(engine))
    computer = service.load("computer1")
    assert computer.moves == ["c3", "b2"] and computer.movers == [1, 2]
    assert [(s.kind, s.token, s.level) for s in computer.seats] == [
        ("human", "tok-a", None),
        ("computer", None, 2),
    ]
    assert computer.state.to_move == 1 and computer.version == 3
    hotseat = service.load("hotseat1")
    assert hotseat.held_by("tok-b") == (1, 2) and service.opponent(hotseat) == "hotseat"
    friend = service.load("friend1")
    assert service.opponent(friend) == "friend" and friend.held_by("tok-d") == (2,)
    # The migrated match plays on: the next move is stored as its own row.
    service.move("hotseat1", "tok-b", "e6", 1)
    assert MatchService(make_sessionmaker(engine)).load("hotseat1").moves == ["d5", "e6"]
    engine.dispose()


def test_a_version_read_before_this_processs_write_committed_replays_nothing(
    client: TestClient,
) -> None:
    service: MatchService = client.app.state.service
    match = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"}).json()
    live = service.load(match["id"])
    before = service.replays
    # Memory is a write ahead of the version this request read (the write committed after
    # the read): the match in memory is the newer one, so it is served, not replayed.
    live.version += 1
    try:
        assert service.load(match["id"]) is live
    finally:
        live.version -= 1
    assert service.replays == before
