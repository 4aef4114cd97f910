"""Snake Pit's top level: CPU time an MCTS iteration, against the plain UCT's a playout.

    nice -n 10 python bench/snakepit_iterations.py [--iterations 6000] [--runs 3] [--plies 0,6]

From positions along one seeded random game (``--plies``, by default 0, 6, 12 and 18 turns
in), the top level's search as committed, the same with the reference rollouts (``fast``
off: every turn listed to draw one) and with the exits ordering right below the root
(``judged=1``, the previous shape), and the compiled plain UCT of ``bench/baselines``
(fresh tree, random playouts to the end): each the best of ``--runs`` runs, taken in turn
(interleaved, so that a change of the machine's load falls on both sides), in CPU time
(process time, which a loaded machine inflates less than the clock), printed in
microseconds and as a ratio to the baseline's playout.  With ``--seconds S``, then timed
moves of ``S`` seconds from the same positions, the two sides in turn (as in a game at
equal time: the top level's ``play``, its share of the limit): the baseline's playouts a
move against our iterations, their ratio the work ratio the strength bench's ``--ratio``
stands for.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines.snakepit import SnakePitUCT
from slimetrail.ai import Limit
from slimetrail.core.game import State
from slimetrail.core.registry import get_game
from slimetrail.games.snakepit import ai

PLIES = (0, 6, 12, 18)


def positions(seed: int, plies: tuple[int, ...] = PLIES) -> list[State]:
    rng = random.Random(seed)
    state = get_game("snake-pit").new_state()
    found = []
    for ply in range(max(plies) + 1):
        if ply in plies:
            found.append(state.copy())
        if state.is_over():
            raise SystemExit(f"--plies {ply}: the seed's random game is over by then")
        state.push(rng.choice(state.legal_moves()))
    return found


def best_cpu(runs: list[Callable[[], int]], times: int) -> list[float]:
    """For each of ``runs``, the least CPU microseconds a unit of its work (what it returns
    it did) took over ``times`` rounds, each round running every one of them once."""
    best = [float("inf")] * len(runs)
    for _ in range(times):
        for i, run in enumerate(runs):
            started = time.process_time()
            work = run()
            best[i] = min(best[i], (time.process_time() - started) * 1e6 / max(work, 1))
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=6000, help="a search (and playouts)")
    parser.add_argument("--runs", type=int, default=3, help="the best of this many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plies", default=",".join(map(str, PLIES)), help="turns in, listed")
    parser.add_argument("--seconds", type=float, default=0.0, help="timed moves too (0: none)")
    args = parser.parse_args(argv)
    plies = tuple(int(p) for p in args.plies.split(","))
    ai.KERNELS.run()
    uct = SnakePitUCT()
    top = ai.LADDER.levels[ai.LADDER.top]
    assert isinstance(top, ai.CompiledMctsLevel)
    shapes = {
        "top level": top,
        "reference rollouts": replace(top, fast=False),
        "judged=1": replace(top, judged=1),
    }
    n = args.iterations
    print(f"CPU microseconds a unit, best of {args.runs} runs of {n}; ratio to a baseline playout")
    print(f"{'turns in':>8} {'baseline':>9}" + "".join(f" {name:>24}" for name in shapes))
    for ply, state in zip(plies, positions(args.seed, plies), strict=True):

        def baseline(state: State = state) -> int:
            return uct.choose_playouts(state, n, args.seed)[1]

        def search(level: ai.CompiledMctsLevel, state: State = state) -> Callable[[], int]:
            return lambda: level.search(ai.pit(state), args.seed).run(Limit(nodes=n)).nodes

        base, *costs = best_cpu([baseline, *map(search, shapes.values())], args.runs)
        line = f"{ply:>8} {base:>9.1f}"
        for cost in costs:
            line += f" {cost:>14.1f} ({cost / base:>5.2f}x)"
        print(line, flush=True)
    if args.seconds:
        timed_moves(top, uct, plies, args)


def timed_moves(
    top: ai.CompiledMctsLevel, uct: SnakePitUCT, plies: tuple[int, ...], args: argparse.Namespace
) -> None:
    """The work of ``--runs`` moves of ``--seconds`` each side, in turn, at each position."""
    print(f"{args.seconds} s moves, mean of {args.runs}: baseline playouts, our iterations")
    ratios = []
    for ply, state in zip(plies, positions(args.seed, plies), strict=True):
        playouts, iterations = 0, 0
        for run in range(args.runs):
            playouts += uct.choose(state, args.seconds, args.seed + run)[1]
            limit = Limit(time=args.seconds)
            iterations += top.play(state, limit, random.Random(args.seed + run)).nodes or 0
        line = f"{ply:>8} {playouts // args.runs:>9} {iterations // args.runs:>9}"
        if not iterations:  # a winning turn or a lone player's line: no search to compare
            print(line + "  (answered without a search)")
            continue
        ratios.append(playouts / iterations)
        print(line + f" {ratios[-1]:>6.2f}x")
    print(f"mean ratio {sum(ratios) / max(len(ratios), 1):.2f}x", flush=True)


if __name__ == "__main__":
    main()
