"""Pairing across two server processes on one PostgreSQL (issue 27 item 1): a seek waiting
on one process is paired by a visitor of the other (its page is woken by LISTEN/NOTIFY, or
at worst by its next round), and a lobby join works across processes too."""

from __future__ import annotations

import asyncio

import httpx2 as httpx
import pytest
from liveserver import LiveServer, free_port
from seeking import seek

LINK = "/new/slimetrail?opponent=human&size=5"
ARGS = ("--workers", "1", "--limit", "seek_rate=1000/minute")


@pytest.fixture
def two_servers(tmp_path, pg_url, compiled_kernels):
    servers = [LiveServer(free_port(), pg_url, tmp_path / f"serve-{n}.log", ARGS) for n in (1, 2)]
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.kill()


def test_a_seek_on_one_process_is_paired_from_the_other(two_servers) -> None:
    first, second = two_servers

    async def both():
        waiting = asyncio.create_task(seek(first, LINK))
        # The first is waiting on its WebSocket (its seek in the lobby) before the second comes.
        while "/lobby/join/" not in (await asyncio.to_thread(httpx.get, f"{second}/lobby")).text:
            await asyncio.sleep(0.05)
        joined = await seek(second, LINK)
        return await waiting, joined

    waited, joined = asyncio.run(both())
    assert waited.waited and not joined.waited
    assert waited.match_id == joined.match_id and waited.player != joined.player
    match = httpx.get(f"{first}/api/matches/{waited.match_id}").json()
    assert [p["kind"] for p in match["players"]] == ["human", "human"]


def test_a_lobby_join_on_the_other_process_wakes_the_waiting_page(two_servers) -> None:
    first, second = two_servers

    async def join_from_lobby() -> str:
        async with httpx.AsyncClient(base_url=str(second)) as visitor:
            while True:
                page = (await visitor.get("/lobby")).text
                if "/lobby/join/" in page:
                    break
                await asyncio.sleep(0.05)
            seek_id = page.split("/lobby/join/")[1].split('"')[0]
            answer = await visitor.post(f"/lobby/join/{seek_id}", follow_redirects=False)
            assert answer.status_code == 303, answer.text
            return answer.headers["location"]

    async def both():
        waiting = asyncio.create_task(seek(first, LINK + "&clock=5%2B0"))
        joined = await join_from_lobby()
        return await waiting, joined

    waited, joined = asyncio.run(both())
    assert waited.match_id == joined.removeprefix("/play/").split("?")[0]
    assert waited.url != joined  # each its own seat
