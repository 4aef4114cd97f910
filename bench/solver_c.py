"""The compiled solver against a plain C solver (``bench/trail_solver.c``) on the same positions.

    python bench/solver_c.py [--mid 60] [--hex 20] [--limit 60] [--seed 1] [--table-bits 20]
        [--before] [--plain]

The C baseline (alpha-beta over win/draw/loss with an exact-key transposition table, table
move then fewest replies first; see its header) is compiled with gcc into a temporary
directory at run time.  Two sets of positions from seeded random play:

1. 7x7 Slimetrail (Rastros rules) mid-game positions, 6 to 16 plies in (as bench/solver.py);
2. hex 10x10 Slime Trail (Taylor's rules, the default board) positions 12 to 30 plies in.

Both solvers decide the value of every legal move of each position (no book), each with
``--limit`` seconds a position and a table of ``2**--table-bits`` entries, empty at the
start of each position (inside the timing); the answers must agree.  Ours empties its
table by starting a new generation of entries; the C solver zeroes its table, and the
ratios are taken against its search alone, without the zeroing (also printed with it).
Printed per set: positions solved by both, total nodes, seconds and nodes per second of
each, and the ratios (ours / C: nodes below 1 and nodes/s above 1 are better); then the
positions that cost C the most.
On the 7x7 set our solver also runs with the two-word kernel forced (``WORD_CELLS = 0``) to
show what the one-word kernel gains where a region fits it.  Our kernels are warmed up
(the two-word one loaded from numba's cache) before timing.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import tempfile
import time
from unittest import mock

from slimetrail.core.registry import get_game
from slimetrail.games.trail import solver
from slimetrail.games.trail.solver import SolveTimeout, solve, warm_up
from slimetrail.games.trail.solver.wide import WideSearch

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {1: "win", 0: "draw", -1: "loss"}


def compile_baseline(directory: str) -> str:
    exe = os.path.join(directory, "trail_solver")
    source = os.path.join(HERE, "trail_solver.c")
    subprocess.run(["gcc", "-O2", "-march=native", "-o", exe, source], check=True)
    return exe


def hex_word(value: int) -> str:
    return f"{value >> 64:x}:{value & ((1 << 64) - 1):x}"


def c_input(state) -> tuple[str, list[int]]:
    """The position as the C solver reads it: the whole board as a graph (vertex = the
    cell's rank in ``board.cells()``), and the cell of each vertex."""
    game = state.game
    cells = game.board.cells()
    index = {cell: i for i, cell in enumerate(cells)}

    def labels(mask: int) -> int:
        return sum(1 << index[c] for c in cells if mask >> c & 1)

    nbr = [hex_word(labels(game.board.neighbours[c])) for c in cells]
    fields = [
        len(cells),
        int(game.rules == "taylor"),
        state.to_move - 1,
        index[state.snail],
        index[game.goals[1]],
        index[game.goals[2]],
        hex_word(labels(state.free)),
        *nbr,
    ]
    return " ".join(map(str, fields)), cells


def random_position(game, rng: random.Random, low: int, high: int):
    while True:
        state = game.new_state()
        for _ in range(rng.randrange(low, high + 1)):
            if state.outcome() is not None:
                break
            state.push(rng.choice(state.legal_moves()))
        if state.outcome() is None:
            return state


class KernelClock:
    """The time spent inside the compiled kernels' calls (``Labelling.negamax``), that is a
    solve without its Python set-up (labelling the region, the root moves, the result): the
    counterpart of the C solver's search, which leaves out reading its input."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __enter__(self) -> KernelClock:
        search = solver.Labelling.negamax

        def timed(labels, *args):
            started = time.perf_counter()
            try:
                return search(labels, *args)
            finally:
                self.seconds += time.perf_counter() - started

        self.patch = mock.patch.object(solver.Labelling, "negamax", timed)
        self.patch.start()
        return self

    def __exit__(self, *exc) -> None:
        self.patch.stop()


def run_set(
    label: str, positions, exe: str, args, two_words: bool = False, old: bool = False
) -> None:
    """Solve ``positions`` with both solvers and print the totals; ``two_words``: also with
    our two-word kernel on regions that fit one word (to check the dispatch by size);
    ``old``: also the way before the two-word kernel (the Python layer over the one-word
    kernel for regions over 64 cells), on the positions both solved; ``args.plain``: also our
    kernels without the shortcuts (no matching theorem, no pruning next to the goals), nodes
    closer to the C solver's in the work each one does."""
    if not positions:
        return
    lines, boards = zip(*(c_input(s) for s in positions), strict=True)
    out = subprocess.run(
        [exe, str(args.table_bits), str(args.limit)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    both = []
    ours_only = c_only = 0
    wide_n = wide_s = 0.0
    old_n = old_s = old_lost = 0
    plain_n = plain_s = 0.0
    for state, line, cells in zip(positions, out, boards, strict=True):
        *moves, _, c_nodes, _, c_total, _, c_s = line.split()
        c_solved = moves != ["unsolved"]
        try:
            with KernelClock() as clock:
                r = solve(state, book=False, time_limit=args.limit, table_bits=args.table_bits)
        except SolveTimeout:
            c_only += c_solved
            continue
        if not c_solved:
            ours_only += 1
            continue
        theirs = {cells[int(v)]: NAMES[int(s)] for v, s in (m.split(":") for m in moves)}
        assert theirs == r.move_values, f"answers differ: {state.game.spec} {state.fen()}"
        row = (state, r.nodes, r.seconds, int(c_nodes), float(c_s), float(c_total), clock.seconds)
        both.append(row)
        if two_words:
            with mock.patch.object(solver, "WORD_CELLS", 0):
                wide = solve(state, book=False, table_bits=args.table_bits)
            assert wide.move_values == r.move_values
            wide_n, wide_s = wide_n + wide.nodes, wide_s + wide.seconds
        if args.plain:
            plain = solve(state, book=False, shortcuts=False, table_bits=args.table_bits)
            assert plain.move_values == r.move_values
            plain_n, plain_s = plain_n + plain.nodes, plain_s + plain.seconds
        if old:
            deadline = time.monotonic() + args.limit
            search = WideSearch(state, False, deadline, True, args.table_bits, kernel_cells=64)
            try:
                before = search.solve(state, time.monotonic())
            except SolveTimeout:
                old_lost += 1
                continue
            assert before.move_values == r.move_values
            old_n, old_s = old_n + before.nodes, old_s + before.seconds
    n, s, cn, cs, c_zeroed, kernel_s = (sum(row[i] for row in both) for i in range(1, 7))
    print(
        f"{label}: {len(both)} of {len(positions)} positions solved by both "
        f"(only ours {ours_only}, only C {c_only}; limit {args.limit:g} s)"
    )
    print(f"  ours: {n:>13,} nodes {s:9.2f} s {n / max(s, 1e-9):>13,.0f} nodes/s")
    print(f"  C:    {cn:>13,} nodes {cs:9.2f} s {cn / max(cs, 1e-9):>13,.0f} nodes/s")
    print(
        f"  (C with the zeroing of its table per position: {c_zeroed:.2f} s, "
        f"{cn / max(c_zeroed, 1e-9):,.0f} nodes/s; ours starts a new generation instead)"
    )
    print(
        f"  ours/C: nodes {n / max(cn, 1):.2f}x, time {s / max(cs, 1e-9):.2f}x, "
        f"nodes/s {(n / max(s, 1e-9)) / (cn / max(cs, 1e-9)):.2f}x"
    )
    kernel_rate, c_rate = n / max(kernel_s, 1e-9), cn / max(cs, 1e-9)
    print(
        f"  ours, the kernels' calls alone (no Python set-up): {kernel_s:.2f} s, "
        f"{kernel_rate:,.0f} nodes/s; against C's search: time "
        f"{kernel_s / max(cs, 1e-9):.2f}x, nodes/s {kernel_rate / c_rate:.2f}x"
    )
    if two_words:
        print(
            f"  ours with the two-word kernel: {wide_n:,.0f} nodes {wide_s:.2f} s "
            f"{wide_n / max(wide_s, 1e-9):,.0f} nodes/s (one-word kernel {wide_s / s:.2f}x faster)"
        )
    if args.plain:
        print(
            f"  ours without the shortcuts: {plain_n:,.0f} nodes {plain_s:.2f} s "
            f"{plain_n / max(plain_s, 1e-9):,.0f} nodes/s; against C: nodes "
            f"{plain_n / max(cn, 1):.2f}x, time {plain_s / max(cs, 1e-9):.2f}x, nodes/s "
            f"{(plain_n / max(plain_s, 1e-9)) / (cn / max(cs, 1e-9)):.2f}x"
        )
    if old:
        print(
            f"  before the two-word kernel (Python layer over 64 cells): {old_n:,} nodes "
            f"{old_s:.2f} s on the positions it solved, {old_lost} not within the limit"
        )
    for state, n1, s1, n2, s2, *_ in sorted(both, key=lambda row: -row[4])[:3]:
        moves = " ".join(state.move_str(m) for m in state.move_stack)
        print(f"  hardest for C: {moves}: ours {n1:,} nodes {s1:.2f} s, C {n2:,} nodes {s2:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mid", type=int, default=60, help="7x7 mid-game positions")
    parser.add_argument("--hex", type=int, default=20, help="hex 10x10 Taylor positions")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--before", action="store_true", help="hex set: also the Python layer over 64 cells"
    )
    parser.add_argument(
        "--plain", action="store_true", help="also our kernels without the shortcuts"
    )
    parser.add_argument("--table-bits", type=int, default=20, help="tables: 2^bits entries")
    args = parser.parse_args()
    print(f"# {platform.python_version()} on {platform.machine()}, seed {args.seed}")
    warm_up()
    rng = random.Random(args.seed)
    mid_game = get_game("slimetrail")
    mid = [random_position(mid_game, rng, 6, 16) for _ in range(args.mid)]
    hex_game = get_game("slimetrail-hex")
    hexes = [random_position(hex_game, rng, 12, 30) for _ in range(args.hex)]
    with tempfile.TemporaryDirectory() as tmp:
        exe = compile_baseline(tmp)
        run_set("7x7 rastros, 6-16 plies in", mid, exe, args, two_words=True)
        run_set("hex 10x10 taylor, 12-30 plies in", hexes, exe, args, old=args.before)


if __name__ == "__main__":
    main()
