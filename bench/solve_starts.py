"""Solve the start position of a Slime Trail game from every start cell (or the ones given).

    python bench/solve_starts.py --game slimetrail --size 7 --rules rastros [--time-limit S]
        [--distance] [--checkpoint DIR] [--workers N] [--table-bits B] [CELL ...]

Prints one markdown table row per start cell as soon as it is solved: the value for player 1
(who moves first), the winning first moves, nodes and seconds.  Cells mirrored in the a1
diagonal (which keeps both goals) have mirrored answers and are solved once.
"""

from __future__ import annotations

import argparse
import sys

from slimetrail.core.game import GameOptionError
from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import SolveTimeout
from slimetrail.games.trail.solver.parallel import solve_long


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="slimetrail")
    parser.add_argument("--size")
    parser.add_argument("--rules")
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--distance", action="store_true")
    parser.add_argument(
        "--checkpoint", help="directory for checkpoints: a rerun resumes unfinished solves"
    )
    parser.add_argument(
        "--workers", type=int, help="split each solve's root moves over N processes"
    )
    parser.add_argument(
        "--table-bits", type=int, help="log2 of the table entries (16 bytes each) per solve"
    )
    parser.add_argument("cells", nargs="*")
    args = parser.parse_args()
    base = get_game(args.game, size=args.size, rules=args.rules)
    board = base.board
    cells = args.cells or [
        board.name(i)
        for i in board.cells()
        if i not in base.goals and board.coords(i)[0] >= board.coords(i)[1]
    ]
    print(f"| {base.spec} start | value for player 1 | winning first moves | plies | nodes | s |")
    print("|---|---|---|---|---|---|")
    for cell in cells:
        try:
            game = get_game(args.game, size=args.size, rules=args.rules, start=cell)
        except GameOptionError as exc:
            print(exc, file=sys.stderr)
            return 2
        state = game.new_state()
        col, row = board.coords(game.start)
        twin = "" if col == row else f" (= {board.name(board.index(row, col))} mirrored)"
        try:
            r = solve_long(
                state,
                workers=args.workers,
                distance=args.distance,
                time_limit=args.time_limit,
                checkpoint_dir=args.checkpoint,
                table_bits=args.table_bits,
                book=False,
            )
        except SolveTimeout as exc:
            print(f"| {cell}{twin} | {exc} (limit {args.time_limit:g} s) | | | | |", flush=True)
            continue
        moves = " ".join(state.move_str(m) for m in r.winning_moves) or "-"
        plies = "" if r.plies is None else str(r.plies)
        print(
            f"| {cell}{twin} | {r.value} | {moves} | {plies} | {r.nodes} | {r.seconds:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
