"""Slime-Moku exact solves: the compiled solver against the Python solver on the same starts.

    python bench/moku_solve.py [--boards 4x4k4,5x5k4,5x5k5] [--big 6x6k4] [--minutes M]

Every board of ``--boards`` is solved by both (the Python solver of
:mod:`slimetrail.games.moku.solver` is the baseline; ratio = its time / the compiled time,
CPU seconds of this process, the compiled solver's numba compilation done beforehand).  The
boards of ``--big`` are tried by the compiled solver alone within ``--minutes`` each.
"""

from __future__ import annotations

import argparse
import time

from slimetrail.core.game import SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.moku import solver
from slimetrail.games.moku.fastsolve import solve_start


def parse(board: str) -> tuple[int, int]:
    size, _, k = board.partition("k")
    return int(size.partition("x")[0]), int(k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="4x4k4,4x4k5,5x5k4,5x5k5")
    parser.add_argument("--big", default="")
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parser.parse_args()
    solve_start(4, 4)  # compile (or load the compiled code) before timing
    print(
        f"{'board':8} {'value':6} {'python nodes':>12} {'python s':>9} {'fast nodes':>10} "
        f"{'fast s':>7} {'ratio':>6}"
    )
    for board in args.boards.split(","):
        n, k = parse(board)
        started = time.process_time()
        slow = solver.solve(get_game("slime-moku", size=n, k=k).new_state())
        slow_s = time.process_time() - started
        started = time.process_time()
        values, nodes = solve_start(n, k)
        fast_s = max(time.process_time() - started, 1e-3)
        best = max(values.values(), key=["loss", "draw", "win"].index)
        assert best == slow.value, (board, best, slow.value)
        print(
            f"{board:8} {best:6} {slow.nodes:>12} {slow_s:>9.2f} {nodes:>10} {fast_s:>7.2f} "
            f"{slow_s / fast_s:>5.0f}x",
            flush=True,
        )
    for board in filter(None, args.big.split(",")):
        n, k = parse(board)
        started, wall = time.process_time(), time.monotonic()
        try:
            values, nodes = solve_start(n, k, 60 * args.minutes, progress=True)
        except SolveTimeout:
            print(
                f"{board}: not solved within {args.minutes} minutes of wall clock "
                f"({time.process_time() - started:.0f} s CPU)"
            )
            continue
        best = max(values.values(), key=["loss", "draw", "win"].index)
        print(
            f"{board}: {best} for Black, {nodes} nodes, {time.process_time() - started:.0f} s "
            f"CPU, {time.monotonic() - wall:.0f} s wall; first moves {values}"
        )


if __name__ == "__main__":
    main()
