"""Slime-Moku exact solves: the compiled solver against the Python solver on the same starts.

    python -m research.bench.moku_solve [--boards 4x4k4,5x5k4,5x5k5] [--big 6x6k4] [--minutes M]
        [--sym-empty E] [--dfpn 6x6k4:c3] [--where 7x7k4:c3:30000000]

Every board of ``--boards`` is solved by both (the Python solver of
:mod:`research.moku.pysolver` is the baseline; ratio = its time / the compiled time,
CPU seconds of this process, the compiled solver's numba compilation done beforehand).  The
boards of ``--big`` are tried by the compiled solver alone within ``--minutes`` each.
``--dfpn BOARD:FIRST``: after that first move, "does Black win?" asked of the df-pn prover of
:mod:`research.moku.pnsearch` and of the alpha-beta solver (a null window), nodes and
CPU seconds of each.  ``--where BOARD:FIRST:NODES``: where the nodes of that question go
(within a budget): nodes per ply and, at cut nodes, how often the n-th move tried cut.
"""

from __future__ import annotations

import argparse
import time

from research.moku import pysolver as solver
from research.moku.fastsolve import solve_start
from research.moku.pnsearch import ProofSearch
from slimetrail.core.game import SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.moku.solver import S_CUT, S_PLY, FastSearch


def parse(board: str) -> tuple[int, int]:
    size, _, k = board.partition("k")
    return int(size.partition("x")[0]), int(k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="4x4k4,4x4k5,5x5k4,5x5k5")
    parser.add_argument("--big", default="")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--sym-empty", type=int, default=0)
    parser.add_argument("--dfpn", default="")
    parser.add_argument("--where", default="")
    args = parser.parse_args()
    solve_start(4, 4)  # compile (or load the compiled code) before timing
    print(
        f"{'board':8} {'value':6} {'python nodes':>12} {'python s':>9} {'fast nodes':>10} "
        f"{'fast s':>7} {'ratio':>6}"
    )
    for board in args.boards.split(","):
        n, k = parse(board)
        started = time.process_time()
        slow = solver.solve(get_game("slime-moku", size=n, k=k).new_state())
        slow_s = time.process_time() - started
        started = time.process_time()
        values, nodes = solve_start(n, k, sym_empty=args.sym_empty)
        fast_s = max(time.process_time() - started, 1e-3)
        best = max(values.values(), key=["loss", "draw", "win"].index)
        assert best == slow.value, (board, best, slow.value)
        print(
            f"{board:8} {best:6} {slow.nodes:>12} {slow_s:>9.2f} {nodes:>10} {fast_s:>7.2f} "
            f"{slow_s / fast_s:>5.0f}x",
            flush=True,
        )
    for board in filter(None, args.big.split(",")):
        n, k = parse(board)
        started, wall = time.process_time(), time.monotonic()
        try:
            values, nodes = solve_start(
                n, k, 60 * args.minutes, progress=True, sym_empty=args.sym_empty
            )
        except SolveTimeout:
            print(
                f"{board}: not solved within {args.minutes} minutes of wall clock "
                f"({time.process_time() - started:.0f} s CPU)"
            )
            continue
        best = max(values.values(), key=["loss", "draw", "win"].index)
        print(
            f"{board}: {best} for Black, {nodes} nodes, {time.process_time() - started:.0f} s "
            f"CPU, {time.monotonic() - wall:.0f} s wall; first moves {values}"
        )

    for question in filter(None, args.dfpn.split(",")):
        board, _, first = question.partition(":")
        dfpn_versus_alpha_beta(*parse(board), first, args.sym_empty)
    for question in filter(None, args.where.split(",")):
        board, first, budget = question.split(":")
        where_the_nodes_go(*parse(board), first, int(budget), args.sym_empty)


def dfpn_versus_alpha_beta(n: int, k: int, first: str, sym_empty: int) -> None:
    state = get_game("slime-moku", size=n, k=k).new_state()
    state.push(state.parse_move(first))
    node = (state.white, state.black, state.empty, state.slime)
    started = time.process_time()
    prover = ProofSearch(state.game.board)
    black_wins = not prover.prove(*node, False)  # White, the defender, fails to hold
    pn_s = time.process_time() - started
    started = time.process_time()
    search = FastSearch(state.game.board, sym_empty=sym_empty)
    assert (search.value(*node, window=(-1, 0)) <= -1) == black_wins
    ab_s = max(time.process_time() - started, 1e-3)
    print(
        f"{n}x{n}k{k} after {first}: Black {'wins' if black_wins else 'does not win'}; "
        f"df-pn {prover.nodes} nodes {pn_s:.1f} s, alpha-beta {search.nodes} nodes "
        f"{ab_s:.1f} s: df-pn/alpha-beta {prover.nodes / search.nodes:.1f}x nodes, "
        f"{pn_s / ab_s:.1f}x time",
        flush=True,
    )


def where_the_nodes_go(n: int, k: int, first: str, budget: int, sym_empty: int) -> None:
    state = get_game("slime-moku", size=n, k=k).new_state()
    state.push(state.parse_move(first))
    search = FastSearch(state.game.board, sym_empty=sym_empty)
    started = time.process_time()
    try:
        v = search.value(
            state.white, state.black, state.empty, state.slime, window=(-1, 0), budget=budget
        )
        answer = "Black wins" if v <= -1 else "Black does not win"
    except SolveTimeout:
        answer = "no answer"
    plies = [int(x) for x in search.stats[S_PLY : S_PLY + 64]]
    cuts = [int(x) for x in search.stats[S_CUT : S_CUT + 64]]
    last = max(i for i, x in enumerate(plies) if x)
    print(
        f"{n}x{n}k{k} after {first}, does Black win: {answer}, {search.nodes} nodes, "
        f"{time.process_time() - started:.1f} s"
    )
    print("  nodes by ply below the first move:", " ".join(map(str, plies[: last + 1])))
    total = sum(cuts)
    shares = " ".join(f"{x / total:.3f}" for x in cuts if x) if total else "-"
    print(f"  cuts by the 1st, 2nd, ... move tried ({total} cut nodes): {shares}", flush=True)


if __name__ == "__main__":
    main()
