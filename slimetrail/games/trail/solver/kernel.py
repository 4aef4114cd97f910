"""The compiled core of the exact solver (numba, ``cache=True``).

The position is relabelled onto a compact graph of at most 64 vertices (see
:mod:`slimetrail.games.trail.solver`), so one ``uint64`` holds a set of cells and ``nbr[i]`` is the
neighbour mask of vertex ``i``.  ``free`` is always canonical: exactly the empty cells the
snail can still reach (walking through non-goal cells; goal corners end the walk), so
positions that differ only in walled-off cells share a table entry.

Scores are for the side to move.  Without distances a win is 1, a loss -1, a draw 0.  With
distances a win in ``k`` plies is ``MATE - k`` and a loss in ``k`` plies ``-(MATE - k)``;
each ply pulls a score one step towards zero, so the winner prefers short games and the
loser long ones.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slimetrail.compiled import cttz, now, popcount

MATE = 1000
INF = 10_000
ILLEGAL = 20_000  # returned for a position Taylor's rule forbids
# Table entry flags.
EXACT, LOWER, UPPER = 0, 1, 2
# params[] slots.
P_TAYLOR, P_DIST, P_MATCHING, P_PRUNE = 0, 1, 2, 3
# stats[] slots.
S_NODES, S_ABORT = 0, 1
CLOCK_EVERY = 4095  # check the clock when (nodes & CLOCK_EVERY) == 0
# Regions at least this big try enhanced transposition cutoffs (a flood per child).
ETC_MIN_CELLS = 20

U0 = np.uint64(0)
U1 = np.uint64(1)


@nb.njit(cache=True, inline="always")
def bit(i):
    return U1 << np.uint64(i)


@nb.njit(cache=True)
def flood(seed, free, nbr, passable):
    """Cells of ``free`` reachable from the cells of ``seed``; walks continue only through
    cells of ``passable`` (the goal corners are reached but not walked through)."""
    reach = U0
    frontier = seed
    while frontier != U0:
        i = cttz(frontier)
        frontier &= frontier - U1
        new = nbr[i] & free & ~reach
        reach |= new
        frontier |= new & passable
    return reach


# -- maximum matching (Edmonds' blossom algorithm) ------------------------------------------


@nb.njit(cache=True)
def _lca(a, b, match, base, parent):
    seen = U0
    while True:
        a = base[a]
        seen |= bit(a)
        if match[a] == -1:
            break
        a = parent[match[a]]
    while True:
        b = base[b]
        if seen & bit(b):
            return b
        b = parent[match[b]]


@nb.njit(cache=True)
def _mark_path(v, b, child, match, base, parent, blossom):
    """Mark the blossom's bases on the path from ``v`` to base ``b``; the grown mask."""
    while base[v] != b:
        blossom |= bit(base[v]) | bit(base[match[v]])
        parent[v] = child
        child = match[v]
        v = parent[match[v]]
    return blossom


@nb.njit(cache=True)
def _augment_from(root, verts, nbr, match, work):
    """Look for an augmenting path from the exposed vertex ``root`` inside ``verts``;
    if there is one, flip it (``match`` grows by one edge) and return True.  ``work``:
    scratch rows (parent, base, queue) of at least as many vertices, reused between calls
    so that the search allocates nothing."""
    parent, base, queue = work[0], work[1], work[2]
    rest = verts
    while rest != U0:
        i = np.int64(cttz(rest))
        rest &= rest - U1
        parent[i] = -1
        base[i] = i
    used = bit(root)
    head, tail = 0, 0
    queue[tail] = root
    tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        others = nbr[v] & verts
        while others != U0:
            to = np.int64(cttz(others))
            others &= others - U1
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                cur = _lca(v, to, match, base, parent)
                blossom = _mark_path(v, cur, to, match, base, parent, U0)
                blossom = _mark_path(to, cur, v, match, base, parent, blossom)
                rest = verts
                while rest != U0:
                    i = np.int64(cttz(rest))
                    rest &= rest - U1
                    if blossom & bit(base[i]):
                        base[i] = cur
                        if not used & bit(i):
                            used |= bit(i)
                            queue[tail] = i
                            tail += 1
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    # Flip the path root ... v - to.
                    while to != -1:
                        pv = parent[to]
                        nxt = match[pv]
                        match[to] = pv
                        match[pv] = to
                        to = nxt
                    return True
                nxt = match[to]
                used |= bit(nxt)
                queue[tail] = nxt
                tail += 1
    return False


