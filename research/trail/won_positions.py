"""Won positions of a big Slime Trail board, and how often the top level keeps the win in them.

A game of 40 against the baseline moves by a few results; a set of positions that the exact
solver has labelled measures one kind of move directly.  ``build`` plays quick games of the top
level against itself and keeps the positions where the snail's region has ``--regions`` cells,
the side to move wins, some move loses, and the full solve took ``--solved`` seconds (a
position answered at once tells nothing).  ``measure`` plays the top level at ``--time`` a move
on each position with each seed and counts the moves that keep the win, by the time the full
solve took.  Run it from the repository root::

    python -m research.trail.won_positions build --games 24 --out won.json
    python -m research.trail.won_positions measure research/trail/won-9x9-taylor.json --seeds 3

To compare two versions of the top level, run ``measure`` at each (one per core).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import cast

from slimetrail.core.game import SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.trail import strong
from slimetrail.games.trail.game import TrailGame, TrailState
from slimetrail.games.trail.solver import solve

# The full solve's time, the bands a measurement is reported by (seconds, upper bounds).
BANDS = (0.5, 2.0, 5.0, float("inf"))


def build(
    game: TrailGame,
    games: int,
    regions: tuple[int, int],
    solved: tuple[float, float],
    move_time: float,
    iterations: int | None = None,
) -> list[dict]:
    """The labelled positions of ``games`` quick self-play games (seeded by their number,
    1-3 random first plies each; ``iterations``: a fixed budget a move instead of
    ``move_time``, for the same games whatever the machine's load)."""
    found = []
    for number in range(games):
        rng = random.Random(number)
        state = cast(TrailState, game.new_state())
        for _ in range(rng.randrange(1, 4)):
            state.push(rng.choice(state.legal_moves()))
        while state.outcome() is None:
            region = strong.region_size(state)
            if region < regions[0]:
                break
            if region <= regions[1]:
                started = time.monotonic()
                try:
                    result = solve(state, time_limit=solved[1], book=False)
                except SolveTimeout:
                    result = None
                seconds = time.monotonic() - started
                if (
                    result is not None
                    and result.value == "win"
                    and seconds >= solved[0]
                    and len(result.winning_moves) < len(state.legal_moves())
                ):
                    wins = [state.move_str(move) for move in result.winning_moves]
                    found.append(
                        {"fen": state.fen(), "wins": wins, "region": region, "seconds": seconds}
                    )
                    print(json.dumps(found[-1]), flush=True)
            state.push(strong.play(state, move_time, seed=number, iterations=iterations).move)
    return found


def band(seconds: float) -> int:
    """The index in :data:`BANDS` of a full solve of ``seconds``."""
    return next(i for i, bound in enumerate(BANDS) if seconds < bound)


def measure(game: TrailGame, positions: list[dict], seconds: float, seeds: int) -> list[list[int]]:
    """Per band of :data:`BANDS`: [moves that kept the win, moves played]."""
    counts = [[0, 0] for _ in BANDS]
    for seed in range(seeds):
        for number, position in enumerate(positions):
            state = cast(TrailState, game.state_from_fen(position["fen"]))
            strong.forget()  # nothing learnt on another position
            move = state.move_str(strong.play(state, seconds, seed=1000 * seed + number).move)
            kept = move in position["wins"]
            row = counts[band(position["seconds"])]
            row[0] += kept
            row[1] += 1
            print(f"seed {seed} position {number}: {move} {'kept' if kept else 'lost'}", flush=True)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["build", "measure"])
    parser.add_argument("positions", nargs="?", type=Path, help="measure: the positions' file")
    parser.add_argument("--size", default="9")
    parser.add_argument("--rules", default="taylor")
    parser.add_argument("--games", type=int, default=24, help="build: self-play games")
    parser.add_argument("--regions", type=int, nargs=2, default=(41, 64), metavar=("MIN", "MAX"))
    parser.add_argument(
        "--solved", type=float, nargs=2, default=(0.15, 15.0), metavar=("MIN", "MAX")
    )
    parser.add_argument("--move-time", type=float, default=0.1, help="build: the games' moves")
    parser.add_argument("--iterations", type=int, help="build: a fixed budget a move instead")
    parser.add_argument("--out", type=Path, help="build: the positions' file")
    parser.add_argument("--time", type=float, default=1.0, help="measure: a move's time")
    parser.add_argument("--seeds", type=int, default=1, help="measure: plays of each position")
    args = parser.parse_args(argv)
    game = cast(TrailGame, get_game("slimetrail", size=args.size, rules=args.rules))
    if args.command == "build":
        if args.out is None:
            parser.error("build needs --out")
        found = build(game, args.games, args.regions, args.solved, args.move_time, args.iterations)
        args.out.write_text(json.dumps(found, indent=0) + "\n")
        print(f"{len(found)} positions written to {args.out}")
        return 0
    if args.positions is None:
        parser.error("measure needs the positions' file")
    positions = json.loads(args.positions.read_text())
    counts = measure(game, positions, args.time, args.seeds)
    low = 0.0
    for bound, (kept, played) in zip(BANDS, counts, strict=True):
        print(f"full solve {low:g}-{bound:g} s: kept the win {kept} of {played}")
        low = bound
    kept, played = (sum(column) for column in zip(*counts, strict=True))
    print(f"all: kept the win {kept} of {played} ({kept / max(played, 1):.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
