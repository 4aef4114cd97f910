"""Compiled Monte-Carlo tree search with a solver (MCTS-Solver) for the big Slime Trail boards.

Why not only alpha-beta: on the open boards (Taylor's rules, 11x11) the goal-distance
evaluation says little about who will be squeezed first, while playouts to the end of the
game measure it.  What makes the playouts worth more than uniformly random ones is the
decisive / anti-decisive policy of :func:`slimetrail.games.trail.playout.policy` (the
readable reference, which the tests compare with :func:`policy_words`): a player steps into
their own goal when it is next to the snail and never steps next to the opponent's goal while
another step exists.  The tree is MCTS-Solver (Winands, Björnsson and Saito 2008): a node whose
mover has a winning child is a proven win, one whose children are all proven losses a proven
loss, and proven losses are never selected again.  Tree and playouts are numba code over the
dense two-word cell sets of :mod:`.search_kernel`; nothing is allocated per iteration.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from slimetrail.compiled import now
from slimetrail.games.trail.search_kernel import (
    U0,
    compiled,
    flood,
    goals_in_reach,
    has,
    legal_steps,
    popcount,
)
from slimetrail.games.trail.solver.kernel128 import bit, lowest

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

CAPACITY = 1 << 21  # tree nodes; past that the tree stops growing (playouts go on)
EXPLORATION = 0.8  # UCB1's constant (the playouts are informed: less exploration than sqrt 2)
CLOCK_EVERY = 63  # iterations between two looks at the clock
MAX_STEPS = 128  # a game on at most 128 cells has fewer steps than that
WIN, LOSS, UNKNOWN = 1, -1, 0  # proven values, for the player who moved INTO a node
# policy_words' verdicts besides a step: the mover wins, loses, or the game is drawn now
P_WIN, P_LOSS, P_DRAW = -1, -2, -3


@nb.njit(cache=True, inline="always")
def nth(lo, hi, k):
    """The ``k``-th lowest cell of a set (``k`` < its size)."""
    for _ in range(k):
        _, lo, hi = lowest(lo, hi)
    m, _, _ = lowest(lo, hi)
    return m


@nb.njit(cache=True)
def policy_words(st_lo, st_hi, free_lo, free_hi, side, nbr, goals):
    """The playout policy's choice among the legal steps ``st``: ``(verdict, cand_lo,
    cand_hi)``; a verdict < 0 ends the game (P_WIN, P_LOSS for the mover, P_DRAW), else the
    step is drawn at random from the candidate set (see :func:`.playout.policy`).
    ``taylor`` does not matter here: the legal steps already obey it."""
    my_goal, their_goal = goals[side], goals[1 - side]
    if (st_lo | st_hi) == U0:
        return P_LOSS, U0, U0
    if has(st_lo, st_hi, my_goal):
        return P_WIN, U0, U0
    t_lo, t_hi = bit(their_goal)
    c_lo, c_hi = st_lo & ~t_lo, st_hi & ~t_hi
    if (c_lo | c_hi) == U0:
        return P_LOSS, U0, U0
    if has(free_lo, free_hi, their_goal):
        s_lo, s_hi = c_lo & ~nbr[their_goal, 0], c_hi & ~nbr[their_goal, 1]
        if (s_lo | s_hi) != U0:
            return 0, s_lo, s_hi
    return 0, c_lo, c_hi


@nb.njit(cache=True)
def may_split(free_lo, free_hi, cell, nbr):
    """Whether taking ``cell`` out of the free cells may cut their components apart: not when
    its free neighbours are joined among themselves (then every path through ``cell`` has a
    way around it)."""
    r_lo, r_hi = nbr[cell, 0] & free_lo, nbr[cell, 1] & free_hi
    if popcount(r_lo) + popcount(r_hi) <= 1:
        return False
    s, _, _ = lowest(r_lo, r_hi)
    s_lo, s_hi = bit(s)
    j_lo, j_hi = flood(s_lo, s_hi, r_lo, r_hi, nbr)
    return (j_lo != r_lo) or (j_hi != r_hi)


@nb.njit(cache=True)
def playout(free_lo, free_hi, snail, side, nbr, goals, taylor, trace):
    """A game played to its end by the policy; returns the winner's side (0 or 1) or -1 for
    a draw.  The cells stepped on are written to ``trace`` (with -1 after the last)."""
    g1_lo, g1_hi = bit(goals[0])
    g2_lo, g2_hi = bit(goals[1])
    comp_lo, comp_hi = free_lo, free_hi
    if taylor:
        comp_lo, comp_hi = flood(
            (g1_lo | g2_lo) & free_lo, (g1_hi | g2_hi) & free_hi, free_lo, free_hi, nbr
        )
    n = 0
    while True:
        st_lo = nbr[snail, 0] & free_lo & comp_lo
        st_hi = nbr[snail, 1] & free_hi & comp_hi
        verdict, c_lo, c_hi = policy_words(st_lo, st_hi, free_lo, free_hi, side, nbr, goals)
        if verdict == P_WIN:
            trace[n] = goals[side]
            trace[n + 1] = -1
            return side
        if verdict == P_LOSS:
            trace[n] = -1
            if taylor and (st_lo | st_hi) == U0:
                return -1
            return 1 - side
        m = nth(c_lo, c_hi, np.random.randint(popcount(c_lo) + popcount(c_hi)))
        trace[n] = m
        n += 1
        m_lo, m_hi = bit(m)
        free_lo &= ~m_lo
        free_hi &= ~m_hi
        comp_lo &= ~m_lo
        comp_hi &= ~m_hi
        if taylor and may_split(free_lo, free_hi, m, nbr):
            comp_lo, comp_hi = flood(
                (g1_lo | g2_lo) & free_lo, (g1_hi | g2_hi) & free_hi, free_lo, free_hi, nbr
            )
        snail = m
        side = 1 - side


@nb.njit(cache=True)
def classify(free_lo, free_hi, snail, came_from, side, nbr, goals, taylor):
    """The value of a position just stepped into when it is plain without search, for the
    player who moved into it (the side ``1 - side``): WIN,
    LOSS or UNKNOWN; 2 for a draw (Taylor: stuck).  ``came_from``: the cell the snail left."""
    if snail == goals[0] or snail == goals[1]:
        return WIN if snail == goals[1 - side] else LOSS
    st_lo, st_hi = nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi
    if (st_lo | st_hi) == U0:
        return 2 if taylor else WIN
    if has(st_lo, st_hi, goals[side]):
        return LOSS  # a goal corner is always a legal step
    if taylor:
        # The step came from a position where both goals were in reach; unless the snail's
        # cell joined parts of the walkable cells or the cell left touched a goal corner,
        # they still are (no flood needed).
        g1_lo, g1_hi = bit(goals[0])
        g2_lo, g2_hi = bit(goals[1])
        pass_lo = free_lo & ~(g1_lo | g2_lo)
        pass_hi = free_hi & ~(g1_hi | g2_hi)
        touched = (nbr[came_from, 0] & (g1_lo | g2_lo)) | (nbr[came_from, 1] & (g1_hi | g2_hi))
        if touched != U0 or may_split(pass_lo, pass_hi, snail, nbr):
            reach = goals_in_reach(free_lo, free_hi, snail, nbr, goals)
            if reach == 1 or reach == 2:
                owner = 0 if reach == 1 else 1
                return WIN if owner == 1 - side else LOSS
    return UNKNOWN


@nb.njit(cache=True)
def search_tree(
    free_lo,
    free_hi,
    snail,
    side,
    deadline,
    max_iterations,
    seed,
    c,
    kids_at,
    n_kids,
    move,
    visits,
    wins,
    proven,
    nbr,
    goals,
    taylor,
):
    """MCTS-Solver from the root (node 0) until ``deadline`` or ``max_iterations``; returns
    (iterations, nodes).  ``wins[k]`` counts for the player who moved into node ``k``."""
    np.random.seed(seed)
    trace = np.empty(160, np.int64)
    path = np.empty(160, np.int64)
    kids_at[0] = -1
    n_kids[0] = 0
    visits[0] = 0
    wins[0] = 0.0
    proven[0] = UNKNOWN
    move[0] = snail
    used = 1
    capacity = kids_at.shape[0]
    iterations = 0
    while iterations < max_iterations and proven[0] == UNKNOWN:
        if iterations > 0 and (iterations & CLOCK_EVERY) == 0 and now() > deadline:
            break
        iterations += 1
        node, depth = 0, 0
        f_lo, f_hi, s, me = free_lo, free_hi, snail, side
        path[0] = 0
        result = -2  # the winner's side, -1 a draw, -2 not known yet
        while True:
            if proven[node] != UNKNOWN:
                # the player who moved into ``node`` is side 1 - me
                result = (1 - me) if proven[node] == WIN else me
                break
            if kids_at[node] < 0:
                if used + 8 > capacity:
                    break
                st_lo, st_hi = legal_steps(f_lo, f_hi, s, nbr, goals, taylor)
                kids_at[node] = used
                k = 0
                while (st_lo | st_hi) != U0:
                    m, st_lo, st_hi = lowest(st_lo, st_hi)
                    child = used + k
                    move[child] = m
                    kids_at[child] = -1
                    n_kids[child] = 0
                    visits[child] = 0
                    wins[child] = 0.0
                    m_lo, m_hi = bit(m)
                    value = classify(f_lo & ~m_lo, f_hi & ~m_hi, m, s, 1 - me, nbr, goals, taylor)
                    proven[child] = value if value != 2 else UNKNOWN
                    k += 1
                n_kids[node] = k
                used += k
            # Select: a proven win ends the node; proven losses are skipped.
            first, count = kids_at[node], n_kids[node]
            best, best_value, all_lost = -1, -1.0, True
            log_n = math.log(visits[node] + 1.0)
            for j in range(first, first + count):
                if proven[j] == WIN:
                    best, all_lost = j, False
                    best_value = 1e9
                    break
                if proven[j] == LOSS:
                    continue
                all_lost = False
                if visits[j] == 0:
                    value = 1e6 + np.random.random()
                else:
                    value = wins[j] / visits[j] + c * math.sqrt(log_n / visits[j])
                if value > best_value:
                    best, best_value = j, value
            if count == 0 and taylor:
                result = -1  # stuck on a plain cell: a draw under Taylor's rules
                break
            if count == 0 or all_lost:
                proven[node] = WIN  # the mover here has no step, or only losing ones
                result = 1 - me
                break
            if proven[best] == WIN:
                proven[node] = LOSS
                result = me
                break
            node = best
            depth += 1
            path[depth] = node
            m = move[node]
            m_lo, m_hi = bit(m)
            f_lo &= ~m_lo
            f_hi &= ~m_hi
            s, me = m, 1 - me
            if visits[node] == 0 and proven[node] == UNKNOWN:
                break
        if result == -2:
            result = playout(f_lo, f_hi, s, me, nbr, goals, taylor, trace)
        # Back up: node path[k] was entered by side (side + k - 1) % 2.
        for k in range(depth + 1):
            nd = path[k]
            visits[nd] += 1
            mover_in = (side + k + 1) % 2
            if result == mover_in:
                wins[nd] += 1.0
            elif result == -1:
                wins[nd] += 0.5
        # Proofs found below move up the path.
        for k in range(depth, 0, -1):
            parent = path[k - 1]
            if proven[parent] != UNKNOWN:
                continue
            first, count = kids_at[parent], n_kids[parent]
            all_lost = True
            for j in range(first, first + count):
                if proven[j] == WIN:
                    proven[parent] = LOSS
                    break
                if proven[j] != LOSS:
                    all_lost = False
            if proven[parent] == UNKNOWN and all_lost and count > 0:
                proven[parent] = WIN
            if proven[parent] == UNKNOWN:
                break
    return iterations, used


TREE_IN_USE = threading.Lock()


@cache
def tree() -> tuple[np.ndarray, ...]:
    """The node arrays, made once: children's first index and count, move, visits, wins,
    proven value."""
    return (
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.float64),
        np.zeros(CAPACITY, np.int64),
    )


@dataclass(frozen=True)
class MctsResult:
    move: int  # a board index
    proven: str | None  # "win" / "loss" for the side to move, when the tree proved it
    value: float  # the move's playout score, for the side to move, in [0, 1]
    visits: int  # of the move
    iterations: int
    nodes: int


def search(
    state: TrailState, seconds: float, *, iterations: int = 1 << 62, seed: int = 0
) -> MctsResult:
    """The move MCTS-Solver chooses in ``seconds`` (or ``iterations``); ``state`` must have a
    legal move.  A proven win is played; otherwise the most visited move not proven lost."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    kids_at, n_kids, move, visits, wins, proven = tree()
    deadline = time.monotonic() + seconds  # counted before any wait for the tree
    with TREE_IN_USE:  # one tree for every search of the process
        done, used = search_tree(
            lo,
            hi,
            c.dense[state.snail],
            state.to_move - 1,
            deadline,
            iterations,
            seed,
            EXPLORATION,
            kids_at,
            n_kids,
            move,
            visits,
            wins,
            proven,
            c.nbr,
            c.goals,
            c.taylor,
        )
        first, count = int(kids_at[0]), int(n_kids[0])
        kids = range(first, first + count)
        won = [j for j in kids if proven[j] == WIN]
        verdict: str | None
        if won:
            pick, verdict = won[0], "win"
        else:
            alive = [j for j in kids if proven[j] != LOSS]
            verdict = None if alive else "loss"
            pick = max(alive or kids, key=lambda j: (visits[j], wins[j]))
        value = float(wins[pick] / visits[pick]) if visits[pick] else 0.5
        return MctsResult(
            c.board_of[int(move[pick])], verdict, value, int(visits[pick]), int(done), int(used)
        )


def playout_trace(state: TrailState, seed: int) -> tuple[int, list[int]]:
    """One compiled playout from ``state``: the winner (0: a draw) and the cells stepped on
    (board indices), for the tests to replay against :func:`.playout.policy`."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    trace = np.empty(MAX_STEPS + 2, np.int64)
    winner = _seeded_playout(
        lo, hi, c.dense[state.snail], state.to_move - 1, c.nbr, c.goals, c.taylor, trace, seed
    )
    steps = []
    for cell in trace:
        if cell < 0:
            break
        steps.append(c.board_of[int(cell)])
    return int(winner) + 1, steps


@nb.njit(cache=True)
def _seeded_playout(free_lo, free_hi, snail, side, nbr, goals, taylor, trace, seed):
    np.random.seed(seed)
    return playout(free_lo, free_hi, snail, side, nbr, goals, taylor, trace)
