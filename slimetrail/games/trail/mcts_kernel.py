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

The exact solver joins at the leaves: a node expanded below the root whose region is small
enough is queued, and between two calls of the compiled tree search the solver's C kernel
(``solver/ckernel.c``, a CPython extension numba cannot call) gets a node budget to prove
each queued position; a proof is a proven node, which climbs the tree (:func:`settle`).
The queue keeps the tree in numba and the solver in C, with one Python call per leaf (a few
microseconds against a proof's budget).  The solver's table is kept from search to search,
and the wins the tree proves are remembered (:data:`PROVEN_WINS`), so a position once proven
won is played as won from then on.

On the square Taylor boards of more than 81 cells a leaf's value is half its playout's and
half a judgement of the snail's region fitted on self-play games (:func:`leaf_value`): there
the games are lost at 75-100 cells in the region, where the playouts predict nothing of how
they end and the judgement does (11x11 Taylor at 1 s a move: 40 of 40 against plain UCT,
where 31 of 40 before; bench/RESULTS.md, session 56).
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
    dilate,
    flood,
    goals_in_reach,
    has,
    legal_steps,
    popcount,
    race_words,
    region_words,
    safe_words,
)
from slimetrail.games.trail.solver.kernel128 import bit, lowest

if TYPE_CHECKING:
    from slimetrail.core.game import Move
    from slimetrail.games.trail.game import TrailGame, TrailState

