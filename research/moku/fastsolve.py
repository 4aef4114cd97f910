"""Research tools over the compiled Slime-Moku solver (:mod:`slimetrail.games.moku.solver`):
solving the start of a board first move by first move, with progress, node budgets and
resumable tables, principal lines of a win, and the replies to one first move proved one at a
time (the proven part of a long solve).  Run it from the repository root::

    python -m research.moku.fastsolve 6 4 [--minutes M]

A solve longer than one machine's uptime keeps its table in a file (``--table FILE``, saved
every ``--every`` seconds at a ``--chunk`` boundary and when the run ends) and resumes from it.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from slimetrail.core.checkpoint import read_checkpoint, write_checkpoint
from slimetrail.core.game import GameError, SolveTimeout, State
from slimetrail.core.registry import get_game
from slimetrail.games.moku.board import get_board
from slimetrail.games.moku.solver import TABLE_BITS, FastSearch, canonical, symmetries

# What a saved table holds besides the board's name: the arrays a resumed search needs.
TABLE_ARRAYS = ("t_mine", "t_theirs", "t_info", "stats", "history")


def table_meta(search: FastSearch) -> str:
    """What a saved table must belong to: its board, row length and symmetry threshold."""
    board = search.board
    return f"slime-moku {board.n}x{board.n} k={board.k} --sym-empty {int(search.sym_empty)}"


def save_table(search: FastSearch, path: Path) -> None:
    """Write the search's table and counters to ``path`` (whole, or not at all)."""
    write_checkpoint(path, table_meta(search), {n: getattr(search, n) for n in TABLE_ARRAYS})


def load_table(search: FastSearch, path: Path) -> None:
    """Fill ``search`` from a table saved by :func:`save_table`; a file that is not such a
    table, or one of another board, symmetry threshold or table size, raises ValueError and
    leaves ``search`` as it was."""
    arrays = read_checkpoint(path, table_meta(search), TABLE_ARRAYS)
    for name in TABLE_ARRAYS:
        if arrays[name].shape != getattr(search, name).shape:
            raise ValueError(
                f"{path}: its {name} has {arrays[name].size} entries, the search's "
                f"{getattr(search, name).size} (another --table-bits?)"
            )
    for name in TABLE_ARRAYS:
        getattr(search, name)[...] = arrays[name]


def solve_start(
    n: int,
    k: int,
    time_limit: float | None = None,
    *,
    progress: bool = False,
    table_bits: int = TABLE_BITS,
    exact: bool = True,
    chunk: int | None = None,
    sym_empty: int = 0,
    search: FastSearch | None = None,
    firsts: list[str] | None = None,
    checkpoint: Callable[[], None] | None = None,
) -> tuple[dict[str, str], int]:
    """The value of every first move of Black from the start of the n x n board (``win``,
    ``draw`` or ``loss`` for Black; ``no win`` for a move that does not win when not
    ``exact``), and the nodes searched.  First moves that a symmetry of the board fixing the
    start maps onto each other are searched once.  Each first move is first asked only
    whether Black wins (a null window), then, if not and ``exact``, whether White does.
    ``chunk``: search in slices of that many nodes, printing progress between them;
    ``sym_empty``: nodes with fewer empty cells are keyed as they are, not by symmetry;
    ``search``: the search (and table) to use instead of a new one; ``firsts``: only these
    first moves (and their images) are solved; ``checkpoint``: called after every chunk."""

    state = get_game("slime-moku", size=n, k=k).new_state()
    board = get_board(n, k)
    if search is None:
        search = FastSearch(board, table_bits, sym_empty)
    deadline = None if time_limit is None else time.monotonic() + time_limit

    def white_value(window: tuple[int, int]) -> int:
        while True:
            left = None if deadline is None else max(0.001, deadline - time.monotonic())
            try:
                return search.value(
                    state.white,
                    state.black,
                    state.empty,
                    state.slime,
                    left,
                    window=window,
                    budget=chunk,
                )
            except SolveTimeout:
                if progress:
                    print(f"  {name}: {search.nodes} nodes, no answer yet", flush=True)
                if checkpoint is not None:
                    checkpoint()
                if chunk is None or (deadline is not None and time.monotonic() > deadline):
                    raise

    fixing = [perm for perm, _, _ in symmetries(board) if perm[state.slime] == state.slime]
    values: dict[str, str] = {}
    for move in state.legal_moves():
        name = board.name(move)
        images = {board.name(perm[move]) for perm in fixing}
        if firsts is not None and not images & set(firsts):
            continue
        twin = next((perm[move] for perm in fixing if board.name(perm[move]) in values), None)
        if twin is not None:
            values[name] = values[board.name(twin)]
            continue
        state.push(move)
        # Black wins iff White's value is -1: White's window (-1, 0) asks just that.
        if white_value((-1, 0)) <= -1:
            values[name] = "win"
        elif exact:
            values[name] = "loss" if white_value((0, 1)) >= 1 else "draw"
        else:
            values[name] = "no win"
        state.pop()
        if progress:
            print(f"  {name}: {values[name]} ({search.nodes} nodes)", flush=True)
    return values, search.nodes


