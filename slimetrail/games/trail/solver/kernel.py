"""The exact solver's conventions and the numba helpers its kernels share (``cache=True``).

The search itself is compiled ahead of time for regions of up to 64 cells (``ckernel.c``,
built by ``pip install``, which follows these conventions and mirrors these helpers) and
with numba for 65 to 128 cells (:mod:`.kernel128`, built on the helpers here).

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

from slimetrail.compiled import cttz

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
# A data word holds its solve's generation from this bit: a new solve takes the next
# generation instead of zeroing the table (which cost more than the search of many
# positions); after MAX_GENERATION the table is zeroed and they start again.
GENERATION_SHIFT = 40
MAX_GENERATION = 0xFFFF
STAMPED_TAG = (MAX_GENERATION << GENERATION_SHIFT) | 255  # the bits a probe compares
# With one goal cut off, the matching bounds are tried only on regions at least this big:
# on smaller ones the search is quicker than the matchings (7x7 mid-game set, CPU s for
# all 60 positions by threshold: 0: 0.38, 15: 0.31, 25: 0.25, 35: 0.27, never: 0.32).  With
# no goal reachable the matching decides, so it is always used.
ONE_GOAL_MATCHING_CELLS = 25

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
def pack_entry(tag, value, flag, move):
    """A table entry's data word: the position's tag, its score, the bound flag and the
    best move."""
    return tag | ((np.int64(value) + 0x8000) << 8) | (np.int64(flag) << 24) | (np.int64(move) << 26)
