"""The exact solver of Slime-Moku boards up to 7x7 (``Game.exact_solver()``): alpha-beta over
win/draw/loss on 64-bit words under numba.

A node is ``(mine, theirs, empty, slime)`` from the mover's side; its value is +1 (the mover
wins), 0 (draw) or -1.  Two facts of the rules keep the tree small:

* the mover's stone lands on the slime's cell whatever the move, so one row test decides
  whether every move wins at once;
* a move to a cell that completes the opponent's row loses at once (the opponent writes
  there), and a move whose every reply lands on a cell completing the mover's row wins at
  once: one ply of look-ahead with the row test settles both, and orders the other moves
  by how few safe replies they leave.

A 7x7 board with its spare column is 56 bits, so a side's stones are one ``uint64``.  The
transposition table is a fixed array of slots holding both stone words and the slime of the
least of the node's eight images under the board's symmetries (the rules ignore the start
cell once play is under way), so a hit is an exact match up to symmetry.  The research tools
that solved the starts of the small boards with it are in ``research/moku/``.
"""

from __future__ import annotations

import time
from typing import cast

import numba as nb
import numpy as np

from slimetrail.compiled import cttz, now, popcount
from slimetrail.core.game import (
    Game,
    GameError,
    GameOptionError,
    Move,
    SolveResult,
    SolveTimeout,
    State,
)
from slimetrail.core.loading import KernelLoad
from slimetrail.games.moku.board import MokuBoard

U0, U1 = np.uint64(0), np.uint64(1)
MAX_BITS = 64
EXACT, LOWER, UPPER = 0, 1, 2
TABLE_BITS = 22  # 4M slots, 96 MB: the research solves of whole boards
SOLVE_TABLE_BITS = 20  # 1M slots, 24 MB: the exact solver's table (one board at a time)
MAX_SIZE = 7  # the largest board whose cells fit one 64-bit word
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


Symmetry = tuple[list[int], list[int], list[list[int]]]


def symmetries(board: MokuBoard) -> list[Symmetry]:
    """The eight symmetries of the square board, each as (cell map, inverse map, per-row
    tables: row r's bit pattern -> the bitboard of its image)."""
    n, size = board.n, board.n * board.width
    out = []
    for flips in range(8):
        perm, inverse = [-1] * size, [-1] * size
        for index in board.cells():
            col, row = board.coords(index)
            if flips & 1:
                col = n - 1 - col
            if flips & 2:
                row = n - 1 - row
            if flips & 4:
                col, row = row, col
            perm[index] = board.index(col, row)
            inverse[perm[index]] = index
        rows = []
        for row in range(n):
            line = [board.index(col, row) for col in range(n)]
            rows.append(
                [
                    sum(1 << perm[line[c]] for c in range(n) if pattern >> c & 1)
                    for pattern in range(1 << n)
                ]
            )
        out.append((perm, inverse, rows))
    return out


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


class MokuSolver:
    """The exact solver of Slime-Moku up to 7x7 (``ExactSolver``).  One board's table is kept
    between solves (its entries stay true), replaced when a solve asks for another board."""

    def __init__(self) -> None:
        self.search: FastSearch | None = None

    def can_solve(self, game: Game) -> bool:
        board = getattr(game, "board", None)
        return game.id == "slime-moku" and isinstance(board, MokuBoard) and board.n <= MAX_SIZE

    def search_for(self, board: MokuBoard) -> FastSearch:
        if self.search is None or self.search.board is not board:
            self.search = FastSearch(board, SOLVE_TABLE_BITS)
        return self.search

    def solve(
        self, state: State, *, distance: bool = False, time_limit: float | None = None
    ) -> SolveResult:
        """The value of ``state`` for the side to move and of each of its moves."""
        from slimetrail.games.moku.game import MokuState

        if not isinstance(state, MokuState) or not self.can_solve(state.game):
            raise GameError(
                f"{state.game.spec}: the Slime-Moku solver takes boards up to {MAX_SIZE}x{MAX_SIZE}"
            )
        if distance:
            raise GameError("the Slime-Moku solver proves values, not game lengths")
        started = time.monotonic()
        deadline = None if time_limit is None else started + time_limit
        to_move = state.to_move
        outcome = state.outcome()
        if outcome is not None:
            return SolveResult(
                outcome.for_player(to_move), to_move, over=True, seconds=time.monotonic() - started
            )
        search = self.search_for(state.game.board)
        before = search.nodes
        move_values: dict[Move, str] = {}
        work = state.copy()
        for move in work.legal_moves():
            work.push(move)
            after = work.outcome()
            if after is not None:
                v = 1 if after.winner == to_move else 0 if after.is_draw else -1
            else:
                # The child is searched from the opponent's side: its mover's stones first.
                mine, theirs = (
                    (work.black, work.white) if to_move == 2 else (work.white, work.black)
                )
                left = None if deadline is None else max(0.001, deadline - time.monotonic())
                v = -search.value(mine, theirs, work.empty, work.slime, left)
            work.pop()
            move_values[move] = WORDS[v]
        best = max(move_values.values(), key=["loss", "draw", "win"].index)
        return SolveResult(
            best,
            to_move,
            winning_moves=[m for m, v in move_values.items() if v == "win"],
            drawing_moves=[m for m, v in move_values.items() if v == "draw"],
            move_values=move_values,
            nodes=search.nodes - before,
            seconds=time.monotonic() - started,
        )


SOLVER = MokuSolver()


def compile_search() -> None:
    """Compile (or load from numba's cache) the search now, on the 4x4 start (k=4) with a
    small table: a server's first solve no longer pays for the compile."""
    from slimetrail.core.registry import get_game
    from slimetrail.games.moku.game import MokuState

    state = cast(MokuState, get_game("slime-moku", size=4, k=4).new_state())
    FastSearch(state.game.board, table_bits=12).value(
        state.black, state.white, state.empty, state.slime
    )


SEARCH = KernelLoad(compile_search, "Slime-Moku solver")
