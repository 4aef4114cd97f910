"""A judgement of big Slime Trail positions fitted on games, beside the MCTS's playouts.

Sessions 40 and 49 (bench/RESULTS.md) found 11x11 games decided at plies 30-45, in regions of
75-100 cells that neither the playouts nor the exact solver judge within a move.  As for
15x15 Slime-Moku (research/moku/judgement.py), ``games`` plays the MCTS-Solver against itself
at a fixed budget (the first 2-8 plies random) and writes each game; ``fit`` samples positions
of those games and fits, by least squares, the outcome for the side to move (1, 0, -1) on
the terms of :func:`slimetrail.games.trail.mcts_kernel.judgement_terms`, one set of weights a
band of ``mcts_kernel.JUDGEMENT_BANDS`` (the size of the snail's region), beside the mean of
``--playouts`` of the tree's own playouts from the same position, so that the two judgements
can be compared on games neither saw (``R2`` by five folds of games).  The weights it prints
are ``mcts_kernel.JUDGEMENT``'s.  Run it from the repository root::

    python -m research.trail.judgement --rules taylor games --games 300 --seed 1 --out a.jsonl
    python -m research.trail.judgement --rules taylor fit a.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import cast

import numpy as np

from research.judgement_fit import report
from slimetrail.core.registry import get_game
from slimetrail.games.trail import mcts_kernel
from slimetrail.games.trail.game import TrailState

BANDS = ((100, 122), (85, 100), (70, 85), (55, 70), (40, 55), (0, 40))
NAMES = (
    "my goal in reach",
    "theirs in reach",
    "my distance",
    "theirs",
    "cells nearer my goal - theirs",
    "my goal's entrances",
    "theirs",
    "region odd, no goal in reach",
    "safe steps",
)


def new_state(size: int, rules: str) -> TrailState:
    return cast(TrailState, get_game("slimetrail", size=size, rules=rules).new_state())


def self_play(size: int, rules: str, seed: int, iterations: int) -> dict:
    """One game of the MCTS-Solver against itself, ``iterations`` a move, after 2-8 random
    plies (seeded)."""
    rng = random.Random(seed)
    state = new_state(size, rules)
    moves = []
    for _ in range(rng.randint(2, 8)):
        move = rng.choice(state.legal_moves())
        moves.append(state.move_str(move))
        state.push(move)
        if state.is_over():
            break
    while not state.is_over():
        found = mcts_kernel.search(state, 1e9, iterations=iterations, seed=rng.getrandbits(30))
        moves.append(state.move_str(found.move))
        state.push(found.move)
    outcome = state.outcome()
    return {"seed": seed, "moves": moves, "winner": outcome.winner if outcome else None}


def samples(games: list[dict], size: int, rules: str, every: int, playouts: int) -> np.ndarray:
    """Rows of (game seed, cells in the snail's region, the terms..., the playouts' mean
    score, the outcome for the side to move) at two plies in every ``every`` from ply 6 (one
    with each side to move), the last two plies left out."""
    rows = []
    for game in games:
        state = new_state(size, rules)
        for ply, move in enumerate(game["moves"]):
            if 6 <= ply < len(game["moves"]) - 2 and ply % every < 2:
                winner = game["winner"]
                outcome = 0 if winner is None else 1 if winner == state.to_move else -1
                score = sum(
                    {state.to_move: 1.0, 0: 0.5}.get(
                        mcts_kernel.playout_trace(state, ply * playouts + i)[0], 0.0
                    )
                    for i in range(playouts)
                )
                walkable = state.free & ~state.game.goal_mask
                region = state.game.board.reachable(1 << state.snail, walkable).bit_count() - 1
                terms = mcts_kernel.judgement_of(state)
                rows.append([game["seed"], region, *terms, 2 * score / playouts - 1, outcome])
            state.push_str(move)
    return np.array(rows, float)


def fit(rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The weights (a constant first) of each band of ``mcts_kernel.JUDGEMENT_BANDS``, and
    a report by band of region cells."""
    region, features, outcome = rows[:, 1], rows[:, 2:-2], rows[:, -1]
    bounds = mcts_kernel.JUDGEMENT_BANDS
    weights = np.zeros((len(bounds), features.shape[1] + 1))
    for i, low in enumerate(bounds):
        band = (region >= low) & (region < (bounds[i - 1] if i else 1 << 30))
        weights[i], *_ = np.linalg.lstsq(
            np.c_[np.ones(band.sum()), features[band]], outcome[band], rcond=None
        )
    return weights, report("region", BANDS, region, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=11)
    parser.add_argument("--rules", choices=("rastros", "taylor"), default="rastros")
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("games", help="self-play games of the MCTS-Solver")
    play.add_argument("--games", type=int, required=True)
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--iterations", type=int, default=20000)
    play.add_argument("--out", type=Path, required=True)
    weigh = commands.add_parser("fit", help="fit the judgement's weights on games")
    weigh.add_argument("games", nargs="+", type=Path)
    weigh.add_argument("--every", type=int, default=6)
    weigh.add_argument("--playouts", type=int, default=100)
    weigh.add_argument("--rows", type=Path, help="save the sampled rows here (.npy)")
    args = parser.parse_args(argv)
    mcts_kernel.warm_up()
    if args.command == "games":
        with args.out.open("a") as out:
            for seed in range(args.seed, args.seed + args.games):
                game = self_play(args.size, args.rules, seed, args.iterations)
                out.write(json.dumps(game) + "\n")
                out.flush()
                print(f"game {seed}: {len(game['moves'])} plies, winner {game['winner']}")
        return 0
    games = [json.loads(line) for path in args.games for line in path.read_text().splitlines()]
    rows = samples(games, args.size, args.rules, args.every, args.playouts)
    if args.rows:
        np.save(args.rows, rows)
    weights, report = fit(rows)
    print(f"{len(games)} games, {len(rows)} positions")
    print("\n".join(report))
    print(f"weights by band (constant, {', '.join(NAMES)}):")
    for low, row in zip(mcts_kernel.JUDGEMENT_BANDS, weights, strict=True):
        print(f"  from {low} cells: [{', '.join(f'{w:.4f}' for w in row)}],")
    return 0


if __name__ == "__main__":
    sys.exit(main())