def winning_line(
    search: FastSearch, state: State, budget: int = 1_000_000, winner: int | None = None
) -> list[str]:
    """A principal line from ``state``, which ``winner`` (default: the side to move) wins
    (else GameError).  The
    win of each move is proved with ``search`` (its table as the solve left it); how hard a
    move is to refute is measured by a fresh search of at most ``budget`` nodes: the winner
    plays the winning move that is quickest to prove, the loser the move that is hardest."""
    winner = state.to_move if winner is None else winner
    state = state.copy()
    fresh = FastSearch(search.board, 18, int(search.sym_empty))
    line: list[str] = []
    while not state.is_over():
        scored = []  # (a proven win for the winner, fresh nodes to prove it, move)
        for move in state.legal_moves():
            state.push(move)
            outcome = state.outcome()
            cost = 0
            if outcome is not None:
                wins = outcome.winner == winner
            else:
                mine, theirs = (
                    (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
                )
                node = (mine, theirs, state.empty, state.slime)
                window = (0, 1) if state.to_move == winner else (-1, 0)
                v = search.value(*node, window=window)
                wins = v >= 1 if state.to_move == winner else v <= -1
                fresh.t_info[:] = 0
                before = fresh.nodes
                with contextlib.suppress(SolveTimeout):
                    fresh.value(*node, window=window, budget=budget)
                cost = fresh.nodes - before
            state.pop()
            scored.append((wins, cost, move))
        if state.to_move == winner:
            pick = min(((cost, move) for wins, cost, move in scored if wins), default=None)
        else:
            pick = max((cost, move) for _, cost, move in scored)
            if not all(wins for wins, _, _ in scored):
                pick = None
        if pick is None:
            raise GameError(f"{state.fen()}: not a win for player {winner}")
        line.append(state.move_str(pick[1]))
        state.push(pick[1])
    return line


def prove_replies(
    search: FastSearch,
    n: int,
    k: int,
    first: str,
    chunk: int | None,
    only: set[str] | None = None,
    checkpoint: Callable[[], None] | None = None,
) -> bool:
    """Whether Black wins after ``first``, asked of White's replies one at a time (replies
    whose positions are images of each other once; only those named in ``only`` if given,
    so that one long solve can be split over processes), each printed as it is decided: the
    proven part of an unfinished solve.  Stops at the first reply Black does not beat.
    ``checkpoint`` is called after every chunk of the search and every decided reply."""

    state = get_game("slime-moku", size=n, k=k).new_state()
    state.push(state.parse_move(first))
    seen = set()
    for reply in state.legal_moves():
        if only is not None and state.move_str(reply) not in only:
            continue
        state.push(reply)
        key = canonical(
            np.uint64(state.black),
            np.uint64(state.white),
            np.int64(state.slime),
            search.rowmaps,
            search.perms,
        )[:3]
        if key in seen:
            state.pop()
            continue
        seen.add(key)
        node = (state.black, state.white, state.empty, state.slime)
        before = search.nodes
        while True:
            try:
                wins = search.value(*node, window=(0, 1), budget=chunk) >= 1
                break
            except SolveTimeout:
                print(f"  {first} {state.move_str(reply)}: {search.nodes} nodes", flush=True)
                if checkpoint is not None:
                    checkpoint()
        if checkpoint is not None:
            checkpoint()
        print(
            f"  {first} {state.move_str(reply)}: Black {'wins' if wins else 'does not win'} "
            f"({search.nodes - before} nodes)",
            flush=True,
        )
        state.pop()
        if not wins:
            return False
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="solve the start of an n x n board")
    parser.add_argument("n", type=int)
    parser.add_argument("k", type=int)
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--table-bits", type=int, default=TABLE_BITS)
    parser.add_argument("--chunk", type=int, default=None, help="nodes between progress lines")
    parser.add_argument("--sym-empty", type=int, default=0, help="symmetry from this many empty")
    parser.add_argument("--win-only", action="store_true", help="only ask whether Black wins")
    parser.add_argument("--line", action="store_true", help="and a principal line of the win")
    parser.add_argument("--first", default=None, help="only these first moves (comma list)")
    parser.add_argument(
        "--replies", action="store_true", help="prove each reply to the first move on its own"
    )
    parser.add_argument("--reply", default=None, help="with --replies: only these (comma list)")
    parser.add_argument(
        "--replies-only", action="store_true", help="with --replies: skip the whole solve after"
    )
    parser.add_argument("--table", type=Path, help="resume from this file and save to it")
    parser.add_argument("--every", type=float, default=600, help="seconds between table saves")
    args = parser.parse_args(argv)
    if args.table is not None and args.chunk is None:
        parser.error("--table needs --chunk: the table is saved between chunks")
    started, cpu = time.monotonic(), time.process_time()
    search = FastSearch(get_board(args.n, args.k), args.table_bits, args.sym_empty)
    checkpoint = None
    if args.table is not None:
        if args.table.exists():
            try:
                load_table(search, args.table)
            except ValueError as error:
                parser.error(str(error))
            print(f"resumed from {args.table}: {search.nodes} nodes", flush=True)
        saved = time.monotonic()

        def checkpoint() -> None:
            nonlocal saved
            if time.monotonic() - saved >= args.every:
                save_table(search, args.table)
                saved = time.monotonic()
                print(f"  table saved to {args.table} at {search.nodes} nodes", flush=True)

    try:
        solve(args, search, checkpoint, started, cpu)
    finally:
        if args.table is not None:
            save_table(search, args.table)


