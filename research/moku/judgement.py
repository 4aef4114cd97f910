"""The top level's judgement of 15x15 Slime-Moku positions: a linear value fitted on games.

The tree's random playouts judge a middle-game position by who blunders first (bench/RESULTS.md,
sessions 50-53: at 46-60 empty cells of lost games the tree valued its positions 0.50-0.62 at
1 s and at 10 s alike).  ``games`` plays the top level against itself at a small fixed budget
(``--iterations`` a move, the first 2-8 plies random) and writes each game's moves and
winner; ``fit`` samples two positions in every ``--every`` plies of those games (one with each
side to move) and fits, by least squares, the outcome for the side to move (1, 0, -1) on the
terms of :func:`slimetrail.games.moku.mcts.judgement_terms` (the difference of empty cells
that are each side's gap, and of open windows of two and three stones), beside the mean of
``--playouts`` safe playouts from the same position, so that the two judgements can be
compared on games neither saw (``R2`` by five folds of games).  The weights it prints are
``mcts.JUDGEMENT``'s.  ``match`` plays the top level with one share of the judgement in a
leaf's value against the same with another (``mcts.LEAF_MIX``), sides alternating on shared
openings: a comparison of the two that the baseline's weakness does not blur.  Run it from
the repository root::

    python -m research.moku.judgement games --games 230 --seed 1000 --out games-a.jsonl
    python -m research.moku.judgement fit games-a.jsonl games-b.jsonl
    python -m research.moku.judgement match --mix 0.5 0.35 --games 40 --time 0.25
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
from slimetrail.games.moku import mcts
from slimetrail.games.moku.ai import TREE_SHARE
from slimetrail.games.moku.game import MokuState

BANDS = ((150, 230), (100, 150), (70, 100), (46, 70), (20, 46))


def new_state() -> MokuState:
    return cast(MokuState, get_game("slime-moku", size=15, k=5).new_state())


def random_opening(rng: random.Random, plies: int) -> tuple[MokuState, list[str]]:
    """The start after ``plies`` random plies drawn from ``rng``, and their moves."""
    state = new_state()
    moves = []
    for _ in range(plies):
        move = rng.choice(state.legal_moves())
        moves.append(state.move_str(move))
        state.push(move)
    return state, moves


def self_play(seed: int, iterations: int) -> dict:
    """One game of the top level against itself, ``iterations`` a move, after 2-8 random
    plies (seeded)."""
    rng = random.Random(seed)
    state, moves = random_opening(rng, rng.randint(2, 8))
    while not state.is_over():
        found = mcts.search(
            state, 0.05, iterations=iterations, seed=rng.getrandbits(30), clock=False
        )
        moves.append(state.move_str(found.move))
        state.push(found.move)
    outcome = state.outcome()
    return {"seed": seed, "moves": moves, "winner": outcome.winner if outcome else None}


def match_game(
    mixes: tuple[float, float],
    a_is_black: bool,
    opening: int,
    seed: int,
    seconds: float,
    iterations: int | None,
) -> tuple[list[str], int | None]:
    """One game of the top level with leaf share ``mixes[0]`` (A) against ``mixes[1]`` (B),
    after ``opening`` random plies drawn from ``seed`` (the same for both games of a pair):
    its moves and winner.  Each side searches ``seconds`` (the level's share of them), or
    ``iterations`` without the clock.  No tree is kept from move to move: the two sides'
    searches alternate in one process."""
    rng = random.Random(seed)
    state, moves = random_opening(rng, opening)
    while not state.is_over():
        a_to_move = (state.to_move == 1) == a_is_black
        found = mcts.search(
            state,
            TREE_SHARE * seconds,
            iterations=iterations or 1 << 62,
            seed=rng.getrandbits(30),
            clock=iterations is None,
            mix=mixes[0] if a_to_move else mixes[1],
            keep=False,
        )
        moves.append(state.move_str(found.move))
        state.push(found.move)
    outcome = state.outcome()
    return moves, outcome.winner if outcome else None


def samples(games: list[dict], every: int, playouts: int) -> np.ndarray:
    """Rows of (game seed, empty cells, the judgement's terms..., the playouts' mean score,
    the outcome for the side to move) at two plies in every ``every`` from ply 12, one with
    each side to move (an even ``every`` alone would sample Black's moves only), the last four
    plies and positions the mover wins on the spot left out."""
    rows = []
    for game in games:
        state = new_state()
        for ply, move in enumerate(game["moves"]):
            if 12 <= ply < len(game["moves"]) - 4 and ply % every < 2:
                terms = mcts.judgement_of(state)
                if terms is not None:
                    winner = game["winner"]
                    outcome = 0 if winner is None else 1 if winner == state.to_move else -1
                    score = sum(
                        {state.to_move: 1.0, 0: 0.5}.get(
                            mcts.random_playout_of(state, ply * playouts + i, safe=True)[0], 0.0
                        )
                        for i in range(playouts)
                    )
                    rows.append(
                        [game["seed"], state.empty.bit_count(), *terms, score / playouts, outcome]
                    )
            state.push_str(move)
    return np.array(rows, float)


def fit(rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The weights (a constant first) over every row, and a report by band of empty cells."""
    terms, outcome = rows[:, 2:-2], rows[:, -1]
    weights, *_ = np.linalg.lstsq(np.c_[np.ones(len(rows)), terms], outcome, rcond=None)
    return weights, report("empty cells", BANDS, rows[:, 1], rows)


def share(text: str) -> float:
    """A leaf's share of the judgement: a number from 0 to 1."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a share of the judgement is from 0 to 1, not {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("games", help="self-play games of the top level")
    play.add_argument("--games", type=int, required=True)
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--iterations", type=int, default=5000)
    play.add_argument("--out", type=Path, required=True)
    duel = commands.add_parser("match", help="one leaf share of the judgement against another")
    duel.add_argument("--mix", type=share, nargs=2, required=True, metavar=("A", "B"))
    duel.add_argument("--games", type=int, default=40)
    duel.add_argument("--seed", type=int, default=1)
    duel.add_argument("--time", type=float, default=0.25, help="seconds a move")
    duel.add_argument("--iterations", type=int, help="MCTS iterations a move instead")
    weigh = commands.add_parser("fit", help="fit the judgement's weights on games")
    weigh.add_argument("games", nargs="+", type=Path)
    weigh.add_argument("--every", type=int, default=8)
    weigh.add_argument("--playouts", type=int, default=100)
    args = parser.parse_args(argv)
    mcts.warm_up()
    if args.command == "games":
        with args.out.open("a") as out:
            for seed in range(args.seed, args.seed + args.games):
                game = self_play(seed, args.iterations)
                out.write(json.dumps(game) + "\n")
                out.flush()
                print(f"game {seed}: {len(game['moves'])} plies, winner {game['winner']}")
        return 0
    if args.command == "match":
        score = 0.0
        for number in range(args.games):
            a_is_black = number % 2 == 0
            pair = args.seed * 1000 + number // 2
            moves, winner = match_game(
                (args.mix[0], args.mix[1]),
                a_is_black,
                number // 2 % 3,
                pair,
                args.time,
                args.iterations,
            )
            a_score = 0.5 if winner is None else float((winner == 1) == a_is_black)
            score += a_score
            side = "Black" if a_is_black else "White"
            print(f"game {number + 1}: A ({args.mix[0]}) as {side}, {len(moves)} plies, "
                  f"A scores {a_score}; A {score}/{number + 1}", flush=True)  # fmt: skip
        return 0
    games = [json.loads(line) for path in args.games for line in path.read_text().splitlines()]
    rows = samples(games, args.every, args.playouts)
    weights, report = fit(rows)
    print(f"{len(games)} games, {len(rows)} positions")
    print("\n".join(report))
    print("weights (constant, gap cells, windows of two, of three): " + ", ".join(
        f"{w:.4f}" for w in weights
    ))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
