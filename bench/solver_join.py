"""The big-board top level with the exact solver joining at 64 cells against the same player
with the solver joining at 40 (the behaviour before), at equal time per move.

    PYTHONPATH=$PWD nice -n 10 python bench/solver_join.py --seconds 0.25 --games 10 \\
        --game 'slimetrail size=9 start=e5' --game slimetrail-hex

Both players are :func:`slimetrail.games.trail.strong.play`; only ``SOLVE_REGION`` differs
(switched before each move).  Sides alternate; the first ``--opening`` plies are random
(seeded by the game number) so that the games differ.  Prints the new player's score per game.
"""

from __future__ import annotations

import argparse
import random
import sys

from slimetrail.core.registry import parse_game_spec
from slimetrail.games.trail import strong
from slimetrail.games.trail.game import warm_up_kernels

NEW_REGION = strong.SOLVE_REGION
OLD_REGION = 40


def game_result(game, new_side: int, seconds: float, opening: int, seed: int) -> float:
    """The new player's score (1 win, 0 loss, 0.5 draw) in one game."""
    rng = random.Random(seed)
    state = game.new_state()
    for _ in range(opening):
        state.push(rng.choice(state.legal_moves()))
    while state.outcome() is None:
        moves = state.legal_moves()
        if len(moves) == 1:
            state.push(moves[0])
            continue
        new = state.to_move == new_side
        strong.SOLVE_REGION = NEW_REGION if new else OLD_REGION
        state.push(strong.play(state, seconds).move)
    outcome = state.outcome()
    assert outcome is not None
    return 0.5 if outcome.winner is None else float(outcome.winner == new_side)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game spec (repeatable)")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0.25)
    parser.add_argument("--opening", type=int, default=2)
    args = parser.parse_args(argv)
    warm_up_kernels()
    for spec in args.game or ["slimetrail size=9 start=e5", "slimetrail-hex"]:
        game = parse_game_spec(spec)
        total = 0.0
        for i in range(args.games):
            score = game_result(game, 1 + i % 2, args.seconds, args.opening, seed=i // 2)
            total += score
            print(f"{spec}: game {i + 1}, new as player {1 + i % 2}: {score}", flush=True)
        print(f"{spec}: new {total} of {args.games} ({total / args.games:.0%})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
