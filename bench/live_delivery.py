"""Cross-process live delivery: from a move's answer on process A to its WebSocket message on B.

Two web processes (``slimetrail serve --workers 0``) on one throwaway PostgreSQL.  ``--games``
hotseat 15x15 games are created on A; each is watched by a spectator WebSocket on A (the
baseline: A's own hub, no database in between) and one on B (``NOTIFY`` at commit, B's
``LISTEN`` connection, B's reload and view).  Then ``--moves`` moves are posted to A, one
every ``--interval`` seconds, spread over the games; for each move the time from A's answer
arriving to the move's message arriving on each socket is recorded (negative: the message
came first; a hub sends the newest position, so when two moves of a game come close together
the second's message may deliver both: a move counts as delivered by the first message at its
ply or later).  Printed: p50/p90/p99/max on A and on B and B against A (the issue's target is
p99 under 100 ms on loopback), and the CPU time each process spent per move during the
moves (which the machine's load does not change).

    /work/briefs/quiet.sh nice -n 0 python bench/live_delivery.py [--games 20] [--moves 400]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import psycopg
import websockets
from scaleout import cpu_seconds

# The server and database helpers are test machinery (tests/liveserver.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import LiveServer, free_port, temp_postgres

GAME = {"game": "slimetrail", "options": {"size": 15}, "opponent": "hotseat"}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


class Watched:
    """One game, its moves' answer times and the arrival times of its messages per socket."""

    def __init__(self, match: dict[str, Any]) -> None:
        self.id = match["id"]
        self.token = match["links"]["1"].split("seat=")[1]
        self.match = match
        self.answered: dict[int, float] = {}
        self.arrived: dict[str, dict[int, float]] = {"A": {}, "B": {}}

    def next_move(self) -> str | None:
        if self.match["outcome"] is not None:
            return None
        done = [move for move in self.match["clicks"].values() if move]
        return random.choice(done) if done else None


async def listen(game: Watched, name: str, server: str, opened: asyncio.Event) -> None:
    url = server.replace("http://", "ws://") + f"/ws/matches/{game.id}"
    async with websockets.connect(url, max_size=None) as socket:
        opened.set()
        async for message in socket:
            game.arrived[name].setdefault(json.loads(message)["match"]["ply"], time.monotonic())


async def measure(
    a: LiveServer, b: LiveServer, games: int, moves: int, interval: float
) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=60) as client:
        made = [
            Watched((await client.post(f"{a}/api/matches", json=GAME)).json()) for _ in range(games)
        ]
        sockets = []
        for game in made:
            for name, server in (("A", a), ("B", b)):
                opened = asyncio.Event()
                sockets.append(asyncio.create_task(listen(game, name, server, opened)))
                await opened.wait()
        await asyncio.sleep(1)  # every socket has its first message
        pids = {"A": a.process.pid, "B": b.process.pid}  # type: ignore[union-attr]
        cpu = {name: cpu_seconds(pid) for name, pid in pids.items()}
        sent = 0
        while sent < moves:
            playable = [game for game in made if game.next_move() is not None]
            if not playable:
                break
            game = random.choice(playable)
            ply = game.match["ply"]
            body = {"seat": game.token, "move": game.next_move(), "ply": ply}
            response = await client.post(f"{a}/api/matches/{game.id}/move", json=body)
            game.answered[ply + 1] = time.monotonic()
            response.raise_for_status()
            game.match = response.json()
            sent += 1
            await asyncio.sleep(interval)
        await asyncio.sleep(2)  # the last messages arrive
        cpu = {name: cpu_seconds(pid) - cpu[name] for name, pid in pids.items()}
        for task in sockets:
            task.cancel()
        await asyncio.gather(*sockets, return_exceptions=True)
    delays: dict[str, list[float]] = {"A": [], "B": []}
    missing = 0
    for game in made:
        for ply, answered in game.answered.items():
            for name in delays:
                later = [at for seen, at in game.arrived[name].items() if seen >= ply]
                if later:
                    delays[name].append((min(later) - answered) * 1000)
                else:
                    missing += 1
    cpu_ms = {name: seconds * 1000 / max(1, sent) for name, seconds in cpu.items()}
    return {"moves": sent, "missing": missing, "cpu_ms": cpu_ms, **delays}


def new_database(server: str) -> str:
    plain = server.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(f"{plain}/postgres", autocommit=True) as connection:
        connection.execute('CREATE DATABASE "live"')
    return f"{server}/live"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between moves")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()} (2 cores shared)")
    with temp_postgres() as pg, tempfile.TemporaryDirectory() as tmp:
        db = new_database(pg)
        a, b = (
            LiveServer(free_port(), db, Path(tmp) / f"{name}.log", ("--workers", "0"))
            for name in "ab"
        )
        try:
            a.start(timeout=300)
            b.start(timeout=300)
            result = asyncio.run(measure(a, b, args.games, args.moves, args.interval))
        finally:
            a.kill()
            b.kill()
    print(f"load average at end: {os.getloadavg()}")
    print(f"{result['moves']} moves over {args.games} games; messages missing: {result['missing']}")
    print("from the move's answer on A to its WebSocket message, ms:")
    for name, label in (("A", "on A (baseline)"), ("B", "on B (other process)")):
        values = result[name]
        print(
            f"  {label:22} p50 {statistics.median(values):6.1f}  p90 "
            f"{percentile(values, 0.9):6.1f}  p99 {percentile(values, 0.99):6.1f}  max "
            f"{max(values):6.1f}  ({len(values)} moves)  CPU {result['cpu_ms'][name]:.1f} ms/move"
        )
    base, other = result["A"], result["B"]
    print(
        f"  B against A: p50 x{statistics.median(other) / max(statistics.median(base), 0.1):.2f}"
        f", p99 x{percentile(other, 0.99) / max(percentile(base, 0.99), 0.1):.2f}"
    )


if __name__ == "__main__":
    main()
