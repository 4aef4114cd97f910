"""Calibration of the AI levels: each level plays the one below, for any game.

    python bench/levels.py --games 40
    python bench/levels.py --game toy-three --games 12 --levels 2-6

Every pairing plays ``--games`` games; the stronger level takes each seat in turn (the other
seats play the weaker level), and the first ``--opening`` plies of each game are random
(seeded by the game number) so that the games differ.  Prints, per pairing, the stronger
level's first places (wins), games lost and shared, and its mean score (``Outcome.score``:
1 a win, 0.5 a draw, 0 a loss; with more players the share of the others ranked below
it), and per level the median and worst time per move.  The weaker level of the same
pairing, measured in the same run, is the baseline.  ``--game`` takes a game spec
(``'slimetrail size=9'``); game modules named in ``SLIMETRAIL_GAMES`` are loaded too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict

from slimetrail.ai import Limit, choose_move, levels_for
from slimetrail.core.game import Game, Outcome
from slimetrail.core.registry import parse_game_spec


def play(game: Game, seats: list[int], opening: int, seed: int, times, limit: Limit) -> Outcome:
    """One game, ``seats[p - 1]`` being player p's level; returns the outcome."""
    state = game.new_state()
    rng = random.Random(seed)
    for _ in range(opening):
        moves = state.legal_moves()
        if state.is_over() or len(moves) < 2:
            break
        state.push(rng.choice(moves))
    while not state.is_over():
        level = seats[state.to_move - 1]
        started = time.perf_counter()
        move = choose_move(state, level, limit, seed=seed)
        times[level].append(time.perf_counter() - started)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per pairing")
    parser.add_argument("--game", default="slimetrail", help="game spec, e.g. 'slimetrail'")
    parser.add_argument("--opening", type=int, default=2, help="random plies at the start")
    parser.add_argument("--levels", help="stronger levels, e.g. 2-6 (default: 2 to the top)")
    parser.add_argument("--time", type=float, default=1.0, help="time cap per move, seconds")
    args = parser.parse_args(argv)
    game = parse_game_spec(args.game)
    top = max(levels_for(game))
    low, _, high = (args.levels or f"2-{top}").partition("-")
    strong_levels = range(int(low), int(high or low) + 1)
    limit = Limit(time=args.time)
    players = game.num_players
    # Each level as a server plays it: its kernels loaded before the first move (else the
    # first moves of a compiled level are its stand-in's, played while they load).
    type(game).warm_up()
    times: dict[int, list[float]] = defaultdict(list)
    print(f"{game.spec}: {args.games} games per pairing, {args.opening} random opening plies")
    print(f"{'pairing':>9} {'wins':>5} {'losses':>6} {'shared':>6} {'score':>6}")
    for strong in strong_levels:
        weak = strong - 1
        wins = losses = shared = 0
        score = 0.0
        for i in range(args.games):
            seat = 1 + i % players
            seats = [strong if p == seat else weak for p in range(1, players + 1)]
            seed = 1000 * strong + i // players
            outcome = play(game, seats, args.opening, seed, times, limit)
            score += outcome.score(seat)
            if outcome.winner == seat:
                wins += 1
            elif outcome.place(seat) == 1:
                shared += 1
            else:
                losses += 1
        mean = score / args.games
        print(f"{strong:>4} v {weak:<2} {wins:>5} {losses:>6} {shared:>6} {mean:>6.0%}", flush=True)
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
