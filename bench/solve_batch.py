"""Whole processes: ``slimetrail solve`` per position, and one ``slimetrail solve --batch``,
against the plain C solver (``bench/trail_solver.c``) started once per position.

    python bench/solve_batch.py [--mid 30] [--hex 20] [--seed 1] [--limit 60] [--workers 2]

The positions are bench/solver_c.py's two sets (same generator and seed): 7x7 Slimetrail
(Rastros) mid-game positions 6 to 16 plies in, and hex 10x10 Slime Trail (Taylor's rules)
positions 12 to 30 plies in.  For each set, timed as a researcher runs them from the shell
(every process's start-up, imports and input included):

- ``ours, a process per position``: ``slimetrail solve --json --no-book --fen FEN``;
- ``ours, one --batch``: ``slimetrail solve --batch - --no-book`` on all the positions, and
  the same with ``--workers N``;
- ``C, a process per position``: the C solver (compiled here with gcc -O2 -march=native,
  its default 2**20-entry table) on one position at a time; the yardstick;
- ``C, one process``: the C solver on all the positions at once.

Printed per set: wall-clock and CPU seconds (user + system of the processes) of each, and
the ratios to the C solver's processes per position (below 1: ours is quicker).  The answers
of every position must agree.  The machine's load average is printed before and after: on
a busy shared machine wall-clock times are inflated, CPU times much less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

from solver_c import NAMES, c_input, compile_baseline, random_position

from slimetrail.core.registry import get_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLVE = [sys.executable, "-m", "slimetrail", "solve", "--no-book"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], stdin: str = "") -> tuple[str, float, float]:
    """The output, wall-clock and CPU seconds of one process."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    start, used = time.perf_counter(), children_cpu()
    out = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, check=True, env=env, cwd=ROOT
    ).stdout
    return out, time.perf_counter() - start, children_cpu() - used


def game_args(game) -> list[str]:
    game_id, *options = game.spec.split()
    return ["--game", game_id, *(f"--option={option}" for option in options)]


def c_values(line: str, cells: list[int], state) -> dict[str, str]:
    """The C solver's move values of a position, by move name."""
    *moves, _, _, _, _, _, _ = line.split()
    if moves == ["unsolved"]:
        raise SystemExit(f"the C solver did not solve {state.fen()} within the limit")
    return {state.move_str(cells[int(v)]): NAMES[int(s)] for v, s in (m.split(":") for m in moves)}


def run_set(label: str, positions: list, exe: str, args) -> None:
    game = positions[0].game
    inputs = [c_input(state) for state in positions]
    rows: dict[str, tuple[float, float]] = {}

    # C, a process per position.
    wall = cpu = 0.0
    expected = []
    for state, (line, cells) in zip(positions, inputs, strict=True):
        out, w, c = timed([exe, "20", str(args.limit)], line + "\n")
        expected.append(c_values(out.strip(), cells, state))
        wall, cpu = wall + w, cpu + c
    rows["C, a process per position"] = (wall, cpu)
    _, w, c = timed([exe, "20", str(args.limit)], "".join(line + "\n" for line, _ in inputs))
    rows["C, one process"] = (w, c)

    # Ours, a process per position.
    wall = cpu = 0.0
    for state, values in zip(positions, expected, strict=True):
        argv = [*SOLVE, *game_args(game), "--json", "--fen", state.fen()]
        argv += ["--time-limit", str(args.limit)]
        out, w, c = timed(argv)
        got = json.loads(out)["move_values"]
        assert got == values, f"answers differ: {game.spec} {state.fen()}"
        wall, cpu = wall + w, cpu + c
    rows["ours, a process per position"] = (wall, cpu)

    # Ours, one batch (and one with workers).
    lines = "".join(f"fen {state.fen()}\n" for state in positions)
    for workers in (1, args.workers):
        argv = [*SOLVE, *game_args(game), "--batch", "-", "--time-limit", str(args.limit)]
        if workers > 1:
            argv += ["--workers", str(workers)]
        out, w, c = timed(argv, lines)
        got = [json.loads(line)["move_values"] for line in out.splitlines()]
        assert got == expected, f"batch answers differ on {game.spec}"
        name = "ours, one --batch" + (f" --workers {workers}" if workers > 1 else "")
        rows[name] = (w, c)

    base_wall, base_cpu = rows["C, a process per position"]
    print(f"{label}: {len(positions)} positions")
    print(f"  {'':34} {'wall s':>8} {'cpu s':>8} {'wall/C':>7} {'cpu/C':>7}")
    for name, (w, c) in rows.items():
        print(f"  {name:34} {w:8.2f} {c:8.2f} {w / base_wall:7.2f} {c / base_cpu:7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mid", type=int, default=30, help="7x7 mid-game positions")
    parser.add_argument("--hex", type=int, default=20, help="hex 10x10 Taylor positions")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="the batch with workers")
    args = parser.parse_args()
    print(f"# load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    rng = random.Random(args.seed)
    mid_game = get_game("slimetrail")
    mid = [random_position(mid_game, rng, 6, 16) for _ in range(args.mid)]
    hex_game = get_game("slimetrail-hex")
    hexes = [random_position(hex_game, rng, 12, 30) for _ in range(args.hex)]
    with tempfile.TemporaryDirectory() as tmp:
        exe = compile_baseline(tmp)
        timed([*SOLVE, "--json", "c3"])  # untimed: the file cache
        run_set("7x7 rastros, 6-16 plies in", mid, exe, args)
        run_set("hex 10x10 taylor, 12-30 plies in", hexes, exe, args)
    print(f"# load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