CAPACITY = 1 << 21  # tree nodes; past that the tree stops growing (playouts go on)
EXPLORATION = 0.8  # UCB1's constant (the playouts are informed: less exploration than sqrt 2)
# ... but less on the square Rastros boards of more than 81 cells: on 11x11 at fixed budgets
# 0.5 won 95 games of 120 where 0.8 won 85 (0.3 and 1.2 did worse), while 0.8 kept its lead
# on 9x9 from e5 (33 of 40 against 29) and on 11x11 under Taylor's rules (at 1 s 16 of 18
# games against 11 for 0.5 and for 1.1; bench/RESULTS.md, session 48).  (The hex boards play
# Rastros by the alpha-beta alone.)
BIG_RASTROS_EXPLORATION = 0.5
BIG_RASTROS_CELLS = 81
CLOCK_EVERY = 63  # iterations between two looks at the clock
MAX_STEPS = 128  # a game on at most 128 cells has fewer steps than that
WIN, LOSS, UNKNOWN = 1, -1, 0  # proven values, for the player who moved INTO a node
# The exact solver at the leaves (see search_tree): a region of up to LEAF_CELLS cells gets
# LEAF_NODES nodes (a 40-cell region's proof often fits: session 24's measurements), a
# Rastros region with a goal out of reach SPLIT_NODES (the matching bounds answer at once or
# not at all); LEAF_BATCH leaves are proven between two calls of the compiled tree search.
LEAF_CELLS = 40
LEAF_NODES = 2048
SPLIT_NODES = 64
LEAF_BATCH = 32
LEAF_TABLE_BITS = 20  # the leaf solver's table: 2**20 entries of 24 bytes, kept
# A leaf's value on the square boards of more than 81 cells under Taylor's rules: this share
# from the judgement (:func:`leaf_value`), the rest from its playout (the other boards: the
# playout alone).  On 11x11 Taylor the playouts do not predict how a middle game ends
# (research/trail/judgement.py: held-out R2 about 0 at 70-99 cells in the snail's region,
# where the games are lost), the judgement does better (0.14 at 70-84 cells, 0.46 at 55-69).
# Not on 11x11 Rastros (fitted there, it scored no better) nor on 9x9 Taylor (with these
# weights 29 of 40 games against 36; bench/RESULTS.md, session 56).
LEAF_MIX = 0.5
JUDGED_CELLS = 81
# The judgement's weights by the size of the snail's region (cells, at least JUDGEMENT_BANDS'
# bound, the first that fits): a constant, then the terms of :func:`judgement_terms` in
# order (research/trail/judgement.py fits them on self-play games, band by band: what predicts
# the end changes as the board fills).
JUDGEMENT_BANDS = np.array([85, 70, 55, 0])
JUDGEMENT = np.array(
    [
        [0.0166, 0.0166, 0.0166, -0.0124, -0.0596, 0.2914, 1.2850, -1.2705, 0.0, -0.0058],
        [-0.1019, -0.1019, -0.1019, -0.5590, 0.5507, 0.6030, 0.9534, -0.6327, 0.0, 0.0034],
        [0.0591, 0.0591, 0.0591, -0.9880, 0.9140, 0.3201, 0.9912, -1.1209, 0.0, 0.0127],
        [0.1768, -1.3766, 1.2484, -0.8961, 0.8433, -0.3274, 0.4254, -0.3502, 0.0, -0.0567],
    ]
)
FAR = 30  # steps counted for a goal corner out of the snail's reach
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
def judgement_terms(free_lo, free_hi, snail, side, nbr, goals, out):
    """Write into ``out`` the judgement's terms for the player ``side + 1`` to move: whether
    their goal corner and the opponent's are in the snail's reach, the steps to each (walking
    through free non-goal cells; FAR out of reach) over 10, the cells of the snail's region
    nearer (by steps through the region) to their goal than to the opponent's less the
    reverse, over the region's size, each goal's free neighbours in the region over 3,
    whether no goal is in reach and the region's size is odd (Rastros: who is stuck first),
    and the snail's steps not next to the opponent's goal over 3.  Returns the region's
    size (the snail's cell not counted)."""
    mine, theirs = goals[side], goals[1 - side]
    mine_free, theirs_free = has(free_lo, free_hi, mine), has(free_lo, free_hi, theirs)
    near_mine, near_theirs, seen_lo, seen_hi = race_words(free_lo, free_hi, snail, side, nbr, goals)
    s_lo, s_hi = bit(snail)
    r_lo, r_hi = seen_lo & ~s_lo, seen_hi & ~s_hi
    size = popcount(r_lo) + popcount(r_hi)
    # Both goals' breadth-first searches through the region, level by level: a cell is the
    # nearer goal's when that goal's search reaches it first.
    a_lo, a_hi = U0, U0
    b_lo, b_hi = U0, U0
    if mine_free:
        a_lo, a_hi = bit(mine)
    if theirs_free:
        b_lo, b_hi = bit(theirs)
    sa_lo, sa_hi, sb_lo, sb_hi = a_lo, a_hi, b_lo, b_hi
    nearer = 0
    while (a_lo | a_hi | b_lo | b_hi) != U0:
        d_lo, d_hi = dilate(a_lo, a_hi, nbr)
        a_lo, a_hi = d_lo & r_lo & ~sa_lo, d_hi & r_hi & ~sa_hi
        d_lo, d_hi = dilate(b_lo, b_hi, nbr)
        b_lo, b_hi = d_lo & r_lo & ~sb_lo, d_hi & r_hi & ~sb_hi
        nearer += popcount(a_lo & ~sb_lo & ~b_lo) + popcount(a_hi & ~sb_hi & ~b_hi)
        nearer -= popcount(b_lo & ~sa_lo & ~a_lo) + popcount(b_hi & ~sa_hi & ~a_hi)
        sa_lo |= a_lo
        sa_hi |= a_hi
        sb_lo |= b_lo
        sb_hi |= b_hi
    steps_lo, steps_hi = safe_words(
        nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi, free_lo, free_hi, theirs, nbr
    )
    out[0] = near_mine >= 0
    out[1] = near_theirs >= 0
    out[2] = (near_mine if near_mine >= 0 else FAR) / 10.0
    out[3] = (near_theirs if near_theirs >= 0 else FAR) / 10.0
    out[4] = nearer / max(1, size)
    out[5] = (popcount(nbr[mine, 0] & r_lo) + popcount(nbr[mine, 1] & r_hi)) * mine_free / 3.0
    out[6] = (popcount(nbr[theirs, 0] & r_lo) + popcount(nbr[theirs, 1] & r_hi)) * theirs_free / 3.0
    out[7] = near_mine < 0 and near_theirs < 0 and size % 2 == 1
    out[8] = (popcount(steps_lo) + popcount(steps_hi)) / 3.0
    return size


