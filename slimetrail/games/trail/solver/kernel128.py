"""The compiled solver for regions of 65 to 128 cells: :mod:`.kernel` on two-word sets.

A set of cells is a pair ``(lo, hi)`` of ``uint64`` (vertices 0-63 in ``lo``, 64-127 in
``hi``), passed and returned as plain scalars so that nothing is allocated per node.
``nbr`` has shape ``(n, 2)``, ``goals`` shape ``(2, 2)``; the table's keys are a flat array
of two words per entry (``keys[2 * s]``, ``keys[2 * s + 1]``).  Everything else (scores,
table entries, shortcuts, move order, the matching theorem) is exactly that of
:mod:`.kernel`, which stays in use for regions of up to 64 cells, where one word is faster.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slimetrail.compiled import cttz, now, popcount
from slimetrail.games.trail.solver.kernel import (
    CLOCK_EVERY,
    EXACT,
    ILLEGAL,
    INF,
    LOWER,
    MATE,
    P_DIST,
    P_MATCHING,
    P_PRUNE,
    P_TAYLOR,
    S_ABORT,
    S_NODES,
    U0,
    U1,
    UPPER,
    adjust,
    entry_flag,
    entry_value,
    unadjust,
)

# Regions at least this big try enhanced transposition cutoffs.  Higher than the one-word
# kernel's: a flood of two words per child costs more than the subtrees it saves below this
# (hex 10x10 Taylor positions 12-30 plies in: 1.55x faster than at 20 cells, 1.22x the nodes;
# bench/RESULTS.md).
WIDE_ETC_MIN_CELLS = 60

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
    r_lo, r_hi = U0, U0
    f_lo, f_hi = seed_lo, seed_hi
    while (f_lo | f_hi) != U0:
        i, f_lo, f_hi = lowest(f_lo, f_hi)
        n_lo = nbr[i, 0] & free_lo & ~r_lo
        n_hi = nbr[i, 1] & free_hi & ~r_hi
        r_lo |= n_lo
        r_hi |= n_hi
        f_lo |= n_lo & pass_lo
        f_hi |= n_hi & pass_hi
    return r_lo, r_hi


# -- maximum matching (Edmonds' blossom algorithm), as in kernel.py ---------------------------


@nb.njit(cache=True)
def _lca(a, b, match, base, parent, n):
    seen = np.zeros(n, np.bool_)
    while True:
        a = base[a]
        seen[a] = True
        if match[a] == -1:
            break
        a = parent[match[a]]
    while True:
        b = base[b]
        if seen[b]:
            return b
        b = parent[match[b]]


@nb.njit(cache=True)
def _mark_path(v, b, child, match, base, parent, blossom):
    while base[v] != b:
        blossom[base[v]] = True
        blossom[base[match[v]]] = True
        parent[v] = child
        child = match[v]
        v = parent[match[v]]


@nb.njit(cache=True)
def _augment_from(root, v_lo, v_hi, nbr, match, n):
    """Look for an augmenting path from the exposed vertex ``root`` inside ``verts``;
    if there is one, flip it (``match`` grows by one edge) and return True."""
    used = np.zeros(n, np.bool_)
    parent = np.full(n, -1, np.int64)
    base = np.arange(n)
    queue = np.empty(n, np.int64)
    head, tail = 0, 0
    used[root] = True
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
                cur = _lca(v, to, match, base, parent, n)
                blossom = np.zeros(n, np.bool_)
                _mark_path(v, cur, to, match, base, parent, blossom)
                _mark_path(to, cur, v, match, base, parent, blossom)
                r_lo, r_hi = v_lo, v_hi
                while (r_lo | r_hi) != U0:
                    i, r_lo, r_hi = lowest(r_lo, r_hi)
                    if blossom[base[i]]:
                        base[i] = cur
                        if not used[i]:
                            used[i] = True
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
                used[nxt] = True
                queue[tail] = nxt
                tail += 1
    return False


@nb.njit(cache=True)
def max_matching(v_lo, v_hi, nbr, n):
    """A maximum matching of the graph induced by ``verts``: ``(size, match)``."""
    match = np.full(n, -1, np.int64)
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
        if match[v] == -1 and _augment_from(v, v_lo, v_hi, nbr, match, n):
            size += 1
    return size, match


@nb.njit(cache=True)
def geography_wins(free_lo, free_hi, snail, nbr, n):
    """Undirected vertex geography: the mover wins iff the snail's vertex lies in every
    maximum matching of the region (see :func:`.kernel.geography_wins`)."""
    _, match = max_matching(free_lo, free_hi, nbr, n)
    s_lo, s_hi = bit(snail)
    return _augment_from(snail, free_lo | s_lo, free_hi | s_hi, nbr, match, n)


# -- the search --------------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _slot(lo, hi, snail, side, mask):
    h = lo * np.uint64(0x9E3779B97F4A7C15)
    h ^= hi * np.uint64(0xD6E8FEB86659FD93)
    h ^= np.uint64(snail * 2 + side) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask) & ~np.int64(1)


@nb.njit(cache=True, inline="always")
def _find(tt_keys, tt_data, slot, lo, hi, tag):
    """The slot of the bucket at ``slot`` that holds the position ``(lo, hi, tag)``, or -1."""
    for s in range(slot, slot + 2):
        data = tt_data[s]
        if tt_keys[2 * s] == lo and tt_keys[2 * s + 1] == hi and data != 0 and (data & 255) == tag:
            return s
    return -1


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
    tt_keys,
    tt_data,
    stats,
    deadline,
):
    """:func:`.kernel.negamax` on two-word sets: the exact score of the position for the side
    to move, or ``ILLEGAL`` if Taylor's rule forbids the snail to stand here."""
    taylor = params[P_TAYLOR] != 0
    dist = params[P_DIST] != 0
    win = MATE if dist else 1
    stats[S_NODES] += 1
    if deadline > 0.0 and (stats[S_NODES] & CLOCK_EVERY) == 0 and now() > deadline:
        stats[S_ABORT] = 1
    if stats[S_ABORT] != 0:
        return 0
    n = nbr.shape[0]
    mine_lo, mine_hi = goals[side, 0], goals[side, 1]
    th_lo, th_hi = goals[1 - side, 0], goals[1 - side, 1]
    st_lo, st_hi = nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi
    if (st_lo & mine_lo) | (st_hi & mine_hi) != U0:
        return win - 1 if dist else win
    s_lo, s_hi = bit(snail)
    free_lo, free_hi = flood(
        s_lo, s_hi, free_lo, free_hi, nbr, ~(mine_lo | th_lo), ~(mine_hi | th_hi)
    )
    reach_mine = ((free_lo & mine_lo) | (free_hi & mine_hi)) != U0
    reach_theirs = ((free_lo & th_lo) | (free_hi & th_hi)) != U0
    if not reach_mine and not reach_theirs:
        if taylor:
            return ILLEGAL
        if (st_lo | st_hi) == U0:
            return -win
        if not dist and params[P_MATCHING] != 0:
            return win if geography_wins(free_lo, free_hi, snail, nbr, n) else -win
    elif reach_mine != reach_theirs and not dist and params[P_MATCHING] != 0:
        if taylor:
            return win if reach_mine else -win
        if reach_mine and geography_wins(free_lo & ~mine_lo, free_hi & ~mine_hi, snail, nbr, n):
            return win
        if reach_theirs and not geography_wins(free_lo & ~th_lo, free_hi & ~th_hi, snail, nbr, n):
            return -win

    mask = np.uint64(tt_data.shape[0] - 1)
    slot = _slot(free_lo, free_hi, snail, side, mask)
    tag = np.int64(snail * 2 + side)
    tt_move = -1
    alpha0 = alpha
    found = _find(tt_keys, tt_data, slot, free_lo, free_hi, tag)
    if found >= 0:
        data = tt_data[found]
        value = entry_value(data)
        flag = entry_flag(data)
        tt_move = (data >> 26) & 127
        if flag == EXACT:
            return value
        if flag == LOWER and value >= beta:
            return value
        if flag == UPPER and value <= alpha:
            return value
        if flag == LOWER and value > alpha:
            alpha = value
        elif flag == UPPER and value < beta:
            beta = value

    best = -INF
    best_move = -1
    their_goal = -1
    if (th_lo | th_hi) != U0:
        their_goal, _, _ = lowest(th_lo, th_hi)
    if (st_lo & th_lo) | (st_hi & th_hi) != U0:
        best = adjust(win, dist)
        best_move = their_goal
    r_lo, r_hi = st_lo & ~th_lo, st_hi & ~th_hi
    if params[P_PRUNE] != 0 and their_goal >= 0:
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
    g_lo, g_hi = ~(mine_lo | th_lo), ~(mine_hi | th_hi)
    if alpha < beta and count(r_lo, r_hi) > 1 and count(free_lo, free_hi) >= WIDE_ETC_MIN_CELLS:
        scan_lo, scan_hi = r_lo, r_hi
        while (scan_lo | scan_hi) != U0:  # enhanced transposition cutoff, as in kernel.py
            m, scan_lo, scan_hi = lowest(scan_lo, scan_hi)
            m_lo, m_hi = bit(m)
            k_lo, k_hi = flood(m_lo, m_hi, free_lo & ~m_lo, free_hi & ~m_hi, nbr, g_lo, g_hi)
            kid_slot = _slot(k_lo, k_hi, m, 1 - side, mask)
            found = _find(tt_keys, tt_data, kid_slot, k_lo, k_hi, np.int64(m * 2 + 1 - side))
            if found >= 0 and entry_flag(tt_data[found]) != LOWER:
                score = adjust(entry_value(tt_data[found]), dist)
                if score >= beta:
                    return score
    while (r_lo | r_hi) != U0 and alpha < beta:  # in kernel.py's order, picked as it goes
        m = pick_move(r_lo, r_hi, tt_move, free_lo, free_hi, side, nbr, order)
        m_lo, m_hi = bit(m)
        r_lo &= ~m_lo
        r_hi &= ~m_hi
        raw = negamax(
            free_lo & ~m_lo,
            free_hi & ~m_hi,
            m,
            1 - side,
            unadjust(beta, dist),
            unadjust(alpha, dist),
            nbr,
            goals,
            order,
            params,
            tt_keys,
            tt_data,
            stats,
            deadline,
        )
        if stats[S_ABORT] != 0:
            return 0
        if raw == ILLEGAL:
            continue
        score = adjust(raw, dist)
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                alpha = score
    if best == -INF:
        return 0 if taylor else -win

    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    else:
        flag = EXACT
    data = (
        tag
        | ((np.int64(best) + 0x8000) << 8)
        | (np.int64(flag) << 24)
        | (np.int64(best_move) << 26)
    )
    # Slot 0 keeps the bigger region (more work to redo); slot 1 always takes the newest.
    same = (
        tt_keys[2 * slot] == free_lo
        and tt_keys[2 * slot + 1] == free_hi
        and (tt_data[slot] & 255) == tag
    )
    old = count(tt_keys[2 * slot], tt_keys[2 * slot + 1])
    if same or tt_data[slot] == 0 or old <= count(free_lo, free_hi):
        if not same:
            tt_keys[2 * slot + 2] = tt_keys[2 * slot]
            tt_keys[2 * slot + 3] = tt_keys[2 * slot + 1]
            tt_data[slot + 1] = tt_data[slot]
        tt_keys[2 * slot] = free_lo
        tt_keys[2 * slot + 1] = free_hi
        tt_data[slot] = data
    else:
        tt_keys[2 * slot + 2] = free_lo
        tt_keys[2 * slot + 3] = free_hi
        tt_data[slot + 1] = data
    return best
