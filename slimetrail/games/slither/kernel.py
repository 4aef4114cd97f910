"""The compiled Slither kernel (numba, ``cache=True``): legal turns, wins in one, playouts.

The Python rules (:mod:`slimetrail.games.slither.game`) stay the readable reference; this
kernel does the same on a mailbox grid so that playouts and the search's move generation run
at compiled speed on every board size up to 19x19 (a 19x19 bitboard would need 380 bits).

The grid is ``(n + 2) x (n + 2)`` int8 values, row by row from the bottom, with a border
ring: ``0`` empty, ``1`` Black, ``2`` White, ``3`` border.  Colours are grid values here
(``v = colour + 1``).  Cell ``q`` has its neighbours at ``q +- 1``, ``q +- P`` and the
diagonals ``q +- P +- 1`` (``P = n + 2``), so the border never needs a bounds check.  Index
order is rank by rank, as in the canonical move text.

The diagonal rule as 2x2 blocks: a block is broken for ``v`` when one diagonal holds two
``v`` stones and the other diagonal none.  A turn changes only the blocks around its cells,
so checking the (at most 12) blocks around the step's two cells and the placement decides
it -- given that the mover's stones keep the rule when the turn starts, as in every position
reached in play or read from a position string (the opponent's turn never changes them).
Turns are rows ``(s, t, p)`` of a step ``s -> t`` and a placement ``p``; a placement alone
is ``(-1, -1, p)``.
"""

from __future__ import annotations

import random

import numba as nb
import numpy as np

EMPTY, BORDER = 0, 3
STUCK = -1  # playout result when neither side has a legal turn
NO_RECORD = np.empty((0, 3), dtype=np.int64)  # for playouts that keep no turns


@nb.njit(cache=True, inline="always")
def block_broken(g, x, v, w):
    """The 2x2 block with lower-left cell ``x`` breaks the diagonal rule for ``v``."""
    a = g[x] == v
    b = g[x + 1] == v
    c = g[x + w] == v
    d = g[x + w + 1] == v
    return (a and d and not b and not c) or (b and c and not a and not d)


@nb.njit(cache=True, inline="always")
def cell_ok(g, q, v, w):
    """No block containing ``q`` is broken for ``v``."""
    return not (
        block_broken(g, q, v, w)
        or block_broken(g, q - 1, v, w)
        or block_broken(g, q - w, v, w)
        or block_broken(g, q - w - 1, v, w)
    )


@nb.njit(cache=True)
def king_offsets(w):
    return np.array([-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1], dtype=np.int64)


@nb.njit(cache=True)
def placement_ok(g, p, v, w):
    """A placement alone on the empty cell ``p`` keeps the diagonal rule."""
    g[p] = v
    ok = cell_ok(g, p, v, w)
    g[p] = EMPTY
    return ok


@nb.njit(cache=True)
def turn_ok(g, s, t, p, v, w):
    """The step ``s -> t`` (own stone to an empty cell) then the placement ``p`` (empty
    after the step) keeps the diagonal rule."""
    g[s] = EMPTY
    g[t] = v
    g[p] = v
    ok = cell_ok(g, s, v, w) and cell_ok(g, t, v, w) and cell_ok(g, p, v, w)
    g[p] = EMPTY
    g[t] = EMPTY
    g[s] = v
    return ok


@nb.njit(cache=True)
def group_has(g, start, within_min, target, w, mark, stamp, stack):
    """Whether the orthogonal group of ``start`` over cells with ``within_min <= value <
    BORDER`` (all stones when ``within_min`` is 1) holds a cell of value ``target``."""
    top = 0
    stack[top] = start
    top += 1
    mark[start] = stamp
    while top:
        top -= 1
        q = stack[top]
        if g[q] == target:
            return True
        for d in (1, -1, w, -w):
            r = q + d
            if mark[r] != stamp and within_min <= g[r] < BORDER:
                mark[r] = stamp
                stack[top] = r
                top += 1
    return False


@nb.njit(cache=True)
def may_step(g, s, v, w, advanced, mark, stamp, stack):
    """Own stone ``s`` may step (Advanced: only from a group holding both colours)."""
    if not advanced:
        return True
    return group_has(g, s, 1, 3 - v, w, mark, stamp, stack)


