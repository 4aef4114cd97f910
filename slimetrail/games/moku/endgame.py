"""Exact endgames of the Slime-Moku boards the 64-bit solver does not reach (8x8 and up).

Why: on 9x9 and 15x15 the top level lost its games to the plain UCT by quiet steps 20-30
empty cells before the end, where a step loses to a sequence the threat passes do not see
(it is not a run of threats) and the tree's playouts judge badly (they value a drawn
position by who blunders first).  Late in a game the slime's steps are few, so an exact
search over win, draw and loss with a transposition table settles such positions: with 28
empty cells in a lost 9x9 game (bench/RESULTS.md, session 34) it proves which of Black's four
steps lose, where the threat search without a table ran out of millions of nodes.

The search is alpha-beta over the values -1, 0, 1 on the tree's padded mailbox and window
counts (:mod:`.mailbox`): the mover's stone lands on the slime's cell whatever the move, so
one look-up decides a win on entering a node; a step onto the opponent's gap loses at once.
The table keys a position by Zobrist keys of its stones and the slime's cell (the side to
move follows from the number of stones); it holds bounds and the best move, two slots a
bucket.  Its reference is the 64-bit solver of :mod:`.solver` (7x7 and smaller) and a plain
search over the game's own rules, which the tests compare it with.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, cast

import numba as nb
import numpy as np

from slimetrail.compiled import now
from slimetrail.games.moku.mailbox import (
    BLACK,
    EMPTY,
    SLIME,
    WHITE,
    count_windows,
    geometry,
    lift,
    mailbox,
    neighbours_or_all,
    place,
)

if TYPE_CHECKING:
    from slimetrail.games.moku.game import MokuState

TABLE_BITS = 21  # 2M slots, 24 MB a board: kept from move to move (the positions recur)
CLOCK_EVERY = 4095  # nodes between two looks at the clock (a mask)
FIRST_ROUND = 4096  # nodes a question gets in the root's first round (then 4x a round)


@dataclass
class Table:
    """The transposition table of one board, in buckets of two slots: the position's key,
    lower and upper bound of its value for the side to move, the best move found (a mailbox
    cell) and the size of the search that found them (log2 of its nodes)."""

    keys: np.ndarray
    low: np.ndarray
    high: np.ndarray
    best: np.ndarray
    size: np.ndarray
    stone_keys: np.ndarray  # [colour, mailbox cell]
    slime_keys: np.ndarray  # [mailbox cell]
    history: np.ndarray  # [colour, mailbox cell]: cut-offs, for the move order (a root's own)


@cache
def board_table(n: int, k: int, bits: int = TABLE_BITS) -> Table:
    """One table a board (its values depend on n and k), made on first use."""
    return new_table(n, k, bits)


def new_table(n: int, k: int, bits: int = TABLE_BITS) -> Table:
    """An empty table for the n x n board with rows of k (the same keys every time)."""
    cells = len(geometry(n, k).board_of)
    rng = np.random.default_rng(n * 100 + k)
    size = 1 << bits
    return Table(
        np.zeros(size, np.uint64),
        np.zeros(size, np.int8),
        np.zeros(size, np.int8),
        np.full(size, -1, np.int16),
        np.zeros(size, np.int8),
        rng.integers(1, 1 << 63, size=(3, cells), dtype=np.uint64),
        rng.integers(1, 1 << 63, size=cells, dtype=np.uint64),
        np.zeros((3, cells), np.int64),
    )


# Cached: every call passes its integers as int64, never a literal, which would compile one
# overload per literal calling each other through symbols that numba's cache does not link
# again on loading (a crash; numba issues 6061 and 6713).
@nb.njit(cache=True)
def negamax(
    cells,
    slime,
    colour,
    empties,
    alpha,
    beta,
    key,
    ply,
    steps,
    k,
    window_cells,
    cell_windows,
    counts,
    gaps,
    t_keys,
    t_low,
    t_high,
    t_best,
    t_size,
    stone_keys,
    slime_keys,
    history,
    moves,
    scores,
    budget,
    deadline,
):
    """The value of the position for ``colour`` to move (``empties``: the empty cells, the
    slime's not counted; ``key``: the Zobrist key of the stones), fail-soft within
    ``(alpha, beta)``.  ``budget[0]`` counts the nodes left and ``budget[1]`` becomes 1 when
    it or the ``deadline`` runs out (the value is then meaningless).  ``moves[ply]`` is this
    node's move list (``scores[ply]`` their order).  The arrays are left as they were."""
    budget[0] -= 1
    entered = budget[0]
    if budget[0] & CLOCK_EVERY == 0 and now() > deadline:
        budget[1] = 1
    if budget[0] <= 0:
        budget[1] = 1
    if budget[1]:
        return 0
    if gaps[colour, slime] > 0:
        return 1  # the stone the mover leaves on the slime's cell makes a row
    if empties == 1:
        return 0  # the slime takes the last cell; nobody made a row
    other = 3 - colour
    full = key ^ slime_keys[slime]
    bucket = full & (t_keys.shape[0] - 2)
    slot = -1
    if t_keys[bucket] == full:
        slot = bucket
    elif t_keys[bucket + 1] == full:
        slot = bucket + 1
    first = -1
    if slot >= 0:
        low, high = t_low[slot], t_high[slot]
        if low == high or low >= beta:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        first = t_best[slot]
    start_alpha = alpha
    place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    mine = key ^ stone_keys[colour, slime]
    listed = neighbours_or_all(cells, slime, steps, moves[ply])
    # Safe steps only (onto the opponent's gap they lose at once), the table's move first,
    # then those that leave the opponent the fewest safe replies (none: a win; the 64-bit
    # solver's order), then by the history of cut-offs.
    count = 0
    for i in range(listed):
        p = moves[ply, i]
        if gaps[other, p] == 0:
            replies, near = 0, 0
            for s in steps:
                q = p + s
                if cells[q] == EMPTY:
                    near += 1
                    if gaps[colour, q] == 0:
                        replies += 1
            if near == 0:
                replies = empties  # no step from there: the opponent's slime goes anywhere
            moves[ply, count] = p
            scores[ply, count] = -(1 << 62) if p == first else (replies << 40) - history[colour, p]
            count += 1
    for i in range(count):
        best_at = i
        for j in range(i + 1, count):
            if scores[ply, j] < scores[ply, best_at]:
                best_at = j
        moves[ply, i], moves[ply, best_at] = moves[ply, best_at], moves[ply, i]
        scores[ply, i], scores[ply, best_at] = scores[ply, best_at], scores[ply, i]
    best = -1
    best_move = -1
    for i in range(count):
        p = moves[ply, i]
        cells[p] = SLIME
        v = -negamax(
            cells,
            p,
            other,
            empties - 1,
            -beta,
            -alpha,
            mine,
            ply + 1,
            steps,
            k,
            window_cells,
            cell_windows,
            counts,
            gaps,
            t_keys,
            t_low,
            t_high,
            t_best,
            t_size,
            stone_keys,
            slime_keys,
            history,
            moves,
            scores,
            budget,
            deadline,
        )
        cells[p] = EMPTY
        if budget[1]:
            break
        if v > best or best_move < 0:
            best, best_move = v, p
        if v > alpha:
            alpha = v
        if alpha >= beta:
            history[colour, p] += 1 << min(empties, 24)
            break
    lift(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    cells[slime] = SLIME
    if budget[1]:
        return 0
    low, high = -1, 1
    if best <= start_alpha:
        high = best
    elif best >= beta:
        low = best
    else:
        low = high = best
    if slot < 0:
        # Over the entry of the two whose search was smaller: the big proofs stay.
        slot = bucket + 1 if t_size[bucket + 1] < t_size[bucket] else bucket
    work, size = entered - budget[0], 0
    while work > 1:
        work >>= 1
        size += 1
    t_keys[slot] = full
    t_size[slot] = size
    t_low[slot] = low
    t_high[slot] = high
    t_best[slot] = best_move
    return best


@nb.njit(cache=True)
def stones_key(cells, stone_keys):
    """The Zobrist key of the stones on the mailbox ``cells`` (the slime's cell not included)."""
    key = np.uint64(0)
    for p in range(cells.shape[0]):
        if cells[p] == BLACK or cells[p] == WHITE:
            key ^= stone_keys[cells[p], p]
    return key


@nb.njit(cache=True, nogil=True)
def root_bounds(
    cells,
    slime,
    colour,
    empties,
    steps,
    k,
    window_cells,
    cell_windows,
    t_keys,
    t_low,
    t_high,
    t_best,
    t_size,
    stone_keys,
    slime_keys,
    history,
    nodes,
    deadline,
    out_moves,
    out_low,
    out_high,
    out_nodes,
):
    """Bounds of the value of each of the mover's moves, for the mover (-1 loss, 0 draw, 1
    win), into ``out_moves``, ``out_low`` and ``out_high``; returns their number.  Null
    windows, the cheap question first: does the move lose, and if not, does it win (a
    winning move ends the search).  The questions go round the moves in rounds of node
    budgets growing fourfold (``FIRST_ROUND`` nodes first), so a move proven in a few
    nodes is not left unasked behind one that needs millions (15x15 games lost wins
    proven in 0.2 s that way).  What the time or the nodes leave unsettled keeps the bounds
    (-1, 1), or (0, 1) once the move is known not to lose.  ``out_nodes[0]``: nodes
    searched."""
    counts = np.zeros((3, window_cells.shape[0]), np.int8)
    gaps = np.zeros((3, cells.shape[0]), np.int16)
    count_windows(cells, window_cells, k, counts, gaps)
    if gaps[colour, slime] > 0 or empties == 1:
        # Every move wins (the stone on the slime's cell makes a row), or draws (the last).
        count = neighbours_or_all(cells, slime, steps, out_moves)
        for i in range(count):
            out_low[i] = out_high[i] = 1 if gaps[colour, slime] > 0 else 0
        return count
    key = stones_key(cells, stone_keys)
    moves = np.empty((empties + 2, cells.shape[0]), np.int64)
    scores = np.empty((empties + 2, cells.shape[0]), np.int64)
    budget = np.array([nodes, 0], np.int64)
    place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    mine = key ^ stone_keys[colour, slime]
    count = neighbours_or_all(cells, slime, steps, out_moves)
    other = 3 - colour
    for i in range(count):
        out_low[i], out_high[i] = -1, 1
        if gaps[other, out_moves[i]] > 0:
            out_high[i] = -1  # onto the opponent's gap
    left = nodes
    round_nodes = np.int64(FIRST_ROUND)
    while left > 0 and not budget[1]:
        unsettled = False
        i = 0
        while i < count and not budget[1]:
            if out_low[i] == out_high[i] or out_low[i] == 1:
                i += 1
                continue
            # 0: does the move lose (value below 0)?  1: does it win (above 0)?  A move found
            # not to lose is asked the second question at once.
            question = 0 if out_low[i] < 0 else 1
            p = out_moves[i]
            given = min(round_nodes, left)
            budget[0] = given
            cells[p] = SLIME
            v = -negamax(
                cells,
                p,
                other,
                empties - 1,
                -question,
                1 - question,
                mine,
                np.int64(1),  # never a literal: see the note above negamax
                steps,
                k,
                window_cells,
                cell_windows,
                counts,
                gaps,
                t_keys,
                t_low,
                t_high,
                t_best,
                t_size,
                stone_keys,
                slime_keys,
                history,
                moves,
                scores,
                budget,
                deadline,
            )
            cells[p] = EMPTY
            left -= given - max(budget[0], 0)
            if budget[1]:
                # Out of this round's nodes: the move waits for the next round (the table
                # keeps what was learnt); out of time or of all the nodes: done.
                if left > 0 and now() <= deadline:
                    budget[1] = 0
                    unsettled = True
                i += 1
                continue
            if v < question:
                out_high[i] = v
            else:
                out_low[i] = v
            if out_low[i] == 1:
                budget[1] = 1  # a win: nothing more to ask
            elif question == 1 or out_low[i] == out_high[i]:
                i += 1
        if not unsettled:
            break
        if round_nodes < left:
            round_nodes *= 4  # (and no further: past the nodes left it could overflow)
    lift(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    cells[slime] = SLIME
    out_nodes[0] = nodes - left
    return count


@dataclass(frozen=True)
class MoveBounds:
    """What the endgame search proved of each move (by board index): the lowest and highest
    value for the side to move it can still have (-1 loss, 0 draw, 1 win)."""

    bounds: dict[int, tuple[int, int]]
    nodes: int

    def winning(self) -> int | None:
        return next((m for m, (low, _) in self.bounds.items() if low == 1), None)

    def losing(self) -> list[int]:
        return [m for m, (_, high) in self.bounds.items() if high == -1]


def move_bounds(
    state: MokuState, seconds: float, nodes: int = 1 << 62, table: Table | None = None
) -> MoveBounds:
    """:func:`root_bounds` on a running game's position, for ``seconds`` or ``nodes``, with
    the board's table (kept from call to call) unless another is given."""
    if state.is_over():
        raise ValueError("the game is over: no move to value")
    geo = geometry(state.game.size, state.game.k)
    cells, slime = mailbox(state)
    moves = np.empty(cells.shape[0], np.int64)
    low = np.empty(cells.shape[0], np.int64)
    high = np.empty(cells.shape[0], np.int64)
    searched = np.zeros(1, np.int64)
    t = table or board_table(state.game.size, state.game.k)
    t.size[:] = 0  # the last move's searches are mostly behind the game now: let them go first
    # The cut-offs counted for other positions (other games in a long-lived process) order
    # this one's moves worse: on 71 late decisions of 1 s games, 122 moves of 142 right with
    # the history cleared at each root, 119 with it carried (bench/RESULTS.md, session 55).
    t.history[:] = 0
    count = root_bounds(
        cells,
        slime,
        state.to_move,
        state.empty.bit_count(),
        geo.steps,
        state.game.k,
        geo.window_cells,
        geo.cell_windows,
        t.keys,
        t.low,
        t.high,
        t.best,
        t.size,
        t.stone_keys,
        t.slime_keys,
        t.history,
        nodes,
        now() + seconds,
        moves,
        low,
        high,
        searched,
    )
    bounds = {geo.board_of[int(moves[i])]: (int(low[i]), int(high[i])) for i in range(count)}
    return MoveBounds(bounds, int(searched[0]))


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels: 1,000 nodes of 6x6, a small table."""
    from slimetrail.core.registry import get_game

    state = cast("MokuState", get_game("slime-moku", size=6, k=4).new_state())
    move_bounds(state, 1.0, nodes=1000, table=board_table(6, 4, bits=10))