@nb.njit(cache=True)
def leaf_value(free_lo, free_hi, snail, side, nbr, goals, judgement, bands, terms):
    """The judgement's expected score for the player ``side + 1`` to move (1 a win, 0 a
    loss): the terms of :func:`judgement_terms` (``terms``: room for them) weighted by the
    row of ``judgement`` whose lower bound in ``bands`` the region's size reaches first,
    clipped to [-1, 1] and halved."""
    size = judgement_terms(free_lo, free_hi, snail, side, nbr, goals, terms)
    band = 0
    while size < bands[band]:
        band += 1
    weights = judgement[band]
    value = weights[0]
    for i in range(terms.shape[0]):
        value += weights[i + 1] * terms[i]
    return 0.5 + 0.5 * min(1.0, max(-1.0, value))


@nb.njit(cache=True)
def climb(node, proven, parent, kids_at, n_kids):
    """Hand the proofs of ``node``'s subtree up: a parent with a child proven won (for the
    player who moved into it) is a proven loss, one whose children are all proven losses
    a proven win; stops at the first parent left unproven or proven before."""
    while node > 0:
        up = parent[node]
        if proven[up] != UNKNOWN:
            return
        first, count = kids_at[up], n_kids[up]
        all_lost = True
        for j in range(first, first + count):
            if proven[j] == WIN:
                proven[up] = LOSS
                break
            if proven[j] != LOSS:
                all_lost = False
        if proven[up] == UNKNOWN and all_lost and count > 0:
            proven[up] = WIN
        if proven[up] == UNKNOWN:
            return
        node = up


@nb.njit(cache=True)
def settle(leaf_nodes, values, count, proven, parent, kids_at, n_kids):
    """Enter the leaf solver's ``values`` (WIN, LOSS or UNKNOWN, for the player who moved
    into the node) of the first ``count`` nodes of ``leaf_nodes`` and climb their proofs."""
    for i in range(count):
        node = leaf_nodes[i, 0]
        if values[i] != UNKNOWN and proven[node] == UNKNOWN:
            proven[node] = values[i]
            climb(node, proven, parent, kids_at, n_kids)


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
    done,
    used,
    tree,
    leaf_nodes,
    leaf_free,
    leaf_budgets,
    nbr,
    goals,
    taylor,
    judgement,
    bands,
    mix,
):
    """MCTS-Solver from the root (node 0) until ``deadline`` or ``max_iterations``, or until
    ``leaf_nodes`` is full; returns (iterations, nodes, leaves waiting).  ``done`` and
    ``used``: the iterations and nodes of the search this call resumes (0, 0: a new tree).
    ``tree``: the node arrays of :func:`tree`; ``wins[k]`` counts for the player who moved
    into node ``k``.

    A node expanded below the root whose region (the cells the snail can still reach) has at
    most ``leaf_budgets[0]`` cells is queued for the exact solver with ``leaf_budgets[1]``
    nodes (row: node, snail, side to move, budget; ``leaf_free``: its region), and under
    Rastros rules a bigger one with a goal corner out of reach with ``leaf_budgets[2]``
    nodes, which the solver's matching bounds often answer at once (0: no leaf proofs).
    The caller proves the queue between calls and enters the proofs with :func:`settle`.
    A leaf left unproven is valued ``mix`` by :func:`leaf_value` (with the weights
    ``judgement`` by ``bands``) and the rest by its playout."""
    kids_at, n_kids, move, visits, wins, proven, parent = tree
    trace = np.empty(160, np.int64)
    terms = np.empty(judgement.shape[1] - 1)
    path = np.empty(160, np.int64)
    if used == 0:
        np.random.seed(seed)
        kids_at[0] = -1
        n_kids[0] = 0
        visits[0] = 0
        wins[0] = 0.0
        proven[0] = UNKNOWN
        move[0] = snail
        parent[0] = -1
        used = 1
    capacity = kids_at.shape[0]
    iterations = done
    waiting = 0
    while iterations < max_iterations and proven[0] == UNKNOWN and waiting < leaf_nodes.shape[0]:
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
                    parent[child] = node
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
                if node != 0 and k > 0 and leaf_budgets[0] > 0:
                    r_lo, r_hi = region_words(f_lo, f_hi, s, nbr, goals)
                    budget = 0
                    if popcount(r_lo) + popcount(r_hi) <= leaf_budgets[0]:
                        budget = leaf_budgets[1]
                    elif not taylor and (
                        not has(r_lo, r_hi, goals[0]) or not has(r_lo, r_hi, goals[1])
                    ):
                        budget = leaf_budgets[2]
                    if budget > 0:
                        leaf_nodes[waiting, 0] = node
                        leaf_nodes[waiting, 1] = s
                        leaf_nodes[waiting, 2] = me
                        leaf_nodes[waiting, 3] = budget
                        leaf_free[waiting, 0] = r_lo
                        leaf_free[waiting, 1] = r_hi
                        waiting += 1
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
        estimate = -1.0  # the judgement's score of an unproven leaf (-1: none)
        if result == -2:
            if mix > 0.0:
                estimate = leaf_value(f_lo, f_hi, s, me, nbr, goals, judgement, bands, terms)
            result = playout(f_lo, f_hi, s, me, nbr, goals, taylor, trace)
        # The leaf's score for the side ``me`` to move there.
        score = 1.0 if result == me else 0.5 if result == -1 else 0.0
        if estimate >= 0.0:
            score += mix * (estimate - score)
        # Back up: node path[k] was entered by side (side + k - 1) % 2.
        for k in range(depth + 1):
            nd = path[k]
            visits[nd] += 1
            mover_in = (side + k + 1) % 2
            wins[nd] += score if mover_in == me else 1.0 - score
        if proven[path[depth]] != UNKNOWN:
            climb(path[depth], proven, parent, kids_at, n_kids)
    return iterations, used, waiting


