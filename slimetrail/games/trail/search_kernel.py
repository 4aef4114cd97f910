"""Compiled alpha-beta for the big Slime Trail boards (numba), with the trail evaluation.

:mod:`slimetrail.games.trail.eval` stays the readable reference: :func:`evaluate_words`
computes the same value, operation for operation, and the tests compare the two.  The search
is iterative-deepening negamax with principal-variation windows, a transposition table keyed
exactly on (free cells, snail, side), history move ordering, instant answers next to a goal
corner and, under Taylor's rules, the win of the one goal left in reach.  Its scores are
those of :mod:`slimetrail.ai.search` (evaluation x ``EVAL_SCALE``, a win in k plies
``MATE - k``), so a result reads the same way.

Cells are relabelled densely (``row * n + column``, at most 128 cells: every board up to
11x11) and a set of cells is a pair of ``uint64`` words ``(lo, hi)``.  Compiled on first use
(or loaded from numba's cache), not at import.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from slimetrail.ai.search import EVAL_SCALE, MATE, MATE_BOUND
from slimetrail.compiled import now
from slimetrail.core.bits import cells_of
from slimetrail.core.game import GameError
from slimetrail.games.trail.board import get_board
from slimetrail.games.trail.solver.kernel128 import bit, lowest

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailGame, TrailState

MAX_CELLS = 128
MAX_PLY = 160
TABLE_BITS = 19  # transposition table entries (7 words each: 28 MiB), shared by every board
CLOCK_EVERY = 1023  # nodes between two looks at the clock
WIN_NOW, LOST_NOW = 0.99, -0.98  # as in eval.py
INF = MATE + 1
# Taylor's rules with one goal corner left in reach: its owner wins (every step must keep it
# in reach, so the snail ends there), in an unknown number of plies.  Above any evaluation,
# below every mate found.
KNOWN_WIN = MATE_BOUND - 500
# A typed 1: a literal argument would compile a second version of the recursive negamax,
# and numba's cache cannot link the two (a segfault when loaded from the cache).
ROOT_CHILD_PLY = np.int64(1)
EXACT, LOWER, UPPER = 0, 1, 2
U0, U1 = np.uint64(0), np.uint64(1)
# stats slots
S_NODES, S_ABORT = 0, 1


@nb.njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@nb.njit(cache=True, inline="always")
def has(lo, hi, i):
    if i < 64:
        return (lo >> np.uint64(i)) & U1 != U0
    return (hi >> np.uint64(i - 64)) & U1 != U0


@nb.njit(cache=True)
def dilate(lo, hi, nbr):
    """Every cell next to a cell of the set."""
    out_lo, out_hi = U0, U0
    while (lo | hi) != U0:
        i, lo, hi = lowest(lo, hi)
        out_lo |= nbr[i, 0]
        out_hi |= nbr[i, 1]
    return out_lo, out_hi


@nb.njit(cache=True)
def flood(seed_lo, seed_hi, free_lo, free_hi, nbr):
    """The cells reachable from the seed cells through free cells."""
    r_lo, r_hi = seed_lo, seed_hi
    f_lo, f_hi = seed_lo, seed_hi
    while (f_lo | f_hi) != U0:
        g_lo, g_hi = dilate(f_lo, f_hi, nbr)
        f_lo = g_lo & free_lo & ~r_lo
        f_hi = g_hi & free_hi & ~r_hi
        r_lo |= f_lo
        r_hi |= f_hi
    return r_lo, r_hi


@nb.njit(cache=True)
def race_words(free_lo, free_hi, snail, side, nbr, goals):
    """The race for the player ``side + 1`` to move: breadth-first from the snail through
    free non-goal cells, the steps to their goal corner and to the opponent's (-1: a goal
    taken or out of reach) and the cells reached (the snail's among them)."""
    my_goal, their_goal = goals[side], goals[1 - side]
    g1_lo, g1_hi = bit(goals[0])
    g2_lo, g2_hi = bit(goals[1])
    pass_lo = free_lo & ~(g1_lo | g2_lo)
    pass_hi = free_hi & ~(g1_hi | g2_hi)
    my_free, their_free = has(free_lo, free_hi, my_goal), has(free_lo, free_hi, their_goal)
    my_dist, their_dist = -1, -1
    f_lo, f_hi = bit(snail)
    seen_lo, seen_hi = f_lo, f_hi
    depth = 0
    while (f_lo | f_hi) != U0:
        depth += 1
        g_lo, g_hi = dilate(f_lo, f_hi, nbr)
        if my_dist < 0 and my_free and has(g_lo, g_hi, my_goal):
            my_dist = depth
        if their_dist < 0 and their_free and has(g_lo, g_hi, their_goal):
            their_dist = depth
        f_lo = g_lo & pass_lo & ~seen_lo
        f_hi = g_hi & pass_hi & ~seen_hi
        seen_lo |= f_lo
        seen_hi |= f_hi
    return my_dist, their_dist, seen_lo, seen_hi


@nb.njit(cache=True)
def safe_words(st_lo, st_hi, free_lo, free_hi, their_goal, nbr):
    """The steps ``st`` that go neither into the opponent's goal corner nor next to it, while
    that corner is free (a step next to it lets the opponent be stepped in)."""
    if not has(free_lo, free_hi, their_goal):
        return st_lo, st_hi
    t_lo, t_hi = bit(their_goal)
    return st_lo & ~(nbr[their_goal, 0] | t_lo), st_hi & ~(nbr[their_goal, 1] | t_hi)


@nb.njit(cache=True)
def evaluate_words(free_lo, free_hi, snail, side, nbr, goals, taylor):
    """:func:`slimetrail.games.trail.eval.evaluate` for the player ``side + 1`` to move.

    ``free`` excludes the snail's cell; ``goals[p]`` is player ``p + 1``'s goal corner.
    """
    my_goal, their_goal = goals[side], goals[1 - side]
    st_lo, st_hi = nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi
    if has(st_lo, st_hi, my_goal):
        return WIN_NOW
    safe_lo, safe_hi = safe_words(st_lo, st_hi, free_lo, free_hi, their_goal, nbr)
    if (st_lo | st_hi) != U0 and (safe_lo | safe_hi) == U0:
        return LOST_NOW

    my_dist, their_dist, seen_lo, seen_hi = race_words(free_lo, free_hi, snail, side, nbr, goals)
    region = popcount(seen_lo) + popcount(seen_hi) - 1

    if my_dist < 0 and their_dist < 0:
        if taylor:
            return 0.0
        return 0.4 if region % 2 == 1 else -0.4
    mobility = 0.02 * (popcount(safe_lo) + popcount(safe_hi) - 2)
    if my_dist < 0:
        return max(-0.9, -0.6 - 0.02 * their_dist + mobility)
    if their_dist < 0:
        return min(0.9, 0.6 - 0.02 * my_dist + mobility)
    value = 0.1 * (their_dist - my_dist) + mobility
    value += 0.05 if my_dist % 2 == 1 else -0.05
    return max(-0.9, min(0.9, value))


@nb.njit(cache=True, inline="always")
def _slot(lo, hi, snail, side, mask):
    h = lo * np.uint64(0x9E3779B97F4A7C15)
    h ^= hi * np.uint64(0xD6E8FEB86659FD93)
    h ^= np.uint64(snail * 2 + side + 1) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(31)
    return np.int64(h & mask)


@nb.njit(cache=True)
def legal_steps(free_lo, free_hi, snail, nbr, goals, taylor):
    """The snail's legal destinations (Taylor: only cells still joined to a free goal)."""
    st_lo, st_hi = nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi
    if taylor and (st_lo | st_hi) != U0:
        g1_lo, g1_hi = bit(goals[0])
        g2_lo, g2_hi = bit(goals[1])
        seed_lo = (g1_lo | g2_lo) & free_lo
        seed_hi = (g1_hi | g2_hi) & free_hi
        c_lo, c_hi = flood(seed_lo, seed_hi, free_lo, free_hi, nbr)
        st_lo &= c_lo
        st_hi &= c_hi
    return st_lo, st_hi


@nb.njit(cache=True)
def region_words(free_lo, free_hi, snail, nbr, goals):
    """The free cells the snail can still reach, walking through free cells other than the
    goal corners (entering one ends the game): the solver's canonical ``free``."""
    g1_lo, g1_hi = bit(goals[0])
    g2_lo, g2_hi = bit(goals[1])
    pass_lo = free_lo & ~(g1_lo | g2_lo)
    pass_hi = free_hi & ~(g1_hi | g2_hi)
    s_lo, s_hi = bit(snail)
    r_lo, r_hi = flood(s_lo, s_hi, pass_lo, pass_hi, nbr)
    d_lo, d_hi = dilate(r_lo, r_hi, nbr)
    return d_lo & free_lo, d_hi & free_hi


@nb.njit(cache=True)
def goals_in_reach(free_lo, free_hi, snail, nbr, goals):
    """Bit p set if player p + 1's goal corner can be reached from the snail through free
    cells, without walking through a goal corner (entering one ends the game)."""
    d_lo, d_hi = region_words(free_lo, free_hi, snail, nbr, goals)
    return np.int64(has(d_lo, d_hi, goals[0])) | np.int64(has(d_lo, d_hi, goals[1])) << 1


@nb.njit(cache=True)
def negamax(
    free_lo,
    free_hi,
    snail,
    side,
    depth,
    alpha,
    beta,
    ply,
    ctx,
    tt_keys,
    tt_data,
    history,
    stats,
    nbr,
    goals,
    taylor,
    deadline,
):
    """The score of the position for the side to move (``side`` 0 = player 1)."""
    stats[S_NODES] += 1
    if (stats[S_NODES] & CLOCK_EVERY) == 0 and deadline > 0.0 and now() > deadline:
        stats[S_ABORT] = 1
    if stats[S_NODES] >= ctx[0]:
        stats[S_ABORT] = 1
    if stats[S_ABORT] != 0:
        return 0
    st_lo, st_hi = legal_steps(free_lo, free_hi, snail, nbr, goals, taylor)
    if (st_lo | st_hi) == U0:
        return 0 if taylor else -(MATE - ply)
    my_goal, their_goal = goals[side], goals[1 - side]
    if has(st_lo, st_hi, my_goal):
        return MATE - ply - 1
    if taylor:
        reach = goals_in_reach(free_lo, free_hi, snail, nbr, goals)
        mine, theirs = reach >> side & 1, reach >> (1 - side) & 1
        if mine != theirs:
            return KNOWN_WIN if mine else -KNOWN_WIN
    if depth <= 0 or ply >= MAX_PLY:
        value = evaluate_words(free_lo, free_hi, snail, side, nbr, goals, taylor)
        return np.int64(round(value * EVAL_SCALE))

    mask = np.uint64(tt_data.shape[0] - 1)
    slot = _slot(free_lo, free_hi, snail, side, mask)
    tag = np.uint64(ctx[1] << 8 | (snail * 2 + side + 1))
    tt_move = -1
    if tt_keys[slot, 0] == free_lo and tt_keys[slot, 1] == free_hi and tt_keys[slot, 2] == tag:
        data = tt_data[slot]
        e_depth, e_flag, e_move = data[0], data[1], data[3]
        e_score = data[2]
        if e_score >= MATE_BOUND:
            e_score -= ply
        elif e_score <= -MATE_BOUND:
            e_score += ply
        tt_move = e_move
        if e_depth >= depth:
            if e_flag == EXACT:
                return e_score
            if e_flag == LOWER and e_score >= beta:
                return e_score
            if e_flag == UPPER and e_score <= alpha:
                return e_score

    # Moves: into the opponent's goal only loses at once (scored without a search).
    best, best_move = -INF, -1
    if has(st_lo, st_hi, their_goal):
        best, best_move = -(MATE - ply - 1), their_goal
        t_lo, t_hi = bit(their_goal)
        st_lo &= ~t_lo
        st_hi &= ~t_hi
    kids = np.empty(8, np.int64)
    ranks = np.empty(8, np.int64)
    n_kids = 0
    while (st_lo | st_hi) != U0:
        m, st_lo, st_hi = lowest(st_lo, st_hi)
        rank = -history[side, m]
        if m == tt_move:
            rank = -(1 << 60)
        j = n_kids
        while j > 0 and ranks[j - 1] > rank:
            kids[j] = kids[j - 1]
            ranks[j] = ranks[j - 1]
            j -= 1
        kids[j] = m
        ranks[j] = rank
        n_kids += 1

    alpha0 = alpha
    if best > alpha:
        alpha = best
    for k in range(n_kids):
        if alpha >= beta:
            break
        m = kids[k]
        m_lo, m_hi = bit(m)
        c_lo, c_hi = free_lo & ~m_lo, free_hi & ~m_hi
        if k == 0:
            score = -negamax(
                c_lo,
                c_hi,
                m,
                1 - side,
                depth - 1,
                -beta,
                -alpha,
                ply + 1,
                ctx,
                tt_keys,
                tt_data,
                history,
                stats,
                nbr,
                goals,
                taylor,
                deadline,
            )
        else:
            score = -negamax(
                c_lo,
                c_hi,
                m,
                1 - side,
                depth - 1,
                -alpha - 1,
                -alpha,
                ply + 1,
                ctx,
                tt_keys,
                tt_data,
                history,
                stats,
                nbr,
                goals,
                taylor,
                deadline,
            )
            if alpha < score < beta and stats[S_ABORT] == 0:
                score = -negamax(
                    c_lo,
                    c_hi,
                    m,
                    1 - side,
                    depth - 1,
                    -beta,
                    -alpha,
                    ply + 1,
                    ctx,
                    tt_keys,
                    tt_data,
                    history,
                    stats,
                    nbr,
                    goals,
                    taylor,
                    deadline,
                )
        if stats[S_ABORT] != 0:
            return 0
        if score > best:
            best, best_move = score, m
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    history[side, m] += depth * depth
    if best_move < 0:
        best_move = kids[0]

    flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
    stored = best
    if stored >= MATE_BOUND:
        stored += ply
    elif stored <= -MATE_BOUND:
        stored -= ply
    tt_keys[slot, 0] = free_lo
    tt_keys[slot, 1] = free_hi
    tt_keys[slot, 2] = tag
    tt_data[slot, 0] = depth
    tt_data[slot, 1] = flag
    tt_data[slot, 2] = stored
    tt_data[slot, 3] = best_move
    return best


@nb.njit(cache=True)
def search_root(
    free_lo,
    free_hi,
    snail,
    side,
    max_depth,
    node_limit,
    deadline,
    tt_keys,
    tt_data,
    nbr,
    goals,
    taylor,
    variant,
):
    """Iterative deepening from the root; returns (move, score, depth completed, nodes).

    The move of an unfinished depth is kept only if it beat the previous depth's first move
    (searched first, so its score at the new depth was known)."""
    history = np.zeros((2, nbr.shape[0]), np.int64)
    stats = np.zeros(2, np.int64)
    ctx = np.array([node_limit, variant], np.int64)  # the node budget, the table's tag
    st_lo, st_hi = legal_steps(free_lo, free_hi, snail, nbr, goals, taylor)
    moves = np.empty(8, np.int64)
    n = 0
    while (st_lo | st_hi) != U0:
        m, st_lo, st_hi = lowest(st_lo, st_hi)
        moves[n] = m
        n += 1
    best_move, best_score, done = moves[0], 0, 0
    scores = np.zeros(8, np.int64)
    my_goal, their_goal = goals[side], goals[1 - side]
    for depth in range(1, max_depth + 1):
        alpha = -INF
        cur_move, cur_score = -1, -INF
        for k in range(n):
            m = moves[k]
            if m == my_goal:
                score = MATE - 1
            elif m == their_goal:
                score = -(MATE - 1)
            else:
                m_lo, m_hi = bit(m)
                score = -negamax(
                    free_lo & ~m_lo,
                    free_hi & ~m_hi,
                    m,
                    1 - side,
                    depth - 1,
                    -INF,
                    -alpha,
                    ROOT_CHILD_PLY,
                    ctx,
                    tt_keys,
                    tt_data,
                    history,
                    stats,
                    nbr,
                    goals,
                    taylor,
                    deadline,
                )
            if stats[S_ABORT] != 0:
                break
            scores[k] = score
            if score > cur_score:
                cur_move, cur_score = m, score
                if score > alpha:
                    alpha = score
        if stats[S_ABORT] != 0:
            if cur_move >= 0 and cur_move != best_move and cur_score > -INF:
                best_move, best_score = cur_move, cur_score
            break
        best_move, best_score, done = cur_move, cur_score, depth
        # Next depth: best move first, then by this depth's scores.
        order = np.argsort(-scores[:n], kind="mergesort")
        moves[:n] = moves[:n][order]
        scores[:n] = scores[:n][order]
        if abs(best_score) >= MATE_BOUND:
            break
    return best_move, best_score, done, stats[S_NODES]


@dataclass
class Compiled:
    """A game's board in the kernel's terms."""

    nbr: np.ndarray  # (cells, 2) uint64: neighbours of each dense cell
    goals: np.ndarray  # player 1's and player 2's goal corner, dense
    taylor: bool
    variant: int  # tags this board's table entries: one table serves every board
    dense: dict[int, int]  # board index -> dense cell
    board_of: list[int]  # dense cell -> board index

    def words(self, free: int) -> tuple[np.uint64, np.uint64]:
        lo = hi = 0
        for index, cell in self.dense.items():
            if free >> index & 1:
                if cell < 64:
                    lo |= 1 << cell
                else:
                    hi |= 1 << (cell - 64)
        return np.uint64(lo), np.uint64(hi)


def compiled(game: TrailGame) -> Compiled:
    return compiled_board(game.shape, game.size, game.rules, game.goals[1], game.goals[2])


TABLE_IN_USE = threading.Lock()


@cache
def table() -> tuple[np.ndarray, np.ndarray]:
    """The transposition table: exact keys (free words, tag) and (depth, flag, score, move)."""
    size = 1 << TABLE_BITS
    return np.zeros((size, 3), np.uint64), np.zeros((size, 4), np.int64)


def clear_table() -> None:
    """Forget every stored position (a search then starts from nothing, as in the tests)."""
    for part in table():
        part[:] = 0


_VARIANTS = itertools.count(1)


@cache
def compiled_board(shape: str, size: int, rules: str, goal1: int, goal2: int) -> Compiled:
    """The kernel's view of a board; ``goal1``, ``goal2``: the goal corners (board indices)."""
    board = get_board(shape, size)
    cells = board.cells()
    if len(cells) > MAX_CELLS:
        raise GameError(f"the compiled search holds {MAX_CELLS} cells, not {len(cells)}")
    dense = {index: k for k, index in enumerate(cells)}
    nbr = np.zeros((len(cells), 2), np.uint64)
    for index, k in dense.items():
        for other in cells_of(board.neighbours[index]):
            j = dense[other]
            nbr[k, j // 64] |= np.uint64(1 << (j % 64))
    goals = np.array([dense[goal1], dense[goal2]], np.int64)
    return Compiled(nbr, goals, rules == "taylor", next(_VARIANTS), dense, cells)


def evaluate(state: TrailState) -> float:
    """The compiled evaluation of ``state`` (equal to :func:`.eval.evaluate`)."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    side = state.to_move - 1
    return float(evaluate_words(lo, hi, c.dense[state.snail], side, c.nbr, c.goals, c.taylor))


@dataclass(frozen=True)
class KernelResult:
    move: int  # a board index, as the state's moves
    score: int  # for the side to move, on the scale of slimetrail.ai.search
    depth: int  # the last depth completed
    nodes: int


def search(
    state: TrailState, seconds: float, *, nodes: int = 1 << 62, max_depth: int = MAX_PLY
) -> KernelResult:
    """The best move by iterative deepening for ``seconds`` (or ``nodes`` or ``max_depth``).

    ``state`` must have a legal move."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    deadline = time.monotonic() + seconds
    tt_keys, tt_data = table()
    with TABLE_IN_USE:  # one table for every search of the process
        move, score, depth, count = search_root(
            lo,
            hi,
            c.dense[state.snail],
            state.to_move - 1,
            max_depth,
            nodes,
            deadline,
            tt_keys,
            tt_data,
            c.nbr,
            c.goals,
            c.taylor,
            c.variant,
        )
    return KernelResult(c.board_of[int(move)], int(score), int(depth), int(count))
