"""The big boards' opening book: the positions the benchmark's baseline leads to, searched long.

    nice -n 10 python bench/opening_book.py --size 9 --start e5 --plies 8 --iterations 2000000

Walks the opening from the start for both colours of our side: where our side is to move, it
plays the play book's move, searching the position first if the book lacks it
(``PlayBookBuilder.search_positions``: the MCTS-Solver's long searches, one per ``--seeds``,
in two processes); where the baseline (``bench/baselines``, plain UCT) is to move, it follows
every move the baseline plays in at least ``--share`` of its searches (``--samples`` seeds at
each of ``--playouts``), at most ``--branch`` of them.  Level by level, so that the searches
of one ply run together.  ``--first-steps`` also walks from every first step (the benchmark's
openings of one random ply).  Prints the lines walked; the book is
``slimetrail/games/trail/solver/books/play-<game>-<size>-<rules>.json``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import cast

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines.trail import TrailBaseline, make_baseline
from slimetrail.core.registry import get_game
from slimetrail.games.trail.game import TrailGame, TrailState
from slimetrail.games.trail.solver import book


def baseline_moves(
    baseline: TrailBaseline, state: TrailState, args: argparse.Namespace
) -> list[str]:
    """The moves the baseline plays in ``state`` often enough to be followed."""
    played: Counter[str] = Counter()
    for playouts in args.playouts:
        for seed in range(args.samples):
            move, _ = baseline.choose(state, 1.0, seed, playouts)
            played[state.move_str(move)] += 1
    total = sum(played.values())
    often = [move for move, n in played.most_common() if n >= args.share * total]
    return often[: args.branch]


def walk(game: TrailGame, args: argparse.Namespace) -> list[str]:
    baseline = make_baseline(game)
    builder = book.PlayBookBuilder(game)
    start = cast(TrailState, game.new_state())
    roots = [start]
    if args.first_steps:
        for move in start.legal_moves():
            child = start.copy()
            child.push(move)
            roots.append(child)
    # (position, our side): our side plays both colours from each root.
    level = [(root, ours) for root in roots for ours in (1, 2)]
    lines = []
    for _ in range(args.plies):
        wanted: dict[str, TrailState] = {}
        for state, ours in level:
            if state.to_move == ours and book.book_move(state) is None:
                wanted.setdefault(book.canonical(state)[0], state)
        if wanted:
            builder.search_positions(list(wanted.values()), args.iterations, args.seeds)
            book.reload()
        following = []
        seen: set[tuple[str, int]] = set()
        for state, ours in level:
            if state.to_move == ours:
                found = book.book_move(state)
                moves = [] if found is None else [state.move_str(found[0])]
            else:
                moves = baseline_moves(baseline, state, args)
            for text in moves:
                child = state.copy()
                child.push(child.parse_move(text))
                key = (book.canonical(child)[0], ours)
                if child.is_over() or key in seen:
                    continue
                seen.add(key)
                following.append((child, ours))
        level = following
        lines = [
            f"ours {'Green' if ours == 1 else 'Red'}: "
            + " ".join(state.move_str(m) for m in state.move_stack)
            for state, ours in level
        ]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="slimetrail")
    parser.add_argument("--size", default="9")
    parser.add_argument("--rules")
    parser.add_argument("--start")
    parser.add_argument("--plies", type=int, default=8, help="plies from the start to walk")
    parser.add_argument("--iterations", type=int, default=2_000_000, help="a search's")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2], help="a search each")
    parser.add_argument("--samples", type=int, default=8, help="baseline seeds per budget")
    parser.add_argument(
        "--playouts", type=int, nargs="+", default=[100_000, 400_000], help="baseline budgets"
    )
    parser.add_argument("--share", type=float, default=0.25, help="of the baseline's choices")
    parser.add_argument("--branch", type=int, default=2, help="baseline moves followed, most")
    parser.add_argument("--first-steps", action="store_true", help="walk from each first step")
    args = parser.parse_args(argv)
    game = get_game(args.game, size=args.size, rules=args.rules, start=args.start)
    if not isinstance(game, TrailGame):
        parser.error(f"opening books are for the Slime Trail games, not {game.id}")
    for line in walk(game, args):
        print(line)


if __name__ == "__main__":
    main()
