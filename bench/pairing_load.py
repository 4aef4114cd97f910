"""How long do 200 browsers seeking at once take to be paired, against creating as many
friend games (one POST each, no waiting) on the same server?

Starts ``slimetrail serve`` on loopback (a temporary SQLite database, ``in_flight`` 32, the
seek and creation rates raised), then: the baseline, N simulated browsers each creating a
friend game through ``/new/slimetrail?opponent=friend``, 50 opening the link at any moment;
then N simulated browsers seeking through ``/new/slimetrail?opponent=human`` alike (HTTP,
and the seek page's WebSocket for those who wait: tests/seeking.py).  Prints the wall time
of each, the ratio, and how many waited; checks every browser was paired once.

    python bench/pairing_load.py [--seekers 200]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx2 as httpx

# The server helpers are test machinery (tests/liveserver.py, tests/seeking.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from liveserver import running_server
from seeking import BUSY, seek

LIMITS = (
    *("--limit", "seek_rate=100000/minute", "--limit", "create_rate=100000/minute"),
    *("--limit", "in_flight=32"),
)


ARRIVING = 50  # browsers opening their link at the same moment (connections at once)


async def create_friend_game(base: str, arriving: asyncio.Semaphore) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client, arriving:
        while (answer := await client.post("/new/slimetrail?opponent=friend")).status_code == BUSY:
            await asyncio.sleep(0.05)
        assert answer.status_code == 303, answer.text


async def friend_games(base: str, n: int) -> tuple[float, list]:
    arriving = asyncio.Semaphore(ARRIVING)
    return await timed([create_friend_game(base, arriving) for _ in range(n)])


async def seekers(base: str, n: int) -> tuple[float, list]:
    arriving = asyncio.Semaphore(ARRIVING)
    link = "/new/slimetrail?opponent=human"
    return await timed([seek(base, link, arriving=arriving) for _ in range(n)])


async def timed(jobs: list) -> tuple[float, list]:
    start = time.monotonic()
    results = await asyncio.gather(*jobs)
    return time.monotonic() - start, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seekers", type=int, default=200)
    n = parser.parse_args().seekers
    with running_server(Path(tempfile.mkdtemp()), "--workers", "1", *LIMITS) as server:
        base, _ = asyncio.run(friend_games(server, n))
        took, seated = asyncio.run(seekers(server, n))
    pairs = Counter(s.match_id for s in seated)
    assert len({s.player for s in seated}) == n and set(pairs.values()) == {2}, "not paired once"
    waited = sum(s.waited for s in seated)
    print(f"baseline: {n} friend games created           {base:6.2f} s")
    print(f"pairing:  {n} seekers paired into {len(pairs)} matches {took:6.2f} s")
    print(f"ratio pairing / baseline: {took / base:.2f}  ({waited} waited on the WebSocket)")


if __name__ == "__main__":
    main()