TREE_IN_USE = threading.Lock()


@cache
def tree() -> tuple[np.ndarray, ...]:
    """The node arrays, made once: children's first index and count, move, visits, wins,
    proven value, parent."""
    return (
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.float64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
    )


class LeafSolver:
    """The exact solver's C kernel at the tree's leaves, over the board's dense cells (those
    of :func:`.search_kernel.compiled`), with the queue :func:`search_tree` fills.  Its table
    lives as long as the process: an entry is a fact about a position of the board, true in
    every later search."""

    def __init__(self, game: TrailGame) -> None:
        from slimetrail.games.trail.solver import (
            KernelTable,
            Labelling,
            kernel_params,
            mapped_table,
            new_stats,
        )

        self.labels = Labelling(game, list(compiled(game).board_of))
        self.params = kernel_params(game, distance=False, shortcuts=True)
        self.table = KernelTable(mapped_table(self.labels.entry_words << LEAF_TABLE_BITS))
        self.stats = new_stats()
        self.nodes = np.zeros((LEAF_BATCH, 4), np.int64)
        self.free = np.zeros((LEAF_BATCH, 2), np.uint64)
        self.values = np.zeros(LEAF_BATCH, np.int64)

    def prove(self, free: int, snail: int, side: int, budget: int, deadline: float) -> int:
        """The value of a position (dense cells; ``side`` to move) for the player who moved
        into it: WIN or LOSS if the kernel proves it within ``budget`` nodes and before
        ``deadline``, else UNKNOWN (a draw too: the tree proves only wins and losses)."""
        from slimetrail.games.trail.solver import S_ABORT, S_LIMIT, S_NODES

        stats = self.stats
        stats[S_NODES], stats[S_ABORT], stats[S_LIMIT] = 0, 0, budget
        score = self.labels.negamax(
            free, snail, side, -1, 1, self.params, self.table, stats, deadline
        )
        if stats[S_ABORT]:
            return UNKNOWN
        return LOSS if score > 0 else WIN if score < 0 else UNKNOWN

    def prove_queue(self, waiting: int, deadline: float) -> int:
        """Prove the first ``waiting`` queued leaves into :attr:`values` (UNKNOWN once
        ``deadline`` has passed); returns how many were proven."""
        proven = 0
        for i in range(waiting):
            value = UNKNOWN
            if time.monotonic() < deadline:
                snail, side, budget = (int(x) for x in self.nodes[i, 1:])
                free = int(self.free[i, 0]) | int(self.free[i, 1]) << 64
                value = self.prove(free, snail, side, budget, deadline)
            self.values[i] = value
            proven += value != UNKNOWN
        return proven


LEAF_SOLVERS: dict[int, LeafSolver] = {}  # by the compiled board's variant


