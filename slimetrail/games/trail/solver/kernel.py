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
# A table entry is the key word then the data word; a bucket of two entries is 32 bytes
# (half a cache line), so a probe misses the cache at most once.
ENTRY_WORDS = 2
# A data word holds its solve's generation from this bit: a new solve takes the next
# generation instead of zeroing the table (which cost more than the search of many
# positions); after MAX_GENERATION the table is zeroed and they start again.
GENERATION_SHIFT = 40
MAX_GENERATION = 0xFFFF
STAMPED_TAG = (MAX_GENERATION << GENERATION_SHIFT) | 255  # the bits _find compares
# With one goal cut off, the matching bounds are tried only on regions at least this big:
# on smaller ones the search is quicker than the matchings (7x7 mid-game set, CPU s for
# all 60 positions by threshold: 0: 0.38, 15: 0.31, 25: 0.25, 35: 0.27, never: 0.32).  With
# no goal reachable the matching decides, so it is always used.
ONE_GOAL_MATCHING_CELLS = 25
# Regions at least this big try enhanced transposition cutoffs (a flood per child).  Below,
# a flood per child costs more than the subtrees it saves: 7x7 from the start (no book),
# CPU s / nodes by threshold: 20: 7.7 s / 20.0 M, 40: 5.9 s / 25.2 M, off: 6.1 s / 25.9 M;
# the 7x7 mid-game set (regions under 40 cells) 1.2x faster than at 20.
ETC_MIN_CELLS = 40

U0 = np.uint64(0)
U1 = np.uint64(1)


@nb.njit(cache=True, inline="always")
def bit(i):
    return U1 << np.uint64(i)


@nb.njit(cache=True)
def flood(seed, free, nbr, passable):
    """Cells of ``free`` reachable from the cells of ``seed``; walks continue only through
    cells of ``passable`` (the goal corners are reached but not walked through)."""
    left = free  # not reached yet
    frontier = seed
    while frontier != U0:
        i = cttz(frontier)
        frontier &= frontier - U1
        new = nbr[i] & left
        left ^= new
        frontier |= new & passable
    return free ^ left


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
    return geography_wins_in(free, snail, nbr, np.empty((4, n), np.int64))


@nb.njit(cache=True)
def geography_wins_in(free, snail, nbr, work):
    """:func:`geography_wins` with the caller's scratch rows ``work`` (4 by n): the match,
    then :func:`_augment_from`'s rows, so that a search calling it at many nodes allocates
    nothing."""
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
def entry_data(table, s):
    """The data word of entry ``s`` (0: empty)."""
    return np.int64(table[ENTRY_WORDS * s + 1])


@nb.njit(cache=True, inline="always")
def _find(table, slot, key, tag):
    """The slot of the bucket at ``slot`` that holds the position ``(key, tag)`` (``tag``
    stamped with the table's generation), or -1."""
    for s in range(slot, slot + 2):
        data = entry_data(table, s)
        if table[ENTRY_WORDS * s] == key and (data & STAMPED_TAG) == tag:
            return s
    return -1


@nb.njit(cache=True, inline="always")
def entry_value(data):
    return ((data >> 8) & 0xFFFF) - 0x8000


@nb.njit(cache=True, inline="always")
def entry_flag(data):
    return (data >> 24) & 3


@nb.njit(cache=True, inline="always")
def probed(data, alpha, beta):
    """What a table entry tells a node searched with the window (alpha, beta): whether
    its score is known, the score, the narrowed window and the entry's best move."""
    value = entry_value(data)
    flag = entry_flag(data)
    move = (data >> 26) & 127
    if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
        return True, value, alpha, beta, move
    if flag == LOWER and value > alpha:
        alpha = value
    elif flag == UPPER and value < beta:
        beta = value
    return False, 0, alpha, beta, move


@nb.njit(cache=True, inline="always")
def child_cutoff(data, dist, beta):
    """Whether a child's table entry (its data word) ends the parent's search at once: a
    score, seen from the parent, of at least ``beta``; and that score."""
    if entry_flag(data) == LOWER:
        return False, 0
    score = adjust(entry_value(data), dist)
    return score >= beta, score


@nb.njit(cache=True, inline="always")
def bound_flag(best, alpha0, beta):
    """The table flag of a node's score ``best``, searched with the window (alpha0, beta)."""
    if best <= alpha0:
        return UPPER
    if best >= beta:
        return LOWER
    return EXACT


@nb.njit(cache=True, inline="always")
def hand_up(raw, move, dist, top, f_best, f_best_move, f_alpha):
    """Give the score ``raw`` of the child reached by ``move`` to its parent's frame ``top``."""
    if raw != ILLEGAL:
        score = adjust(raw, dist)
        if score > f_best[top]:
            f_best[top] = score
            f_best_move[top] = move
            if score > f_alpha[top]:
                f_alpha[top] = score


@nb.njit(cache=True, inline="always")
def _tag(snail, side):
    return np.int64(snail * 2 + side)


