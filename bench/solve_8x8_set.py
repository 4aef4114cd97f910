"""Nodes and seconds for the exact solver on six 8x8 Square Slime Trail positions (six plies
in, both rule sets): the yardstick for pruning aimed at the unsolved 8x8 start.

    python bench/solve_8x8_set.py
"""

from __future__ import annotations

import time

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import solve

LINES = ["f4 g4 h5 h4 h3 g2", "e6 f7 g6 f5 g5 f4", "f5 f6 e6 f7 g6 h6"]


def main() -> None:
    total_nodes, total_seconds = 0, 0.0
    for rules in ("rastros", "taylor"):
        game = get_game("slimetrail-square", rules=rules)
        for line in LINES:
            state = game.new_state()
            for move in line.split():
                state.push_str(move)
            start = time.monotonic()
            result = solve(state, book=False, table_bits=24)
            seconds = time.monotonic() - start
            total_nodes += result.nodes
            total_seconds += seconds
            wins = " ".join(state.move_str(m) for m in result.winning_moves) or "-"
            row = f"{rules:8} {line}  {result.value:5} {wins:22} {result.nodes:>11}"
            print(f"{row} {seconds:6.1f} s")
    print(f"total {total_nodes} nodes, {total_seconds:.1f} s")


if __name__ == "__main__":
    main()
