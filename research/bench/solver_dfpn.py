"""df-pn against the alpha-beta kernel on the win/loss question, on the same positions.

    python -m research.bench.solver_dfpn [--mid 30] [--square 6] [--big 6] [--limit 60] [--seed 1]
        [--table-bits 20]

Both answer "does the side to move win?" with no book: the alpha-beta solver as the top level
asks it (``solve(state, first_win=True, book=False)``: root moves one by one until a win),
df-pn (:mod:`research.trail.dfpn`) on the whole position; each with a table of
``2**--table-bits`` entries made at the start of each position (inside the timing) and
``--limit`` seconds a position.  The answers must agree.  Sets of positions from seeded
random play:

1. 7x7 Slimetrail mid-game positions, 6 to 16 plies in, Rastros and Taylor rules (``--mid``
   of each);
2. the starts of 6x6 Square Slime Trail under both rule sets and the positions after each
   first move (``--square``: the board size, 0 to skip);
3. 8x8 Square Slime Trail (Taylor) positions 8 to 14 plies in (``--big`` of them).

Printed per set: positions both answered, nodes and seconds of each, and the ratios
df-pn / alpha-beta (below 1: df-pn better).  Nodes: alpha-beta counts kernel calls; df-pn
counts its ``mid`` calls (a position is entered again each time the search comes back to it)
plus the fresh positions it classified, the closest match to a kernel call.
"""

from __future__ import annotations

import argparse
import os
import random

from bench.solver import random_mid_game
from research.trail.dfpn import prove
from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import SolveTimeout, solve, warm_up


def run_set(label: str, positions, args) -> None:
    rows = []
    ab_only = dfpn_only = 0
    for state in positions:
        try:
            ab = solve(
                state, first_win=True, book=False, time_limit=args.limit, table_bits=args.table_bits
            )
        except SolveTimeout:
            ab = None
        try:
            pn = prove(state, time_limit=args.limit, table_bits=args.table_bits)
        except SolveTimeout:
            pn = None
        if ab is None or pn is None:
            ab_only += pn is None and ab is not None
            dfpn_only += ab is None and pn is not None
            continue
        assert ab.value == pn.value, f"answers differ: {state.game.spec} {state.fen()}"
        rows.append((state, ab.nodes, ab.seconds, pn.nodes, pn.seconds))
    an, as_, pn_, ps = (sum(row[i] for row in rows) for i in range(1, 5))
    wins = sum(1 for row in rows if solve(row[0], first_win=True, book=False).value == "win")
    print(
        f"{label}: {len(rows)} of {len(positions)} answered by both ({wins} won for the mover; "
        f"only alpha-beta {ab_only}, only df-pn {dfpn_only}; limit {args.limit:g} s)"
    )
    print(f"  alpha-beta: {an:>13,} nodes {as_:9.2f} s")
    print(f"  df-pn:      {pn_:>13,} nodes {ps:9.2f} s")
    print(f"  df-pn/alpha-beta: nodes {pn_ / max(an, 1):.2f}x, time {ps / max(as_, 1e-9):.2f}x")
    worst = sorted(rows, key=lambda row: -row[1])[:3]
    for state, a_n, a_s, p_n, p_s in worst:
        print(
            f"    {state.game.spec} {state.fen()}: alpha-beta {a_n:,} nodes {a_s:.2f} s, "
            f"df-pn {p_n:,} nodes {p_s:.2f} s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mid", type=int, default=30, help="7x7 positions per rule set")
    parser.add_argument("--square", type=int, default=6, help="small square board (0: skip)")
    parser.add_argument("--big", type=int, default=6, help="8x8 Taylor positions")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds a position, each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--table-bits", type=int, default=20)
    args = parser.parse_args(argv)
    warm_up()
    prove(get_game("slimetrail", size="5").new_state())  # compile or load df-pn
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    rng = random.Random(args.seed)
    for rules in ("rastros", "taylor"):
        game = get_game("slimetrail", rules=rules)
        positions = [random_mid_game(game, rng, 6, 16) for _ in range(args.mid)]
        run_set(f"7x7 {rules}, 6-16 plies in", positions, args)
    if args.square:
        for rules in ("rastros", "taylor"):
            game = get_game("slimetrail-square", size=str(args.square), rules=rules)
            start = game.new_state()
            positions = [start]
            for move in start.legal_moves():
                child = start.copy()
                child.push(move)
                if child.outcome() is None:
                    positions.append(child)
            run_set(
                f"{args.square}x{args.square} square {rules}, start and first moves",
                positions,
                args,
            )
    if args.big:
        game = get_game("slimetrail-square", size="8", rules="taylor")
        positions = [random_mid_game(game, rng, 8, 14) for _ in range(args.big)]
        run_set("8x8 square taylor, 8-14 plies in", positions, args)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
