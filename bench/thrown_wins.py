"""Middle-game positions the testers saw the top level throw away (issue 22): what it plays in
each, at a given time per move and over a few seeds, against the moves the exact solver
proved winning.

    PYTHONPATH=$PWD nice -n 10 python bench/thrown_wins.py --seconds 1.0 --seeds 5
    PYTHONPATH=$PWD nice -n 10 python bench/thrown_wins.py --verify   # re-prove (minutes)

The records start from the start cell (e5 in both games: on 9x9 with ``start=e5`` it is the
centre, on hex 10x10 the default); the first cell of the testers' records is that start,
not a move.  The winning moves were proven with ``solver.solve`` (no book): A in 104.8 M
nodes (87 s on a loaded 2-core machine, every root move valued), B's d1 by solving the
position after it (29.3 M nodes, 48 s, the opponent lost).  Neither proof fits in a second:
the top level can only find these moves by its heuristic searches.  C is proven in 0.6 M
nodes (1.3 s), out of reach of the solver's share of a move at 0.5 s under load.
"""

from __future__ import annotations

import argparse
import sys

from slimetrail.ai import Limit, play
from slimetrail.core.registry import get_game
from slimetrail.games.trail import solver
from slimetrail.games.trail.game import warm_up_kernels

POSITIONS = {
    "A: 9x9 Rastros start=e5": (
        ("slimetrail", {"size": "9", "start": "e5"}),
        "d4 c5 b4 a5 a4 b5 c4 d5 e4 f3",
        {"g2", "g3"},  # e2 f2 e3 f4 g4 lose
    ),
    "B: hex 10x10 Taylor": (
        ("slimetrail-hex", {}),
        "f6 e6 d5 d4 e4 d3 e3 e2",
        {"d1", "f2"},  # d1 proven here; f2 as the testers found
    ),
    # Thrown by the top level (e2) at 0.5 s a move under load (session 27); 51 cells in reach.
    "C: 9x9 Rastros start=e5, 51 cells": (
        ("slimetrail", {"size": "9", "start": "e5"}),
        "d4 c5 b4 a5 a6 b6 a7 b7 a8 a9 b9 c9 b8 c7 c8 d9 e8 f8 e7 f6 f5 g6 g5 h4 i3 h2 h1 g2 f3",
        {"e4", "g4"},  # e2 f2 e3 g3 f4 lose
    ),
}


def position(name: str):
    (game_id, options), record, wins = POSITIONS[name]
    state = get_game(game_id, **options).new_state()
    for word in record.split():
        state.push(state.parse_move(word))
    return state, wins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--verify", action="store_true", help="re-prove each winning move")
    args = parser.parse_args(argv)
    warm_up_kernels()
    for name in POSITIONS:
        state, wins = position(name)
        if args.verify:
            for word in sorted(wins):
                child = state.copy()
                child.push(child.parse_move(word))
                found = solver.solve(child, first_win=True, book=False)
                print(f"{name}: after {word} the opponent's value is {found.value}", flush=True)
        played = []
        for seed in range(args.seeds):
            result = play(state, 6, Limit(time=args.seconds), seed=seed)
            played.append(state.move_str(result.move))
        good = sum(move in wins for move in played)
        print(f"{name}: {' '.join(played)}: {good} of {args.seeds} winning", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
