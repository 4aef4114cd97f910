"""Back-pressure through the whole app: beyond ``in_flight`` requests being served, one more
waits at most ``in_flight_wait`` seconds and is answered 503 with ``Retry-After``; health
probes and analyses (which wait for the worker pool in their own capped queue) are never shed.

Requests are held inside the app by a match lookup that blocks until the test lets it go, so
nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from slimetrail.web.app import create_app
from slimetrail.web.settings import Limits
from slimetrail.web.storage.tables import MatchRow

HELD = "heldmatch"  # a match id whose lookup blocks until released


@pytest.fixture
def held_app(tmp_path, monkeypatch) -> Iterator[tuple[TestClient, threading.Event, list]]:
    """``(client, release, entered)``: the app with the default limits; a request for match
    :data:`HELD` blocks inside the app (counted in ``entered``) until ``release`` is set."""
    app = create_app(f"sqlite:///{tmp_path / 'shed.db'}", workers=1, limits=Limits())
    service = app.state.service
    release, entered = threading.Event(), []
    plain_load = service.load

    def load(match_id: str):
        if match_id == HELD:
            entered.append(match_id)
            assert release.wait(60), "never released"
        return plain_load(match_id)

    monkeypatch.setattr(service, "load", load)
    with TestClient(app) as client:
        yield client, release, entered
        release.set()


def hold(client: TestClient, count: int, entered: list) -> tuple[list[threading.Thread], list]:
    """``count`` requests held inside the app, each keeping its in-flight place."""
    answers: list = []
    threads = [
        threading.Thread(target=lambda: answers.append(client.get(f"/api/matches/{HELD}")))
        for _ in range(count)
    ]
    for thread in threads:
        thread.start()
    while len(entered) < count:
        threading.Event().wait(0.01)
    return threads, answers


def test_a_request_beyond_the_default_in_flight_places_is_shed_with_retry_after(
    held_app,
) -> None:
    client, release, entered = held_app
    limits = client.app.state.limits
    threads, answers = hold(client, limits.in_flight, entered)
    # Every place taken and none freed within in_flight_wait: refused, not queued.
    for shed in (
        client.get("/api/games"),
        client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"}),
    ):
        assert shed.status_code == 503, shed.text
        assert int(shed.headers["retry-after"]) >= 1
        assert "overloaded" in shed.json()["detail"]
    # Shed before anything was done: no match was created.
    with client.app.state.service.sessions() as session:
        assert session.scalar(select(func.count()).select_from(MatchRow)) == 0
    # Never shed: the health probe, and an analysis (its own queue; here a 400 for the bad
    # game shows the request reached its route).
    assert client.get("/healthz").json() == {"ok": True}
    analysis = client.post("/api/analyse", json={"game": "nosuchgame"})
    assert analysis.status_code == 400 and "nosuchgame" in analysis.json()["detail"]
    release.set()
    for thread in threads:
        thread.join()
    assert [answer.status_code for answer in answers] == [404] * limits.in_flight
    # The places are free again: served.
    created = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"})
    assert created.status_code == 201, created.text


def test_one_place_one_held_request_the_next_is_answered_503(tmp_path, monkeypatch) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'one.db'}",
        workers=1,
        limits=Limits(in_flight=1, in_flight_wait=0.0, expiry_interval=0),
    )
    service, release, entered = app.state.service, threading.Event(), []
    plain_load = service.load

    def load(match_id: str):
        if match_id == HELD:
            entered.append(match_id)
            release.wait(60)
        return plain_load(match_id)

    monkeypatch.setattr(service, "load", load)
    with TestClient(app) as client:
        threads, answers = hold(client, 1, entered)
        move = client.post(f"/api/matches/{HELD}/move", json={"move": "c3", "ply": 0})
        assert move.status_code == 503 and move.headers["retry-after"] == "1"
        release.set()
        threads[0].join()
        assert answers[0].status_code == 404
        assert (
            client.post(f"/api/matches/{HELD}/move", json={"move": "c3", "ply": 0}).status_code
            == 404
        )


def test_every_answer_says_how_long_the_server_took(tmp_path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'timing.db'}", workers=1, limits=Limits())
    with TestClient(app) as client:
        for answer in (client.get("/healthz"), client.get("/api/matches/nosuch")):
            name, _, took = answer.headers["server-timing"].partition(";dur=")
            assert name == "app" and float(took) >= 0
