"""Snake Pit benchmarks: compiled playouts per second, and the level table.

    nice -n 10 python bench/snakepit.py playouts
    nice -n 10 python bench/snakepit.py levels --rounds 2 [--levels 2-5] [--time 1.0]

``playouts``: random playouts from the start and from a mid-game position, the compiled
``SnakePitState.playout`` against the generic Python walk (``State.playout``) measured in
the same run: the ratio is the speed-up.

Then the top level's MCTS iterations in one second from the same two positions.

``levels``: each level against the one below in three-player games over every arrangement
of the two levels on the three seats (S = stronger, W = weaker: SWW, WSW, WWS, SSW, SWS,
WSS), ``--rounds`` times each with different seeds; the first two plies are random so that
the games differ.  Per pairing: games won by a seat of the stronger level, against the
share the seats alone would give (1/3 of the games with one stronger seat, 2/3 with two;
1/2 over all six arrangements), and the stronger level's mean score per seat
(``Outcome.score``: 1 first, 0.5 second, 0 last; baseline 0.5).  Then per level the median
and worst time per move.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from itertools import permutations

from slimetrail.ai import Limit, choose_move, levels_for, play
from slimetrail.core.game import Outcome, State
from slimetrail.core.registry import get_game

ARRANGEMENTS = sorted(set(permutations("SWW"))) + sorted(set(permutations("SSW")))


def bench_playouts(seconds: float) -> None:
    game = get_game("snake-pit")
    rng = random.Random(1)
    mid = game.new_state()
    for _ in range(9):
        mid.push(rng.choice(mid.legal_moves()))
    for name, state in (("start", game.new_state()), ("after 9 turns", mid)):
        state.playout(rng)  # compile / load the kernel first
        rates = []
        for walk in (State.playout, type(state).playout):
            count, started = 0, time.perf_counter()
            while time.perf_counter() - started < seconds:
                walk(state, rng)
                count += 1
            rates.append(count / (time.perf_counter() - started))
        print(
            f"{name:>14}: python {rates[0]:8.0f}/s  compiled {rates[1]:8.0f}/s  "
            f"ratio {rates[1] / rates[0]:6.1f}x",
            flush=True,
        )
    ladder = levels_for(game)
    top = max(ladder)
    for name, state in (("start", game.new_state()), ("after 9 turns", mid)):
        result = play(state, top, Limit(time=1.0), seed=1)
        iterations = result.info["iterations"]
        print(
            f"{name:>14}: level {top} MCTS {iterations} iterations in {result.seconds:.2f} s "
            f"({iterations / result.seconds:.0f}/s)",
            flush=True,
        )


def play_game(seats: list[int], seed: int, limit: Limit, times) -> Outcome:
    state = get_game("snake-pit").new_state()
    rng = random.Random(seed)
    for _ in range(2):
        state.push(rng.choice(state.legal_moves()))
    while not state.is_over():
        level = seats[state.to_move - 1]
        started = time.perf_counter()
        move = choose_move(state, level, limit, seed=seed)
        times[level].append(time.perf_counter() - started)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None
    return outcome


def bench_levels(rounds: int, levels: range, limit: Limit) -> None:
    times: dict[int, list[float]] = defaultdict(list)
    print(f"{rounds} rounds of the 6 arrangements per pairing, time cap {limit.time} s")
    print(
        f"{'pairing':>9} {'games':>5} {'S wins':>7} {'(base)':>6} {'1S wins':>8} {'2S wins':>8} "
        f"{'S score':>8}"
    )
    for strong in levels:
        weak = strong - 1
        wins = {1: 0, 2: 0}
        games = {1: 0, 2: 0}
        score, seats_scored = 0.0, 0
        for r in range(rounds):
            for i, arrangement in enumerate(ARRANGEMENTS):
                seats = [strong if a == "S" else weak for a in arrangement]
                outcome = play_game(seats, 10_000 * strong + 100 * r + i, limit, times)
                many = arrangement.count("S")
                games[many] += 1
                winner = outcome.winner
                wins[many] += winner is not None and arrangement[winner - 1] == "S"
                for p, a in enumerate(arrangement, 1):
                    if a == "S":
                        score += outcome.score(p)
                        seats_scored += 1
        total = games[1] + games[2]
        base = (games[1] / 3 + 2 * games[2] / 3) / total
        print(
            f"{strong:>4} v {weak:<2} {total:>5} {(wins[1] + wins[2]) / total:>7.0%} {base:>6.0%} "
            f"{wins[1]:>3}/{games[1]:<4} {wins[2]:>3}/{games[2]:<4} {score / seats_scored:>8.2f}",
            flush=True,
        )
    print(f"{'level':>5} {'moves':>6} {'median ms':>10} {'max ms':>8}")
    for level in sorted(times):
        data = times[level]
        print(
            f"{level:>5} {len(data):>6} {statistics.median(data) * 1000:>10.1f}"
            f" {max(data) * 1000:>8.1f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("playouts")
    p.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    q = sub.add_parser("levels")
    q.add_argument("--rounds", type=int, default=2, help="rounds of the six arrangements")
    q.add_argument("--levels", help="stronger levels, e.g. 2-5 (default: 2 to the top)")
    q.add_argument("--time", type=float, default=1.0, help="time limit per move, seconds")
    args = parser.parse_args(argv)
    if args.what == "playouts":
        bench_playouts(args.seconds)
        return 0
    top = max(levels_for(get_game("snake-pit")))
    low, _, high = (args.levels or f"2-{top}").partition("-")
    bench_levels(args.rounds, range(int(low), int(high or low) + 1), Limit(time=args.time))
    return 0


if __name__ == "__main__":
    sys.exit(main())
