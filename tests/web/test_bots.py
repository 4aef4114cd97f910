"""Bots by protocol: tokens issued by the admin (``slimetrail bot-token``), the ``/ws/bot``
protocol (bad token, hello, turns, an illegal move losing, reconnecting, the rate), bots offered
as opponents only while online, and a whole game of ``slimetrail bot`` driving ``slimetrail
ugi`` against an API player on a real server."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from liveserver import TLS, running_server
from starlette.websockets import WebSocketDisconnect

from slimetrail.cli.main import main
from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits


def new_token(db_url: str, name: str, capsys) -> str:
    """A bot made with the admin command, its token read from what it printed."""
    assert main(["bot-token", "--db", db_url, "create", name]) == 0
    return capsys.readouterr().out.split()[-1]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'bots.db'}"
    return request.getfixturevalue("pg_database")()


@pytest.fixture(scope="module")
def client(db_url: str) -> Iterator[TestClient]:
    limits = Limits(bot_connect_rate="1000/minute", clock_sweep=0.1)
    with TestClient(create_app(db_url, workers=1, move_time=0.2, limits=limits)) as test_client:
        yield test_client


def wait_for(check, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
    return found


@contextmanager
def connected(client: TestClient, token: str, games: list[str] | None = None):
    with client.websocket_connect("/ws/bot", headers={"Authorization": f"Bearer {token}"}) as ws:
        ws.send_json({"type": "hello", "games": games or ["slimetrail"]})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome"
        yield ws


def against_bot(client: TestClient, name: str, bot_first: bool, clock: str | None = None):
    seats = [{"kind": "bot", "name": name}, {"kind": "me"}]
    made = client.post(
        "/api/matches",
        json={"game": "slimetrail", "seats": seats if bot_first else seats[::-1], "clock": clock},
    )
    assert made.status_code == 201, made.text
    return made.json()


def test_bot_tokens_are_created_listed_and_revoked(db_url, capsys) -> None:
    token = new_token(db_url, "lister", capsys)
    assert len(token) >= 30 and token.startswith("bot_")  # never taken for an option
    assert main(["bot-token", "--db", db_url, "list"]) == 0
    assert "lister\toffline" in capsys.readouterr().out
    assert main(["bot-token", "--db", db_url, "create", "lister"]) == 2
    assert "already" in capsys.readouterr().err
    assert main(["bot-token", "--db", db_url, "create", "bad name!"]) == 2
    assert "'bad name!'" in capsys.readouterr().err
    assert main(["bot-token", "--db", db_url, "revoke", "lister"]) == 0
    assert main(["bot-token", "--db", db_url, "revoke", "lister"]) == 2
    assert "no bot 'lister'" in capsys.readouterr().err


def test_a_bad_or_revoked_token_is_refused(client, db_url, capsys) -> None:
    for header in ({"Authorization": "Bearer wrong"}, {}):
        with (
            client.websocket_connect("/ws/bot", headers=header) as ws,
            pytest.raises(WebSocketDisconnect) as closed,
        ):
            ws.receive_json()
        assert closed.value.code == 4401 and "bad token" in closed.value.reason
    token = new_token(db_url, "revoked", capsys)
    main(["bot-token", "--db", db_url, "revoke", "revoked"])
    with (
        client.websocket_connect("/ws/bot", headers={"Authorization": f"Bearer {token}"}) as ws,
        pytest.raises(WebSocketDisconnect) as closed,
    ):
        ws.receive_json()
    assert closed.value.code == 4401


def test_a_hello_naming_no_known_game_is_refused(client, db_url, capsys) -> None:
    token = new_token(db_url, "greeter", capsys)
    with client.websocket_connect("/ws/bot", headers={"Authorization": f"Bearer {token}"}) as ws:
        ws.send_json({"type": "hello", "games": ["snake-pit"]})
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4400 and "snake-pit" in closed.value.reason


def test_only_online_bots_are_offered(client, db_url, capsys) -> None:
    token = new_token(db_url, "sometimes", capsys)
    offline = client.post(
        "/api/matches",
        json={
            "game": "slimetrail",
            "seats": [{"kind": "me"}, {"kind": "bot", "name": "sometimes"}],
        },
    )
    assert offline.status_code == 400 and "'sometimes' is offline" in offline.json()["detail"]
    with connected(client, token):
        online = client.get("/api/bots").json()
        assert {"name": "sometimes", "games": ["slimetrail"]} in online
        other_game = client.post(
            "/api/matches",
            json={
                "game": "slither",
                "seats": [{"kind": "me"}, {"kind": "bot", "name": "sometimes"}],
            },
        )
        assert "does not play slither" in other_game.json()["detail"]
        made = client.post("/new/slimetrail?seats=me,bot:sometimes", follow_redirects=False)
        assert made.status_code == 303
        home = client.get("/").text
        assert 'value="bot:sometimes"' in home and "/new/slimetrail?seats=me,bot:sometimes" in home
    assert "sometimes" not in [bot["name"] for bot in client.get("/api/bots").json()]
    assert "bot:sometimes" not in client.get("/").text


def test_the_bot_is_sent_its_turn_and_its_move_is_played(client, db_url, capsys) -> None:
    token = new_token(db_url, "mover", capsys)
    with connected(client, token) as ws:
        match = against_bot(client, "mover", bot_first=True, clock="5+3")
        turn = ws.receive_json()
        assert turn["type"] == "turn" and turn["match"] == match["id"]
        assert (turn["game"], turn["moves"], turn["ply"], turn["player"]) == (
            "slimetrail",
            [],
            0,
            1,
        )
        assert turn["clock_ms"][1] == 300_000 and turn["increment_ms"] == 3_000
        ws.send_json({"type": "move", "match": match["id"], "ply": 0, "move": "d5"})
        token_me = match["links"]["2"].split("seat=")[1]
        after = wait_for(
            lambda: (
                (m := client.get(f"/api/matches/{match['id']}?seat={token_me}").json())["moves"]
                and m
            )
        )
        assert after["moves"] == ["d5"] and after["players"][0]["bot"] == "mover"
        assert after["opponent"] == "bot" and after["can_undo"] is False
        # My reply reaches the bot as its next turn.
        client.post(
            f"/api/matches/{match['id']}/move", json={"seat": token_me, "move": "d6", "ply": 1}
        )
        again = ws.receive_json()
        assert again["type"] == "turn" and again["moves"] == ["d5", "d6"] and again["ply"] == 2


def test_an_illegal_bot_move_loses_with_the_reason_named(client, db_url, capsys) -> None:
    token = new_token(db_url, "cheater", capsys)
    with connected(client, token) as ws:
        match = against_bot(client, "cheater", bot_first=True)
        assert ws.receive_json()["type"] == "turn"
        ws.send_json({"type": "move", "match": match["id"], "ply": 0, "move": "z99"})
        ws.send_json({"type": "nonsense"})
        assert ws.receive_json() == {"type": "error", "message": "expected a move message"}
        ws.send_text("{not json")
        assert ws.receive_json() == {"type": "error", "message": "expected a move message"}
    over = wait_for(
        lambda: (m := client.get(f"/api/matches/{match['id']}").json())["outcome"] and m
    )
    assert over["outcome"]["reason"] == "illegal move" and over["outcome"]["winner"] == 2
    assert over["result_sentence"] == "Green sent an illegal move: Red wins."
    assert over["forfeit_note"].startswith("cheater sent 'z99': ")


def test_a_bot_that_comes_back_gets_its_turn_again(client, db_url, capsys) -> None:
    token = new_token(db_url, "flaky", capsys)
    with connected(client, token) as ws:
        match = against_bot(client, "flaky", bot_first=True, clock="60+0")
        first = ws.receive_json()
    # Gone without moving: its clock runs on; back again, it is sent the same turn.
    time.sleep(0.2)
    running = client.get(f"/api/matches/{match['id']}").json()["clock"]
    assert running["running"] == 1 and running["remaining_ms"][0] < first["clock_ms"][0]
    with connected(client, token) as ws:
        again = ws.receive_json()
        assert again["match"] == match["id"] and again["ply"] == 0
        assert again["clock_ms"][0] < first["clock_ms"][0]


def test_bot_connections_are_rate_limited(tmp_path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'rate.db'}"
    token = new_token(url, "eager", capsys)
    limits = Limits(bot_connect_rate="2/minute")
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=limits)) as limited:
        for _ in range(2):
            with connected(limited, token):
                pass
        with (
            limited.websocket_connect(
                "/ws/bot", headers={"Authorization": f"Bearer {token}"}
            ) as ws,
            pytest.raises(WebSocketDisconnect) as closed,
        ):
            ws.receive_json()
    assert closed.value.code == 1013 and "too many bot connections" in closed.value.reason


def slimetrail_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "slimetrail", *args]


def test_slimetrail_bot_plays_a_whole_game_with_slimetrail_ugi(
    tmp_path: Path, compiled_kernels: None
) -> None:
    with running_server(
        tmp_path, "--workers", "1", "--move-time", "0.2", "--limit", "clock_scale=0.5"
    ) as server:
        made = subprocess.run(
            slimetrail_command("bot-token", "--db", server.db_url, "create", "ugi-bot"),
            capture_output=True,
            text=True,
            check=True,
        )
        token = made.stdout.split()[-1]
        log = (tmp_path / "bot.log").open("wb")
        engine = f"{sys.executable} -m slimetrail ugi"
        bot = subprocess.Popen(
            slimetrail_command(
                "bot", "--url", server, "--token", token, "--engine", engine, "--verbose"
            ),
            stdout=log,
            stderr=log,
        )
        try:
            deadline = time.monotonic() + 60
            while not httpx.get(f"{server}/api/bots", verify=TLS).json():
                assert bot.poll() is None and time.monotonic() < deadline, "the bot did not connect"
                time.sleep(0.2)
            # 1+0 scaled by 0.5: thirty seconds each; I move first, the bot answers on its clock.
            match = httpx.post(
                f"{server}/api/matches",
                json={
                    "game": "slimetrail",
                    "seats": [{"kind": "me"}, {"kind": "bot", "name": "ugi-bot"}],
                    "clock": "1+0",
                },
            ).json()
            mine = match["links"]["1"].split("seat=")[1]
            url = f"{server}/api/matches/{match['id']}"
            deadline = time.monotonic() + 120
            while (current := httpx.get(f"{url}?seat={mine}").json())["outcome"] is None:
                assert time.monotonic() < deadline, "the game did not end"
                if current["to_move"] == 1:
                    move = next(text for text in current["clicks"].values() if text)
                    httpx.post(
                        f"{url}/move", json={"seat": mine, "move": move, "ply": current["ply"]}
                    )
                time.sleep(0.1)
        finally:
            bot.terminate()
            bot.wait(10)
            log.close()
    assert current["outcome"]["reason"] not in ("time", "illegal move")
    assert current["ply"] >= 2 and 2 in current["movers"]
    spoken = (tmp_path / "bot.log").read_text()
    assert "go p1time" in spoken and "bestmove" in spoken


def test_slimetrail_bot_stops_on_a_refused_token(live_server) -> None:
    done = subprocess.run(
        slimetrail_command(
            "bot",
            "--url",
            live_server,
            "--token",
            "wrong",
            "--engine",
            f"{sys.executable} -m slimetrail ugi",
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "refused the token" in done.stderr


def test_a_bot_on_one_server_is_seated_and_told_by_another(
    tmp_path: Path, pg_database, compiled_kernels: None
) -> None:
    from websockets.sync.client import connect

    url = pg_database()
    made = subprocess.run(
        slimetrail_command("bot-token", "--db", url, "create", "far"),
        capture_output=True,
        text=True,
        check=True,
    )
    token = made.stdout.split()[-1]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        running_server(tmp_path / "a", "--workers", "1", db_url=url) as here,
        running_server(tmp_path / "b", "--workers", "1", db_url=url) as there,
    ):
        endpoint = here.url.replace("http://", "ws://") + "/ws/bot"
        with connect(endpoint, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            ws.send('{"type": "hello", "games": ["slimetrail"]}')
            assert '"welcome"' in ws.recv(timeout=10)
            # Created on the other server, which knows the bot is online from the database.
            match = httpx.post(
                f"{there}/api/matches",
                json={
                    "game": "slimetrail",
                    "seats": [{"kind": "bot", "name": "far"}, {"kind": "me"}],
                },
            )
            assert match.status_code == 201, match.text
            turn = json.loads(ws.recv(timeout=20))
            assert turn["type"] == "turn" and turn["match"] == match.json()["id"]