@nb.njit(cache=True)
def connects(g, q, v, n, w, mark, stamp, stack):
    """The orthogonal group of ``v`` stones through ``q`` touches both of ``v``'s edges
    (Black: the bottom and top rows, White: the left and right columns)."""
    low = high = False
    top = 0
    stack[top] = q
    top += 1
    mark[q] = stamp
    while top:
        top -= 1
        r = stack[top]
        coord = r // w if v == 1 else r % w
        low |= coord == 1
        high |= coord == n
        if low and high:
            return True
        for d in (1, -1, w, -w):
            u = r + d
            if mark[u] != stamp and g[u] == v:
                mark[u] = stamp
                stack[top] = u
                top += 1
    return False


@nb.njit(cache=True)
def list_turns(g, n, v, advanced, out, steps=True):
    """Every legal turn of ``v`` (one row per resulting board, the canonical spelling),
    placements alone first (only those when ``steps`` is false); returns how many rows of
    ``out`` were written."""
    w = n + 2
    size = w * w
    king = king_offsets(w)
    mark = np.zeros(size, dtype=np.int64)
    stack = np.empty(size, dtype=np.int64)
    count = 0
    for p in range(size):
        if g[p] == EMPTY and placement_ok(g, p, v, w):
            out[count, 0] = -1
            out[count, 1] = -1
            out[count, 2] = p
            count += 1
    stamp = 0
    for s in range(size if steps else 0):
        if g[s] != v:
            continue
        stamp += 1
        if not may_step(g, s, v, w, advanced, mark, stamp, stack):
            continue
        for k in range(8):
            t = s + king[k]
            if g[t] != EMPTY:
                continue
            for p in range(size):
                # p == s is the placement t alone; a king neighbour of s below t is
                # the same board as the step s -> p with the placement t
                if g[p] != EMPTY or p in (s, t):
                    continue
                if p < t and abs(p // w - s // w) <= 1 and abs(p % w - s % w) <= 1:
                    continue
                if turn_ok(g, s, t, p, v, w):
                    out[count, 0] = s
                    out[count, 1] = t
                    out[count, 2] = p
                    count += 1
    return count


@nb.njit(cache=True)
def rand_below(rng, k):
    """xorshift64* on ``rng[0]``: an integer in ``[0, k)``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.int64((x * np.uint64(2685821657736338717)) >> np.uint64(33)) % k


@nb.njit(cache=True)
def random_placement(g, v, w, empties, count, rng):
    """The index in ``empties`` of a uniformly random legal placement alone among its first
    ``count`` cells (reordered on the way), or -1 if none is legal."""
    left = count
    while left:
        i = rand_below(rng, left)
        p = empties[i]
        if placement_ok(g, p, v, w):
            return i
        left -= 1
        empties[i] = empties[left]
        empties[left] = p
    return -1


@nb.njit(cache=True)
def playout(g, n, v, advanced, rng, record):
    """Random turns from the grid ``g`` (changed in place) with ``v`` to move, to the end.

    Each turn is a uniformly random legal placement alone; a step is played only when no
    placement alone is legal (then a random turn among all legal ones).  Swaps are never
    played.  Returns ``(winner value 1 or 2, turns played)``, the winner ``STUCK`` when
    neither side had a turn.  The first turns go to ``record`` (rows ``(s, t, p)``;
    ``(-1, -1, -1)`` a pass), as many as it has rows.
    """
    w = n + 2
    size = w * w
    empties = np.empty(size, dtype=np.int64)
    count = 0
    for q in range(size):
        if g[q] == EMPTY:
            empties[count] = q
            count += 1
    mark = np.zeros(size, dtype=np.int64)
    stack = np.empty(size, dtype=np.int64)
    stamp = 0
    played = 0
    passes = 0
    while True:
        s = t = p = -1
        i = random_placement(g, v, w, empties, count, rng)
        if i >= 0:
            p = empties[i]
            count -= 1
            empties[i] = empties[count]
        else:
            own = 0
            for q in range(size):
                own += g[q] == v
            turns = np.empty((8 * own * count + count, 3), dtype=np.int64)
            k = list_turns(g, n, v, advanced, turns)
            if k:
                j = rand_below(rng, k)
                s, t, p = turns[j, 0], turns[j, 1], turns[j, 2]
                for i in range(count):  # t and p leave the empties, s joins them
                    if empties[i] == t:
                        empties[i] = s
                for i in range(count):
                    if empties[i] == p:
                        count -= 1
                        empties[i] = empties[count]
                        break
        if played < record.shape[0]:
            record[played, 0] = s
            record[played, 1] = t
            record[played, 2] = p
        played += 1
        if p < 0:
            passes += 1
            if passes == 2:
                return STUCK, played
            v = 3 - v
            continue
        passes = 0
        if s >= 0:
            g[s] = EMPTY
            g[t] = v
        g[p] = v
        stamp += 1
        if connects(g, p, v, n, w, mark, stamp, stack):
            return v, played
        if s >= 0:
            stamp += 1
            if connects(g, t, v, n, w, mark, stamp, stack):
                return v, played
        v = 3 - v


@nb.njit(cache=True)
def edge_bits(q, v, n, w):
    """Which of ``v``'s edges the cell ``q`` lies on: 1 the low one, 2 the high one."""
    coord = q // w if v == 1 else q % w
    return (coord == 1) | ((coord == n) << 1)


@nb.njit(cache=True)
def label_groups(g, v, n, skip, label, flags, stack):
    """Number the orthogonal groups of ``v`` stones (leaving out cell ``skip``) into
    ``label`` (0: no group) with the edges each touches in ``flags``; returns the count."""
    w = n + 2
    label[:] = 0
    groups = 0
    for q in range(w * w):
        if g[q] != v or label[q] or q == skip:
            continue
        groups += 1
        edges = 0
        top = 0
        stack[top] = q
        top += 1
        label[q] = groups
        while top:
            top -= 1
            r = stack[top]
            edges |= edge_bits(r, v, n, w)
            for d in (1, -1, w, -w):
                u = r + d
                if g[u] == v and not label[u] and u != skip:
                    label[u] = groups
                    stack[top] = u
                    top += 1
        flags[groups] = edges
    return groups


@nb.njit(cache=True)
def reach(q, v, n, w, label, flags, near):
    """The edges a new ``v`` stone on ``q`` joins; ``near`` gets its neighbour labels."""
    edges = edge_bits(q, v, n, w)
    for k, d in enumerate((1, -1, w, -w)):
        lab = label[q + d]
        near[k] = lab
        if lab:
            edges |= flags[lab]
    return edges


@nb.njit(cache=True)
def distance(g, n, v, limit):
    """How many empty cells ``v`` must still fill to join its edges (an orthogonal path of
    own and empty cells), or ``limit + 1`` if more than ``limit``.

    On grids of up to 64 cells (boards up to 6x6) the search grows whole sets of cells, a
    64-bit word each: the cells reached filling at most ``d`` empty cells, then ``d + 1``.
    The proof-number search calls this twice for every child it scores, and the queue's
    arrays cost more than the search itself (:func:`distance_by_queue` is the reference)."""
    w = n + 2
    if w * w > 64:
        return distance_by_queue(g, n, v, limit)
    one = np.uint64(1)
    own = empty = low = high = np.uint64(0)
    for q in range(w * w):
        if g[q] == v:
            own |= one << np.uint64(q)
        elif g[q] == EMPTY:
            empty |= one << np.uint64(q)
    for k in range(1, n + 1):
        # v's low and high edges: Black's rows 1 and n, White's columns 1 and n
        first, last = (k * w + 1, k * w + n) if v == 2 else (w + k, n * w + k)
        low |= one << np.uint64(first)
        high |= one << np.uint64(last)
    reached = own_closure(own & low, own, w)
    for d in range(limit + 1):
        if reached & high:
            return d
        grown = own_closure(reached | (spread(reached, w) & empty) | (empty & low), own, w)
        if grown == reached:
            return limit + 1
        reached = grown
    return limit + 1


@nb.njit(cache=True, inline="always")
def spread(cells, w):
    """The cells orthogonally next to a set of the padded grid (the border keeps rows apart)."""
    width = np.uint64(w)
    one = np.uint64(1)
    return (cells << one) | (cells >> one) | (cells << width) | (cells >> width)


@nb.njit(cache=True)
def own_closure(cells, own, w):
    """``cells`` with every own stone joined to them through own stones."""
    while True:
        grown = cells | (spread(cells, w) & own)
        if grown == cells:
            return cells
        cells = grown


@nb.njit(cache=True)
def distance_by_queue(g, n, v, limit):
    """:func:`distance` by a 0-1 breadth-first search over the grid's cells: the readable
    reference, and the way on boards whose padded grid is wider than one 64-bit word."""
    w = n + 2
    size = w * w
    dist = np.full(size, limit + 1, dtype=np.int64)
    done = np.zeros(size, dtype=np.bool_)
    queue = np.empty(2 * size + 2, dtype=np.int64)  # a deque: cost 0 in front, 1 behind
    head = tail = size
    for k in range(1, n + 1):
        q = k * w + 1 if v == 2 else w + k
        cost = 0 if g[q] == v else 1 if g[q] == EMPTY else limit + 1
        if cost < dist[q]:
            dist[q] = cost
            if cost == 0:
                head -= 1
                queue[head] = q
            else:
                queue[tail] = q
                tail += 1
    while head < tail:
        q = queue[head]
        head += 1
        if done[q]:
            continue
        done[q] = True
        if edge_bits(q, v, n, w) & 2:
            return dist[q]
        for d in (1, -1, w, -w):
            r = q + d
            if g[r] == v:
                cost = dist[q]
            elif g[r] == EMPTY:
                cost = dist[q] + 1
            else:
                continue
            if cost < dist[r]:
                dist[r] = cost
                if cost == dist[q]:
                    head -= 1
                    queue[head] = r
                else:
                    queue[tail] = r
                    tail += 1
    return limit + 1


@nb.njit(cache=True)
def winning_turn(g, n, v, advanced, out):
    """A legal turn of ``v`` that completes ``v``'s connection, written to ``out[0:3]``
    (as in :func:`list_turns`); returns whether there is one.  Groups are labelled once
    (once per stepping stone), so a candidate costs a few lookups, not a flood.  A turn
    adds two own cells at most: more than two empty cells to fill means no win."""
    if distance(g, n, v, 2) > 2:
        return False
    w = n + 2
    size = w * w
    king = king_offsets(w)
    label = np.zeros(size, dtype=np.int64)
    flags = np.zeros(size + 1, dtype=np.int64)
    stack = np.empty(size, dtype=np.int64)
    mark = np.zeros(size, dtype=np.int64)
    near_t = np.zeros(4, dtype=np.int64)
    near_p = np.zeros(4, dtype=np.int64)
    label_groups(g, v, n, -1, label, flags, stack)
    for p in range(size):
        empty = g[p] == EMPTY
        if empty and reach(p, v, n, w, label, flags, near_p) == 3 and placement_ok(g, p, v, w):
            out[0] = -1
            out[1] = -1
            out[2] = p
            return True
    stamp = 0
    for s in range(size):
        if g[s] != v:
            continue
        stamp += 1
        if not may_step(g, s, v, w, advanced, mark, stamp, stack):
            continue
        label_groups(g, v, n, s, label, flags, stack)
        for k in range(8):
            t = s + king[k]
            if g[t] != EMPTY:
                continue
            edges_t = reach(t, v, n, w, label, flags, near_t)
            for p in range(size):
                if g[p] != EMPTY or p in (s, t):
                    continue
                edges_p = reach(p, v, n, w, label, flags, near_p)
                joined = abs(p - t) == 1 or abs(p - t) == w
                for a in range(4):
                    for b in range(4):
                        joined |= near_t[a] != 0 and near_t[a] == near_p[b]
                both = edges_t | edges_p if joined else 0
                if edges_t != 3 and edges_p != 3 and both != 3:
                    continue
                if turn_ok(g, s, t, p, v, w):
                    if p < t and abs(p // w - s // w) <= 1 and abs(p % w - s % w) <= 1:
                        out[0], out[1], out[2] = s, p, t
                    else:
                        out[0], out[1], out[2] = s, t, p
                    return True
    return False


# -- between the engine's bitboards and the grid ------------------------------------------


class Layout:
    """Index maps of one board size: engine cell (``r * (n + 1) + c``) <-> grid cell."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.width = w = n + 2
        self.to_grid = np.full(n * (n + 1), -1, dtype=np.int64)
        self.from_grid = np.full(w * w, -1, dtype=np.int64)
        for r in range(n):
            for c in range(n):
                self.to_grid[r * (n + 1) + c] = (r + 1) * w + c + 1
                self.from_grid[(r + 1) * w + c + 1] = r * (n + 1) + c
        self.blank = np.full(w * w, BORDER, dtype=np.int8)
        self.blank[self.to_grid[self.to_grid >= 0]] = EMPTY

    def grid(self, black: int, white: int) -> np.ndarray:
        """The grid of the engine's two stone bitboards."""
        g = self.blank.copy()
        for value, stones in ((1, black), (2, white)):
            while stones:
                low = stones & -stones
                g[self.to_grid[low.bit_length() - 1]] = value
                stones ^= low
        return g

    def move(self, s: int, t: int, p: int) -> tuple[int, ...]:
        """The engine's move value of a kernel turn row (a pass is ``p < 0``: not here)."""
        cell = self.from_grid
        return (int(cell[p]),) if s < 0 else (int(cell[s]), int(cell[t]), int(cell[p]))


_layouts: dict[int, Layout] = {}


def layout(n: int) -> Layout:
    if n not in _layouts:
        _layouts[n] = Layout(n)
    return _layouts[n]


def seed_array(seed: int) -> np.ndarray:
    """A xorshift state for :func:`rand_below` (never zero)."""
    return np.array([seed & (2**64 - 1) or 0x9E3779B97F4A7C15], dtype=np.uint64)


# -- the search's per-node arithmetic (slimetrail.games.slither.ai) ------------------------

N, W, AMAF_N, AMAF_W, PROOF = range(5)  # rows of a node's stats: per child
UNPROVEN = -1.0


@nb.njit(cache=True)
def select_child(stats, visits, rave, rave_k, exploration, first_play):
    """UCT over the children's means blended with their AMAF means (beta from the
    visit counts, Gelly & Silver); proven wins first, proven losses last."""
    best, best_score = 0, -np.inf
    log_n = np.log(visits + 1.0)
    for i in range(stats.shape[1]):
        proof = stats[PROOF, i]
        if proof != UNPROVEN:
            score = 2.0 * proof - 0.5
        else:
            n = stats[N, i]
            an = stats[AMAF_N, i]
            if rave and an > 0:
                beta = an / (an + n + an * n / rave_k)
                mean = stats[W, i] / n if n > 0 else 0.0
                value = (1.0 - beta) * mean + beta * stats[AMAF_W, i] / an
            elif n > 0:
                value = stats[W, i] / n
            else:
                value = first_play
            score = value + exploration * np.sqrt(log_n / (n + 1.0))
        if score > best_score:
            best, best_score = i, score
    return best


@nb.njit(cache=True)
def record_result(stats, cells, i, grid, mover, won, rave):
    """Count a playout for child ``i``, and for AMAF every child whose cell ``mover``
    holds at the end."""
    stats[N, i] += 1.0
    stats[W, i] += won
    if rave:
        for j in range(cells.shape[0]):
            c = cells[j]
            if c >= 0 and grid[c] == mover:
                stats[AMAF_N, j] += 1.0
                stats[AMAF_W, j] += won


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel function now, not in the first
    move: a tiny game's search touches them all."""
    from slimetrail.ai.limits import Limit
    from slimetrail.core.registry import get_game
    from slimetrail.games.slither.ai import search_move

    state = get_game("slither", size="4").new_state()
    search_move(state, Limit(nodes=30))
    state.playout(random.Random(0))
