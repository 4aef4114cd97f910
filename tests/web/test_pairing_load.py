"""Issue 27 item 5: 200 browsers seeking at once on a real server (simulated: HTTP and a
WebSocket each, tests/seeking.py) are all paired, none twice, never with themselves."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx2 as httpx
import pytest
from liveserver import TLS, running_server
from seeking import seek

SEEKERS = 200
LIMITS = ("--limit", "seek_rate=100000/minute", "--limit", "in_flight=32")


@pytest.fixture
def server(tmp_path, compiled_kernels):
    with running_server(tmp_path, "--workers", "1", *LIMITS) as started:
        yield started


@pytest.mark.slow
def test_two_hundred_seekers_are_all_paired_once(server) -> None:
    async def everybody():
        return await asyncio.gather(
            *(seek(server, "/new/slimetrail?opponent=human") for _ in range(SEEKERS))
        )

    seated = asyncio.run(everybody())
    players = [s.player for s in seated]
    assert len(set(players)) == SEEKERS  # 200 browsers, each seated once
    by_match = Counter(s.match_id for s in seated)
    assert len(by_match) == SEEKERS // 2 and set(by_match.values()) == {2}
    for match_id in by_match:
        match = httpx.get(f"{server}/api/matches/{match_id}", verify=TLS).json()
        assert [p["kind"] for p in match["players"]] == ["human", "human"]
    # Both seats of each match hold different browsers and different tokens.
    owners: dict[str, set[str]] = {}
    for s in seated:
        owners.setdefault(s.match_id, set()).add(s.player)
    assert all(len(pair) == 2 for pair in owners.values())
    assert len({s.url for s in seated}) == SEEKERS
    assert httpx.get(f"{server}/lobby").text.count("/lobby/join/") == 0
