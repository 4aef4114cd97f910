"""Many solves in one process (a batch, an analysis server): each solve's table, the
thread's spare one, emptied by taking the next generation, against zeroing it (the stopgap
of 662b51e), in the same run.

    python bench/solve_reuse.py [--count 30] [--plies 6-16] [--rounds 5] [--seed 1]

The positions: ``--count`` 7x7 Slimetrail positions ``--plies`` random plies in
(bench/solver_c.py's generator), solved in turn without the book.  The two ways alternate
for ``--rounds`` rounds; printed: the median CPU seconds (this process's) of a round of
each, their ratio, and that every answer is the same both ways.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from unittest import mock

from solver_c import random_position

from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import KernelTable, solve


def zeroing_renew(table: KernelTable, entry_words: int) -> None:
    """The baseline: the whole table zeroed for every solve."""
    with memoryview(table.words) as view, view.cast("B") as raw:
        raw[:] = bytes(len(raw))
    table.generation, table.entry_words = 1, entry_words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--plies", default="6-16", help="LOW-HIGH plies in")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    low, high = (int(n) for n in args.plies.split("-"))
    game, rng = get_game("slimetrail"), random.Random(args.seed)
    states = [random_position(game, rng, low, high) for _ in range(args.count)]
    times: dict[str, list[float]] = {"next generation": [], "zeroed": []}
    answers: dict[str, list] = {}
    for _ in range(args.rounds):
        for way in times:
            with mock.patch.object(
                KernelTable, "renew", zeroing_renew if way == "zeroed" else KernelTable.renew
            ):
                start = time.process_time()
                answers[way] = [solve(state, book=False).move_values for state in states]
                times[way].append(time.process_time() - start)
    assert answers["next generation"] == answers["zeroed"], "the two ways answer differently"
    print(f"{len(states)} 7x7 positions {args.plies} plies in, {args.rounds} rounds")
    base = statistics.median(times["zeroed"])
    for way, seconds in times.items():
        median = statistics.median(seconds)
        print(f"  {way:16} median cpu s per round {median:7.3f}   {median / base:5.2f}x zeroed")
    print("  every answer the same both ways")


if __name__ == "__main__":
    main()