def solve(
    args: argparse.Namespace,
    search: FastSearch,
    checkpoint: Callable[[], None] | None,
    started: float,
    cpu: float,
) -> None:
    """The run the command line asks for (see :func:`main`)."""
    if args.replies and args.first:
        only = None if args.reply is None else set(args.reply.split(","))
        for first in args.first.split(","):
            prove_replies(search, args.n, args.k, first, args.chunk, only, checkpoint)
        if args.replies_only:
            return
    limit = None if args.minutes is None else 60 * args.minutes
    values, nodes = solve_start(
        args.n,
        args.k,
        limit,
        progress=True,
        table_bits=args.table_bits,
        exact=not args.win_only,
        chunk=args.chunk,
        search=search,
        firsts=None if args.first is None else args.first.split(","),
        checkpoint=checkpoint,
    )
    best = max(values.values(), key=["loss", "no win", "draw", "win"].index)
    print(
        f"{args.n}x{args.n} k={args.k}: {best} for Black; first moves: {values}; "
        f"{nodes} nodes, {time.process_time() - cpu:.0f} s CPU, "
        f"{time.monotonic() - started:.0f} s wall",
        flush=True,
    )
    if args.line and best == "win":
        state = get_game("slime-moku", size=args.n, k=args.k).new_state()
        first = next(move for move, word in values.items() if word == "win")
        state.push(state.parse_move(first))
        line = [first, *winning_line(search, state, winner=1)]
        print(f"principal line: {' '.join(line)}")


if __name__ == "__main__":
    main()
