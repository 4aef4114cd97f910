"""The compiled solver for regions of 65 to 128 cells: the one-word search on two-word sets.

A set of cells is a pair ``(lo, hi)`` of ``uint64`` (vertices 0-63 in ``lo``, 64-127 in
``hi``), passed and returned as plain scalars so that nothing is allocated per node.
``nbr`` has shape ``(n, 2)``, ``goals`` shape ``(2, 2)``; the table is one flat array of
``ENTRY_WORDS`` words per entry.  Everything else (scores, table entries, shortcuts, move
order, the matching theorem, the search as a loop over a stack of frames) is exactly that of
the one-word search for regions of up to 64 cells (``ckernel.c``, where one word is faster).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slimetrail.compiled import cttz, now, popcount
from slimetrail.games.trail.solver.kernel import (
    CLOCK_EVERY,
    EXACT,
    GENERATION_SHIFT,
    ILLEGAL,
    INF,
    MATE,
    ONE_GOAL_MATCHING_CELLS,
    P_DIST,
    P_MATCHING,
    P_PRUNE,
    P_TAYLOR,
    S_ABORT,
    S_NODES,
    STAMPED_TAG,
    U0,
    U1,
    adjust,
    bound_flag,
    child_cutoff,
    hand_up,
    pack_entry,
    probed,
    unadjust,
)

# Regions at least this big try enhanced transposition cutoffs.  Higher than the one-word
# kernel's: a flood of two words per child costs more than the subtrees it saves below this
# (hex 10x10 Taylor positions 12-30 plies in: 1.55x faster than at 20 cells, 1.22x the nodes;
# bench/RESULTS.md).
WIDE_ETC_MIN_CELLS = 60
# A table entry is three words: the key's two, then the data word; keys and data side by
# side, so that a probe misses the cache once or twice (a bucket of two is 48 bytes), not
# once per array.  Hex 10x10 Taylor positions: 1.2x faster than with two arrays, and a
# little faster than a padded bucket of one 64-byte line (less memory to miss in).
ENTRY_WORDS = 3

__all__ = ["MATE", "geography_wins", "max_matching", "negamax"]


@nb.njit(cache=True, inline="always")
def bit(i):
    """The set holding only vertex ``i``."""
    if i < 64:
        return U1 << np.uint64(i), U0
    return U0, U1 << np.uint64(i - 64)


@nb.njit(cache=True, inline="always")
def lowest(lo, hi):
    """The lowest vertex of a non-empty set and the set without it."""
    if lo != U0:
        return np.int64(cttz(lo)), lo & (lo - U1), hi
    return np.int64(cttz(hi)) + 64, lo, hi & (hi - U1)


@nb.njit(cache=True, inline="always")
def count(lo, hi):
    return np.int64(popcount(lo)) + np.int64(popcount(hi))


@nb.njit(cache=True)
def flood(seed_lo, seed_hi, free_lo, free_hi, nbr, pass_lo, pass_hi):
    """Cells of ``free`` reachable from the cells of ``seed``; walks continue only through
    cells of ``passable`` (the goal corners are reached but not walked through)."""
    left_lo, left_hi = free_lo, free_hi  # not reached yet
    f_lo, f_hi = seed_lo, seed_hi
    while (f_lo | f_hi) != U0:
        i, f_lo, f_hi = lowest(f_lo, f_hi)
        n_lo = nbr[i, 0] & left_lo
        n_hi = nbr[i, 1] & left_hi
        left_lo ^= n_lo
        left_hi ^= n_hi
        f_lo |= n_lo & pass_lo
        f_hi |= n_hi & pass_hi
    return free_lo ^ left_lo, free_hi ^ left_hi


# -- maximum matching (Edmonds' blossom algorithm), as in kernel.py ---------------------------


@nb.njit(cache=True, inline="always")
def has(lo, hi, i):
    """Whether vertex ``i`` is in the set."""
    if i < 64:
        return (lo >> np.uint64(i)) & U1 != U0
    return (hi >> np.uint64(i - 64)) & U1 != U0


@nb.njit(cache=True)
def _lca(a, b, match, base, parent):
    seen_lo, seen_hi = U0, U0
    while True:
        a = base[a]
        a_lo, a_hi = bit(a)
        seen_lo |= a_lo
        seen_hi |= a_hi
        if match[a] == -1:
            break
        a = parent[match[a]]
    while True:
        b = base[b]
        if has(seen_lo, seen_hi, b):
            return b
        b = parent[match[b]]


@nb.njit(cache=True)
def _mark_path(v, b, child, match, base, parent, bl_lo, bl_hi):
    """Mark the blossom's bases on the path from ``v`` to base ``b``; the grown mask."""
    while base[v] != b:
        x_lo, x_hi = bit(base[v])
        y_lo, y_hi = bit(base[match[v]])
        bl_lo |= x_lo | y_lo
        bl_hi |= x_hi | y_hi
        parent[v] = child
        child = match[v]
        v = parent[match[v]]
    return bl_lo, bl_hi


