"""How much load does the web server hold at p99 < 100 ms per human move, and does it shed
the rest with 503 instead of queueing?

Starts ``slimetrail serve`` on loopback (a temporary SQLite database, then a throwaway
PostgreSQL cluster from the machine's ``initdb``/``pg_ctl``, or ``--pg-url``), and plays
hotseat games through the HTTP API with more and more simulated players: each player moves
(``POST /api/matches/{id}/move``), thinks ``--think`` seconds on average, moves again, and
starts a new game when one ends.  Each step runs ``--seconds``; the players double until the
server sheds more than 5% of the moves (past the load it holds at p99 < 100 ms).  The baseline,
measured first in the same run, is one player moving without thinking.  Finally the heaviest
step runs again with shedding turned off (``in_flight`` unlimited), to show what the 503s
save the moves that are answered.  Each line gives the p99 as the players see it and as the
server counts it (its ``Server-Timing``: from the request reaching the app, any wait for an
in-flight place included, to its answer); the difference is the load generator and the
machine, which share the same cores.

    python bench/web_load.py [--db sqlite,postgres] [--seconds 15] [--think 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2 as httpx

# The server and database helpers are test machinery (tests/liveserver.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import LiveServer, free_port

TARGET_MS = 100.0
# Creation and per-client caps raised: every simulated player comes from 127.0.0.1.
SERVER_LIMITS = ("create_rate=1000000/minute", "client_jobs=100000", "expiry_interval=0")


@dataclass
class Step:
    players: int
    seconds: float
    moves: list[float] = field(default_factory=list)  # latencies of answered moves
    server: list[float] = field(default_factory=list)  # their time in the server (s)
    shed: int = 0  # moves answered 503
    errors: int = 0

    def p(self, q: float, times: list[float] | None = None) -> float:
        ordered = sorted(self.moves if times is None else times)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000 if ordered else 0.0

    @property
    def rate(self) -> float:
        return len(self.moves) / self.seconds

    @property
    def shed_share(self) -> float:
        asked = len(self.moves) + self.shed
        return self.shed / asked if asked else 0.0

    def line(self) -> str:
        median = statistics.median(self.moves) * 1000 if self.moves else 0.0
        return (
            f"{self.players:4d} players: {self.rate:6.1f} moves/s answered, median "
            f"{median:6.1f} ms, p99 {self.p(0.99):7.1f} ms (in the server "
            f"{self.p(0.99, self.server):6.1f}), shed {self.shed} ({self.shed_share:.0%}), "
            f"errors {self.errors}"
        )


async def new_game(client: httpx.AsyncClient, size: str) -> tuple[str, str, dict]:
    while True:
        answer = await client.post(
            "/api/matches",
            json={"game": "slimetrail", "opponent": "hotseat", "options": {"size": size}},
        )
        if answer.status_code == 201:
            match = answer.json()
            return match["id"], match["links"]["1"].split("seat=")[1], match
        await asyncio.sleep(0.2)  # shed: try again


async def player(
    client: httpx.AsyncClient, step: Step, until: float, think: float, size: str, seed: int
) -> None:
    rng = random.Random(seed)
    match_id, token, match = await new_game(client, size)
    while time.monotonic() < until:
        moves = [text for text in match["clicks"].values() if text]
        if match["outcome"] is not None or not moves:
            match_id, token, match = await new_game(client, size)
            continue
        body = {"seat": token, "move": rng.choice(moves), "ply": match["ply"]}
        begin = time.perf_counter()
        try:
            answer = await client.post(f"/api/matches/{match_id}/move", json=body)
        except httpx.HTTPError:
            step.errors += 1
            continue
        elapsed = time.perf_counter() - begin
        if answer.status_code == 200:
            step.moves.append(elapsed)
            step.server.append(server_time(answer))
            match = answer.json()
        elif answer.status_code == 503:
            step.shed += 1
        else:
            step.errors += 1
            match_id, token, match = await new_game(client, size)
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))


def server_time(answer: httpx.Response) -> float:
    """The server's own time over a request, from its ``Server-Timing: app;dur=MS``."""
    timing = answer.headers.get("server-timing", "")
    return float(timing.partition("dur=")[2] or "nan") / 1000


