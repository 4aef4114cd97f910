"""WebSocket fan-out (issue 14, item 5): each kind of view built once per change, off the
event loop, the same text to every watcher of that kind; watchers capped per match and in
total, a refused watcher told why."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from slimetrail.web import views
from slimetrail.web.app import create_app
from slimetrail.web.hub import TRY_AGAIN_LATER
from slimetrail.web.settings import Limits

WATCHERS = 24


@pytest.fixture
def client(tmp_path) -> Iterator[TestClient]:
    limits = Limits(match_watchers=WATCHERS + 1, total_watchers=WATCHERS + 3)
    app = create_app(f"sqlite:///{tmp_path / 'fanout.db'}", workers=1, limits=limits)
    with TestClient(app) as test_client:
        yield test_client


def hotseat(client: TestClient) -> tuple[str, str]:
    match = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"}).json()
    return match["id"], match["links"]["1"].split("seat=")[1]


def test_each_kind_of_view_is_built_once_per_change(client: TestClient, monkeypatch) -> None:
    hub = client.app.state.hub
    match_id, token = hotseat(client)
    loop_thread = client.portal.call(threading.current_thread)
    builders = []
    real = views.match_json

    def spy(*args):
        builders.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(views, "match_json", spy)

    with ExitStack() as stack:
        spectators = [
            stack.enter_context(client.websocket_connect(f"/ws/matches/{match_id}"))
            for _ in range(WATCHERS)
        ]
        player = stack.enter_context(
            client.websocket_connect(f"/ws/matches/{match_id}?seat={token}")
        )
        first = [ws.receive_text() for ws in spectators]
        assert len(set(first)) == 1  # one text for every spectator
        player.receive_text()
        # Two kinds of viewer at this version: two builds, however many watchers.
        assert hub.builds == 2
        assert client.get("/healthz").json() == {"ok": True}
        for ply, move in enumerate(("e4", "e3", "f3")):
            answer = client.post(
                f"/api/matches/{match_id}/move", json={"seat": token, "move": move, "ply": ply}
            )
            assert answer.status_code == 200
            texts = {ws.receive_text() for ws in spectators}
            assert len(texts) == 1 and f'"ply": {ply + 1}' in texts.pop()
            assert f'"ply": {ply + 1}' in player.receive_text()
            assert client.get("/healthz").json() == {"ok": True}
        assert hub.builds == 2 + 2 * 3
        assert hub.total == WATCHERS + 1
    assert builders and loop_thread not in builders  # built off the event loop
    deadline = 50
    while hub.total and deadline:
        deadline -= 1
        client.get("/healthz")
    assert hub.total == 0 and hub.clients == {}


def refused_reason(client: TestClient, path: str) -> str:
    with client.websocket_connect(path) as ws, pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    assert closed.value.code == TRY_AGAIN_LATER
    return closed.value.reason


def test_watchers_are_capped_per_match_and_in_total(client: TestClient) -> None:
    first, _ = hotseat(client)
    second, _ = hotseat(client)
    with ExitStack() as stack:
        for _ in range(WATCHERS + 1):
            stack.enter_context(client.websocket_connect(f"/ws/matches/{first}")).receive_text()
        reason = refused_reason(client, f"/ws/matches/{first}")
        assert reason == f"this match has {WATCHERS + 1} watchers (at most {WATCHERS + 1})"
        for _ in range(2):
            stack.enter_context(client.websocket_connect(f"/ws/matches/{second}")).receive_text()
        reason = refused_reason(client, f"/ws/matches/{second}")
        assert reason == f"the server has {WATCHERS + 3} watchers (at most {WATCHERS + 3})"
    # Everybody left: there is room again.
    with client.websocket_connect(f"/ws/matches/{second}") as ws:
        assert ws.receive_json()["match"]["id"] == second