@nb.njit(cache=True)
def _augment_from(root, v_lo, v_hi, nbr, match, work):
    """Look for an augmenting path from the exposed vertex ``root`` inside ``verts``;
    if there is one, flip it (``match`` grows by one edge) and return True.  ``work``:
    scratch rows (parent, base, queue), reused between calls."""
    parent, base, queue = work[0], work[1], work[2]
    r_lo, r_hi = v_lo, v_hi
    while (r_lo | r_hi) != U0:
        i, r_lo, r_hi = lowest(r_lo, r_hi)
        parent[i] = -1
        base[i] = i
    used_lo, used_hi = bit(root)
    head, tail = 0, 0
    queue[tail] = root
    tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        o_lo, o_hi = nbr[v, 0] & v_lo, nbr[v, 1] & v_hi
        while (o_lo | o_hi) != U0:
            to, o_lo, o_hi = lowest(o_lo, o_hi)
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                cur = _lca(v, to, match, base, parent)
                bl_lo, bl_hi = _mark_path(v, cur, to, match, base, parent, U0, U0)
                bl_lo, bl_hi = _mark_path(to, cur, v, match, base, parent, bl_lo, bl_hi)
                r_lo, r_hi = v_lo, v_hi
                while (r_lo | r_hi) != U0:
                    i, r_lo, r_hi = lowest(r_lo, r_hi)
                    if has(bl_lo, bl_hi, base[i]):
                        base[i] = cur
                        if not has(used_lo, used_hi, i):
                            i_lo, i_hi = bit(i)
                            used_lo |= i_lo
                            used_hi |= i_hi
                            queue[tail] = i
                            tail += 1
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    while to != -1:  # flip the path root ... v - to
                        pv = parent[to]
                        nxt = match[pv]
                        match[to] = pv
                        match[pv] = to
                        to = nxt
                    return True
                nxt = match[to]
                x_lo, x_hi = bit(nxt)
                used_lo |= x_lo
                used_hi |= x_hi
                queue[tail] = nxt
                tail += 1
    return False


@nb.njit(cache=True)
def _grow_matching(v_lo, v_hi, nbr, match, work):
    """Grow ``match`` (every vertex of ``verts`` unmatched) into a maximum matching of the
    graph ``verts`` induces; its size."""
    size = 0
    r_lo, r_hi = v_lo, v_hi
    while (r_lo | r_hi) != U0:  # greedy start
        v, r_lo, r_hi = lowest(r_lo, r_hi)
        if match[v] == -1:
            f_lo, f_hi = nbr[v, 0] & v_lo, nbr[v, 1] & v_hi
            while (f_lo | f_hi) != U0:
                w, f_lo, f_hi = lowest(f_lo, f_hi)
                if match[w] == -1:
                    match[v] = w
                    match[w] = v
                    size += 1
                    break
    r_lo, r_hi = v_lo, v_hi
    while (r_lo | r_hi) != U0:
        v, r_lo, r_hi = lowest(r_lo, r_hi)
        if match[v] == -1 and _augment_from(v, v_lo, v_hi, nbr, match, work):
            size += 1
    return size


