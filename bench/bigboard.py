"""Big-board strength: the Slime Trail top level against plain UCT at equal time per move.

For each (board, rules) pair, ``--games`` games with sides alternating (the top level is
player 1 in the even games), each side given ``--seconds`` a move; prints one line per game
and a table (markdown) of the top level's score per pair.  UCT is bench/uct.py: random
playouts, compiled, independent of our AI.  "our depth" is the depth of the top level's
alpha-beta (its look for a forced win), "our it/s" the iterations a second of its MCTS-Solver
(0 where it did not run: a move found by the solver or the alpha-beta).

    PYTHONPATH=$PWD nice -n 10 python bench/bigboard.py --seconds 0.25 --games 40 \\
        --pairs 9:rastros 9:taylor 11:rastros 11:taylor hex10:rastros hex10:taylor \\
        hex11:rastros hex11:taylor
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from uct import UCT

from slimetrail.ai import Limit, play
from slimetrail.ai.levels import ladder_for
from slimetrail.core.registry import get_game

ALL_PAIRS = [
    f"{board}:{rules}" for board in ("9", "11", "hex10", "hex11") for rules in ("rastros", "taylor")
]


def game_of(pair: str):
    board, rules = pair.split(":")
    if board.startswith("hex"):
        return get_game("slimetrail-hex", size=board[3:], rules=rules)
    return get_game("slimetrail", size=board, rules=rules)


def play_game(game, ours: int, seconds: float, level: int, seed: int) -> tuple[int, dict]:
    """One game; returns the winner (0: a draw) and what the players did."""
    uct = UCT(game, seed=seed)
    state = game.new_state()
    uct_iterations, our_depths, our_iterations = [], [], []
    while state.outcome() is None:
        if state.to_move == ours:
            result = play(state, level, Limit(time=seconds), seed=seed)
            move = result.move
            our_depths.append(result.depth)
            if "iterations" in result.info:
                our_iterations.append(result.info["iterations"] / seconds)
        else:
            move, iterations = uct.choose(state, seconds)
            uct_iterations.append(iterations / seconds)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None
    return outcome.winner or 0, {
        "plies": len(state.move_stack),
        "uct_rate": statistics.mean(uct_iterations) if uct_iterations else 0.0,
        "depth": statistics.mean(our_depths) if our_depths else 0.0,
        "our_rate": statistics.mean(our_iterations) if our_iterations else 0.0,
        "moves": " ".join(state.move_str(m) for m in state.move_stack),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", nargs="+", default=ALL_PAIRS, help="board:rules, e.g. 9:taylor")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=0.25, help="per move, both sides")
    parser.add_argument("--level", type=int, default=0, help="our level (0: the top)")
    args = parser.parse_args()
    rows = []
    for pair in args.pairs:
        game = game_of(pair)
        level = args.level or ladder_for(game).top
        UCT(game).choose(game.new_state(), 0.05)  # compile outside the games
        play(game.new_state(), level, Limit(time=0.05))
        score = {1: 0.0, 2: 0.0}
        rates, depths, our_rates, started = [], [], [], time.perf_counter()
        for index in range(args.games):
            ours = 1 if index % 2 == 0 else 2
            winner, info = play_game(game, ours, args.seconds, level, seed=index)
            points = 1.0 if winner == ours else 0.5 if winner == 0 else 0.0
            score[ours] += points
            rates.append(info["uct_rate"])
            depths.append(info["depth"])
            our_rates.append(info["our_rate"])
            print(
                f"{pair} game {index + 1}: ours as player {ours}: {points} "
                f"({info['plies']} plies, UCT {info['uct_rate']:.0f} it/s, our depth "
                f"{info['depth']:.1f}, our tree {info['our_rate']:.0f} it/s) {info['moves']}",
                flush=True,
            )
        half = args.games / 2
        rows.append(
            f"| {pair} | {score[1] + score[2]:g}/{args.games} | {score[1]:g}/{half:g} | "
            f"{score[2]:g}/{half:g} | {statistics.mean(rates):.0f} | "
            f"{statistics.mean(depths):.1f} | {statistics.mean(our_rates):.0f} | "
            f"{time.perf_counter() - started:.0f} |"
        )
        print(rows[-1], flush=True)
    print(f"\nlevel top vs plain UCT, {args.seconds} s a move each, {args.games} games a pair")
    print(
        "| board:rules | ours | as player 1 | as player 2 | UCT it/s | our depth | our it/s "
        "| wall s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
