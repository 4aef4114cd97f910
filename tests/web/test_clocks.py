"""Clocks: ``M+I`` and ``dN`` read in one place, the time kept with every move (a ``kill -9``
loses none), a fallen flag ending the game with nobody connected, and the computer moving
within its clock.  Clocks start when the last player arrives (a friend opening their link);
a game nobody comes to is aborted.  Short clocks come from the ``clock_scale`` limit (a
minute made a second) and the ``arrival_wait`` limit."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from slimetrail.core.game import TIME, Outcome
from slimetrail.core.registry import get_game
from slimetrail.web.app import create_app
from slimetrail.web.service.clock import parse_clock
from slimetrail.web.service.errors import InvalidRequest
from slimetrail.web.service.matches import forfeited
from slimetrail.web.settings import Limits
from slimetrail.web.storage.repository import Forfeit
from slimetrail.web.storage.tables import make_engine

SCALE = 1 / 60  # 1+0 lasts one second


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'clocks.db'}"
    else:
        url = request.getfixturevalue("pg_database")()
    limits = Limits(clock_scale=SCALE, clock_sweep=0.1)
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=limits)) as test_client:
        test_client.db_url = url  # type: ignore[attr-defined]
        yield test_client


def arrive(client: TestClient, made: dict, seat: str = "2") -> None:
    """The friend opens their seat link in a browser of their own."""
    friend = TestClient(client.app)
    assert friend.get(made["links"][seat]).status_code == 200


def wait_until(check, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.mark.parametrize(
    ("text", "control", "initial", "increment", "per_move"),
    [
        ("1+0", "1+0", 60_000, 0, False),
        (" 3+2 ", "3+2", 180_000, 2_000, False),
        ("60+30", "60+30", 3_600_000, 30_000, False),
        ("d1", "d1", 86_400_000, 0, True),
        ("D7", "d7", 7 * 86_400_000, 0, True),
    ],
)
def test_clock_texts_are_read(text, control, initial, increment, per_move) -> None:
    clock = parse_clock(text)
    assert (clock.text, clock.initial_ms, clock.increment_ms, clock.per_move) == (
        control,
        initial,
        increment,
        per_move,
    )


@pytest.mark.parametrize("text", ["0+1", "61+0", "3+31", "d0", "d8", "3+", "blitz", "3 + 2", ""])
def test_a_bad_clock_is_refused_naming_it(text) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_clock(text)
    assert repr(text) in refused.value.message and "d1 to d7" in refused.value.message


def test_correspondence_resets_and_blitz_adds_the_increment() -> None:
    assert parse_clock("d2").after_move(5) == 2 * 86_400_000
    assert parse_clock("3+2").after_move(1_000) == 3_000


def test_a_flag_against_a_player_who_cannot_win_is_a_draw() -> None:
    state = get_game("slimetrail").new_state()
    assert forfeited(state, Forfeit(1, TIME)) == Outcome.ranking([[2], 1], reason=TIME)
    # Slime-Moku 4x4, four in a row: black stones block every row, column and diagonal of
    # White's, so Black's flag falling is a draw; White's falling still loses.
    moku = get_game("slime-moku", size=4, k=4).state_from_fen("2x1/1x2/o1@x/x1oo 2")
    assert forfeited(moku, Forfeit(1, TIME)) == Outcome.draw(2, reason=TIME)
    assert forfeited(moku, Forfeit(2, TIME)) == Outcome.ranking([[1], 2], reason=TIME)


def test_the_api_takes_a_clock_and_gives_each_seats_time(client) -> None:
    made = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "30+2"}
    )
    assert made.status_code == 201
    clock = made.json()["clock"]
    assert clock["control"] == "30+2" and clock["running"] is None and clock["waiting"] is True
    arrive(client, made.json())
    clock = client.get(f"/api/matches/{made.json()['id']}").json()["clock"]
    assert clock["running"] == 1 and clock["waiting"] is False
    assert 25_000 < clock["remaining_ms"][0] <= 30_000 and clock["remaining_ms"][1] == 30_000
    token = made.json()["links"]["1"].split("seat=")[1]
    time.sleep(0.3)
    moved = client.post(
        f"/api/matches/{made.json()['id']}/move", json={"seat": token, "move": "d5", "ply": 0}
    ).json()["clock"]
    # Player 1's time stopped at the move, the increment (2 s scaled: 33 ms) added; 2's runs.
    assert moved["running"] == 2
    assert 20_000 < moved["remaining_ms"][0] <= 30_000 + 33 - 300
    bad = client.post("/api/matches", json={"game": "slimetrail", "clock": "99+0"})
    assert bad.status_code == 400 and "'99+0'" in bad.json()["detail"]


def test_a_new_link_passes_the_clock_through(client) -> None:
    page = client.get("/new/slimetrail?opponent=friend&clock=d3")
    assert page.status_code == 200 and "Clock: d3" in page.text
    made = client.post("/new/slimetrail?opponent=friend&clock=d3", follow_redirects=False)
    match_id = made.headers["location"].split("/play/")[1].split("?")[0]
    clock = client.get(f"/api/matches/{match_id}").json()["clock"]
    assert clock["control"] == "d3" and clock["per_move"] is True
    refused = client.get("/new/slimetrail?opponent=friend&clock=d9")
    assert refused.status_code == 400 and "d9" in refused.text and "d1 to d7" in refused.text


def test_a_flag_falls_with_nobody_connected(client) -> None:
    made = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "1+0"}
    ).json()
    arrive(client, made)

    engine = make_engine(client.db_url)

    def stored_result() -> str | None:
        # Straight from the database: nobody asked for the match, the sweeper ended it.
        with engine.connect() as db:
            query = text("SELECT result FROM matches WHERE id = :id")
            result = db.execute(query, {"id": made["id"]}).scalar_one()
        return None if result == "*" else result

    assert wait_until(stored_result, timeout=30) == "0-1"
    engine.dispose()
    match = client.get(f"/api/matches/{made['id']}").json()
    assert match["outcome"]["reason"] == "time" and match["outcome"]["winner"] == 2
    assert match["result_sentence"] == "Green ran out of time: Red wins."
    assert match["clock"]["remaining_ms"] == [0, 1_000] and match["clock"]["running"] is None


def test_undo_is_refused_under_a_clock(client) -> None:
    made = client.post(
        "/api/matches",
        json={"game": "slimetrail", "opponent": "computer", "level": 1, "clock": "60+0"},
    ).json()
    token = made["links"]["1"].split("seat=")[1]
    client.post(f"/api/matches/{made['id']}/move", json={"seat": token, "move": "d5", "ply": 0})
    undo = client.post(f"/api/matches/{made['id']}/undo", json={"seat": token, "ply": 2})
    assert undo.status_code == 409 and "clock" in undo.json()["detail"]


def test_the_computer_moves_within_its_clock(client) -> None:
    # The computer plays first on 60+0 (scaled: a minute): it is given a twentieth of it to
    # think (3 s; the level's 0.2 s is less), and moves in time even on a loaded machine
    # whose worker pool starts slowly.
    made = client.post(
        "/api/matches",
        json={"game": "slimetrail", "opponent": "computer", "level": 3, "side": 2, "clock": "60+0"},
    ).json()
    job = client.app.state.service.computer_job(made["id"], 0)
    assert job is not None and 2.9 < job[4] <= 3.0
    match = wait_until(
        lambda: (m := client.get(f"/api/matches/{made['id']}").json())["ply"] >= 1 and m,
        timeout=55,
    )
    assert match["outcome"] is None and match["movers"] == [1]
    assert 0 < match["clock"]["remaining_ms"][0] < 60_000


def test_a_restart_loses_no_time(restartable_server, tmp_path) -> None:
    made = httpx.post(
        f"{restartable_server}/api/matches",
        json={"game": "slimetrail", "opponent": "friend", "clock": "5+0"},
    ).json()
    token = made["links"]["1"].split("seat=")[1]
    # Waiting for the friend, the clocks stand still through a kill -9 and a restart.
    time.sleep(0.5)
    restartable_server.restart()
    waiting = httpx.get(f"{restartable_server}/api/matches/{made['id']}").json()["clock"]
    assert waiting["remaining_ms"] == [300_000, 300_000] and waiting["waiting"] is True
    assert httpx.get(f"{restartable_server}{made['links']['2']}").status_code == 200
    time.sleep(1.0)
    moved = httpx.post(
        f"{restartable_server}/api/matches/{made['id']}/move",
        json={"seat": token, "move": "d5", "ply": 0},
    ).json()["clock"]["remaining_ms"]
    assert 297_000 < moved[0] <= 299_000 and 299_000 < moved[1] <= 300_000
    restartable_server.kill()  # kill -9: nothing is written on the way down
    time.sleep(1.0)
    restartable_server.start()
    after = httpx.get(f"{restartable_server}/api/matches/{made['id']}").json()["clock"]
    # Player 1's time is as it was; player 2's ran on through the second the server was down.
    assert after["remaining_ms"][0] == moved[0] and after["running"] == 2
    assert after["remaining_ms"][1] <= 299_000
    path = restartable_server.db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        query = "SELECT clock_ms FROM moves WHERE match_id = ?"
        stored = db.execute(query, (made["id"],)).fetchall()
    assert stored == [(moved[0],)]


def test_a_watcher_arriving_later_reads_the_clock_then(client) -> None:
    made = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "60+0"}
    ).json()
    arrive(client, made)
    path = f"/ws/matches/{made['id']}"
    with client.websocket_connect(path) as first:
        early = first.receive_json()["match"]["clock"]["remaining_ms"][0]
        time.sleep(0.5)
        with client.websocket_connect(path) as second:
            late = second.receive_json()["match"]["clock"]["remaining_ms"][0]
    assert late <= early - 450


def test_a_friends_clock_waits_for_them_and_starts_when_they_open_the_link(client) -> None:
    made = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "1+0"}
    ).json()
    service = client.app.state.service
    token = made["links"]["1"].split("seat=")[1]
    # The creator may move first: it costs no time, and nobody's clock runs yet.
    moved = client.post(
        f"/api/matches/{made['id']}/move", json={"seat": token, "move": "d5", "ply": 0}
    ).json()
    assert moved["clock"]["remaining_ms"] == [1_000, 1_000]
    time.sleep(1.5)  # longer than the (scaled) minute, the sweeper looking ten times a second
    match = client.get(f"/api/matches/{made['id']}").json()
    assert match["outcome"] is None
    assert match["clock"]["remaining_ms"] == [1_000, 1_000] and match["clock"]["running"] is None
    assert made["id"] not in service.flagged() and not service.end_on_time(made["id"])
    assert service.read(made["id"]).clock_waits  # as stored: a restart keeps them waiting
    arrive(client, made)
    started = client.get(f"/api/matches/{made['id']}").json()["clock"]
    assert started["running"] == 2 and started["waiting"] is False
    stored = service.read(made["id"])  # the start is stored, not only in memory
    assert stored.turn_started is not None and not stored.clock_waits
    # The friend's clock runs from their arrival: their flag falls a (scaled) minute later.
    ended = wait_until(
        lambda: (m := client.get(f"/api/matches/{made['id']}").json())["outcome"] and m
    )
    assert ended["outcome"]["reason"] == "time" and ended["outcome"]["winner"] == 1


def test_a_friend_using_only_the_api_arrives_too(client) -> None:
    """A bot or script holding the friend's seat link never opens the page: its first
    request with the seat starts the clocks, as opening the page does."""
    made = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "1+0"}
    ).json()
    assert made["clock"]["waiting"] is True
    token = made["links"]["2"].split("seat=")[1]
    friend = TestClient(client.app)
    seen = friend.get(f"/api/matches/{made['id']}", params={"seat": token}).json()
    assert seen["clock"]["waiting"] is False and seen["clock"]["running"] == 1
    assert made["id"] in friend.get("/my-games").text  # the seat is the friend's now
    # A move through the API arrives likewise, even one refused as out of turn.
    other = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "1+0"}
    ).json()
    mover = TestClient(client.app)
    first = mover.post(
        f"/api/matches/{other['id']}/move",
        json={"seat": other["links"]["2"].split("seat=")[1], "move": "d5", "ply": 0},
    )
    assert first.status_code == 403 and "turn" in first.json()["detail"]  # not its turn
    assert client.get(f"/api/matches/{other['id']}").json()["clock"]["waiting"] is False
    # A wrong seat through the API is refused and takes nothing.
    bad = friend.get(f"/api/matches/{other['id']}", params={"seat": "nonsense"})
    assert bad.status_code == 403


def test_the_computer_and_a_paired_player_are_there_at_once(client) -> None:
    made = client.post(
        "/api/matches",
        json={"game": "slimetrail", "opponent": "computer", "level": 1, "clock": "60+0"},
    ).json()
    assert made["clock"]["waiting"] is False and made["clock"]["running"] == 1


@pytest.fixture
def abort_client(tmp_path) -> Iterator[TestClient]:
    limits = Limits(clock_scale=SCALE, clock_sweep=0.1, arrival_wait=1.0)
    url = f"sqlite:///{tmp_path / 'abort.db'}"
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=limits)) as test_client:
        yield test_client


def test_a_game_nobody_comes_to_is_aborted(abort_client) -> None:
    client = abort_client
    made = client.post(
        "/api/matches", json={"game": "slimetrail", "opponent": "friend", "clock": "1+0"}
    ).json()
    match = wait_until(
        lambda: (m := client.get(f"/api/matches/{made['id']}").json())["outcome"] and m
    )
    assert match["outcome"]["reason"] == "aborted" and match["outcome"]["winner"] is None
    # Nobody won, lost or shared a place: there was no game.
    assert match["outcome"]["places"] is None and match["outcome"]["result"] == "*"
    assert [(p["place"], p["result"]) for p in match["players"]] == [(None, None)] * 2
    assert "aborted" in match["result_sentence"] and match["clock"]["running"] is None
    assert match["clock"]["remaining_ms"] == [1_000, 1_000]
    assert '<td class="my-result">aborted</td>' in client.get("/my-games").text
    assert '[Result "*"]' in client.get("/my-games.pgn").text
    # The friend arriving too late starts nothing.
    arrive(client, made)
    assert client.get(f"/api/matches/{made['id']}").json()["outcome"]["reason"] == "aborted"


@pytest.mark.parametrize("name", ["clock_scale", "clock_sweep", "arrival_wait", "bot_online"])
def test_clock_and_bot_limits_must_be_positive(name) -> None:
    with pytest.raises(ValueError, match=f"{name} must be positive, not 0"):
        Limits().with_text(f"{name}=0")