def leaf_solver(game: TrailGame) -> LeafSolver:
    """The board's :class:`LeafSolver`, made at its first search (under ``TREE_IN_USE``)."""
    variant = compiled(game).variant
    if variant not in LEAF_SOLVERS:
        LEAF_SOLVERS[variant] = LeafSolver(game)
    return LEAF_SOLVERS[variant]


@dataclass(frozen=True)
class MctsResult:
    move: int  # a board index
    proven: str | None  # "win" / "loss" for the side to move, when the tree proved it
    value: float  # the move's playout score, for the side to move, in [0, 1]
    visits: int  # of the move
    iterations: int
    nodes: int
    leaf_proofs: int  # leaves the exact solver proved
    # Every root move (board index): its visits, its playout score and its proven value
    # ("win" / "loss" / None) for the side to move -- what an opening book's builder ranks.
    moves: dict[int, tuple[int, float, str | None]]


def search(
    state: TrailState,
    seconds: float,
    *,
    iterations: int = 1 << 62,
    seed: int = 0,
    leaf_cells: int = LEAF_CELLS,
) -> MctsResult:
    """The move MCTS-Solver chooses in ``seconds`` (or ``iterations``); ``state`` must have a
    legal move.  A proven win is played; otherwise the most visited move not proven lost.
    ``leaf_cells``: the biggest region the exact solver tries to prove at a leaf (0: no
    leaf proofs)."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    nodes = tree()
    kids_at, n_kids, move, visits, wins, proven, parent = nodes
    budgets = np.array([leaf_cells, LEAF_NODES, SPLIT_NODES], np.int64)
    deadline = time.monotonic() + seconds  # counted before any wait for the tree
    with TREE_IN_USE:  # one tree for every search of the process
        leaves = leaf_solver(state.game)
        done = used = proofs = 0
        while True:
            done, used, waiting = search_tree(
                lo,
                hi,
                c.dense[state.snail],
                state.to_move - 1,
                deadline,
                iterations,
                seed,
                exploration(state.game),
                done,
                used,
                nodes,
                leaves.nodes,
                leaves.free,
                budgets,
                c.nbr,
                c.goals,
                c.taylor,
                JUDGEMENT,
                JUDGEMENT_BANDS,
                LEAF_MIX if judged(state.game) else 0.0,
            )
            if waiting:
                proofs += leaves.prove_queue(waiting, deadline)
                settle(leaves.nodes, leaves.values, waiting, proven, parent, kids_at, n_kids)
            if waiting < LEAF_BATCH or proven[0] != UNKNOWN or time.monotonic() > deadline:
                break
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
        if verdict == "win":
            remember_wins(state, pick, nodes)
        value = float(wins[pick] / visits[pick]) if visits[pick] else 0.5
        verdicts = {WIN: "win", LOSS: "loss"}
        moves = {
            c.board_of[int(move[j])]: (
                int(visits[j]),
                float(wins[j] / visits[j]) if visits[j] else 0.5,
                verdicts.get(int(proven[j])),
            )
            for j in kids
        }
        return MctsResult(
            c.board_of[int(move[pick])],
            verdict,
            value,
            int(visits[pick]),
            int(done),
            int(used),
            proofs,
            moves,
        )


def judged(game: TrailGame) -> bool:
    """Whether the board's leaves take the judgement (:data:`LEAF_MIX`)."""
    return game.shape == "square" and game.rules == "taylor" and game.size**2 > JUDGED_CELLS


def judgement_of(state: TrailState) -> list[float]:
    """The terms of :func:`judgement_terms` for the side to move in ``state``, for the
    judgement's fit (research/trail/judgement.py) and the tests."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    out = np.empty(JUDGEMENT.shape[1] - 1)
    judgement_terms(lo, hi, c.dense[state.snail], state.to_move - 1, c.nbr, c.goals, out)
    return [float(x) for x in out]


def exploration(game: TrailGame) -> float:
    """UCB1's constant for a board."""
    square, rastros = game.shape == "square", game.rules == "rastros"
    if square and rastros and len(game.board.cells()) > BIG_RASTROS_CELLS:
        return BIG_RASTROS_EXPLORATION
    return EXPLORATION


