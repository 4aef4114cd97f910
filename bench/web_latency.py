"""Does the web server stay responsive while the computer thinks?

Starts ``slimetrail serve`` on loopback with a temporary SQLite database, measures the latency
of ``GET /healthz`` and ``GET /api/matches/{id}`` on an idle server (the baseline), then again
while ``--games`` computer games are all searching at the strongest level, and prints the
ratios.  It also times how long the pool takes to answer a first move in every game.

    python bench/web_latency.py [--games 6] [--requests 200] [--move-time 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx

# The server and database helpers are test machinery (tests/liveserver.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import LiveServer, free_port


def start_server(folder: Path, move_time: float, workers: int) -> LiveServer:
    args = ("--workers", str(workers), "--move-time", str(move_time))
    server = LiveServer(free_port(), f"sqlite:///{folder / 'bench.db'}", folder / "serve.log", args)
    try:
        server.start()
    except RuntimeError as error:
        raise SystemExit(str(error)) from None
    return server


def latencies(client: httpx.Client, paths: list[str], count: int) -> list[float]:
    out = []
    for i in range(count):
        begin = time.perf_counter()
        client.get(paths[i % len(paths)]).raise_for_status()
        out.append(time.perf_counter() - begin)
    return out


def summary(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95)] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--move-time", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    from slimetrail.ai import levels_for
    from slimetrail.core.registry import get_game

    top = max(levels_for(get_game("slimetrail")))

    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp), args.move_time, args.workers)
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                hotseat = client.post(
                    "/api/matches", json={"game": "slimetrail", "opponent": "hotseat"}
                ).json()
                paths = ["/healthz", f"/api/matches/{hotseat['id']}"]
                # Warm up: wait for one computer move, so the workers have started.
                first = client.post(
                    "/api/matches", json={"game": "slimetrail", "level": 1, "side": 2}
                ).json()
                while client.get(f"/api/matches/{first['id']}").json()["ply"] < 1:
                    time.sleep(0.05)
                latencies(client, paths, 20)
                idle = summary(latencies(client, paths, args.requests))
                began = time.perf_counter()
                games = [
                    client.post(
                        "/api/matches",
                        json={
                            "game": "slimetrail",
                            "options": {"size": 15},
                            "level": top,
                            "side": 2,
                        },
                    ).json()
                    for _ in range(args.games)
                ]
                busy_values = latencies(client, paths, args.requests)
                thinking = sum(
                    client.get(f"/api/matches/{g['id']}").json()["thinking"] for g in games
                )
                busy = summary(busy_values)
                for game in games:
                    while client.get(f"/api/matches/{game['id']}").json()["ply"] < 1:
                        time.sleep(0.05)
                all_moved = time.perf_counter() - began
        finally:
            server.kill()
    print(f"games={args.games} workers={args.workers} move_time={args.move_time}s")
    print(f"idle: median {idle[0]:.2f} ms, p95 {idle[1]:.2f} ms ({args.requests} requests)")
    print(f"busy: median {busy[0]:.2f} ms, p95 {busy[1]:.2f} ms (still thinking after: {thinking})")
    print(f"ratio busy/idle: median {busy[0] / idle[0]:.2f}x, p95 {busy[1] / idle[1]:.2f}x")
    rounds = -(-args.games // args.workers)
    print(
        f"first computer move in all {args.games} games: {all_moved:.2f} s "
        f"(ideal {rounds} rounds x {args.move_time} s = {rounds * args.move_time:.1f} s)"
    )


if __name__ == "__main__":
    main()
