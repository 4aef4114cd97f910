"""Time honesty: how long every level of every game takes per move against its time limit.

    PYTHONPATH=$PWD nice -n 10 python bench/timing.py --time 1.0
    PYTHONPATH=$PWD nice -n 10 python bench/timing.py --time 0.25 --game 'slimetrail size=11'

Positions come from real-looking games: the game's top level playing itself at
``--gen-time`` a move, with a random move instead at a rate of ``--random`` (so the games
differ and reach odd corners), every ply kept; ``--positions`` of them, spread over the
game's length, are then played at every level with ``Limit(time=--time)``.  The time of a
move is the wall time of :func:`slimetrail.ai.play` as its caller sees it, after the game's
``warm_up`` (which the web server and the UGI engine run before their first move).

Prints per game and level the median and worst move time, the worst over the limit, and the
process CPU time of that worst move: a worst move whose CPU time is well below its wall
time was waiting for a core (a loaded machine), one whose CPU time is over the limit too is
the code's.  ``--target`` (default 1.1) marks the rows over it; the exit code is 1 if any.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from slimetrail.ai import Limit, levels_for, play
from slimetrail.core.game import Game, State
from slimetrail.core.registry import parse_game_spec

GAMES = [
    "slimetrail",
    "slimetrail size=9 start=e5",
    "slimetrail size=9 rules=taylor",
    "slimetrail size=11",
    "slimetrail size=11 rules=taylor",
    "slimetrail-square",
    "slimetrail-hex",
    "slimetrail-hex rules=rastros",
    "slimetrail-hex size=11",
    "slimetrail-hex size=11 rules=rastros",
    "slime-moku",
    "snake-pit",
    "slither",
    "slither-advanced",
]


def positions(game: Game, count: int, gen_time: float, random_rate: float, seed: int):
    """``count`` positions (move lists) from games of the top level against itself with
    random moves mixed in, spread over the plies of the games played."""
    rng = random.Random(seed)
    top = max(levels_for(game))
    found: dict[tuple, list] = {}  # distinct positions by their move list
    games = 0
    while len(found) < 4 * count and games < 2 * count:
        games += 1
        state = game.new_state()
        while not state.is_over():
            moves = state.legal_moves()
            if len(moves) > 1:
                found.setdefault(tuple(state.move_stack), list(state.move_stack))
            if rng.random() < random_rate:
                move = rng.choice(moves)
            else:
                move = play(state, top, Limit(time=gen_time), seed=rng.getrandbits(32)).move
            state.push(move)
    by_length = sorted(found.values(), key=len)
    step = max(1, len(by_length) // count)
    return by_length[::step][:count]


def replay(game: Game, moves: list) -> State:
    state = game.new_state()
    for move in moves:
        state.push(move)
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=1.0, help="time limit per move, seconds")
    parser.add_argument("--game", action="append", help="game spec (repeatable; default: all)")
    parser.add_argument("--levels", help="levels to time, e.g. 6 or 1-6 (default: all)")
    parser.add_argument("--positions", type=int, default=8, help="positions per game")
    parser.add_argument("--gen-time", type=float, default=0.05, help="seconds a generating move")
    parser.add_argument("--random", type=float, default=0.25, help="share of random moves")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=float, default=1.1, help="worst / limit to flag")
    args = parser.parse_args(argv)
    limit = Limit(time=args.time)
    over = False
    print(f"limit {args.time} s, {args.positions} positions per game, target {args.target}x")
    print(
        f"{'game':<38} {'lvl':>3} {'moves':>5} {'median s':>9} {'worst s':>8} {'worst/lim':>9}"
        f" {'cpu s':>6}  worst position"
    )
    for spec in args.game or GAMES:
        game = parse_game_spec(spec)
        type(game).warm_up()
        levels = sorted(levels_for(game))
        if args.levels:
            low, _, high = args.levels.partition("-")
            levels = [n for n in levels if int(low) <= n <= int(high or low)]
        sample = positions(game, args.positions, args.gen_time, args.random, args.seed)
        for level in levels:
            times: list[tuple[float, float, list]] = []
            for i, moves in enumerate(sample):
                state = replay(game, moves)
                cpu, wall = time.process_time(), time.perf_counter()
                play(state, level, limit, seed=i)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                times.append((wall, cpu, moves))
            worst, worst_cpu, worst_moves = max(times, key=lambda t: t[0])
            ratio = worst / args.time
            flag = " <-- over" if ratio > args.target else ""
            over = over or bool(flag)
            where = f"{len(worst_moves)} plies: {_record(game, worst_moves)}"
            print(
                f"{spec:<38} {level:>3} {len(times):>5}"
                f" {statistics.median(t[0] for t in times):>9.3f} {worst:>8.3f} {ratio:>9.2f}"
                f" {worst_cpu:>6.2f}  {where}{flag}",
                flush=True,
            )
    return 1 if over else 0


def _record(game: Game, moves: list) -> str:
    state = game.new_state()
    words = []
    for move in moves:
        words.append(state.move_str(move))
        state.push(move)
    return " ".join(words)


if __name__ == "__main__":
    sys.exit(main())