@nb.njit(cache=True)
def max_matching(v_lo, v_hi, nbr, n):
    """A maximum matching of the graph induced by ``verts``: ``(size, match)``."""
    match = np.full(n, -1, np.int64)
    size = _grow_matching(v_lo, v_hi, nbr, match, np.empty((3, n), np.int64))
    return size, match


@nb.njit(cache=True)
def geography_wins(free_lo, free_hi, snail, nbr, n):
    """Undirected vertex geography: the mover wins iff the snail's vertex lies in every
    maximum matching of the region (see :func:`.kernel.geography_wins`)."""
    return geography_wins_in(free_lo, free_hi, snail, nbr, np.empty((4, n), np.int64))


@nb.njit(cache=True)
def geography_wins_in(free_lo, free_hi, snail, nbr, work):
    """:func:`geography_wins` with the caller's scratch rows ``work`` (4 by n)."""
    match = work[3]
    match[:] = -1
    _grow_matching(free_lo, free_hi, nbr, match, work)
    s_lo, s_hi = bit(snail)
    return _augment_from(snail, free_lo | s_lo, free_hi | s_hi, nbr, match, work)


# -- the search --------------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _slot(lo, hi, snail, side, mask):
    h = lo * np.uint64(0x9E3779B97F4A7C15)
    h ^= hi * np.uint64(0xD6E8FEB86659FD93)
    h ^= np.uint64(snail * 2 + side) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask) & ~np.int64(1)


@nb.njit(cache=True, inline="always")
def entry_data(table, s):
    """The data word of entry ``s`` (0: empty)."""
    return np.int64(table[ENTRY_WORDS * s + 2])


@nb.njit(cache=True, inline="always")
def _find(table, slot, lo, hi, tag):
    """The slot of the bucket at ``slot`` that holds the position ``(lo, hi, tag)``, or -1."""
    for s in range(slot, slot + 2):
        e = ENTRY_WORDS * s
        data = np.int64(table[e + 2])
        if table[e] == lo and table[e + 1] == hi and (data & STAMPED_TAG) == tag:
            return s
    return -1


@nb.njit(cache=True)
def near_cells(nbr):
    """Per vertex, the vertices at most two steps away: ``(n, 2)``."""
    n = nbr.shape[0]
    near = np.empty((n, 2), np.uint64)
    for v in range(n):
        a_lo, a_hi = nbr[v, 0], nbr[v, 1]
        r_lo, r_hi = a_lo, a_hi
        while (r_lo | r_hi) != U0:
            u, r_lo, r_hi = lowest(r_lo, r_hi)
            a_lo |= nbr[u, 0]
            a_hi |= nbr[u, 1]
        near[v, 0], near[v, 1] = a_lo, a_hi
    return near


@nb.njit(cache=True, inline="always")
def joined(m, parent, free_lo, free_hi, nbr, nearby, pass_lo, pass_hi):
    """Whether the snail, just moved from ``parent`` to ``m``, still reaches all of
    ``free`` (the parent's region without ``m``), known from a walk near ``parent`` alone:
    every walk from the parent began at one of its other neighbours, so if ``m`` reaches
    each of them, it reaches all the parent reached."""
    o_lo, o_hi = nbr[parent, 0] & free_lo, nbr[parent, 1] & free_hi  # to reach
    w_lo, w_hi = nearby[parent, 0] & free_lo, nearby[parent, 1] & free_hi  # not walked to yet
    t_lo, t_hi = bit(m)
    while (t_lo | t_hi) != U0 and ((o_lo & w_lo) | (o_hi & w_hi)) != U0:
        i, t_lo, t_hi = lowest(t_lo, t_hi)
        n_lo = nbr[i, 0] & w_lo
        n_hi = nbr[i, 1] & w_hi
        w_lo ^= n_lo
        w_hi ^= n_hi
        t_lo |= n_lo & pass_lo
        t_hi |= n_hi & pass_hi
    return ((o_lo & w_lo) | (o_hi & w_hi)) == U0


