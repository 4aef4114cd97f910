"""Perft speed: the Slime Trail bitboard fast path against the generic State walk.

    python bench/perft.py [--depth-extra N] [--repeat R]

The generic walk (push/legal_moves/pop through the public interface) is the baseline,
measured in the same run on the same positions; the ratio is baseline time / fast time.
Each game is counted from its start position and from a middle-game position.
"""

from __future__ import annotations

import argparse
import random
import time

from slimetrail.core.perft import perft, perft_generic
from slimetrail.core.registry import get_game

CASES = [
    ("slimetrail", {}, 8),
    ("slimetrail", {"rules": "taylor"}, 6),
    ("slimetrail-square", {}, 6),
    ("slimetrail-hex", {}, 7),
    ("slimetrail-hex", {"rules": "rastros"}, 9),
]


def best_time(fn, repeat: int) -> tuple[int, float]:
    best, result = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best


def middle_game(game, depth: int):
    """The position after 8 random moves, from the first seed whose tree is not empty."""
    for seed in range(100):
        rng, state = random.Random(seed), game.new_state()
        while len(state.move_stack) < 8 and (moves := state.legal_moves()):
            state.push(rng.choice(moves))
        if perft(state, depth):
            return state
    raise RuntimeError(f"no middle-game position for {game.spec}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth-extra", type=int, default=0, help="add to every depth")
    parser.add_argument("--repeat", type=int, default=3, help="best of R runs")
    args = parser.parse_args()
    print(f"{'position':44} {'depth':>5} {'nodes':>9} {'generic s':>10} {'fast s':>8} ratio")
    ratios = []
    for game_id, options, depth in CASES:
        game = get_game(game_id, **options)
        middle = middle_game(game, depth)
        for label, state, d in [("start", game.new_state(), depth), ("move 8", middle, depth)]:
            d += args.depth_extra
            fast_nodes, fast = best_time(lambda s=state, d=d: perft(s, d), args.repeat)
            slow_nodes, slow = best_time(lambda s=state, d=d: perft_generic(s, d), args.repeat)
            assert fast_nodes == slow_nodes, (game.spec, label, fast_nodes, slow_nodes)
            ratios.append(slow / fast)
            name = f"{game.spec} {label}"
            print(f"{name:44} {d:5} {fast_nodes:9} {slow:10.3f} {fast:8.3f} {slow / fast:5.1f}x")
    geo = 1.0
    for ratio in ratios:
        geo *= ratio
    print(f"geometric mean speed-up of the fast path: {geo ** (1 / len(ratios)):.1f}x")


if __name__ == "__main__":
    main()
