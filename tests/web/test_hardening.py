"""Issue 14, reliability and security: bad JSON values, huge bodies, headers, logs, spec."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from slimetrail.web.app import create_app
from slimetrail.web.hardening import MAX_BODY, RedactSeats, RequestGuard
from slimetrail.web.settings import Limits

POSTS = {
    "/api/matches": '{"game": "slimetrail", "options": {"size": %s}}',
    "/api/analyse": '{"game": "slimetrail", "moves": [], "options": {"size": %s}}',
    "/api/import": '{"record": "x", "extra": %s}',
    "/api/matches/abc/move": '{"move": "c3", "ply": %s}',
    "/api/matches/abc/undo": '{"ply": %s}',
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module (each app starts a worker process that loads every kernel):
    the tests only send requests it refuses or reads, with rates raised so none counts
    against the next."""
    url = f"sqlite:///{tmp_path_factory.mktemp('hardening') / 'h.db'}"
    limits = Limits(create_rate="10000/minute", analyse_rate="10000/minute")
    with TestClient(create_app(url, workers=1, limits=limits)) as client:
        yield client


@pytest.mark.parametrize("path", list(POSTS))
@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e400", '[1, {"a": NaN}]'])
def test_non_finite_numbers_are_a_clear_400(client: TestClient, path: str, value: str) -> None:
    answer = client.post(
        path, content=POSTS[path] % value, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400, answer.text
    detail = answer.json()["detail"]
    assert "JSON body" in detail and ("not a number" in detail or "out of range" in detail)


@pytest.mark.parametrize("path", list(POSTS))
def test_a_lone_surrogate_is_a_clear_400(client: TestClient, path: str) -> None:
    answer = client.post(
        path, content=POSTS[path] % '"\\ud800"', headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400
    assert "lone surrogate" in answer.json()["detail"]


@pytest.mark.parametrize("name", ["self", "game_id"])
def test_options_named_like_parameters_are_a_400(client: TestClient, name: str) -> None:
    for path in ("/api/matches", "/api/analyse"):
        answer = client.post(path, json={"game": "slimetrail", "options": {name: 1}})
        assert answer.status_code == 400
        assert f"unknown option '{name}'" in answer.json()["detail"]


def test_a_huge_body_is_refused_before_it_is_read(client: TestClient) -> None:
    """The guard stops pulling a streamed body once it passes the cap (300 MB offered)."""
    pulled, sent, reached = 0, [], []
    chunk = b"x" * 65536

    async def receive() -> dict:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": chunk, "more_body": pulled < 300 * 16}

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope: dict, receive: object, send: object) -> None:
        reached.append(scope)

    scope = {"type": "http", "headers": [(b"content-type", b"text/plain")]}
    asyncio.run(RequestGuard(app)(scope, receive, send))
    assert not reached and sent[0]["status"] == 413
    assert pulled * len(chunk) <= MAX_BODY + len(chunk)
    assert b"over" in sent[1]["body"]
    declared = client.post(
        "/api/import",
        content=b"{}",
        headers={"content-type": "application/json", "content-length": str(10**9)},
    )
    assert declared.status_code == 413


def test_pages_send_security_headers(client: TestClient) -> None:
    for path in ("/", "/rules/slimetrail", "/api/games"):
        headers = client.get(path).headers
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"


def test_seat_tokens_never_reach_the_log() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:1", "GET", "/play/abc?seat=SECRETTOKEN&x=1", "1.1", 200),
        None,
    )
    RedactSeats().filter(record)
    line = record.getMessage()
    assert "SECRETTOKEN" not in line and "seat=…&x=1" in line


def test_the_spec_lists_the_error_answers(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    move = paths["/api/matches/{match_id}/move"]["post"]["responses"]
    assert {"400", "403", "404", "409", "413"} <= set(move)
    assert "404" not in paths["/api/games"]["get"]["responses"]
