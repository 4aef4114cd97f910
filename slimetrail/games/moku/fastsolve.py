"""A compiled exact solver for Slime-Moku boards up to 7x7: the search of
:mod:`slimetrail.games.moku.solver` (alpha-beta over win/draw/loss, one ply of row-test
look-ahead, fewest safe replies first) on 64-bit words under numba.

A 7x7 board with its spare column is 56 bits, so a side's stones are one ``uint64``.  The
transposition table is a fixed array of slots (always replaced) holding both stone words and
the slime of the least of the node's eight images under the board's symmetries, so a hit is
an exact match up to symmetry.  Run it from the command line::

    python -m slimetrail.games.moku.fastsolve 6 4 [--minutes M]
"""

from __future__ import annotations

import argparse
import contextlib
import time

import numba as nb
import numpy as np

from slimetrail.compiled import cttz, now, popcount
from slimetrail.core.game import GameError, GameOptionError, SolveTimeout, State
from slimetrail.games.moku.board import MokuBoard, get_board
from slimetrail.games.moku.solver import symmetries

U0, U1 = np.uint64(0), np.uint64(1)
MAX_BITS = 64
EXACT, LOWER, UPPER = 0, 1, 2
TABLE_BITS = 22  # 4M slots, 80 MB
CLOCK_EVERY = 4095
HISTORY_MAX = (1 << 32) - 1
S_NODES, S_ABORT, S_LIMIT = 0, 1, 2
# Where the nodes go: nodes per ply, and at cut nodes the rank of the move that cut.
S_PLY, S_CUT = 3, 3 + MAX_BITS
STATS = 3 + 2 * MAX_BITS
WORDS = {1: "win", 0: "draw", -1: "loss"}