def prove(state: TrailState, budget: int) -> str | None:
    """``"win"`` or ``"loss"`` for the side to move in ``state`` if the exact solver's kernel
    proves it within ``budget`` nodes (no clock: the answer does not depend on the load; the
    kept table may only make it prove more), else ``None``."""
    with TREE_IN_USE:
        value = kernel_verdict(leaf_solver(state.game), state, budget)
    # The kernel's verdict is for the player who moved into the position.
    return "loss" if value == WIN else "win" if value == LOSS else None


def kernel_verdict(solver: LeafSolver, state: TrailState, budget: int) -> int:
    """The leaf solver's verdict on ``state`` within ``budget`` nodes, for the player who
    moved into it (call under ``TREE_IN_USE``)."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    return solver.prove(
        int(lo) | int(hi) << 64, c.dense[state.snail], state.to_move - 1, budget, math.inf
    )


def first_win(state: TrailState, budget: int) -> Move | None:
    """A move of ``state`` the exact solver's kernel proves winning within ``budget`` nodes
    in all (tried move by move, each with what is left), else ``None``; no clock."""
    from slimetrail.games.trail.solver import S_NODES

    with TREE_IN_USE:
        solver = leaf_solver(state.game)
        for move in state.legal_moves():
            if budget <= 0:
                return None
            child = state.copy()
            child.push(move)
            outcome = child.outcome()
            if outcome is not None:
                if outcome.winner == state.to_move:
                    return move
                continue
            value = kernel_verdict(solver, child, budget)
            budget -= int(solver.stats[S_NODES])
            if value == WIN:  # for the player who moved into the child: us
                return move
    return None


# Positions the tree proved won for the side to move, with a winning move: (board variant,
# free cells, snail, player to move) -> board index.  Facts about the board, kept so that a
# won position once proven is never given back: the tree of a later move need not prove it
# again.  Emptied when full (a game never needs that many).
PROVEN_WINS: dict[tuple[int, int, int, int], int] = {}
MAX_PROVEN_WINS = 1 << 16


def forget() -> None:
    """Forget what earlier searches learnt (the proven wins, the leaf proofs' tables), so
    that a search with a fixed budget depends on its own position and seed only."""
    with TREE_IN_USE:
        PROVEN_WINS.clear()
        LEAF_SOLVERS.clear()


def proven_win(state: TrailState) -> int | None:
    """A winning move of ``state`` that an earlier search proved, if any."""
    key = (compiled(state.game).variant, state.free, state.snail, state.to_move)
    return PROVEN_WINS.get(key)


def remember_wins(state: TrailState, pick: int, nodes: tuple[np.ndarray, ...]) -> None:
    """Record the winning answers to every reply in the proof of node ``pick`` (a child of
    the root, proven won for the side to move at ``state``) that the tree holds."""
    c = compiled(state.game)
    kids_at, n_kids, move, _, _, proven, _ = nodes
    if len(PROVEN_WINS) > MAX_PROVEN_WINS:
        PROVEN_WINS.clear()
    me = state.to_move
    stack = [(pick, state.free)]
    while stack:
        ours, free = stack.pop()
        free &= ~(1 << c.board_of[int(move[ours])])
        first = int(kids_at[ours])
        for reply in range(first, first + int(n_kids[ours])) if first >= 0 else ():
            cell = c.board_of[int(move[reply])]
            after = free & ~(1 << cell)
            start = int(kids_at[reply])
            for answer in range(start, start + int(n_kids[reply])) if start >= 0 else ():
                if proven[answer] == WIN:
                    PROVEN_WINS[(c.variant, after, cell, me)] = c.board_of[int(move[answer])]
                    stack.append((answer, after))
                    break


# A walk across 9x9 that walls the snail into the bottom three rows (27 cells, a1 in reach).
ENDGAME = ("d5", "c5", "b5", "a5", "a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4", "i4", "i3")


def warm_up() -> None:
    """Compile (or load from numba's cache) the tree's kernels, the leaf proofs' too, so
    that no timed move waits for them: a search of an endgame whose leaves the solver
    proves."""
    from slimetrail.games.trail.game import SlimetrailGame

    state = SlimetrailGame(size="9").new_state()
    for cell in ENDGAME:
        state.push(state.parse_move(cell))
    search(state, 1.0, iterations=500)


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
