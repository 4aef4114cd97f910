"""Quick pairing, the player cookie, the lobby and my games (issue 27 items 1, 3, 5), through
the app in process: each ``TestClient`` is one browser (its own cookie jar)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from waiting import wait_until

import slimetrail.web.seekers as seekers_module
from slimetrail.web.app import create_app
from slimetrail.web.players import COOKIE
from slimetrail.web.seekers import Seekers
from slimetrail.web.service.pairing import Paired
from slimetrail.web.settings import Limits

SEEK = "/new/slimetrail?opponent=human"


@pytest.fixture
def app(tmp_path):
    limits = Limits(seek_rate="5/minute", expiry_interval=0)
    return create_app(f"sqlite:///{tmp_path / 'pairing.db'}", workers=1, limits=limits)


@pytest.fixture
def browsers(app) -> Iterator[list[TestClient]]:
    """Three browsers on one running app (the first runs its lifespan)."""
    with TestClient(app) as first:
        yield [first, TestClient(app), TestClient(app)]


def seek(browser: TestClient, link: str = SEEK) -> str:
    answer = browser.post(link, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return answer.headers["location"]


def paired_url(socket, seconds: float = 30) -> str:
    """The match a seek's socket is sent; fails (rather than hanging the suite: the test
    client's receive has no timeout) if none comes within ``seconds``."""
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(socket.receive_text()), daemon=True)
    reader.start()
    reader.join(seconds)
    assert got, f"no pairing message within {seconds} s"
    return json.loads(got[0])["url"]


def match_of(browser: TestClient, url: str) -> dict:
    match_id, token = url.removeprefix("/play/").split("?seat=")
    return browser.get(f"/api/matches/{match_id}", params={"seat": token}).json()


def test_two_browsers_are_paired_and_the_waiting_one_is_sent_its_seat(browsers) -> None:
    a, b, _ = browsers
    waiting = seek(a)
    assert waiting.startswith("/seek/")
    assert "Looking for an opponent" in a.get(waiting).text
    with a.websocket_connect(f"/ws/seeks/{waiting.split('/')[-1]}") as socket:
        joined = seek(b)
        message = json.loads(socket.receive_text())
    assert message["type"] == "paired"
    assert joined.startswith("/play/") and message["url"].startswith("/play/")
    a_match, b_match = match_of(a, message["url"]), match_of(b, joined)
    assert a_match["id"] == b_match["id"]
    assert len(a_match["seats"]) == 1 and len(b_match["seats"]) == 1
    assert a_match["seats"] != b_match["seats"]
    # Nobody is shown the other's seat link.
    assert set(a_match["links"]) == {"watch", str(a_match["seats"][0])}
    # Both see it in their games; the lobby no longer lists the seek.
    for browser in (a, b):
        assert a_match["id"] in browser.get("/my-games").text
    assert "Nobody is waiting right now" in b.get("/lobby").text


def test_a_browser_is_never_paired_with_itself(browsers) -> None:
    a, b, _ = browsers
    first, second = seek(a), seek(a)  # two tabs of one browser
    assert first.startswith("/seek/") and second.startswith("/seek/") and first != second
    with a.websocket_connect(f"/ws/seeks/{first.split('/')[-1]}") as socket:
        joined = seek(b)
        paired = json.loads(socket.receive_text())["url"]
    assert match_of(b, joined)["id"] == match_of(a, paired)["id"]
    # In the lobby the other seek is marked as the browser's own, with no Join.
    lobby = a.get("/lobby").text
    assert "yours, waiting" in lobby and "/lobby/join/" not in lobby
    own = second.split("/")[-1]
    refused = a.post(f"/lobby/join/{own}", follow_redirects=False)
    assert refused.status_code == 409 and "yourself" in refused.text


def test_a_seek_leaves_the_pool_when_its_page_closes(browsers) -> None:
    a, b, _ = browsers
    waiting = seek(a)
    seek_id = waiting.split("/")[-1]
    with a.websocket_connect(f"/ws/seeks/{seek_id}"):
        assert seek_id in b.get("/lobby").text
    # Closed: the next visitor waits instead of being paired with nobody.
    wait_until(lambda: seek_id not in b.get("/lobby").text)
    assert seek(b).startswith("/seek/")
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        a.websocket_connect(f"/ws/seeks/{seek_id}") as socket,
    ):
        socket.receive_text()
    assert closed.value.code == 4404


def test_only_the_same_game_options_and_clock_are_paired(browsers) -> None:
    a, b, c = browsers
    with a.websocket_connect(f"/ws/seeks/{seek(a, SEEK + '&size=9').split('/')[-1]}"):
        assert seek(b, SEEK + "&size=7").startswith("/seek/")  # another size
        assert seek(c, SEEK + "&size=9&clock=3%2B2").startswith("/seek/")  # another clock
        assert seek(c, SEEK + "&size=9").startswith("/play/")  # the same: paired