@nb.njit(cache=True, inline="always")
def pick_move(m_lo, m_hi, tt_move, free_lo, free_hi, side, nbr, order):
    """The first of the moves ``m_lo``/``m_hi`` in :func:`.kernel.pick_move`'s order."""
    pick = np.int64(-1)
    pick_rank = np.int64(1) << 40
    while (m_lo | m_hi) != U0:
        m, m_lo, m_hi = lowest(m_lo, m_hi)
        if m == tt_move:
            return m
        rank = count(nbr[m, 0] & free_lo, nbr[m, 1] & free_hi) * 64 + order[side, m]
        if rank < pick_rank:
            pick, pick_rank = m, rank
    return pick


@nb.njit(cache=True)
def negamax(
    free_lo,
    free_hi,
    snail,
    side,
    alpha,
    beta,
    nbr,
    goals,
    order,
    params,
    table,
    generation,
    stats,
    deadline,
):
    """The exact score of the position for the side to move (fail-soft alpha-beta with a
    transposition table), or ``ILLEGAL`` if the snail may not stand here (Taylor's rule: no
    goal reachable).

    ``free_lo``, ``free_hi``: the empty cells (only those the snail reaches matter); ``snail``: its
    vertex; ``side``: 0 if player 1 is to move, else 1; ``goals[p]``: the bit of player
    p+1's goal (0 if out of reach); ``order``: per side, a static rank of every vertex
    (lower = tried first); ``params``: Taylor's rules, distances, the matching shortcut, the
    pruning next to the opponent's goal; ``table``: the transposition table, whose entries of
    other generations than ``generation`` (1 to MAX_GENERATION) count as empty; ``stats``:
    nodes and the abort flag; ``deadline``: when to abort (0: never).

    The search is a loop over an explicit stack of frames, one per node on the path from the
    root, not recursion: a compiled call per node (its arrays passed and reference-counted)
    cost about as much as the node's own work.  ``ckernel.c`` is the same search on one
    word."""
    taylor = params[P_TAYLOR] != 0
    dist = params[P_DIST] != 0
    matching = not dist and params[P_MATCHING] != 0
    prune = params[P_PRUNE] != 0
    win = MATE if dist else 1
    n = nbr.shape[0]
    mask = np.uint64(table.shape[0] // ENTRY_WORDS - 1)
    work = np.empty((4, n), np.int64)  # the matching's scratch rows
    cap = n + 2  # every child has one cell fewer: the path is at most n + 1 nodes
    f_free = np.empty((cap, 2), np.uint64)
    f_rest = np.empty((cap, 2), np.uint64)
    f_snail = np.empty(cap, np.int64)
    f_side = np.empty(cap, np.int64)
    f_alpha = np.empty(cap, np.int64)
    f_beta = np.empty(cap, np.int64)
    f_alpha0 = np.empty(cap, np.int64)
    f_best = np.empty(cap, np.int64)
    f_best_move = np.empty(cap, np.int64)
    f_tt_move = np.empty(cap, np.int64)
    f_slot = np.empty(cap, np.int64)
    depth = 0
    nearby = near_cells(nbr)
    stamp = np.int64(generation) << GENERATION_SHIFT
    pass_lo, pass_hi = ~(goals[0, 0] | goals[1, 0]), ~(goals[0, 1] | goals[1, 1])
    canonical = False  # whether free is already the snail's region (no flood needed)
    reach_mine = reach_theirs = False
    r_lo = r_hi = st_lo = st_hi = U0
    slot = tag = tt_move = alpha0 = best = best_move = np.int64(0)
    while True:
        stats[S_NODES] += 1
        if deadline > 0.0 and (stats[S_NODES] & CLOCK_EVERY) == 0 and now() > deadline:
            stats[S_ABORT] = 1
        if stats[S_ABORT] != 0:
            return 0
        known = True
        ret = 0
        mine_lo, mine_hi = goals[side, 0], goals[side, 1]
        th_lo, th_hi = goals[1 - side, 0], goals[1 - side, 1]
        st_lo, st_hi = nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi
        if (st_lo & mine_lo) | (st_hi & mine_hi) != U0:
            ret = win - 1 if dist else win
        else:
            if not canonical:
                s_lo, s_hi = bit(snail)
                free_lo, free_hi = flood(
                    s_lo, s_hi, free_lo, free_hi, nbr, ~(mine_lo | th_lo), ~(mine_hi | th_hi)
                )
            reach_mine = ((free_lo & mine_lo) | (free_hi & mine_hi)) != U0
            reach_theirs = ((free_lo & th_lo) | (free_hi & th_hi)) != U0
            if not reach_mine and not reach_theirs and (taylor or (st_lo | st_hi) == U0):
                ret = ILLEGAL if taylor else -win
            elif reach_mine != reach_theirs and matching and taylor:
                ret = win if reach_mine else -win
            else:
                known = False
        if not known:
            slot = _slot(free_lo, free_hi, snail, side, mask)
            tag = np.int64(snail * 2 + side) | stamp
            tt_move = -1
            alpha0 = alpha
            found = _find(table, slot, free_lo, free_hi, tag)
            if found >= 0:
                known, ret, alpha, beta, tt_move = probed(entry_data(table, found), alpha, beta)
        if (
            not known
            and matching
            and not (reach_mine and reach_theirs)
            and (
                not (reach_mine or reach_theirs)
                or count(free_lo, free_hi) >= ONE_GOAL_MATCHING_CELLS
            )
        ):
            value = 0  # the matching shortcuts of kernel.py, their answers stored
            if not reach_mine and not reach_theirs:
                value = win if geography_wins_in(free_lo, free_hi, snail, nbr, work) else -win
            elif reach_mine and geography_wins_in(
                free_lo & ~mine_lo, free_hi & ~mine_hi, snail, nbr, work
            ):
                value = win
            elif reach_theirs and not geography_wins_in(
                free_lo & ~th_lo, free_hi & ~th_hi, snail, nbr, work
            ):
                value = -win
            if value != 0:
                _store(table, slot, free_lo, free_hi, tag, pack_entry(tag, value, EXACT, 0))
                known, ret = True, value
        if not known:
            best = -INF
            best_move = -1
            their_goal = -1
            if (th_lo | th_hi) != U0:
                their_goal, _, _ = lowest(th_lo, th_hi)
            if (st_lo & th_lo) | (st_hi & th_hi) != U0:
                best = adjust(win, dist)
                best_move = their_goal
            r_lo, r_hi = st_lo & ~th_lo, st_hi & ~th_hi
            if prune and their_goal >= 0:
                near_lo, near_hi = r_lo & nbr[their_goal, 0], r_hi & nbr[their_goal, 1]
                if (near_lo | near_hi) != U0:
                    loss2 = adjust(win - 1 if dist else win, dist)
                    if loss2 > best:
                        best = loss2
                        best_move, _, _ = lowest(near_lo, near_hi)
                    r_lo &= ~near_lo
                    r_hi &= ~near_hi
            if best > alpha:
                alpha = best
            if (
                alpha < beta
                and count(r_lo, r_hi) > 1
                and count(free_lo, free_hi) >= WIDE_ETC_MIN_CELLS
            ):
                g_lo, g_hi = ~(mine_lo | th_lo), ~(mine_hi | th_hi)
                scan_lo, scan_hi = r_lo, r_hi
                while (scan_lo | scan_hi) != U0:  # enhanced transposition cutoff, as in kernel.py
                    m, scan_lo, scan_hi = lowest(scan_lo, scan_hi)
                    m_lo, m_hi = bit(m)
                    k_lo, k_hi = flood(
                        m_lo, m_hi, free_lo & ~m_lo, free_hi & ~m_hi, nbr, g_lo, g_hi
                    )
                    kid_slot = _slot(k_lo, k_hi, m, 1 - side, mask)
                    kid = _find(table, kid_slot, k_lo, k_hi, np.int64(m * 2 + 1 - side) | stamp)
                    if kid >= 0:
                        known, ret = child_cutoff(entry_data(table, kid), dist, beta)
                        if known:
                            break
        if not known:
            f_free[depth, 0] = free_lo
            f_free[depth, 1] = free_hi
            f_rest[depth, 0] = r_lo
            f_rest[depth, 1] = r_hi
            f_snail[depth] = snail
            f_side[depth] = side
            f_alpha[depth] = alpha
            f_beta[depth] = beta
            f_alpha0[depth] = alpha0
            f_best[depth] = best
            f_best_move[depth] = best_move
            f_tt_move[depth] = tt_move
            f_slot[depth] = slot
            depth += 1
        while True:  # climb, as in kernel.py
            top = depth - 1
            if known:
                if top < 0:
                    return ret
                hand_up(ret, snail, dist, top, f_best, f_best_move, f_alpha)
            r_lo, r_hi = f_rest[top, 0], f_rest[top, 1]
            if (r_lo | r_hi) != U0 and f_alpha[top] < f_beta[top]:
                p_lo, p_hi = f_free[top, 0], f_free[top, 1]
                m = pick_move(r_lo, r_hi, f_tt_move[top], p_lo, p_hi, f_side[top], nbr, order)
                m_lo, m_hi = bit(m)
                f_rest[top, 0] = r_lo & ~m_lo
                f_rest[top, 1] = r_hi & ~m_hi
                free_lo, free_hi = p_lo & ~m_lo, p_hi & ~m_hi
                canonical = joined(m, f_snail[top], free_lo, free_hi, nbr, nearby, pass_lo, pass_hi)
                snail = m
                side = 1 - f_side[top]
                alpha = unadjust(f_beta[top], dist)
                beta = unadjust(f_alpha[top], dist)
                break
            best = f_best[top]
            snail = f_snail[top]
            if best == -INF:
                ret = 0 if taylor else -win
            else:
                flag = bound_flag(best, f_alpha0[top], f_beta[top])
                tag = np.int64(snail * 2 + f_side[top]) | stamp
                _store(
                    table,
                    f_slot[top],
                    f_free[top, 0],
                    f_free[top, 1],
                    tag,
                    pack_entry(tag, best, flag, f_best_move[top]),
                )
                ret = best
            known = True
            depth -= 1


@nb.njit(cache=True, inline="always")
def _store(table, slot, lo, hi, tag, data):
    """Store an entry in the bucket at ``slot``: slot 0 keeps the bigger region (more work
    to redo), slot 1 always takes the newest."""
    e = ENTRY_WORDS * slot
    f = e + ENTRY_WORDS
    old = np.int64(table[e + 2])
    same = table[e] == lo and table[e + 1] == hi and (old & STAMPED_TAG) == tag
    stale = (old >> GENERATION_SHIFT) != (tag >> GENERATION_SHIFT)
    if same or stale or count(table[e], table[e + 1]) <= count(lo, hi):
        if not same:
            table[f] = table[e]
            table[f + 1] = table[e + 1]
            table[f + 2] = table[e + 2]
        table[e] = lo
        table[e + 1] = hi
        table[e + 2] = np.uint64(data)
    else:
        table[f] = lo
        table[f + 1] = hi
        table[f + 2] = np.uint64(data)
