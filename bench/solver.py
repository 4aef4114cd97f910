"""Solver benchmark: one command, ratios against a pure-Python baseline measured in the same run.

    python bench/solver.py [--positions 300] [--early 20] [--baseline 20] [--seed 1]
        [--skip-start]

1. The 7x7 Slimetrail start position: its value and every winning first move (target < 20 s).
2. A few hundred random mid-game 7x7 positions (random play, 6 to 16 plies in, game not
   over): median and spread of the solve time (target: median < 0.5 s); the same with
   distances; and a few early positions (2 to 5 plies in), which are much harder.
3. Speed against the pure-Python reference solver (``slimetrail.games.trail.solver.reference``)
   on the same positions of a smaller board (6x6 Square Slime Trail, rastros): nodes per
   second of each and the ratio of the total times.

Run on an otherwise idle core; the numba kernel is warmed up (cache loaded) before timing.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import solve, warm_up
from slimetrail.games.trail.solver.reference import reference_solve


def random_mid_game(game, rng: random.Random, low: int, high: int):
    while True:
        state = game.new_state()
        for _ in range(rng.randrange(low, high + 1)):
            if state.outcome() is not None:
                break
            state.push(rng.choice(state.legal_moves()))
        if state.outcome() is None:
            return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--baseline", type=int, default=20, help="positions for the baseline")
    parser.add_argument("--early", type=int, default=20, help="positions 2-5 plies in")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-start", action="store_true")
    args = parser.parse_args()
    print(f"# {platform.python_version()} on {platform.machine()}, seed {args.seed}")
    t = time.perf_counter()
    warm_up()
    print(f"warm-up (numba cache load or compile): {time.perf_counter() - t:.2f} s")

    game = get_game("slimetrail")
    if not args.skip_start:
        state = game.new_state()
        r = solve(state, book=False)
        moves = " ".join(state.move_str(m) for m in r.winning_moves)
        print(
            f"7x7 start: {r.value}, winning moves {moves}; {r.nodes} nodes, {r.seconds:.2f} s "
            f"({r.nodes / r.seconds:,.0f} nodes/s) [target < 20 s: "
            f"{'met' if r.seconds < 20 else 'MISSED'}]"
        )

    rng = random.Random(args.seed)
    mid = [random_mid_game(game, rng, 6, 16) for _ in range(args.positions)]
    early = [random_mid_game(game, rng, 2, 5) for _ in range(args.early)]
    for label, positions, distance in (
        ("6-16 random plies", mid, False),
        ("6-16 random plies, distance=True", mid, True),
        ("2-5 random plies", early, False),
    ):
        times, nodes = [], 0
        for state in positions:
            r = solve(state, distance=distance, book=False)
            times.append(r.seconds)
            nodes += r.nodes
        times.sort()
        median = statistics.median(times)
        target = "" if distance or positions is early else "; target median < 0.5 s: "
        target += ("met" if median < 0.5 else "MISSED") if target else ""
        print(
            f"7x7 ({len(positions)} positions, {label}): median {median:.4f} s, "
            f"90% {times[int(0.9 * len(times))]:.3f} s, max {times[-1]:.2f} s, "
            f"{nodes / sum(times):,.0f} nodes/s{target}"
        )

    small = get_game("slimetrail-square", size="6", rules="rastros")
    rng = random.Random(args.seed)
    positions = [random_mid_game(small, rng, 4, 8) for _ in range(args.baseline)]
    fast_t = fast_n = ref_t = ref_n = 0.0
    for state in positions:
        fast, ref = solve(state, book=False), reference_solve(state)
        assert fast.move_values == ref.move_values, state.fen()
        fast_t, fast_n = fast_t + fast.seconds, fast_n + fast.nodes
        ref_t, ref_n = ref_t + ref.seconds, ref_n + ref.nodes
    print(
        f"6x6 rastros baseline ({args.baseline} positions, 4-8 plies in, answers equal): "
        f"compiled {fast_n / fast_t:,.0f} nodes/s, {fast_t:.3f} s; pure Python reference "
        f"{ref_n / ref_t:,.0f} nodes/s, {ref_t:.2f} s; nodes/s ratio "
        f"{(fast_n / fast_t) / (ref_n / ref_t):.0f}x, time ratio {ref_t / fast_t:.0f}x"
    )


if __name__ == "__main__":
    main()
