"""The worker warm-up: on by default (every game's kernels loaded before the first request);
``SLIMETRAIL_WARM_UP=0`` (the suite's setting, tests/conftest.py) starts no worker process
until a computer move needs one."""

from __future__ import annotations

from fastapi.testclient import TestClient
from waiting import wait_until

from slimetrail.web.app import create_app
from slimetrail.web.settings import WARM_UP_VARIABLE


def workers_started(client: TestClient) -> int:
    return len(client.app.state.computer.pool.context.processes)


def test_a_server_warms_its_workers_up_before_any_request(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(WARM_UP_VARIABLE, "1")
    with TestClient(create_app(f"sqlite:///{tmp_path / 'warm.db'}", workers=1)) as client:
        wait_until(lambda: workers_started(client), what="the warm-up's worker")


def test_without_the_warm_up_a_worker_starts_for_the_first_computer_move(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv(WARM_UP_VARIABLE, "0")
    app = create_app(f"sqlite:///{tmp_path / 'cold.db'}", workers=1, move_time=0.2)
    with TestClient(app) as client:
        hotseat = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"})
        assert hotseat.status_code == 201
        assert workers_started(client) == 0
        body = {"game": "slimetrail", "level": 1, "side": 2}
        match = client.post("/api/matches", json=body).json()
        wait_until(
            lambda: client.get(f"/api/matches/{match['id']}").json()["ply"],
            what="the computer's first move",
        )
        assert workers_started(client) == 1
