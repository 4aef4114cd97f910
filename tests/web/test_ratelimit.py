"""Rate limits, creation safe against prefetch, and load shedding (issue 14, items 4 and 6).

Creation (/api/matches, POST /new, /api/import, rematch) and /api/analyse are limited per
client address with the ``limits`` library; a plain GET of a /new link creates nothing; beyond
``in_flight`` requests at once the server answers 503 at once.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from slimetrail.core.registry import get_game
from slimetrail.web.app import create_app
from slimetrail.web.ratelimit import InFlightLimit
from slimetrail.web.settings import Limits
from slimetrail.web.storage.tables import MatchRow

RECORD = '[Game "slimetrail"]\n\n1. e4 *\n'


@pytest.fixture
def app(tmp_path):
    limits = Limits(create_rate="3/minute", analyse_rate="2/minute", analysis_wait=300)
    return create_app(f"sqlite:///{tmp_path / 'rates.db'}", workers=1, move_time=0.2, limits=limits)


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def matches(client: TestClient) -> int:
    with client.app.state.service.sessions() as session:
        return session.scalar(select(func.count()).select_from(MatchRow))


def assert_rate_limited(response, what: str) -> None:
    assert response.status_code == 429, response.text
    assert f"too many {what} from your address" in response.json()["detail"]
    assert (
        "3 per 1 minute" in response.json()["detail"]
        or "2 per 1 minute" in (response.json()["detail"])
    )
    assert 1 <= int(response.headers["retry-after"]) <= 60


def test_creation_is_limited_per_client_across_every_way_to_create(client) -> None:
    hotseat = {"game": "slimetrail", "opponent": "hotseat"}
    assert client.post("/api/matches", json=hotseat).status_code == 201
    assert client.post("/api/import", json={"record": RECORD}).status_code == 201
    made = client.post("/new/slimetrail?opponent=hotseat", follow_redirects=False)
    assert made.status_code == 303
    before = matches(client)
    assert_rate_limited(client.post("/api/matches", json=hotseat), "new matches")
    assert_rate_limited(client.post("/api/import", json={"record": RECORD}), "new matches")
    assert_rate_limited(
        client.post("/new/slimetrail?opponent=hotseat", follow_redirects=False), "new matches"
    )
    assert matches(client) == before  # refused requests create nothing
    responses = client.get("/openapi.json").json()["paths"]["/api/matches"]["post"]["responses"]
    assert {"429", "503"} <= set(responses)
    # Another address has its own allowance.
    with TestClient(client.app, client=("10.0.0.9", 1)) as other:
        assert other.post("/api/matches", json=hotseat).status_code == 201


@pytest.mark.slow  # the worker loads the solver first
def test_analyses_are_limited_per_client(client) -> None:
    body = {"game": "slimetrail", "options": {"size": "5"}, "moves": ["c4", "c5", "b5"]}
    for _ in range(2):
        answer = client.post("/api/analyse", json=body)
        assert answer.status_code == 200 and answer.json()["solved"], answer.text
    assert_rate_limited(client.post("/api/analyse", json=body), "analyses")


def test_a_new_link_asks_before_it_creates(client) -> None:
    link = "/new/slimetrail-hex?opponent=computer&level=2&side=2&size=6"
    for _ in range(5):  # prefetchers, crawlers, a reload: nothing is created, nothing counted
        page = client.get(link)
        assert page.status_code == 200
    assert matches(client) == 0
    assert page.headers["cache-control"] == "no-store"
    assert "noindex" in page.headers["x-robots-tag"]
    form = re.search(r'<form id="new-match" method="post" action="([^"]+)">', page.text)
    assert form and form.group(1).replace("&amp;", "&") == link
    first, second = get_game("slimetrail-hex", size=6).player_names
    assert f"{first}: the computer (level 2)" in page.text and f"{second}: you" in page.text
    assert 'src="/static/new.js"' in page.text
    created = client.post(form.group(1).replace("&amp;", "&"), follow_redirects=False)
    assert created.status_code == 303 and matches(client) == 1
    match_id, token = re.fullmatch(
        r"/play/([\w-]+)\?seat=([\w-]+)", created.headers["location"]
    ).groups()
    match = client.get(f"/api/matches/{match_id}", params={"seat": token}).json()
    assert (match["game"], match["options"]["size"], match["seat"]) == ("slimetrail-hex", "6", 2)
    # A form that posts its fields in the body (not the query) is read the same way.
    posted = client.post(
        "/new/slimetrail", data={"opponent": "hotseat", "size": "5"}, follow_redirects=False
    )
    match_id = posted.headers["location"].split("/play/")[1].split("?")[0]
    assert client.get(f"/api/matches/{match_id}").json()["options"]["size"] == "5"
    # A bad link is still a 400 naming what is wrong, before any button.
    bad = client.get("/new/slimetrail?side=7")
    assert bad.status_code == 400 and "side 7" in bad.text  # a styled error page


def test_limits_are_checked_and_set_by_name() -> None:
    limits = Limits().with_text("create_rate=60/minute").with_text("in-flight=5")
    assert (limits.create_rate, limits.in_flight) == ("60/minute", 5)
    for text, named in (
        ("nope=3", "NAME one of"),
        ("in_flight=x", "is not a int"),
        ("create_rate=often", "not a rate"),
        ("in_flight=-1", "must not be negative"),
    ):
        with pytest.raises(ValueError, match=named):
            Limits().with_text(text)


def test_serve_refuses_a_bad_limit(capsys) -> None:
    from slimetrail.cli.main import main

    assert main(["serve", "--limit", "create_rate=lots"]) == 2
    assert "create_rate='lots' is not a rate" in capsys.readouterr().err


# -- load shedding -------------------------------------------------------------------------


def test_requests_beyond_the_in_flight_limit_are_shed_at_once() -> None:
    async def scenario() -> list[tuple[int, dict[str, str], str]]:
        release = asyncio.Event()

        async def slow_app(scope, receive, send) -> None:
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        shedder = InFlightLimit(slow_app, limit=2)
        answers: list[tuple[int, dict[str, str], str]] = []

        async def request(path: str) -> None:
            messages: list[dict] = []

            async def send(message) -> None:
                messages.append(message)

            async def receive() -> dict:
                return {"type": "http.request", "body": b"", "more_body": False}

            await shedder({"type": "http", "path": path, "headers": []}, receive, send)
            headers = {k.decode(): v.decode() for k, v in messages[0].get("headers", [])}
            answers.append((messages[0]["status"], headers, messages[1]["body"].decode()))

        held = [asyncio.create_task(request("/api/matches/x")) for _ in range(2)]
        await asyncio.sleep(0.01)
        await request("/api/matches/y")  # a third request while two are served: shed
        assert shedder.shed == 1
        probe = asyncio.create_task(request("/healthz"))  # never shed (it waits like the rest)
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(*held, probe)
        await request("/api/matches/z")  # room again
        return answers

    answers = asyncio.run(scenario())
    status, headers, body = answers[0]
    assert status == 503 and headers["retry-after"] == "1"
    assert "overloaded (2 requests in progress, 0 waiting)" in json.loads(body)["detail"]
    assert [a[0] for a in answers[1:]] == [200, 200, 200, 200]


def test_a_burst_waits_briefly_for_a_place_and_an_overload_is_shed() -> None:
    async def scenario() -> tuple[list[int], int]:
        release = asyncio.Event()
        order: list[str] = []

        async def app(scope, receive, send) -> None:
            if scope["path"] == "/slow":
                await release.wait()
            order.append(scope["path"])
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b""})

        shedder = InFlightLimit(app, limit=1, wait=0.5)

        async def request(path: str) -> int:
            statuses: list[int] = []

            async def send(message) -> None:
                if message["type"] == "http.response.start":
                    statuses.append(message["status"])

            await shedder({"type": "http", "path": path, "headers": []}, None, send)
            return statuses[0]

        slow = asyncio.create_task(request("/slow"))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(request("/next"))  # waits for the place ...
        await asyncio.sleep(0.05)
        release.set()  # ... which it gets when /slow is done
        served = [await slow, await waiter]
        release.clear()
        stuck = asyncio.create_task(request("/slow"))
        await asyncio.sleep(0.01)
        shed = await request("/late")  # nobody leaves within 0.5 s: shed
        release.set()
        await stuck
        assert order == ["/slow", "/next", "/slow"]
        assert shedder.current == 0 and not [t for t in shedder.waiting if not t.done()]
        return [*served, shed], shedder.shed

    assert asyncio.run(scenario()) == ([200, 200, 503], 1)


def test_the_app_sheds_with_503_but_still_answers_healthz(tmp_path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'shed.db'}", workers=1, limits=Limits(in_flight=0))
    with TestClient(app) as client:
        shed = client.get("/api/games")
        assert shed.status_code == 503 and shed.headers["retry-after"] == "1"
        assert "overloaded" in shed.json()["detail"]
        assert client.get("/healthz").json() == {"ok": True}