@nb.njit(cache=True)
def _grow_matching(verts, nbr, match, work):
    """Grow ``match`` (every vertex of ``verts`` unmatched) into a maximum matching of the
    graph ``verts`` induces; its size."""
    size = 0
    rest = verts
    while rest != U0:  # greedy start
        v = np.int64(cttz(rest))
        rest &= rest - U1
        if match[v] == -1:
            free_nb = nbr[v] & verts
            while free_nb != U0:
                w = np.int64(cttz(free_nb))
                free_nb &= free_nb - U1
                if match[w] == -1:
                    match[v] = w
                    match[w] = v
                    size += 1
                    break
    rest = verts
    while rest != U0:
        v = np.int64(cttz(rest))
        rest &= rest - U1
        if match[v] == -1 and _augment_from(v, verts, nbr, match, work):
            size += 1
    return size


@nb.njit(cache=True)
def max_matching(verts, nbr, n):
    """A maximum matching of the graph induced by ``verts``: ``(size, match)``."""
    match = np.full(n, -1, np.int64)
    size = _grow_matching(verts, nbr, match, np.empty((3, n), np.int64))
    return size, match


@nb.njit(cache=True)
def geography_wins(free, snail, nbr, n):
    """Undirected vertex geography: the player to move from ``snail`` wins iff the snail's
    vertex lies in every maximum matching of the region, i.e. iff a maximum matching of the
    region without it has an augmenting path from it."""
    work = np.empty((4, n), np.int64)  # match, then _augment_from's scratch rows
    match = work[3]
    match[:] = -1
    _grow_matching(free, nbr, match, work)
    return _augment_from(snail, free | bit(snail), nbr, match, work)


# -- the search --------------------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def adjust(score, dist):
    """A child's score seen from the parent, one ply further from the end."""
    s = -score
    if dist:
        if s > 0:
            s -= 1
        elif s < 0:
            s += 1
    return s


@nb.njit(cache=True, inline="always")
def unadjust(bound, dist):
    """The child bound that corresponds to a parent bound (inverse of ``adjust``)."""
    if dist:
        if bound > 0:
            bound += 1
        elif bound < 0:
            bound -= 1
    return -bound


@nb.njit(cache=True, inline="always")
def _slot(free, snail, side, mask):
    h = free * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(snail * 2 + side) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask) & ~np.int64(1)


@nb.njit(cache=True, inline="always")
def _find(tt_keys, tt_data, slot, key, tag):
    """The slot of the bucket at ``slot`` that holds the position ``(key, tag)``, or -1."""
    for s in range(slot, slot + 2):
        data = tt_data[s]
        if tt_keys[s] == key and data != 0 and (data & 255) == tag:
            return s
    return -1


@nb.njit(cache=True, inline="always")
def entry_value(data):
    return ((data >> 8) & 0xFFFF) - 0x8000


@nb.njit(cache=True, inline="always")
def entry_flag(data):
    return (data >> 24) & 3


@nb.njit(cache=True, inline="always")
def _tag(snail, side):
    return np.int64(snail * 2 + side)


@nb.njit(cache=True, inline="always")
def _entry(tag, value, flag, move):
    """A table entry's data word: the position's tag, its score, the bound flag and the
    best move."""
    return tag | ((np.int64(value) + 0x8000) << 8) | (np.int64(flag) << 24) | (np.int64(move) << 26)


@nb.njit(cache=True, inline="always")
def _store(tt_keys, tt_data, slot, free, tag, data):
    """Store an entry in the bucket at ``slot``: slot 0 keeps the bigger region (more work
    to redo), slot 1 always takes the newest."""
    same = tt_keys[slot] == free and (tt_data[slot] & 255) == tag
    if same or tt_data[slot] == 0 or popcount(tt_keys[slot]) <= popcount(free):
        if not same:
            tt_keys[slot + 1] = tt_keys[slot]
            tt_data[slot + 1] = tt_data[slot]
        tt_keys[slot] = free
        tt_data[slot] = data
    else:
        tt_keys[slot + 1] = free
        tt_data[slot + 1] = data


@nb.njit(cache=True, inline="always")
def pick_move(moves, tt_move, free, side, nbr, order):
    """The first of ``moves`` in search order: ``tt_move`` if among them, else the fewest
    replies (neighbours in ``free``), ties by ``order[side]`` then the lowest vertex."""
    pick = np.int64(-1)
    pick_rank = np.int64(1) << 40
    while moves != U0:
        m = np.int64(cttz(moves))
        moves &= moves - U1
        if m == tt_move:
            return m
        rank = np.int64(popcount(nbr[m] & free)) * 64 + order[side, m]
        if rank < pick_rank:
            pick, pick_rank = m, rank
    return pick


