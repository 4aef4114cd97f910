"""Cold start of ``slimetrail solve``: a fresh process answering a trivial position, against
``python -c pass`` measured in the same run.

    python bench/solve_cold.py [--runs 10]

Each command runs ``--runs`` times (interleaved, after one untimed run of each to warm the
file cache); printed: the median and best wall-clock time of each, the solve's extra time
over a bare interpreter, and whether the target (a trivial position answered in under
0.2 s) is met.  The positions: the snail next to its own goal with a few free cells about
(5x5), a 7x7 endgame with 11 reachable cells, and a hex 10x10 Taylor position whose snail
is two steps from its goal with seven cells in reach.  For comparison, the last row solves
a position that needs the compiled kernel (its numba cache load included).
"""

from __future__ import annotations

import argparse
import os
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
    "solve 7x7 after d4 c3 (kernel)": [*SOLVE, "--no-book", "c3", "b3", "c4", "c5", "b5"],
}


def run(argv: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():
        run(argv)  # untimed: file cache, numba cache
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            times[name].append(run(argv))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':40} {'median s':>9} {'best s':>8} {'over python':>12}")
    for name, got in times.items():
        median = statistics.median(got)
        print(f"{name:40} {median:9.3f} {min(got):8.3f} {median - base:+12.3f}")
    trivial = [n for n in COMMANDS if n.startswith("solve") and "kernel" not in n]
    worst = max(statistics.median(times[n]) for n in trivial)
    print(f"trivial positions: worst median {worst:.3f} s [target < 0.2 s: ", end="")
    print("met]" if worst < 0.2 else "MISSED]")


if __name__ == "__main__":
    main()