async def run_step(url: str, players: int, seconds: float, think: float, size: str) -> Step:
    step = Step(players, seconds)
    limits = httpx.Limits(max_connections=players + 4, max_keepalive_connections=players + 4)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(player(client, step, until, think, size, seed) for seed in range(players))
        )
    return step


def held(step: Step) -> bool:
    """The step's moves were answered in time, and (nearly) none was shed."""
    return step.p(0.99) < TARGET_MS and step.shed_share <= 0.01


def serve(folder: Path, db_url: str, extra: tuple[str, ...]) -> LiveServer:
    args = ["--workers", "1"]
    for text in SERVER_LIMITS + extra:
        args += ["--limit", text]
    server = LiveServer(
        free_port(), db_url, folder / f"serve-{secrets.token_hex(3)}.log", tuple(args)
    )
    server.start()
    return server


def measure(db_name: str, db_url: str, folder: Path, args: argparse.Namespace) -> None:
    print(
        f"== {db_name} (in_flight={args.in_flight}, in_flight_wait={args.in_flight_wait} s, "
        f"think {args.think} s, size {args.size})"
    )
    shedding = (f"in_flight={args.in_flight}", f"in_flight_wait={args.in_flight_wait}")
    server = serve(folder, db_url, shedding)
    try:
        base = asyncio.run(run_step(server.url, 1, min(args.seconds, 8), 0.0, args.size))
        print(f"baseline {base.line()}")
        steps, players = [], args.start
        # Up to the first step that sheds a good share: the target passed, then shedding.
        while players <= args.max_players and not (steps and steps[-1].shed_share > 0.05):
            step = asyncio.run(run_step(server.url, players, args.seconds, args.think, args.size))
            steps.append(step)
            print(f"         {step.line()}  p99/baseline {step.p(0.99) / base.p(0.99):.1f}x")
            players *= 2
    finally:
        server.kill()
    good = [s for s in steps if held(s)]
    if good:
        best = max(good, key=lambda s: s.rate)
        print(f"held at p99 < {TARGET_MS:.0f} ms: {best.rate:.1f} moves/s ({best.players} players)")
    else:
        print(f"no step held p99 < {TARGET_MS:.0f} ms")
    heaviest = steps[-1]
    server = serve(folder, db_url, ("in_flight=1000000",))
    try:
        loose = asyncio.run(
            run_step(server.url, heaviest.players, args.seconds, args.think, args.size)
        )
    finally:
        server.kill()
    print(f"no shedding {loose.line()}")


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A PostgreSQL cluster for the run (as user postgres when run as root)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    bin_dir = Path(shutil.which("pg_ctl") or found[0] / "pg_ctl").parent
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    folder = Path(tempfile.mkdtemp(prefix="slimetrail-bench-pg-"))  # reachable by postgres
    if as_user:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    quiet = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
    initdb = [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]
    subprocess.run(initdb, **quiet)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    pg_ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data)]
    subprocess.run([*pg_ctl, "-o", options, "-l", str(folder / "log"), "-w", "start"], **quiet)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], **quiet)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="sqlite,postgres", help="sqlite, postgres or both")
    parser.add_argument("--pg-url", help="an existing PostgreSQL database (else a throwaway one)")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each step")
    parser.add_argument("--think", type=float, default=0.5, help="mean think time (s)")
    parser.add_argument("--start", type=int, default=4, help="players in the first step")
    parser.add_argument("--max-players", type=int, default=256)
    parser.add_argument("--size", default="7", help="board size of the games")
    parser.add_argument("--in-flight", type=int, default=None, help="the server's in_flight")
    parser.add_argument("--in-flight-wait", type=float, default=None, help="its in_flight_wait")
    args = parser.parse_args()
    from slimetrail.web.settings import Limits

    if args.in_flight is None:
        args.in_flight = Limits().in_flight
    if args.in_flight_wait is None:
        args.in_flight_wait = Limits().in_flight_wait
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores, shared)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in args.db.split(","):
            if name == "sqlite":
                measure("sqlite", f"sqlite:///{folder / 'load.db'}", folder, args)
            elif args.pg_url:
                measure("postgres", args.pg_url, folder, args)
            else:
                with throwaway_postgres() as url:
                    measure("postgres", url, folder, args)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