def test_join_from_the_lobby(browsers) -> None:
    a, b, _ = browsers
    b.post("/my-games/name", data={"name": "  Ada   Lovelace "})
    waiting = seek(b)
    seek_id = waiting.split("/")[-1]
    with b.websocket_connect(f"/ws/seeks/{seek_id}") as socket:
        lobby = a.get("/lobby").text
        assert "Ada Lovelace" in lobby and f"/lobby/join/{seek_id}" in lobby
        joined = a.post(f"/lobby/join/{seek_id}", follow_redirects=False)
        assert joined.status_code == 303
        assert json.loads(socket.receive_text())["type"] == "paired"
    assert "Ada Lovelace" in a.get("/my-games").text  # the opponent by name
    gone = a.post(f"/lobby/join/{seek_id}", follow_redirects=False)
    assert gone.status_code == 404 and "gone" in gone.text


def test_the_lobby_api_gives_the_pages_seeks_and_live_games(browsers) -> None:
    a, b, _ = browsers
    b.post("/my-games/name", data={"name": "Grace"})
    seek_id = seek(b, SEEK + "&size=9&clock=3%2B2").split("/")[-1]
    with b.websocket_connect(f"/ws/seeks/{seek_id}") as socket:
        lobby = a.get("/api/lobby").json()
        assert lobby["live"] == []
        [row] = lobby["seeks"]
        assert row["id"] == seek_id and row["game"] == "slimetrail"
        assert row["game_options"]["size"] == "9" and row["clock"] == "3+2"
        assert row["who"] == "Grace" and row["mine"] is False
        assert row["join"] in a.get("/lobby").text  # the page's own Join form
        assert b.get("/api/lobby").json()["seeks"][0]["mine"] is True
        joined = a.post(row["join"], follow_redirects=False)
        assert joined.status_code == 303
        assert json.loads(socket.receive_text())["type"] == "paired"
    match_id = joined.headers["location"].removeprefix("/play/").split("?")[0]
    lobby = a.get("/api/lobby").json()
    assert lobby["seeks"] == []
    [live] = lobby["live"]
    assert live["id"] == match_id and live["game"] == "slimetrail" and live["ply"] == 0
    assert "Grace" in live["names"] and len(live["names"]) == 2
    assert live["link"] == f"/play/{match_id}" and live["link"] in a.get("/lobby").text
    # Both were there at once: the paired game's clock runs from the pairing.
    assert a.get(f"/api/matches/{match_id}").json()["clock"]["waiting"] is False


def test_seeks_are_rate_limited_per_client(browsers) -> None:
    a, b, _ = browsers
    for _ in range(5):
        seek(a if _ % 2 else b, SEEK + "&size=5")
    refused = a.post(SEEK, follow_redirects=False, headers={"accept": "application/json"})
    assert refused.status_code == 429 and "seeks for an opponent" in refused.json()["detail"]


def test_bad_seeks_and_names_are_refused_with_the_reason(browsers) -> None:
    a, _, _ = browsers
    bad = a.post(SEEK + "&clock=3 minutes", follow_redirects=False)
    assert bad.status_code == 400 and "3 minutes" in bad.text and "time control" in bad.text
    bad = a.post("/new/slimetrail?opponent=human&size=8", follow_redirects=False)
    assert bad.status_code == 400 and "size" in bad.text
    a.post("/my-games/name", data={"name": "Kept"})
    long = a.post("/my-games/name", data={"name": "x" * 41})
    assert long.status_code == 400 and "at most 40 characters" in long.text
    assert 'value="Kept"' in a.get("/my-games").text  # the old name is not lost


def test_my_games_lists_created_and_joined_matches_ongoing_first(browsers) -> None:
    a, b, _ = browsers
    finished = a.post("/api/matches", json={"game": "slimetrail", "opponent": "friend"}).json()
    friend_link = finished["links"]["2"]
    ongoing = a.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"}).json()
    token = finished["links"]["1"].split("seat=")[1]
    a.post(f"/api/matches/{finished['id']}/resign", json={"seat": token})
    b.get(friend_link)  # the friend opens the invite: the seat is theirs
    mine = a.get("/my-games").text
    assert mine.index(ongoing["id"]) < mine.index(finished["id"])
    assert "lost" in mine
    theirs = b.get("/my-games").text
    assert finished["id"] in theirs and ongoing["id"] not in theirs and "won" in theirs
    records = a.get("/my-games.pgn")
    assert records.headers["content-type"].startswith("application/x-chess-pgn")
    assert records.text.count("[Game ") == 2 and f"/play/{finished['id']}" in records.text


def test_a_forged_cookie_is_a_new_player(browsers) -> None:
    a, _, _ = browsers
    a.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"})
    player = a.cookies[COOKIE].split(".")[0]
    forged = TestClient(a.app, cookies={COOKIE: f"{player}.{'0' * 32}"})
    answer = forged.get("/my-games")
    assert "No games yet" in answer.text
    assert answer.cookies[COOKIE].split(".")[0] != player