@nb.njit(cache=True)
def negamax(
    free, snail, side, alpha, beta, nbr, goals, order, params, tt_keys, tt_data, stats, deadline
):
    """The exact score of the position (fail-soft alpha-beta with a transposition table), or
    ``ILLEGAL`` if the snail may not stand here (Taylor's rule: no goal reachable).

    ``free``: empty cells (only those the snail reaches matter); ``snail``: its vertex;
    ``side``: 0 if player 1 is to move, else 1; ``goals[p]``: bit of player p+1's goal (0 if
    out of reach); ``order``: per side, a static rank of every vertex (lower = tried first).
    """
    taylor = params[P_TAYLOR] != 0
    dist = params[P_DIST] != 0
    win = MATE if dist else 1
    stats[S_NODES] += 1
    if deadline > 0.0 and (stats[S_NODES] & CLOCK_EVERY) == 0 and now() > deadline:
        stats[S_ABORT] = 1
    if stats[S_ABORT] != 0:
        return 0
    mine = goals[side]
    theirs = goals[1 - side]
    steps = nbr[snail] & free
    if steps & mine:
        return win - 1 if dist else win
    # Canonical region: what the snail can still reach (goal corners end a walk).
    free = flood(bit(snail), free, nbr, ~(mine | theirs))
    reach_mine = (free & mine) != U0
    reach_theirs = (free & theirs) != U0
    matching = not dist and params[P_MATCHING] != 0
    if not reach_mine and not reach_theirs:
        if taylor:
            return ILLEGAL
        if steps == U0:
            return -win
    elif reach_mine != reach_theirs and matching and taylor:
        # Every legal move keeps the one reachable goal reachable and the snail cannot get
        # stuck, so the game ends in that goal: its owner wins.
        return win if reach_mine else -win

    # Transposition table: a bucket of two slots.  Probed before the matching shortcuts
    # below, which cost more than a probe and whose answers are stored too.
    mask = np.uint64(tt_keys.shape[0] - 1)
    slot = _slot(free, snail, side, mask)
    tag = _tag(snail, side)
    tt_move = -1
    alpha0 = alpha
    found = _find(tt_keys, tt_data, slot, free, tag)
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

    if matching and not (reach_mine and reach_theirs):
        # No goal reachable: plain geography decides.  One goal (Rastros): the player whose
        # goal is cut off can only win by geography.  If the mover wins geography on the
        # cells other than their own goal, they win here too (the opponent's extra option,
        # entering that goal, loses); if the mover loses geography on the cells other than
        # the opponent's goal, the opponent's pairing strategy wins here too (the mover's
        # extra option, entering it, loses).  Otherwise the search goes on (value 0).
        n = nbr.shape[0]
        value = 0
        if not reach_mine and not reach_theirs:
            value = win if geography_wins(free, snail, nbr, n) else -win
        elif reach_mine and geography_wins(free & ~mine, snail, nbr, n):
            value = win
        elif reach_theirs and not geography_wins(free & ~theirs, snail, nbr, n):
            value = -win
        if value != 0:
            _store(tt_keys, tt_data, slot, free, tag, _entry(tag, value, EXACT, 0))
            return value

    best = -INF
    best_move = -1
    # Stepping into the opponent's corner loses at once; stepping next to it (when
    # pruning) loses on their reply.  Neither needs a search.
    if steps & theirs:
        best = adjust(win, dist)
        best_move = np.int64(cttz(theirs))
    rest = steps & ~theirs
    if params[P_PRUNE] != 0 and theirs != U0:
        near = rest & nbr[np.int64(cttz(theirs))]
        if near != U0:
            # They step into their corner next: a loss in two plies.
            loss2 = adjust(win - 1 if dist else win, dist)
            if loss2 > best:
                best = loss2
                best_move = np.int64(cttz(near))
            rest &= ~near

    if best > alpha:
        alpha = best
    if alpha < beta and (rest & (rest - U1)) != U0 and popcount(free) >= ETC_MIN_CELLS:
        # Enhanced transposition cutoff: a child the table already knows to lose (for the
        # opponent) by enough ends this node before any subtree is searched.
        goal_bits = mine | theirs
        scan = rest
        while scan != U0:
            m = np.int64(cttz(scan))
            scan &= scan - U1
            kid_free = flood(bit(m), free & ~bit(m), nbr, ~goal_bits)
            found = _find(
                tt_keys, tt_data, _slot(kid_free, m, 1 - side, mask), kid_free, _tag(m, 1 - side)
            )
            if found >= 0 and entry_flag(tt_data[found]) != LOWER:
                score = adjust(entry_value(tt_data[found]), dist)
                if score >= beta:
                    return score
    # The other moves, best first, each picked when its turn comes (a cutoff usually comes
    # at the first, so the rest are never ranked; no per-node arrays): the table's move,
    # then fewest replies for the opponent, ties nearer the mover's own goal.
    while rest != U0 and alpha < beta:
        m = pick_move(rest, tt_move, free, side, nbr, order)
        rest &= ~bit(m)
        raw = negamax(
            free & ~bit(m),
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
        # No legal move: stuck.  (Under Taylor's rule only when no goal can be reached,
        # which the rule itself prevents after the first move.)
        return 0 if taylor else -win

    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    else:
        flag = EXACT
    _store(tt_keys, tt_data, slot, free, tag, _entry(tag, best, flag, best_move))
    return best
