"""Does a move cost the server more late in a game than early?

Starts ``slimetrail serve`` on loopback with a temporary SQLite database (or ``--db``), plays
``--matches`` hotseat 15x15 Slime Trail games up to ply 10 and as many up to ply 150 through
the HTTP API, then times human moves (``POST /api/matches/{id}/move``, answered with the match
JSON and its board SVG) at plies 10.. and 150.., alternating between the two sets so that load
from elsewhere falls on both alike.  Prints the medians and their ratio (target: within 1.2x).
The line played is a long one found in the same run (each step to the free neighbour with the
fewest onward moves), so no game ends before ply 150 + ``--moves``.

    python bench/web_move_cost.py [--matches 12] [--moves 8] [--db URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx

from slimetrail import render
from slimetrail.core.registry import get_game

# The server and database helpers are test machinery (tests/liveserver.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import LiveServer, free_port

SIZE = 15
EARLY, LATE = 10, 150


def long_line(length: int) -> list[str]:
    """A line of ``length`` moves on the 15x15 board along which the game goes on."""
    state = get_game("slimetrail", size=SIZE).new_state()
    line = []
    while len(line) < length:
        best = None
        for move in state.legal_moves():
            state.push(move)
            onward = len(state.legal_moves()) if state.outcome() is None else 0
            state.pop()
            if onward and (best is None or onward < best[0]):
                best = (onward, move)
        if best is None:
            raise SystemExit(f"the line ends after {len(line)} moves")
        line.append(state.move_str(best[1]))
        state.push(best[1])
    return line


def render_times(line: list[str], plies: range, repeat: int = 5) -> list[float]:
    """In this process: how long the board SVG of each position (as a move's answer draws it,
    with the next clicks marked) takes to draw."""
    state = get_game("slimetrail", size=SIZE).new_state()
    for text in line[: plies.start]:
        state.push_str(text)
    times = []
    for ply in plies:
        state.push_str(line[ply])  # the position after the timed move
        view, targets = state.view(), list(state.next_clicks())
        for _ in range(repeat):
            began = time.perf_counter()
            render.board_svg(
                state.game, view, colours=state.colours(), targets=targets, interactive=True
            )
            times.append(time.perf_counter() - began)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=12, help="matches at each ply")
    parser.add_argument("--moves", type=int, default=8, help="timed moves in each match")
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    line = long_line(LATE + args.moves)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db_url = args.db or f"sqlite:///{folder / 'bench.db'}"
        server = LiveServer(free_port(), db_url, folder / "serve.log", ("--workers", "1"))
        server.start()
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:

                def move(match: dict, ply: int) -> float:
                    body = {"seat": match["seat_token"], "move": line[ply], "ply": ply}
                    began = time.perf_counter()
                    response = client.post(f"/api/matches/{match['id']}/move", json=body)
                    elapsed = time.perf_counter() - began
                    response.raise_for_status()
                    return elapsed

                def new_match(plies: int) -> dict:
                    body = {"game": "slimetrail", "opponent": "hotseat", "options": {"size": SIZE}}
                    match = client.post("/api/matches", json=body).json()
                    match["seat_token"] = match["links"]["1"].split("seat=")[1]
                    for ply in range(plies):
                        move(match, ply)
                    return match

                early = [new_match(EARLY) for _ in range(args.matches)]
                late = [new_match(LATE) for _ in range(args.matches)]
                times: dict[int, list[float]] = {EARLY: [], LATE: []}
                for step in range(args.moves):
                    for short, long in zip(early, late, strict=True):
                        times[EARLY].append(move(short, EARLY + step))
                        times[LATE].append(move(long, LATE + step))
        finally:
            server.kill()

    drawing = {
        ply: statistics.median(render_times(line, range(ply, ply + args.moves))) * 1000
        for ply in (EARLY, LATE)
    }
    medians = {ply: statistics.median(values) * 1000 for ply, values in times.items()}
    count = args.matches * args.moves
    print(f"15x15 Slime Trail, hotseat, {count} timed moves at each ply ({db_url.split(':')[0]})")
    for ply in (EARLY, LATE):
        ordered = sorted(times[ply])
        p90 = ordered[int(len(ordered) * 0.9)] * 1000
        print(
            f"ply {ply:3}..{ply + args.moves - 1}: median {medians[ply]:.2f} ms, p90 {p90:.2f} ms"
            f" (drawing its board in this process: {drawing[ply]:.2f} ms)"
        )
    print(f"ratio ply {LATE} / ply {EARLY}: {medians[LATE] / medians[EARLY]:.2f}x (target <= 1.2x)")
    # A later position has more to draw (every slimed cell); the rest of a move's work is what
    # must not grow with the game's length.
    rest = {ply: medians[ply] - drawing[ply] for ply in (EARLY, LATE)}
    print(
        f"without drawing the board (estimate): {rest[EARLY]:.2f} ms vs {rest[LATE]:.2f} ms, "
        f"ratio {rest[LATE] / rest[EARLY]:.2f}x"
    )


if __name__ == "__main__":
    main()