@nb.njit(cache=True, inline="always")
def pack_entry(tag, value, flag, move):
    """A table entry's data word: the position's tag, its score, the bound flag and the
    best move."""
    return tag | ((np.int64(value) + 0x8000) << 8) | (np.int64(flag) << 24) | (np.int64(move) << 26)


@nb.njit(cache=True, inline="always")
def _store(table, slot, free, tag, data):
    """Store an entry in the bucket at ``slot``: slot 0 keeps the bigger region (more work
    to redo), slot 1 always takes the newest."""
    e = ENTRY_WORDS * slot
    old = np.int64(table[e + 1])
    same = table[e] == free and (old & STAMPED_TAG) == tag
    stale = (old >> GENERATION_SHIFT) != (tag >> GENERATION_SHIFT)  # empty, or an older solve's
    if same or stale or popcount(table[e]) <= popcount(free):
        if not same:
            table[e + 2] = table[e]
            table[e + 3] = table[e + 1]
        table[e] = free
        table[e + 1] = np.uint64(data)
    else:
        table[e + 2] = free
        table[e + 3] = np.uint64(data)


@nb.njit(cache=True)
def near_cells(nbr):
    """Per vertex, the vertices at most two steps away."""
    near = nbr.copy()
    for v in range(nbr.shape[0]):
        rest = nbr[v]
        while rest != U0:
            near[v] |= nbr[cttz(rest)]
            rest &= rest - U1
    return near


