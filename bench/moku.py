"""Slime-Moku speed: perft fast path, evaluation and threat search, each against a baseline
measured in the same run.

    python bench/moku.py [--repeat R] [--positions P]

* perft: the bitboard fast path against the generic State walk (push/legal_moves/pop), from
  the start and from a position after 10 random moves; ratio = generic time / fast time.
* evaluate / threat search: the median time per call over P positions of random 15x15 games,
  and the same in units of the baseline "one push and pop" on those positions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from slimetrail.core.perft import perft, perft_generic
from slimetrail.core.registry import get_game
from slimetrail.games.moku.threats import ThreatSearch

CASES = [({}, 5), ({"size": "7", "k": "4"}, 6), ({"size": "19"}, 4)]


def best_time(fn, repeat: int) -> tuple[int, float]:
    best, result = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best


def after_random_moves(game, plies: int, seed: int):
    rng, state = random.Random(seed), game.new_state()
    while len(state.move_stack) < plies and not state.is_over():
        state.push(rng.choice(state.legal_moves()))
    return state


def per_call(fn, states, calls: int = 20) -> list[float]:
    out = []
    for state in states:
        start = time.perf_counter()
        for _ in range(calls):
            fn(state)
        out.append((time.perf_counter() - start) / calls)
    return out


def push_pop(state) -> None:
    state.push(state.legal_moves()[0])
    state.pop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of R runs (perft)")
    parser.add_argument("--positions", type=int, default=200, help="positions (eval, threats)")
    args = parser.parse_args()
    print(f"{'perft position':36} {'depth':>5} {'nodes':>8} {'generic s':>10} {'fast s':>8} ratio")
    for options, depth in CASES:
        game = get_game("slime-moku", **options)
        for label, state in [
            ("start", game.new_state()),
            ("move 10", after_random_moves(game, 10, 1)),
        ]:
            nodes, fast = best_time(lambda s=state, d=depth: perft(s, d), args.repeat)
            same, generic = best_time(lambda s=state, d=depth: perft_generic(s, d), args.repeat)
            assert nodes == same, (game.spec, label)
            name, ratio = f"{game.spec} {label}", generic / fast
            print(f"{name:36} {depth:>5} {nodes:>8} {generic:>10.3f} {fast:>8.4f} {ratio:5.1f}x")

    game = get_game("slime-moku")
    rng = random.Random(7)
    states = []
    while len(states) < args.positions:
        state = after_random_moves(game, rng.randrange(2, 60), rng.randrange(10**6))
        if not state.is_over():
            states.append(state)
    base = statistics.median(per_call(push_pop, states))
    print(
        f"\n15x15, {len(states)} positions of random games; baseline push+pop: {base * 1e6:.1f} us"
    )
    for label, fn in [
        ("evaluate()", lambda s: s.evaluate()),
        ("legal_moves()", lambda s: s.legal_moves()),
        ("threats depth 4 branch 2", lambda s: ThreatSearch(s.game.board).winning_move(s)),
    ]:
        times = per_call(fn, states, calls=5 if "threats" in label else 20)
        median, worst = statistics.median(times), max(times)
        print(
            f"{label:26} median {median * 1e6:8.1f} us = {median / base:6.1f}x push+pop, "
            f"max {worst * 1e3:.2f} ms"
        )


if __name__ == "__main__":
    main()
