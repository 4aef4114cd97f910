"""Calibration of the AI levels: each level plays the one below on 7x7 Slimetrail.

    python bench/levels.py --games 40

Every pairing plays ``--games`` games, alternating sides; the first ``--opening`` plies of
each game are random (seeded by the game number) so that the games differ.  Prints, per
pairing, the stronger level's wins and losses, and per level the median and worst time per
move.  Ratios are against the weaker level of the same pairing, measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict

from slimetrail.ai import MAX_LEVEL, choose_move
from slimetrail.core.registry import parse_game_spec


def play(game, levels: tuple[int, int], opening: int, seed: int, times) -> int | None:
    """One game between ``levels[0]`` (player 1) and ``levels[1]``; returns the winner."""
    state = game.new_state()
    rng = random.Random(seed)
    for _ in range(opening):
        moves = state.legal_moves()
        if state.is_over() or len(moves) < 2:
            break
        state.push(rng.choice(moves))
    while not state.is_over():
        level = levels[state.to_move - 1]
        started = time.perf_counter()
        move = choose_move(state, level, time_limit=1.0, seed=seed)
        times[level].append(time.perf_counter() - started)
        state.push(move)
    return state.outcome().winner


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per pairing (even)")
    parser.add_argument("--game", default="slimetrail", help="game spec, e.g. 'slimetrail'")
    parser.add_argument("--opening", type=int, default=2, help="random plies at the start")
    parser.add_argument("--levels", default=f"2-{MAX_LEVEL}", help="stronger levels, e.g. 2-6")
    args = parser.parse_args(argv)
    game = parse_game_spec(args.game)
    low, _, high = args.levels.partition("-")
    strong_levels = range(int(low), int(high or low) + 1)
    times: dict[int, list[float]] = defaultdict(list)
    print(f"{game.spec}: {args.games} games per pairing, {args.opening} random opening plies")
    print(f"{'pairing':>9} {'wins':>5} {'losses':>6} {'draws':>5} {'score':>6}")
    for strong in strong_levels:
        weak = strong - 1
        wins = losses = draws = 0
        for i in range(args.games):
            strong_side = 1 + i % 2
            pair = (strong, weak) if strong_side == 1 else (weak, strong)
            winner = play(game, pair, args.opening, seed=1000 * strong + i // 2, times=times)
            if winner is None:
                draws += 1
            elif winner == strong_side:
                wins += 1
            else:
                losses += 1
        score = (wins + draws / 2) / args.games
        print(f"{strong:>4} v {weak:<2} {wins:>5} {losses:>6} {draws:>5} {score:>6.0%}", flush=True)
    print(f"{'level':>5} {'moves':>6} {'median ms':>10} {'max ms':>8}")
    for level in sorted(times):
        data = times[level]
        print(
            f"{level:>5} {len(data):>6} {statistics.median(data) * 1000:>10.1f}"
            f" {max(data) * 1000:>8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
