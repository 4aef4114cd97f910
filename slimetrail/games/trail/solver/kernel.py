"""Numba helpers on one-word sets of cells: the flood of a region and undirected vertex
geography by maximum matching (Edmonds' blossom algorithm), for the compiled research
searches (research/trail/dfpn.py).  The exact solver's own search is C (``ckernel.c``),
with the same flood and matching.

The position is relabelled onto a compact graph of at most 64 vertices (see
:mod:`slimetrail.games.trail.solver`), so one ``uint64`` holds a set of cells and ``nbr[i]``
is the neighbour mask of vertex ``i``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slimetrail.compiled import cttz

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
