"""Two web processes and one worker on one PostgreSQL behave as one site (issue 16)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2 as httpx
import pytest
import websockets
from liveserver import TLS
from scaleout_site import START_TIMEOUT, Site
from waiting import wait_until

pytestmark = pytest.mark.slow


# Generous timeouts: on a loaded 2-core CI machine a request can wait seconds for the CPU.
HTTP_TIMEOUT, WS_TIMEOUT = 60.0, 60.0


def http_json(method: str, url: str, **kwargs: Any) -> Any:
    response = httpx.request(method, url, timeout=HTTP_TIMEOUT, verify=TLS, **kwargs)
    assert response.status_code < 300, response.text
    return response.json()


def token_of(match: dict[str, Any], player: int) -> str:
    return match["links"][str(player)].split("seat=")[1]


def poll(url: str, done, timeout: float = 60) -> dict[str, Any]:
    return wait_until(lambda: http_json("GET", url), done, timeout, what=url, interval=0.1)


def watch(server: str, match_id: str, token: str | None = None) -> Any:
    """A WebSocket on the match; no keepalive pings, which a busy machine can miss."""
    url = server.replace("http://", "ws://") + f"/ws/matches/{match_id}"
    url += f"?seat={token}" if token else ""
    return websockets.connect(url, open_timeout=WS_TIMEOUT, ping_interval=None, max_size=None)


async def until_ply(
    socket: Any, ply: int, timeout: float = WS_TIMEOUT, exact: bool = True
) -> dict[str, Any]:
    """The first match message at ``ply`` on ``socket`` (earlier ones are skipped); with
    ``exact=False`` the first at ``ply`` or later."""
    async with asyncio.timeout(timeout):
        while True:
            match = json.loads(await socket.recv())["match"]
            if match["ply"] >= ply:
                if exact:
                    assert match["ply"] == ply, f"skipped from before {ply} to {match['ply']}"
                return match


def legal(match: dict[str, Any]) -> str:
    """A legal move of the player the match JSON is for: its first completed click."""
    for click, done in match["clicks"].items():
        if done:
            return done
        assert click, match
    raise AssertionError(f"no one-click move in {match['clicks']}")


def test_friend_game_on_two_processes_is_live_on_both(site: Site) -> None:
    match = http_json(
        "POST", f"{site.a}/api/matches", json={"game": "slimetrail", "opponent": "friend"}
    )
    one, two = token_of(match, 1), token_of(match, 2)
    servers = {1: (site.a, one), 2: (site.b, two)}

    async def scenario() -> list[str]:
        async with (
            watch(site.a, match["id"], one) as on_a,
            watch(site.b, match["id"], two) as on_b,
            watch(site.b, match["id"]) as watcher_b,
        ):
            seen = {1: await until_ply(on_a, 0), 2: await until_ply(on_b, 0)}
            await until_ply(watcher_b, 0)
            played = []
            for ply in range(6):
                player = seen[1]["to_move"]
                server, token = servers[player]
                text = legal(seen[player])
                await asyncio.to_thread(
                    http_json,
                    "POST",
                    f"{server}/api/matches/{match['id']}/move",
                    json={"seat": token, "move": text, "ply": ply},
                )
                played.append(text)
                # Both players and the spectator on the other process see the move live.
                seen = {1: await until_ply(on_a, ply + 1), 2: await until_ply(on_b, ply + 1)}
                watched = await until_ply(watcher_b, ply + 1)
                assert seen[1]["moves"] == seen[2]["moves"] == watched["moves"] == played
                assert watched["clicks"] == {}
                if seen[1]["outcome"] is not None:
                    break
            return played

    played = asyncio.run(scenario())
    assert http_json("GET", f"{site.b}/api/matches/{match['id']}")["moves"] == played


def test_computer_game_made_on_a_is_answered_while_its_player_watches_on_b(site: Site) -> None:
    match = http_json(
        "POST", f"{site.a}/api/matches", json={"game": "slimetrail", "level": 1, "side": 1}
    )
    token = token_of(match, 1)

    async def scenario() -> None:
        async with watch(site.b, match["id"], token) as on_b:
            position = await until_ply(on_b, 0)
            for ply in (0, 2, 4):
                await asyncio.to_thread(
                    http_json,
                    "POST",
                    f"{site.a}/api/matches/{match['id']}/move",
                    json={"seat": token, "move": legal(position), "ply": ply},
                )
                # B is told of the human move and then of the reply; when the worker answers
                # before B has read the match, B sends the newest position only.
                seen = await until_ply(on_b, ply + 1, exact=False)
                if seen["outcome"] is not None:
                    return
                if seen["ply"] == ply + 1:
                    assert seen["thinking"]
                    seen = await until_ply(on_b, ply + 2)  # the worker's reply, live on B
                position = seen
                assert not position["thinking"] and position["movers"][-1] == 2
                if position["outcome"] is not None:
                    return

    asyncio.run(scenario())


def test_kill_of_a_web_process_loses_no_move_and_the_game_goes_on_through_the_other(
    site: Site,
) -> None:
    match = http_json(
        "POST", f"{site.a}/api/matches", json={"game": "slimetrail", "opponent": "friend"}
    )
    one, two = token_of(match, 1), token_of(match, 2)
    url = f"/api/matches/{match['id']}"
    first = http_json("GET", f"{site.a}{url}?seat={one}")
    http_json("POST", f"{site.a}{url}/move", json={"seat": one, "move": legal(first), "ply": 0})
    site.a.kill()
    # Every accepted move is in the database: B has it, and both players go on through B.
    second = http_json("GET", f"{site.b}{url}?seat={two}")
    assert second["ply"] == 1
    http_json("POST", f"{site.b}{url}/move", json={"seat": two, "move": legal(second), "ply": 1})
    third = http_json("GET", f"{site.b}{url}?seat={one}")
    assert third["ply"] == 2 and third["moves"][:1] == second["moves"]
    site.a.start(START_TIMEOUT)  # a restarted process serves the same game
    assert http_json("GET", f"{site.a}{url}")["moves"] == third["moves"]


def test_kill_of_the_worker_mid_move_is_retried_by_a_restarted_worker(site: Site) -> None:
    # Slime-Moku's top level searches for its whole time (2 s): the worker is surely mid-move.
    body = {"game": "slime-moku", "level": 6, "side": 2}
    match = http_json("POST", f"{site.a}/api/matches", json=body)
    token = token_of(match, 2)
    url = f"{site.b}/api/matches/{match['id']}?seat={token}"
    assert http_json("GET", url)["thinking"]
    wait_until(lambda: running_jobs(site.db_url) == 1, what="the worker to take the job")
    site.worker.kill()
    assert http_json("GET", url)["ply"] == 0
    site.worker.start(START_TIMEOUT)  # its sweep finds the dead worker's job and runs it again
    answered = poll(url, lambda m: m["ply"] == 1, timeout=60)
    assert not answered["thinking"] and answered["movers"] == [1]
    assert "retrying job" in site.worker.log_path.read_text()  # the dead worker's job itself
    # The game goes on: the player answers and the worker replies once, not twice.
    http_json(
        "POST",
        f"{site.a}/api/matches/{match['id']}/move",
        json={"seat": token, "move": legal(answered), "ply": 1},
    )
    replied = poll(url, lambda m: m["ply"] == 3, timeout=60)
    assert replied["movers"] == [1, 2, 1]


def running_jobs(db_url: str) -> int:
    import psycopg

    from slimetrail.web.live import libpq_url

    with psycopg.connect(libpq_url(db_url)) as connection:
        row = connection.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE status = 'doing'"
        ).fetchone()
    return int(row[0]) if row else 0


def test_an_analysis_asked_on_b_is_run_by_the_worker_and_answered_on_b(site: Site) -> None:
    from slimetrail.core.registry import get_game

    # 5x5, a few plies in, the game still on: solved at once even on a loaded machine.
    state = get_game("slimetrail", size="5").new_state()
    moves = []
    for _ in range(4):
        move = sorted(state.legal_moves(), key=state.move_str)[0]
        text = state.move_str(move)
        state.push(move)
        if state.outcome() is not None:
            state.pop()
            break
        moves.append(text)
    body = {"game": "slimetrail", "options": {"size": "5"}, "moves": moves}
    result = http_json("POST", f"{site.b}/api/analyse", json=body)
    assert result["solved"], result
    assert set(result["moves"]) == {state.move_str(m) for m in state.legal_moves()}
    assert result["to_move"] == state.to_move


def test_a_review_is_made_by_the_worker_and_kept_in_the_database_for_every_process(
    site: Site,
) -> None:
    from sqlalchemy import text

    from slimetrail.web.storage.tables import make_engine

    body = {
        "game": "slimetrail",
        "options": {"size": "5"},
        "opponent": "hotseat",
        "moves": ["c2", "b2", "b3"],
    }
    match = http_json("POST", f"{site.a}/api/matches", json=body)
    review = http_json("GET", f"{site.a}/api/matches/{match['id']}/review")
    assert [entry["move"] for entry in review["plies"]] == body["moves"]
    assert all(entry["proven"] for entry in review["plies"])
    # Kept in PostgreSQL: the other process serves the same review, and the row is there.
    assert http_json("GET", f"{site.b}/api/matches/{match['id']}/review") == review
    engine = make_engine(site.db_url)
    with engine.connect() as connection:
        kept = connection.execute(
            text("SELECT version, review FROM reviews WHERE match_id = :id"), {"id": match["id"]}
        ).one()
    engine.dispose()
    assert [entry["move"] for entry in kept.review["plies"]] == body["moves"]