def geometry(board: MokuBoard) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The neighbour masks, the four line masks through every cell and the four shifts."""
    size = board.n * board.width
    if size > MAX_BITS:
        raise GameOptionError(
            f"the compiled slime-moku solver takes boards up to 7x7, not {board.n}"
        )
    neighbours = np.array(board.neighbours, dtype=np.uint64)
    lines = np.array(board.lines, dtype=np.uint64).reshape(size, 4)
    shifts = np.array(board.shifts, dtype=np.uint64)
    return neighbours, lines, shifts


def symmetry_tables(board: MokuBoard) -> tuple[np.ndarray, np.ndarray]:
    """Per symmetry of the square: row r's bit pattern -> its image bitboard, and the cell
    maps (rows 0-7 the images, rows 8-15 the inverses)."""
    found = symmetries(board)
    rowmaps = np.array([rows for _, _, rows in found], dtype=np.uint64)
    perms = np.array([perm for perm, _, _ in found] + [inv for _, inv, _ in found], dtype=np.int64)
    return rowmaps, perms


@nb.njit(cache=True)
def canonical(written, theirs, slime, rowmaps, perms):
    """The least image of the node under the eight symmetries and the symmetry giving it
    (the rules ignore the start cell once play is under way)."""
    n = rowmaps.shape[1]
    width = np.uint64(n + 1)
    row_mask = np.uint64((1 << n) - 1)
    best_m, best_t, best_s, best_sym = U0, U0, np.int64(-1), 0
    for sym in range(rowmaps.shape[0]):
        m = U0
        t = U0
        for r in range(n):
            shift = np.uint64(r) * width
            m |= rowmaps[sym, r, np.int64((written >> shift) & row_mask)]
            t |= rowmaps[sym, r, np.int64((theirs >> shift) & row_mask)]
        c = perms[sym, slime]
        if (
            best_s < 0
            or m < best_m
            or (m == best_m and (t < best_t or (t == best_t and c < best_s)))
        ):
            best_m, best_t, best_s, best_sym = m, t, c, sym
    return best_m, best_t, best_s, best_sym


@nb.njit(cache=True, inline="always")
def bit(i):
    return U1 << np.uint64(i)


@nb.njit(cache=True)
def has_window(free, shifts, k):
    """Whether some k cells in a row all lie in ``free`` (a side's cells that the other side
    has not taken): without one that side can never win."""
    for d in range(4):
        s = shifts[d]
        pairs = free & (free >> s)
        fours = pairs & (pairs >> (s + s))
        if k == 5:
            fours &= free >> (s * np.uint64(4))
        if fours != U0:
            return True
    return False


@nb.njit(cache=True)
def makes_row(bits, cell, lines, shifts, k):
    """Whether ``bits`` holds k in a row through ``cell``."""
    for d in range(4):
        through = bits & lines[cell, d]
        s = shifts[d]
        pairs = through & (through >> s)
        fours = pairs & (pairs >> (s + s))
        if k == 5:
            fours &= through >> (s * np.uint64(4))
        if fours != U0:
            return True
    return False


@nb.njit(cache=True, inline="always")
def slot_of(mine, theirs, slime, mask):
    h = mine * np.uint64(0x9E3779B97F4A7C15)
    h ^= theirs * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= np.uint64(slime + 1) * np.uint64(0x165667B19E3779F9)
    h ^= h >> np.uint64(31)
    return np.int64(h & mask)


@nb.njit(cache=True)
def value(
    mine,
    theirs,
    empty,
    slime,
    alpha,
    beta,
    k,
    neighbours,
    lines,
    shifts,
    t_mine,
    t_theirs,
    t_info,
    stats,
    deadline,
    orders,
    ply,
    rowmaps,
    perms,
    sym_empty,
    history,
):
    """The exact value for the mover (+1, 0, -1) in the window (alpha, beta); fail-soft."""
    stats[S_NODES] += 1
    stats[S_PLY + ply] += 1
    started = stats[S_NODES]
    if stats[S_NODES] > stats[S_LIMIT] or (
        deadline > 0.0 and (stats[S_NODES] & CLOCK_EVERY) == 0 and now() > deadline
    ):
        stats[S_ABORT] = 1
    if stats[S_ABORT] != 0:
        return 0
    written = mine | bit(slime)
    if makes_row(written, slime, lines, shifts, k):
        return 1
    if (empty & (empty - U1)) == U0:
        return 0  # the one move left fills the board
    # A side with no open window left cannot win: bounds that often end the search here.
    hi = 1 if has_window(empty | written, shifts, k) else 0
    lo = -1 if has_window(empty | theirs, shifts, k) else 0
    if hi == lo:
        return 0
    if hi <= alpha:
        return hi
    if lo >= beta:
        return lo
    alpha = max(alpha, lo)
    beta = min(beta, hi)
    if popcount(empty) >= sym_empty:
        c_mine, c_theirs, c_slime, sym = canonical(written, theirs, slime, rowmaps, perms)
    else:
        # Deep in the tree the images of a node are seldom met: the identity key is cheaper.
        c_mine, c_theirs, c_slime, sym = written, theirs, slime, 0
    slot = slot_of(c_mine, c_theirs, c_slime, np.uint64(t_info.shape[0] - 1)) & ~np.int64(1)
    first = -1
    for probe in (slot, slot + 1):
        info = t_info[probe]
        if (
            info != 0
            and t_mine[probe] == c_mine
            and t_theirs[probe] == c_theirs
            and ((info >> 16) & 0xFF) == c_slime
        ):
            stored = np.int64(info & 0xFF) - 1
            flag = (info >> 8) & 0xFF
            if (
                flag == EXACT
                or (flag == LOWER and stored >= beta)
                or (flag == UPPER and stored <= alpha)
            ):
                return stored
            first = perms[sym + 8, np.int64((info >> 24) & 0xFF)]  # kept in the image's cells
            break
    steps = neighbours[slime] & empty
    moves = steps if steps != U0 else empty
    # This node's rows of the scratch arrays (one row per ply: no allocation in the search).
    order = orders[ply]
    safes = orders[ply + MAX_BITS]
    count = 0
    rest = moves
    while rest != U0:
        move = np.int64(cttz(rest))
        rest &= rest - U1
        if makes_row(theirs | bit(move), move, lines, shifts, k):
            continue  # the opponent would write there and win
        after = empty & ~bit(move)
        replies = neighbours[move] & after
        if replies == U0:
            replies = after
        safe = 0
        if (after & (after - U1)) == U0:
            safe = 1  # the one reply fills the board: no stone is written there
        else:
            while replies != U0:
                reply = np.int64(cttz(replies))
                replies &= replies - U1
                if not makes_row(written | bit(reply), reply, lines, shifts, k):
                    safe += 1
        if safe == 0:
            store(
                t_mine,
                t_theirs,
                t_info,
                slot,
                c_mine,
                c_theirs,
                c_slime,
                1,
                EXACT,
                perms[sym, move],
                1,
            )
            return 1
        # Insertion by fewest safe replies, ties by the history of cuts (the table's move
        # first).
        key = -1 if move == first else (safe << 32) - min(history[ply & 1, move], HISTORY_MAX)
        j = count
        while j > 0 and safes[j - 1] > key:
            safes[j] = safes[j - 1]
            order[j] = order[j - 1]
            j -= 1
        safes[j] = key
        order[j] = move
        count += 1
    if count == 0:
        store(t_mine, t_theirs, t_info, slot, c_mine, c_theirs, c_slime, -1, EXACT, 0, 1)
        return -1
    best, best_move, start_alpha = -2, order[0], alpha
    for i in range(count):
        move = order[i]
        v = -value(
            theirs,
            written,
            empty & ~bit(move),
            move,
            -beta,
            -alpha,
            k,
            neighbours,
            lines,
            shifts,
            t_mine,
            t_theirs,
            t_info,
            stats,
            deadline,
            orders,
            ply + 1,
            rowmaps,
            perms,
            sym_empty,
            history,
        )
        if stats[S_ABORT] != 0:
            return 0
        if v > best:
            best, best_move = v, move
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    stats[S_CUT + i] += 1
                    left = popcount(empty)
                    history[ply & 1, move] += np.int64(1) << min(np.int64(left), np.int64(24))
                    break
    best = max(lo, min(hi, best))  # a bound of the children, inside what the windows allow
    flag = UPPER if best <= start_alpha else (LOWER if best >= beta else EXACT)
    work = stats[S_NODES] - started + 1
    store(
        t_mine,
        t_theirs,
        t_info,
        slot,
        c_mine,
        c_theirs,
        c_slime,
        best,
        flag,
        perms[sym, best_move],
        work,
    )
    return best


@nb.njit(cache=True)
def store(t_mine, t_theirs, t_info, slot, written, theirs, slime, v, flag, move, work):
    """Keep a result in the node's bucket of two slots: over its own older entry if there is
    one, else over the entry whose subtree took fewer nodes (the bigger proofs stay)."""
    size = np.int64(0)
    while work > 1 and size < 63:
        work >>= 1
        size += 1
    target = -1
    for probe in (slot, slot + 1):
        if (
            target < 0
            and t_info[probe] != 0
            and t_mine[probe] == written
            and t_theirs[probe] == theirs
            and ((t_info[probe] >> 16) & 0xFF) == slime
        ):
            target = probe
    if target < 0:
        target = slot + 1 if (t_info[slot + 1] >> 33) < (t_info[slot] >> 33) else slot
    t_mine[target] = written
    t_theirs[target] = theirs
    t_info[target] = (v + 1) | (flag << 8) | (slime << 16) | (move << 24) | (1 << 32) | (size << 33)


class FastSearch:
    """One board's compiled search and its table (kept between calls)."""

    def __init__(self, board: MokuBoard, table_bits: int = TABLE_BITS, sym_empty: int = 0) -> None:
        self.board = board
        self.sym_empty = np.int64(sym_empty)  # nodes with fewer empty cells skip symmetry
        self.neighbours, self.lines, self.shifts = geometry(board)
        self.rowmaps, self.perms = symmetry_tables(board)
        self.t_mine = np.zeros(1 << table_bits, dtype=np.uint64)
        self.t_theirs = np.zeros(1 << table_bits, dtype=np.uint64)
        self.t_info = np.zeros(1 << table_bits, dtype=np.int64)
        self.stats = np.zeros(STATS, dtype=np.int64)
        self.orders = np.zeros((2 * MAX_BITS, MAX_BITS), dtype=np.int64)
        # Per side (ply parity) and cell: how much cutting that move has done.
        self.history = np.zeros((2, MAX_BITS), dtype=np.int64)

    @property
    def nodes(self) -> int:
        return int(self.stats[S_NODES])

    def value(
        self,
        mine: int,
        theirs: int,
        empty: int,
        slime: int,
        time_limit: float | None = None,
        *,
        window: tuple[int, int] = (-1, 1),
        budget: int | None = None,
    ) -> int:
        """The value for the mover of the node (``mine`` without the slime's cell), exact
        inside ``window`` (alpha, beta), else a bound on its side (fail-soft).  Raises
        :class:`SolveTimeout` after ``time_limit`` seconds or ``budget`` more nodes; the
        table keeps what was learnt, so the same call again goes on from there."""
        self.stats[S_ABORT] = 0
        self.stats[S_LIMIT] = 1 << 62 if budget is None else self.stats[S_NODES] + budget
        deadline = 0.0 if time_limit is None else time.monotonic() + time_limit
        v = value(
            np.uint64(mine),
            np.uint64(theirs),
            np.uint64(empty),
            np.int64(slime),
            np.int64(window[0]),
            np.int64(window[1]),
            self.board.k,
            self.neighbours,
            self.lines,
            self.shifts,
            self.t_mine,
            self.t_theirs,
            self.t_info,
            self.stats,
            deadline,
            self.orders,
            0,
            self.rowmaps,
            self.perms,
            self.sym_empty,
            self.history,
        )
        if self.stats[S_ABORT]:
            raise SolveTimeout("slime-moku fast solve ran out of time")
        return int(v)


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
) -> tuple[dict[str, str], int]:
    """The value of every first move of Black from the start of the n x n board (``win``,
    ``draw`` or ``loss`` for Black; ``no win`` for a move that does not win when not
    ``exact``), and the nodes searched.  First moves that a symmetry of the board fixing the
    start maps onto each other are searched once.  Each first move is first asked only
    whether Black wins (a null window), then, if not and ``exact``, whether White does.
    ``chunk``: search in slices of that many nodes, printing progress between them;
    ``sym_empty``: nodes with fewer empty cells are keyed as they are, not by symmetry;
    ``search``: the search (and table) to use instead of a new one; ``firsts``: only these
    first moves (and their images) are solved."""
    from slimetrail.core.registry import get_game

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
) -> bool:
    """Whether Black wins after ``first``, asked of White's replies one at a time (replies
    whose positions are images of each other once; only those named in ``only`` if given,
    so that one long solve can be split over processes), each printed as it is decided: the
    proven part of an unfinished solve.  Stops at the first reply Black does not beat."""
    from slimetrail.core.registry import get_game

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
        print(
            f"  {first} {state.move_str(reply)}: Black {'wins' if wins else 'does not win'} "
            f"({search.nodes - before} nodes)",
            flush=True,
        )
        state.pop()
        if not wins:
            return False
    return True


def main() -> None:
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
    args = parser.parse_args()
    started, cpu = time.monotonic(), time.process_time()
    search = FastSearch(get_board(args.n, args.k), args.table_bits, args.sym_empty)
    if args.replies and args.first:
        only = None if args.reply is None else set(args.reply.split(","))
        for first in args.first.split(","):
            prove_replies(search, args.n, args.k, first, args.chunk, only)
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
    )
    best = max(values.values(), key=["loss", "no win", "draw", "win"].index)
    print(
        f"{args.n}x{args.n} k={args.k}: {best} for Black; first moves: {values}; "
        f"{nodes} nodes, {time.process_time() - cpu:.0f} s CPU, "
        f"{time.monotonic() - started:.0f} s wall",
        flush=True,
    )
    if args.line and best == "win":
        from slimetrail.core.registry import get_game

        state = get_game("slime-moku", size=args.n, k=args.k).new_state()
        first = next(move for move, word in values.items() if word == "win")
        state.push(state.parse_move(first))
        line = [first, *winning_line(search, state, winner=1)]
        print(f"principal line: {' '.join(line)}")


if __name__ == "__main__":
    main()