def test_a_three_player_game_waits_for_three_people(browsers) -> None:
    a, b, c = browsers
    link = "/new/snake-pit?opponent=human"
    first, second = seek(a, link), seek(b, link)
    assert first.startswith("/seek/") and second.startswith("/seek/")
    with (
        a.websocket_connect(f"/ws/seeks/{first.split('/')[-1]}") as one,
        b.websocket_connect(f"/ws/seeks/{second.split('/')[-1]}") as two,
    ):
        third = seek(c, link)
        urls = [paired_url(one), paired_url(two)]
    assert third.startswith("/play/")
    pages = zip((a, b, c), [*urls, third], strict=True)
    matches = [match_of(browser, url) for browser, url in pages]
    assert len({m["id"] for m in matches}) == 1
    assert sorted(m["seats"][0] for m in matches) == [1, 2, 3]


def test_a_seeker_waits_out_a_seek_held_for_a_moment_by_its_own_page(app, browsers) -> None:
    """The newest of three seekers pairs the other two even while one of them holds its own
    seek for an attempt (else all three would wait for a newer seeker that never tries)."""
    pairing = app.state.pairing
    first = pairing.seek("player-a", "snake-pit", {}, "")
    second = pairing.seek("player-b", "snake-pit", {}, "")
    assert pairing.people.claim(second.id, "player-b")  # its page's attempt, under way
    threading.Timer(0.2, pairing.people.release, ([second.id],)).start()
    third = pairing.seek("player-c", "snake-pit", {}, "")
    assert set(third.seeks) == {first.id, second.id}


# -- a waiting page's socket (slimetrail.web.seekers), without a database ------------------


class SeekPage:
    """A seek's waiting page as :meth:`Seekers.serve` meets its socket: open until it leaves."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.leaving = asyncio.Event()

    async def receive(self) -> dict:
        await self.leaving.wait()
        return {"type": "websocket.disconnect"}

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        pass


class Rounds:
    """The pairing as a seek's rounds see it: unpaired until ``match`` is set.  ``meanwhile``
    runs in the first round after its look (another request pairing the seek then)."""

    def __init__(self, meanwhile: Callable[[], None] | None = None) -> None:
        self.match: Paired | None = None
        self.rounds, self.looked, self.cancelled = 0, threading.Event(), False
        self.meanwhile = meanwhile

    def wait(self, seek_id: str, owner: str) -> Paired | None:
        found = self.match
        self.rounds += 1
        if self.rounds == 1 and self.meanwhile:
            self.meanwhile()
        self.looked.set()
        return found

    def cancel(self, seek_id: str) -> None:
        self.cancelled = True


@pytest.fixture
def no_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiting seek's own looks an hour apart: whatever a test sees, a wake or the page
    leaving made happen (a test fails after a minute rather than waiting the hour)."""
    monkeypatch.setattr(seekers_module, "TICK", 3600.0)


async def served(seekers: Seekers, page: SeekPage) -> None:
    await asyncio.wait_for(seekers.serve(page, "seek", "owner"), timeout=60)  # type: ignore[arg-type]


def test_a_waiting_page_is_sent_its_match_as_soon_as_it_is_woken(no_ticks) -> None:
    async def scenario() -> Rounds:
        rounds, page = Rounds(), SeekPage()
        seekers = Seekers(rounds)  # type: ignore[arg-type]
        serving = asyncio.create_task(served(seekers, page))
        await asyncio.to_thread(rounds.looked.wait)  # its first look found nobody
        rounds.match = Paired("match", "token")  # another seeker's request pairs it...
        seekers.wake(["seek"])  # ...and wakes its page
        await serving
        assert [json.loads(text)["url"] for text in page.sent] == ["/play/match?seat=token"]
        return rounds

    assert asyncio.run(scenario()).rounds == 2


def test_a_pairing_made_while_the_page_looks_is_not_missed(no_ticks) -> None:
    async def scenario() -> SeekPage:
        page = SeekPage()
        loop = asyncio.get_running_loop()

        def pair_meanwhile() -> None:
            rounds.match = Paired("match", "token")
            asyncio.run_coroutine_threadsafe(wake(), loop).result()

        async def wake() -> None:
            seekers.wake(["seek"])

        rounds = Rounds(pair_meanwhile)
        seekers = Seekers(rounds)  # type: ignore[arg-type]
        await served(seekers, page)
        return page

    assert [json.loads(text)["type"] for text in asyncio.run(scenario()).sent] == ["paired"]


def test_a_page_that_leaves_takes_its_seek_out_of_the_pool_at_once(no_ticks) -> None:
    async def scenario() -> Rounds:
        rounds, page = Rounds(), SeekPage()
        serving = asyncio.create_task(served(Seekers(rounds), page))  # type: ignore[arg-type]
        await asyncio.to_thread(rounds.looked.wait)
        page.leaving.set()
        await serving
        assert page.sent == []
        return rounds

    rounds = asyncio.run(scenario())
    assert rounds.cancelled and rounds.rounds == 1