@nb.njit(cache=True, inline="always")
def joined(m, parent, free, nbr, nearby, passable):
    """Whether the snail, just moved from ``parent`` to ``m``, still reaches all of
    ``free`` (the parent's region without ``m``), known from a walk near ``parent`` alone:
    every walk from the parent began at one of its other neighbours, so if ``m`` reaches
    each of them, it reaches all the parent reached.  A flood that stops once every target is
    reached (``flood`` itself, walking the whole neighbourhood, made the hex set 9% slower)."""
    targets = nbr[parent] & free
    left = nearby[parent] & free  # not walked to yet
    frontier = bit(m)
    while frontier != U0 and targets & left != U0:
        i = cttz(frontier)
        frontier &= frontier - U1
        new = nbr[i] & left
        left ^= new
        frontier |= new & passable
    return targets & left == U0


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
    free, snail, side, alpha, beta, nbr, goals, order, params, table, generation, stats, deadline
):
    """The exact score of the position (fail-soft alpha-beta with a transposition table), or
    ``ILLEGAL`` if the snail may not stand here (Taylor's rule: no goal reachable).

    ``free``: empty cells (only those the snail reaches matter); ``snail``: its vertex;
    ``side``: 0 if player 1 is to move, else 1; ``goals[p]``: bit of player p+1's goal (0 if
    out of reach); ``order``: per side, a static rank of every vertex (lower = tried first);
    ``table``: the transposition table, whose entries of other generations than
    ``generation`` (1 to MAX_GENERATION) count as empty.

    The search is a loop over an explicit stack of frames, one per node on the path from the
    root, not recursion: a compiled call per node (its arrays passed and reference-counted)
    cost about as much as the node's own work.
    """
    taylor = params[P_TAYLOR] != 0
    dist = params[P_DIST] != 0
    matching = not dist and params[P_MATCHING] != 0
    prune = params[P_PRUNE] != 0
    win = MATE if dist else 1
    n = nbr.shape[0]
    mask = np.uint64(table.shape[0] // ENTRY_WORDS - 1)
    work = np.empty((4, n), np.int64)  # the matching's scratch rows
    # A frame: the node's region, its moves not yet searched, snail, side, window (and the
    # window it was opened with), best score and move so far, table move and table slot.
    # Every child has one cell fewer, so the path is at most n + 1 nodes long.
    cap = n + 2
    f_free = np.empty(cap, np.uint64)
    f_rest = np.empty(cap, np.uint64)
    f_snail = np.empty(cap, np.int64)
    f_side = np.empty(cap, np.int64)
    f_alpha = np.empty(cap, np.int64)
    f_beta = np.empty(cap, np.int64)
    f_alpha0 = np.empty(cap, np.int64)
    f_best = np.empty(cap, np.int64)
    f_best_move = np.empty(cap, np.int64)
    f_tt_move = np.empty(cap, np.int64)
    f_slot = np.empty(cap, np.int64)
    depth = 0  # frames in use
    nearby = near_cells(nbr)
    stamp = np.int64(generation) << GENERATION_SHIFT
    passable = ~(goals[0] | goals[1])
    # Whether free is already the snail's region: the flood, a node's biggest cost, is
    # skipped when a walk near the last move shows nothing was cut off.
    canonical = False
    reach_mine = reach_theirs = False
    rest = steps = U0
    slot = tag = tt_move = alpha0 = best = best_move = np.int64(0)
    while True:
        # Open the node (free, snail, side, alpha, beta): either its score is known at once
        # (``known``, the score in ``ret``) or it gets a frame.
        stats[S_NODES] += 1
        if deadline > 0.0 and (stats[S_NODES] & CLOCK_EVERY) == 0 and now() > deadline:
            stats[S_ABORT] = 1
        if stats[S_ABORT] != 0:
            return 0
        known = True
        ret = 0
        mine = goals[side]
        theirs = goals[1 - side]
        steps = nbr[snail] & free
        if steps & mine:
            ret = win - 1 if dist else win
        else:
            # Canonical region: what the snail can still reach (goal corners end a walk).
            if not canonical:
                free = flood(bit(snail), free, nbr, ~(mine | theirs))
            reach_mine = (free & mine) != U0
            reach_theirs = (free & theirs) != U0
            if not reach_mine and not reach_theirs and (taylor or steps == U0):
                ret = ILLEGAL if taylor else -win
            elif reach_mine != reach_theirs and matching and taylor:
                # Every legal move keeps the one reachable goal reachable and the snail
                # cannot get stuck, so the game ends in that goal: its owner wins.
                ret = win if reach_mine else -win
            else:
                known = False
        if not known:
            # Transposition table: a bucket of two slots.  Probed before the matching
            # shortcuts below, which cost more than a probe and whose answers are stored too.
            slot = _slot(free, snail, side, mask)
            tag = _tag(snail, side) | stamp
            tt_move = -1
            alpha0 = alpha
            found = _find(table, slot, free, tag)
            if found >= 0:
                known, ret, alpha, beta, tt_move = probed(entry_data(table, found), alpha, beta)
        if (
            not known
            and matching
            and not (reach_mine and reach_theirs)
            and (not (reach_mine or reach_theirs) or popcount(free) >= ONE_GOAL_MATCHING_CELLS)
        ):
            # No goal reachable: plain geography decides.  One goal (Rastros): the player
            # whose goal is cut off can only win by geography.  If the mover wins geography
            # on the cells other than their own goal, they win here too (the opponent's extra
            # option, entering that goal, loses); if the mover loses geography on the cells
            # other than the opponent's goal, the opponent's pairing strategy wins here too
            # (the mover's extra option, entering it, loses).  Otherwise the search goes on.
            value = 0
            if not reach_mine and not reach_theirs:
                value = win if geography_wins_in(free, snail, nbr, work) else -win
            elif reach_mine and geography_wins_in(free & ~mine, snail, nbr, work):
                value = win
            elif reach_theirs and not geography_wins_in(free & ~theirs, snail, nbr, work):
                value = -win
            if value != 0:
                _store(table, slot, free, tag, pack_entry(tag, value, EXACT, 0))
                known, ret = True, value
        if not known:
            best = -INF
            best_move = -1
            # Stepping into the opponent's corner loses at once; stepping next to it (when
            # pruning) loses on their reply.  Neither needs a search.
            if steps & theirs:
                best = adjust(win, dist)
                best_move = np.int64(cttz(theirs))
            rest = steps & ~theirs
            if prune and theirs != U0:
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
                # Enhanced transposition cutoff: a child the table already knows to lose (for
                # the opponent) by enough ends this node before any subtree is searched.
                goal_bits = mine | theirs
                scan = rest
                while scan != U0:
                    m = np.int64(cttz(scan))
                    scan &= scan - U1
                    kid_free = flood(bit(m), free & ~bit(m), nbr, ~goal_bits)
                    kid_slot = _slot(kid_free, m, 1 - side, mask)
                    kid = _find(table, kid_slot, kid_free, _tag(m, 1 - side) | stamp)
                    if kid >= 0:
                        known, ret = child_cutoff(entry_data(table, kid), dist, beta)
                        if known:
                            break
        if not known:
            f_free[depth] = free
            f_rest[depth] = rest
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
        # Climb: hand each known score to the parent's frame, and finish the frames out of
        # moves (or cut off), until one has a child to open or the root is done.
        while True:
            top = depth - 1
            if known:
                if top < 0:
                    return ret
                hand_up(ret, snail, dist, top, f_best, f_best_move, f_alpha)
            # The other moves, best first, each picked when its turn comes (a cutoff usually
            # comes at the first, so the rest are never ranked): the table's move, then
            # fewest replies for the opponent, ties nearer the mover's own goal.
            rest = f_rest[top]
            if rest != U0 and f_alpha[top] < f_beta[top]:
                parent_free = f_free[top]
                m = pick_move(rest, f_tt_move[top], parent_free, f_side[top], nbr, order)
                f_rest[top] = rest & ~bit(m)
                free = parent_free & ~bit(m)
                canonical = joined(m, f_snail[top], free, nbr, nearby, passable)
                snail = m
                side = 1 - f_side[top]
                alpha = unadjust(f_beta[top], dist)
                beta = unadjust(f_alpha[top], dist)
                break
            best = f_best[top]
            snail = f_snail[top]
            if best == -INF:
                # No legal move: stuck.  (Under Taylor's rule only when no goal can be
                # reached, which the rule itself prevents after the first move.)
                ret = 0 if taylor else -win
            else:
                flag = bound_flag(best, f_alpha0[top], f_beta[top])
                tag = _tag(snail, f_side[top]) | stamp
                _store(
                    table,
                    f_slot[top],
                    f_free[top],
                    tag,
                    pack_entry(tag, best, flag, f_best_move[top]),
                )
                ret = best
            known = True
            depth -= 1
