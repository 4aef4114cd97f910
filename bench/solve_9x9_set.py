"""Nodes and seconds for solves of 9x9 Slimetrail positions too big for the compiled kernel
(65-70 reachable cells), with the wide layer's shared frames against the baseline in the same
run: every sub-solve labelled on its own with a cleared table.  The layer hands the kernel
regions of at most 64 cells here, as it did before the two-word kernel took all of 9x9
(``bench/solver_c.py --before`` compares the two).

    python bench/solve_9x9_set.py
"""

from __future__ import annotations

import time

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import CompactGraph
from slimetrail.games.trail.solver.wide import WideSearch

LINES = [
    "f6 g6 f7 e7 d7 d6 d5 c5 d4 c3 b3",
    "d4 d5 c4 d3 c3 d2 c2 b2 a3 b3 b4 a5",
    "d4 e3 f4 g4 h5 g6 g7 h6 h7 i7 i6 i5 h4 g3 f3",
]


def main() -> None:
    game = get_game("slimetrail", size="9")
    totals = {False: 0.0, True: 0.0}
    head = f"{'position':45} {'cells':>5} value"
    print(f"{head} {'nodes (own)':>12} {'s':>6} {'nodes (frames)':>14} {'s':>6}")
    for line in LINES:
        state = game.new_state()
        for move in line.split():
            state.push_str(move)
        cells = len(CompactGraph(game, state.free, state.snail).cells)
        row = []
        for share in (False, True):
            start = time.monotonic()
            search = WideSearch(state, False, 0.0, True, 24, 64, share_frames=share)
            result = search.solve(state, start)
            seconds = time.monotonic() - start
            totals[share] += seconds
            row.append((result.value, result.nodes, seconds))
        assert row[0][0] == row[1][0], "the two ways disagree"
        (value, own, own_s), (_, framed, framed_s) = row
        print(f"{line:45} {cells:>5} {value:5} {own:>12} {own_s:6.1f} {framed:>14} {framed_s:6.1f}")
    print(
        f"total {totals[False]:.1f} s own labelling, {totals[True]:.1f} s shared frames: "
        f"x{totals[False] / totals[True]:.2f}"
    )


if __name__ == "__main__":
    main()
