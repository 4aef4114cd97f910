"""Human-move latency and throughput with 1, 2 and 4 web processes on one PostgreSQL.

For each number of web processes (``slimetrail serve --workers 0`` on one throwaway
PostgreSQL cluster) and each number of concurrent games: creates the games (hotseat, 15x15,
so that they last), then every game plays move after move for ``--seconds``, each move sent
to a process chosen at random (a load balancer without stickiness: most moves reach a
process that did not make the previous one, which must reload the match).  A player thinks
``--think`` seconds (random, mean) between moves.  Measured: the latency of each move request
(p50/p99), moves per second, and for ``--watched`` games the *live* latency: from sending a
move on one process to its arrival on a WebSocket held on another process (LISTEN/NOTIFY).
The baseline is the first row (1 process, fewest games), measured in the same run.  The web
processes' CPU time per request (moves and creations) is given too: unlike latencies, the
machine's load does not change it, so it tells the capacity of an idle machine.

The servers keep their load shedding (``in_flight``): a move answered 503 is counted as shed
and sent again after a short pause; only the rate of creations is lifted (one client makes
every game).  The load generator runs on the same machine as the servers and PostgreSQL.

    nice -n 10 python bench/scaleout.py [--processes 1 2 4] [--games 200 1000] [--seconds 20]
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

# The server and database helpers are test machinery (tests/liveserver.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import LiveServer, free_port, temp_postgres

GAME = {"game": "slimetrail", "options": {"size": 15}, "opponent": "hotseat"}
SERVER_ARGS = (
    "--workers",
    "0",
    "--limit",
    "create_rate=1000000/minute",
    "--limit",
    "expiry_interval=0",
)
SHED_PAUSE = 0.2


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


class Game:
    def __init__(self, match: dict[str, Any]) -> None:
        self.id = match["id"]
        self.token = match["links"]["1"].split("seat=")[1]
        self.match = match

    def next_move(self) -> str | None:
        if self.match["outcome"] is not None:
            return None
        done = [move for move in self.match["clicks"].values() if move]
        return random.choice(done) if done else None


async def play(
    game: Game,
    servers: list[str],
    client: httpx.AsyncClient,
    until: float,
    think: float,
    latencies: list[float],
    errors: list[str],
    shed: list[float],
    sent: dict[tuple[str, int], float] | None,
) -> None:
    await asyncio.sleep(random.uniform(0, think * 2))
    while time.monotonic() < until:
        move = game.next_move()
        if move is None:
            return
        server = random.choice(servers)
        ply = game.match["ply"]
        body = {"seat": game.token, "move": move, "ply": ply}
        begin = time.monotonic()
        if sent is not None:
            sent[(game.id, ply + 1)] = begin
        try:
            response = await client.post(f"{server}/api/matches/{game.id}/move", json=body)
        except httpx.HTTPError as exc:
            errors.append(type(exc).__name__)
            return
        if response.status_code == 503:  # shed: the player tries again
            shed.append(time.monotonic() - begin)
            await asyncio.sleep(SHED_PAUSE)
            continue
        if response.status_code != 200:
            errors.append(str(response.status_code))
            return
        latencies.append(time.monotonic() - begin)
        game.match = response.json()
        await asyncio.sleep(random.expovariate(1 / think))


async def watch(
    game: Game, server: str, sent: dict[tuple[str, int], float], live: list[float], until: float
) -> None:
    url = server.replace("http://", "ws://") + f"/ws/matches/{game.id}"
    async with websockets.connect(url, max_size=None) as socket:
        while time.monotonic() < until + 5:
            try:
                message = await asyncio.wait_for(socket.recv(), timeout=1)
            except TimeoutError:
                continue
            arrived = time.monotonic()
            ply = json.loads(message)["match"]["ply"]
            begin = sent.pop((game.id, ply), None)
            if begin is not None:
                live.append(arrived - begin)


async def run_load(
    servers: list[str], games: int, seconds: float, think: float, watched: int
) -> dict[str, Any]:
    # A connection per game: a move never waits in the load generator for a connection, so
    # the latencies are the servers' (their queueing and shedding), not the client's pool.
    limits = httpx.Limits(max_connections=games + 10, max_keepalive_connections=games + 10)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        made: list[Game] = []

        async def create(server: str) -> Game:
            while True:
                response = await client.post(f"{server}/api/matches", json=GAME)
                if response.status_code == 201:
                    return Game(response.json())
                assert response.status_code == 503, response.text
                await asyncio.sleep(SHED_PAUSE)

        for start in range(0, games, 50):
            batch = [
                create(servers[n % len(servers)]) for n in range(start, min(games, start + 50))
            ]
            made += await asyncio.gather(*batch)
        latencies: list[float] = []
        live: list[float] = []
        errors: list[str] = []
        shed: list[float] = []
        sent: dict[tuple[str, int], float] = {}
        began = time.monotonic()
        until = began + seconds
        watchers = [
            # The watcher on another process than the game's first: moves land anywhere.
            asyncio.create_task(watch(game, servers[-1], sent, live, until))
            for game in made[:watched]
        ]
        await asyncio.sleep(1)  # the sockets are open before the first move
        await asyncio.gather(
            *(
                play(
                    g,
                    servers,
                    client,
                    until,
                    think,
                    latencies,
                    errors,
                    shed,
                    sent if n < watched else None,
                )
                for n, g in enumerate(made)
            )
        )
        elapsed = time.monotonic() - began
        for task in watchers:
            task.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
    return {
        "moves": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000 if latencies else float("nan"),
        "p99": percentile(latencies, 0.99) * 1000,
        "live_p50": statistics.median(live) * 1000 if live else float("nan"),
        "live_p99": percentile(live, 0.99) * 1000,
        "live_count": len(live),
        "shed": len(shed),
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
    }


def new_database(server: str) -> str:
    plain = server.replace("postgresql+psycopg://", "postgresql://")
    name = f"bench_{random.randrange(10**9)}"
    with psycopg.connect(f"{plain}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--games", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds between moves")
    parser.add_argument("--watched", type=int, default=20, help="games with a live watcher")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores shared)")
    header = (
        "| web processes | games | moves | moves/s | p50 ms | p99 ms | shed (503) | live p50 ms "
        "| live p99 ms | errors | server CPU ms per request |"
    )
    rows = [header, "|" + "---|" * 11]
    results: list[tuple[int, int, dict[str, Any]]] = []
    with temp_postgres() as pg, tempfile.TemporaryDirectory() as tmp:
        for processes in args.processes:
            for games in args.games:
                db = new_database(pg)
                servers = [
                    LiveServer(free_port(), db, Path(tmp) / f"web{n}.log", SERVER_ARGS)
                    for n in range(processes)
                ]
                try:
                    for server in servers:
                        server.start(timeout=300)
                    pids = [s.process.pid for s in servers if s.process is not None]
                    cpu = sum(map(cpu_seconds, pids))
                    result = asyncio.run(
                        run_load(
                            [s.url for s in servers], games, args.seconds, args.think, args.watched
                        )
                    )
                    # Includes creating the games; a figure the machine's load does not change.
                    result["cpu_ms"] = (
                        (sum(map(cpu_seconds, pids)) - cpu) * 1000 / max(1, result["moves"] + games)
                    )
                finally:
                    for server in servers:
                        server.kill()
                results.append((processes, games, result))
                row = (
                    f"| {processes} | {games} | {result['moves']} | {result['per_second']:.0f} "
                    f"| {result['p50']:.0f} | {result['p99']:.0f} | {result['shed']} "
                    f"| {result['live_p50']:.0f} "
                    f"| {result['live_p99']:.0f} | {result['errors']} | {result['cpu_ms']:.1f} |"
                )
                rows.append(row)
                print(row, result["error_kinds"] or "", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    print("\n".join(rows))
    base = results[0][2]
    print("against the first row (the baseline):")
    for processes, games, result in results:
        speed, p99 = result["per_second"] / base["per_second"], result["p99"] / base["p99"]
        print(f"{processes} processes, {games} games: moves/s x{speed:.2f}, p99 x{p99:.2f}")


if __name__ == "__main__":
    main()
