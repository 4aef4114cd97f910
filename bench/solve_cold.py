"""Cold start of ``slimetrail solve``: a fresh process answering a position, against
``python -c pass`` measured in the same run.

    python bench/solve_cold.py [--runs 10]

Each command runs ``--runs`` times (interleaved, after one untimed run of each to warm the
file cache); printed: the median and best wall-clock time of each, the solve's extra time
over a bare interpreter, the same in CPU seconds (user + system: what a busy shared machine
does not inflate), and whether the target (issue 28: every position here answered in under
0.3 s, Python's start-up included) is met.  The positions: the snail next to its own goal
with a few free cells about (5x5), a 7x7 endgame with 11 reachable cells, a hex 10x10 Taylor
position whose snail is two steps from its goal with seven cells in reach, the issue's 7x7
position of about 20,000 nodes, and a 7x7 position of about 290,000 nodes (no book).  Every
one is searched by the C kernel, which loads without numpy or numba.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLVE = [sys.executable, "-m", "slimetrail", "solve"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "solve 5x5, snail next to its goal": [*SOLVE, "--size", "5", "--fen", "5/5/xxx2/1ox2/2x2 1"],
    "solve 7x7 endgame, 11 cells": [
        *SOLVE,
        "--fen",
        "7/7/xxxxxx1/x4x1/xox2x1/xxx2x1/3xxx1 1",
    ],
    "solve hex 10x10 taylor, 7 cells": [
        *SOLVE,
        "--game",
        "slimetrail-hex",
        "--fen",
        "10/10/10/10/10/10/xxxx6/3x6/xo1x6/3x6 1",
    ],
    "solve 7x7, 20,000 nodes (issue 28)": [
        *SOLVE,
        "--json",
        "--no-book",
        *["c3", "c2", "b2", "b3", "b4", "c5", "d6", "e6", "f5", "f4"],
    ],
    "solve 7x7 after c3 b3 c4 c5 b5": [*SOLVE, "--no-book", "c3", "b3", "c4", "c5", "b5"],
}


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``argv``."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    start, used = time.perf_counter(), cpu()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - start, cpu() - used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():
        run(argv)  # untimed: the file cache
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            times[name].append(run(argv))

    def median(name: str, i: int) -> float:
        return statistics.median(t[i] for t in times[name])

    base, base_cpu = median("python -c pass", 0), median("python -c pass", 1)
    head = f"{'command':38} {'median s':>8} {'best s':>7} {'over python':>11}"
    print(f"{head} {'cpu s':>6} {'over':>6}")
    for name, got in times.items():
        wall, used = median(name, 0), median(name, 1)
        best = min(t[0] for t in got)
        print(
            f"{name:38} {wall:8.3f} {best:7.3f} {wall - base:+11.3f} {used:6.3f} "
            f"{used - base_cpu:+6.3f}"
        )
    solves = [n for n in COMMANDS if n.startswith("solve")]
    for i, what in ((0, "wall-clock"), (1, "CPU")):
        worst = max(median(n, i) for n in solves)
        print(f"every position, {what}: worst median {worst:.3f} s [target < 0.3 s: ", end="")
        print("met]" if worst < 0.3 else "MISSED]")


if __name__ == "__main__":
    main()
