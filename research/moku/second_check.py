"""A second method for the Slime-Moku proofs of :mod:`research.moku.fastsolve`: the top
level's exact endgame search (:mod:`slimetrail.games.moku.endgame`) asked whether the side
to move wins a position.  It shares no code with the 64-bit solver that made the proofs: a
padded mailbox and counts of stones per window instead of bitboards, Zobrist keys instead
of the solver's packed keys, no board symmetries, its own move order.  Run it from the
repository root::

    python -m research.moku.second_check 7 4 c3 d2 [--table-bits 26] [--chunk 200000000]

The moves are played from the start (the slime's destinations); the question is asked of
the side to move then: ``win`` (by default: is its value at least 1?) or ``loss`` (at most
-1?).  The search runs in chunks of ``--chunk`` nodes, each resumed from the table the
last one filled, with a progress line between them.  With ``--table FILE`` the table is
saved to FILE every ``--every`` seconds between chunks and when the run ends, and a run
given the same FILE starts from it (a long question spans several runs; another question
on the same board reuses the proven positions).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from slimetrail.core.checkpoint import read_checkpoint, write_checkpoint
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game
from slimetrail.games.moku.endgame import Table, negamax, new_table, stones_key
from slimetrail.games.moku.game import MokuState
from slimetrail.games.moku.mailbox import BLACK, geometry, mailbox, window_counts

NO_DEADLINE = 1e18
# What a saved table holds: the search's arrays, its keys, and the question last asked of it
# with the nodes spent on it so far (so that a resumed question counts on).
TABLE_ARRAYS = ("keys", "low", "high", "best", "size", "stone_keys", "slime_keys", "history")


def table_meta(n: int, k: int, bits: int) -> str:
    return f"slime-moku endgame {n}x{n} k={k} table-bits={bits}"


def save_table(table: Table, path: Path, n: int, k: int, question: str, nodes: int) -> None:
    """Write ``table`` to ``path`` (whole, or not at all) with the question and its nodes."""
    arrays = {name: getattr(table, name) for name in TABLE_ARRAYS}
    arrays.update(question=np.array(question), nodes=np.array(nodes, np.int64))
    write_checkpoint(path, table_meta(n, k, table.keys.size.bit_length() - 1), arrays)


def load_table(path: Path, n: int, k: int, bits: int) -> tuple[Table, str, int]:
    """The table saved in ``path``, the question it was last asked and the nodes spent on
    it; a file of another board or table size is refused by name (GameError)."""
    arrays = read_checkpoint(path, table_meta(n, k, bits), (*TABLE_ARRAYS, "question", "nodes"))
    table = Table(**{name: arrays[name] for name in TABLE_ARRAYS})
    return table, str(arrays["question"]), int(arrays["nodes"])


def position(n: int, k: int, moves: list[str]) -> MokuState:
    """The position after ``moves`` on n x n with rows of k; a bad board, a bad move or a
    finished game is refused with its reason (SystemExit)."""
    try:
        state = get_game("slime-moku", size=str(n), k=str(k)).new_state()
    except GameError as error:
        raise SystemExit(str(error)) from None
    for ply, text in enumerate(moves, 1):
        try:
            state.push(state.parse_move(text))
        except GameError as error:
            raise SystemExit(f"move {ply} ({text}): {error}") from None
    if state.is_over():
        raise SystemExit(f"the game is over after {' '.join(moves)}: nothing to ask")
    assert isinstance(state, MokuState)
    return state


def check(
    state: MokuState,
    claim: str,
    table: Table,
    chunk: int,
    report: Callable[[str], None] = print,
    after_chunk: Callable[[int], None] | None = None,
) -> tuple[bool, int, float]:
    """Whether the side to move ``claim``s (``win``: value >= 1; ``loss``: value <= -1), the
    nodes searched and the seconds taken, with ``table`` (a table of the board's, empty or
    from earlier questions).  ``after_chunk`` is given the nodes so far after each chunk."""
    n, k = state.game.size, state.game.k
    geo = geometry(n, k)
    cells, slime = mailbox(state)
    counts, gaps = window_counts(cells, geo, k)
    key = stones_key(cells, table.stone_keys)
    empties = state.empty.bit_count()
    moves = np.empty((empties + 2, cells.shape[0]), np.int64)
    scores = np.empty((empties + 2, cells.shape[0]), np.int64)
    alpha, beta = (0, 1) if claim == "win" else (-1, 0)
    started, total = time.perf_counter(), 0
    while True:
        budget = np.array([chunk, 0], np.int64)
        value = negamax(
            cells,
            np.int64(slime),
            np.int64(state.to_move),
            np.int64(empties),
            np.int64(alpha),
            np.int64(beta),
            key,
            np.int64(0),
            geo.steps,
            np.int64(k),
            geo.window_cells,
            geo.cell_windows,
            counts,
            gaps,
            table.keys,
            table.low,
            table.high,
            table.best,
            table.size,
            table.stone_keys,
            table.slime_keys,
            table.history,
            moves,
            scores,
            budget,
            NO_DEADLINE,
        )
        total += chunk - int(budget[0])
        seconds = time.perf_counter() - started
        if not budget[1]:
            holds = value >= 1 if claim == "win" else value <= -1
            return holds, total, seconds
        report(f"  {total:,} nodes, {seconds:.0f} s, {total / seconds:,.0f} a second: not settled")
        if after_chunk is not None:
            after_chunk(total)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int)
    parser.add_argument("k", type=int)
    parser.add_argument("moves", nargs="*", help="played from the start")
    parser.add_argument("--claim", choices=("win", "loss"), default="win")
    parser.add_argument("--table-bits", type=int, default=26)
    parser.add_argument("--chunk", type=int, default=200_000_000)
    parser.add_argument("--table", type=Path, help="resume from this file and save to it")
    parser.add_argument("--every", type=float, default=600, help="seconds between table saves")
    args = parser.parse_args(argv)
    if not 1 <= args.table_bits <= 34:
        parser.error(f"--table-bits {args.table_bits}: from 1 to 34")
    state = position(args.n, args.k, args.moves)
    side = "Black" if state.to_move == BLACK else "White"
    line = " ".join(args.moves) or "the start"
    question = f"{args.n}x{args.n} k={args.k} after {line}: does {side} {args.claim}?"
    print(question, flush=True)
    before = 0
    if args.table is not None and args.table.exists():
        try:
            table, asked, spent = load_table(args.table, args.n, args.k, args.table_bits)
        except GameError as error:
            parser.error(str(error))
        before = spent if asked == question else 0
        print(f"resumed from {args.table} ({asked}: {spent:,} nodes)", flush=True)
    else:
        table = new_table(args.n, args.k, args.table_bits)
    saved = time.monotonic()
    done = before

    def after_chunk(nodes: int) -> None:
        nonlocal saved, done
        done = before + nodes
        if args.table is not None and time.monotonic() - saved >= args.every:
            save_table(table, args.table, args.n, args.k, question, done)
            saved = time.monotonic()
            print(f"  table saved to {args.table} at {done:,} nodes", flush=True)

    try:
        holds, nodes, seconds = check(
            state, args.claim, table, args.chunk, lambda s: print(s, flush=True), after_chunk
        )
        done = before + nodes
        # The answer first: a last save that fails (a full disk) must not take it along.
        print(
            f"{'yes' if holds else 'no'}: {done:,} nodes ({nodes:,} in this run, "
            f"{seconds:.1f} s, {nodes / seconds:,.0f} a second)",
            flush=True,
        )
    finally:
        if args.table is not None:
            save_table(table, args.table, args.n, args.k, question, done)


if __name__ == "__main__":
    main()
