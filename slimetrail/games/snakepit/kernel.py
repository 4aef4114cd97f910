"""The compiled Snake Pit core (numba, ``cache=True``): turns, playouts and the evaluation.

A position is passed as plain arrays over the board's bit numbering (:mod:`.board`, 182
slots of which 139 are cells): ``heads`` of shape ``(4, 4)`` (row ``p`` the cells of player
``p``'s snakes, row 0 unused), ``empty`` a boolean array (true for an empty board cell),
``out`` the players gone out in order (``n_out`` of them).  A byte array is simpler than a
three-word bitboard here and, with the six-entry neighbour table ``NBR``, just as fast for
walks that look at one snake's few neighbours at a time.

Turns are listed in the Python rules' order (snakes by rising cell, destinations by rising
cell), so the tests compare the lists exactly.  Randomness is a xorshift64* stream seeded by
the caller, so a playout is deterministic for a seed.
"""

from __future__ import annotations

import itertools

import numba as nb
import numpy as np

from slimetrail.games.snakepit import board

NBITS = board.NBITS
MAX_TURNS = 4 * 6 * 6 * 6  # C(4, 3) snake choices times at most 6^3 destinations
MAX_SNAKES = 12
MAX_PLIES = len(board.CELLS)  # every turn fills at least one empty cell


def neighbour_table() -> np.ndarray:
    """``NBR[cell]``: the up to six neighbours of a cell, rising, padded with -1."""
    table = np.full((NBITS, 6), -1, np.int64)
    for cell in board.CELLS:
        near = [c for c in board.CELLS if board.NEIGHBOURS[cell] >> c & 1]
        table[cell, : len(near)] = near
    return table


NBR = neighbour_table()
CELLS = np.array(board.CELLS, np.int64)


@nb.njit(cache=True, inline="always")
def next_random(rng):
    """The next 64-bit number of the xorshift64* stream kept in ``rng[0]``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@nb.njit(cache=True, inline="always")
def below(rng, n):
    """A random whole number in ``[0, n)``."""
    return np.int64((next_random(rng) >> np.uint64(11)) % np.uint64(n))


@nb.njit(cache=True)
def gen_turns(snakes, empty, k, nbr, buf):
    """Every turn of ``k`` steps of the four ``snakes`` (sorted cells) into ``buf`` (shape
    ``(MAX_TURNS, 3, 2)``: ``buf[t, i] = (from, to)``); returns how many.  The order is the
    rules': snake combinations first, then destinations."""
    n = 0
    if k == 1:
        for a in range(4):
            for ia in range(6):
                da = nbr[snakes[a], ia]
                if da < 0:
                    break
                if empty[da]:
                    buf[n, 0, 0], buf[n, 0, 1] = snakes[a], da
                    n += 1
        return n
    for a in range(4):
        for b in range(a + 1, 4):
            if k == 2:
                for ia in range(6):
                    da = nbr[snakes[a], ia]
                    if da < 0:
                        break
                    if not empty[da]:
                        continue
                    for ib in range(6):
                        db = nbr[snakes[b], ib]
                        if db < 0:
                            break
                        if empty[db] and db != da:
                            buf[n, 0, 0], buf[n, 0, 1] = snakes[a], da
                            buf[n, 1, 0], buf[n, 1, 1] = snakes[b], db
                            n += 1
                continue
            for c in range(b + 1, 4):
                for ia in range(6):
                    da = nbr[snakes[a], ia]
                    if da < 0:
                        break
                    if not empty[da]:
                        continue
                    for ib in range(6):
                        db = nbr[snakes[b], ib]
                        if db < 0:
                            break
                        if not empty[db] or db == da:
                            continue
                        for ic in range(6):
                            dc = nbr[snakes[c], ic]
                            if dc < 0:
                                break
                            if empty[dc] and dc != da and dc != db:
                                buf[n, 0, 0], buf[n, 0, 1] = snakes[a], da
                                buf[n, 1, 0], buf[n, 1, 1] = snakes[b], db
                                buf[n, 2, 0], buf[n, 2, 1] = snakes[c], dc
                                n += 1
    return n


@nb.njit(cache=True)
def has_turn(snakes, empty, k, nbr):
    """Whether ``k`` of the four ``snakes`` can step to distinct empty cells: the loops of
    :func:`gen_turns`, stopping at the first turn (a recursive walk crashes numba's cache)."""
    for a in range(4):
        for ia in range(6):
            da = nbr[snakes[a], ia]
            if da < 0:
                break
            if not empty[da]:
                continue
            if k == 1:
                return True
            for b in range(a + 1, 4):
                for ib in range(6):
                    db = nbr[snakes[b], ib]
                    if db < 0:
                        break
                    if not empty[db] or db == da:
                        continue
                    if k == 2:
                        return True
                    for c in range(b + 1, 4):
                        for ic in range(6):
                            dc = nbr[snakes[c], ic]
                            if dc < 0:
                                break
                            if empty[dc] and dc != da and dc != db:
                                return True
    return False


@nb.njit(cache=True, inline="always")
def sort_snakes(heads, p):
    """``heads[p].sort()`` for its four cells: an insertion sort, where numba's general
    sort of a row costs some 0.5 us, more than the rest of a playout turn (bench/RESULTS.md)."""
    for j in range(1, 4):
        cell = heads[p, j]
        i = j
        while i > 0 and heads[p, i - 1] > cell:
            heads[p, i] = heads[p, i - 1]
            i -= 1
        heads[p, i] = cell


@nb.njit(cache=True)
def apply_turn(heads, empty, p, buf, t, k):
    """Play turn ``t`` of ``buf`` for player ``p``: the snakes move, the cells they leave
    stay blocked (they were never empty), the destinations fill."""
    for i in range(k):
        start, end = buf[t, i, 0], buf[t, i, 1]
        empty[end] = False
        for j in range(4):
            if heads[p, j] == start:
                heads[p, j] = end
    sort_snakes(heads, p)


@nb.njit(cache=True)
def advance(heads, empty, mover, k, out, n_out, nbr):
    """The player who moves after ``mover`` when the next turn moves ``k`` snakes, putting
    out every player met without a full turn (``out``/``n_out`` grow); 0 if the game ends.
    Returns ``(next player, n_out)``."""
    player = mover
    while n_out < 2:
        player = player % 3 + 1
        gone = False
        for i in range(n_out):
            if out[i] == player:
                gone = True
        if gone:
            continue
        if has_turn(heads[player], empty, k, nbr):
            return player, n_out
        out[n_out] = player
        n_out += 1
    return 0, n_out


@nb.njit(cache=True)
def exits_score(heads, empty, mover, buf, t, k, nbr):
    """A cheap local look at turn ``t`` of ``buf``: after it, each of the mover's snakes
    scores its empty neighbours (at most 3 count), and a snake left with none costs 4."""
    for i in range(k):
        empty[buf[t, i, 1]] = False
    score = 0
    for j in range(4):
        cell = heads[mover, j]
        for i in range(k):
            if buf[t, i, 0] == cell:
                cell = buf[t, i, 1]
        free = 0
        for i in range(6):
            near = nbr[cell, i]
            if near < 0:
                break
            if empty[near]:
                free += 1
        score += min(free, 3) if free else -4
    for i in range(k):
        empty[buf[t, i, 1]] = True
    return score


@nb.njit(cache=True)
def playout(heads, empty, mover, k, out, n_out, nbr, seed, record, tries):
    """Random turns to the end, on the arrays given (changed).  With ``tries`` = 1 each turn
    is uniformly random (as ``rng.choice(legal_moves)``); with more, the best of that many
    random turns by :func:`exits_score`.  ``out`` ends with the two players out, in order;
    ``record[ply]`` receives each turn's steps (``record`` of shape ``(MAX_PLIES, 3, 2)``,
    unused steps -1); returns the number of turns played."""
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(seed) | np.uint64(1)
    buf = np.empty((MAX_TURNS, 3, 2), np.int64)
    plies = 0
    while mover:
        n = gen_turns(heads[mover], empty, k, nbr, buf)
        t = below(rng, n)
        if tries > 1:
            best = exits_score(heads, empty, mover, buf, t, k, nbr)
            for _ in range(tries - 1):
                other = below(rng, n)
                score = exits_score(heads, empty, mover, buf, other, k, nbr)
                if score > best:
                    t, best = other, score
        record[plies] = -1
        record[plies, :k] = buf[t, :k]
        apply_turn(heads, empty, mover, buf, t, k)
        plies += 1
        k = min(k + 1, 3)
        mover, n_out = advance(heads, empty, mover, k, out, n_out, nbr)
    return plies


EXITS_LOW, EXITS_HIGH = -16, 12  # the range of exits_score: four snakes, -4 to 3 each


@nb.njit(cache=True)
def quick_best_turns(heads, empty, mover, k, nbr, width, chosen):
    """The mover's ``width`` best turns by :func:`exits_score` (ties in the rules' order)
    into ``chosen``; returns how many."""
    buf = np.empty((MAX_TURNS, 3, 2), np.int64)
    scores = np.empty(MAX_TURNS, np.int64)
    return select_quick(heads, empty, mover, k, nbr, ADJ, width, chosen, buf, scores)


@nb.njit(cache=True, inline="always")
def exit_points(free):
    """One snake's part of :func:`exits_score`: its empty neighbours (at most 3 count), -4
    for none."""
    return min(free, 3) if free else -4


@nb.njit(cache=True)
def scored_turns(snakes, empty, k, nbr, adj, buf, scores):
    """:func:`gen_turns`'s list into ``buf`` and ``EXITS_HIGH`` less each turn's
    :func:`exits_score` into ``scores`` (0: the best), in the same loops: from each snake's
    empty neighbours before the turn (``free``: those of each of its exits) less what the
    turn's destinations take from them, looked up once a destination rather than once a
    turn -- some four times faster than scoring the listed turns one by one."""
    exits = np.empty((4, 6), np.int64)
    free = np.empty((4, 6), np.int64)
    sizes = np.zeros(4, np.int64)
    for j in range(4):
        for i in range(6):
            d = nbr[snakes[j], i]
            if d < 0:
                break
            if empty[d]:
                f = 0
                for x in range(6):
                    near = nbr[d, x]
                    if near < 0:
                        break
                    f += empty[near]
                exits[j, sizes[j]], free[j, sizes[j]] = d, f
                sizes[j] += 1
    rest = np.empty(3, np.int64)  # the snakes the turn leaves where they are
    n = 0
    for i in range(N_COMBOS[k]):
        a, b, c = COMBOS[k, i, 0], COMBOS[k, i, 1], COMBOS[k, i, 2]
        m = 0
        for j in range(4):
            if j != a and j != b and j != c:
                rest[m] = j
                m += 1
        for x in range(sizes[a]):
            da = exits[a, x]
            if k == 1:
                score = exit_points(free[a, x])
                for q in range(m):
                    j = rest[q]
                    score += exit_points(sizes[j] - np.int64(adj[da, snakes[j]]))
                buf[n, 0, 0], buf[n, 0, 1] = snakes[a], da
                scores[n] = EXITS_HIGH - score
                n += 1
                continue
            for y in range(sizes[b]):
                db = exits[b, y]
                if db == da:
                    continue
                ab = np.int64(adj[da, db])
                if k == 2:
                    score = exit_points(free[a, x] - ab) + exit_points(free[b, y] - ab)
                    for q in range(m):
                        j = rest[q]
                        score += exit_points(
                            sizes[j] - np.int64(adj[da, snakes[j]]) - np.int64(adj[db, snakes[j]])
                        )
                    buf[n, 0, 0], buf[n, 0, 1] = snakes[a], da
                    buf[n, 1, 0], buf[n, 1, 1] = snakes[b], db
                    scores[n] = EXITS_HIGH - score
                    n += 1
                    continue
                r = rest[0]
                taken = sizes[r] - np.int64(adj[da, snakes[r]]) - np.int64(adj[db, snakes[r]])
                for z in range(sizes[c]):
                    dc = exits[c, z]
                    if dc != da and dc != db:
                        ac, bc = np.int64(adj[da, dc]), np.int64(adj[db, dc])
                        score = (
                            exit_points(free[a, x] - ab - ac)
                            + exit_points(free[b, y] - ab - bc)
                            + exit_points(free[c, z] - ac - bc)
                            + exit_points(taken - np.int64(adj[dc, snakes[r]]))
                        )
                        buf[n, 0, 0], buf[n, 0, 1] = snakes[a], da
                        buf[n, 1, 0], buf[n, 1, 1] = snakes[b], db
                        buf[n, 2, 0], buf[n, 2, 1] = snakes[c], dc
                        scores[n] = EXITS_HIGH - score
                        n += 1
    return n


@nb.njit(cache=True)
def select_quick(heads, empty, mover, k, nbr, adj, width, chosen, buf, scores):
    """:func:`quick_best_turns` in the buffers given (``buf`` as :func:`gen_turns`'s,
    ``scores`` of ``MAX_TURNS``), the turns scored as they are listed
    (:func:`scored_turns`); the scores are few small whole numbers, so a counting sort by
    score, stable in the rules' order, replaces a comparison sort."""
    n = scored_turns(heads[mover], empty, k, nbr, adj, buf, scores)
    starts = np.zeros(EXITS_HIGH - EXITS_LOW + 1, np.int64)
    for t in range(n):
        starts[scores[t]] += 1
    place = 0
    for s in range(starts.shape[0]):  # counts to the first place of each score
        place, starts[s] = place + starts[s], place
    m = min(width, n)
    for t in range(n):
        s = scores[t]
        if starts[s] < m:
            chosen[starts[s]] = buf[t]
        starts[s] += 1
    return m


# -- random turns without listing them all: the rollouts' hot path ---------------------------


def adjacency() -> np.ndarray:
    """``ADJ[a, b]``: whether cells ``a`` and ``b`` are neighbours."""
    table = np.zeros((NBITS, NBITS), np.bool_)
    for cell in board.CELLS:
        for near in NBR[cell]:
            if near >= 0:
                table[cell, near] = True
    return table


def combination_table() -> np.ndarray:
    """``COMBOS[k, i]``: the ``i``-th choice of ``k`` of the four snakes in
    :func:`gen_turns`'s order (unused places -1); ``N_COMBOS[k]`` of them."""
    table = np.full((4, 6, 3), -1, np.int64)
    for k in (1, 2, 3):
        for i, combo in enumerate(itertools.combinations(range(4), k)):
            table[k, i, :k] = combo
    return table


ADJ = adjacency()
COMBOS = combination_table()
N_COMBOS = np.array([0, 4, 6, 4], np.int64)


@nb.njit(cache=True)
def count_turns(snakes, empty, k, nbr, adj, exits, sizes, counts):
    """How many turns :func:`gen_turns` would list, without listing them: ``exits[j]``
    receives snake ``j``'s empty neighbours (``sizes[j]`` of them, rising), ``counts[i]``
    the turns of the ``i``-th choice of snakes (``COMBOS[k, i]``).  A destination ``d``
    is one of snake ``j``'s exits exactly when ``adj[d, snakes[j]]`` (it is empty)."""
    for j in range(4):
        size = 0
        for i in range(6):
            d = nbr[snakes[j], i]
            if d < 0:
                break
            if empty[d]:
                exits[j, size] = d
                size += 1
        sizes[j] = size
    total = 0
    for i in range(N_COMBOS[k]):
        a, b, c = COMBOS[k, i, 0], COMBOS[k, i, 1], COMBOS[k, i, 2]
        if k == 1:
            n = sizes[a]
        else:
            shared = 0  # destinations both a and b could take
            for x in range(sizes[a]):
                shared += adj[exits[a, x], snakes[b]]
            n = sizes[a] * sizes[b] - shared
            if k == 3:  # each pair (da, db) leaves c its exits but da and db
                n *= sizes[c]
                for x in range(sizes[a]):
                    da = exits[a, x]
                    n -= adj[da, snakes[c]] * (sizes[b] - adj[da, snakes[b]])
                for x in range(sizes[b]):
                    db = exits[b, x]
                    n -= adj[db, snakes[c]] * (sizes[a] - adj[db, snakes[a]])
        counts[i] = n
        total += n
    return total


@nb.njit(cache=True)
def nth_turn(snakes, k, adj, exits, sizes, counts, t, out, slot):
    """Turn ``t`` of :func:`gen_turns`'s list into ``out[slot]`` from :func:`count_turns`'s
    tables: the choice of snakes, then each destination in turn, by counting what follows."""
    i = 0
    while t >= counts[i]:
        t -= counts[i]
        i += 1
    a, b, c = COMBOS[k, i, 0], COMBOS[k, i, 1], COMBOS[k, i, 2]
    out[slot] = -1
    for x in range(sizes[a]):
        da = exits[a, x]
        if k == 1:
            if t == 0:
                out[slot, 0, 0], out[slot, 0, 1] = snakes[a], da
                return
            t -= 1
            continue
        after_a = sizes[b] - adj[da, snakes[b]]  # the pairs (da, db), then the triples
        if k == 3:
            triples = 0
            for y in range(sizes[b]):
                db = exits[b, y]
                if db != da:
                    triples += sizes[c] - adj[da, snakes[c]] - adj[db, snakes[c]]
            after_a = triples
        if t >= after_a:
            t -= after_a
            continue
        for y in range(sizes[b]):
            db = exits[b, y]
            if db == da:
                continue
            after_b = 1 if k == 2 else sizes[c] - adj[da, snakes[c]] - adj[db, snakes[c]]
            if t >= after_b:
                t -= after_b
                continue
            out[slot, 0, 0], out[slot, 0, 1] = snakes[a], da
            out[slot, 1, 0], out[slot, 1, 1] = snakes[b], db
            if k == 2:
                return
            for z in range(sizes[c]):
                dc = exits[c, z]
                if dc != da and dc != db:
                    if t == 0:
                        out[slot, 2, 0], out[slot, 2, 1] = snakes[c], dc
                        return
                    t -= 1


# -- players apart: each alone in its own region, the longest line of turns decides ----------


@nb.njit(cache=True)
def region_apart(heads, empty, alive, mover, nbr):
    """The empty cells the mover's snakes can reach, if no other player's snakes still in
    can reach any of them (nothing the others do then touches the mover, nor the reverse);
    -1 if they can."""
    owner = np.zeros(NBITS, np.int64)
    queue = np.empty(NBITS, np.int64)
    size = 0
    for p in range(1, 4):
        if not alive[p]:
            continue
        head, tail = 0, 0
        for j in range(4):
            queue[tail] = heads[p, j]
            tail += 1
        while head < tail:
            cell = queue[head]
            head += 1
            for i in range(6):
                near = nbr[cell, i]
                if near < 0:
                    break
                if not empty[near] or owner[near] == p:
                    continue
                if owner[near] != 0 and (p == mover or owner[near] == mover):
                    return -1
                owner[near] = p
                queue[tail] = near
                tail += 1
                if p == mover:
                    size += 1
    return size


@nb.njit(cache=True)
def longest_line(snakes, empty, k, cells, nbr, budget, first):
    """The most turns (``k`` steps the first, then 3) the four ``snakes`` can make alone in
    a region of ``cells`` empty cells, by depth-first search over every line of turns, cut
    where the cells left cannot hold a longer line than the best found; ``first`` receives a
    first turn of a longest line.  -1 if that takes more than ``budget`` turns tried."""
    top = cells // 3 + 1
    bufs = np.empty((top + 1, MAX_TURNS, 3, 2), np.int64)
    counts = np.zeros(top + 1, np.int64)
    tried = np.zeros(top + 1, np.int64)
    saved = np.empty((top + 1, 4), np.int64)
    s = snakes.copy()
    e = empty.copy()
    first[:] = -1
    counts[0] = gen_turns(s, e, k, nbr, bufs[0])
    best, depth, work = 0, 0, 0
    while depth >= 0:
        kk = k if depth == 0 else 3
        if tried[depth] < counts[depth]:
            t = tried[depth]
            tried[depth] += 1
            saved[depth] = s
            for i in range(kk):
                e[bufs[depth, t, i, 1]] = False
                for j in range(4):
                    if s[j] == bufs[depth, t, i, 0]:
                        s[j] = bufs[depth, t, i, 1]
            depth += 1
            work += 1
            if work > budget:
                return -1
            if depth > best:
                best = depth
                first[:] = bufs[0, tried[0] - 1]
            left = cells - k - 3 * (depth - 1)  # the region's cells still empty
            tried[depth] = 0
            counts[depth] = 0
            if depth + left // 3 > best:  # else no line through here is longer
                counts[depth] = gen_turns(np.sort(s), e, 3, nbr, bufs[depth])
        else:
            depth -= 1
            if depth >= 0:  # take back the turn tried last at this depth
                t = tried[depth] - 1
                for i in range(k if depth == 0 else 3):
                    e[bufs[depth, t, i, 1]] = True
                s[:] = saved[depth]
    return best


# -- the evaluation: how many more turns each player can make ------------------------------


@nb.njit(cache=True)
def snake_rooms(heads, empty, alive, nbr, rooms):
    """``rooms[p, j]``: the empty cells that snake ``j`` of player ``p`` reaches before every
    snake of the other players in play (one breadth-first walk from all the snakes at once;
    a cell first reached at the same step by two players belongs to nobody)."""
    dist = np.full(NBITS, -1, np.int64)
    owner = np.full(NBITS, -1, np.int64)  # 4 * player + snake; -2 for a tie between players
    queue = np.empty(NBITS + MAX_SNAKES, np.int64)
    head, tail = 0, 0
    rooms[:] = 0
    for p in range(1, 4):
        if not alive[p]:
            continue
        for j in range(4):
            s = heads[p, j]
            dist[s] = 0
            owner[s] = 4 * p + j
            queue[tail] = s
            tail += 1
    while head < tail:
        cell = queue[head]
        head += 1
        who = owner[cell]
        if who < 0:
            continue  # a tie spreads no claim
        d = dist[cell] + 1
        for i in range(6):
            near = nbr[cell, i]
            if near < 0:
                break
            if not empty[near]:
                continue
            if dist[near] < 0:
                dist[near] = d
                owner[near] = who
                rooms[who // 4, who % 4] += 1
                queue[tail] = near
                tail += 1
            elif dist[near] == d and owner[near] >= 0 and owner[near] // 4 != who // 4:
                rooms[owner[near] // 4, owner[near] % 4] -= 1
                owner[near] = -2


@nb.njit(cache=True)
def turns_left(room):
    """The most turns of three steps four snakes with these rooms can make, each snake
    stepping at most its room's size times: the largest ``t`` with
    ``sum(min(room, t)) >= 3 t``."""
    t = 0
    while True:
        total = 0
        for j in range(4):
            total += min(room[j], t + 1)
        if total < 3 * (t + 1):
            return t
        t += 1


@nb.njit(cache=True)
def evaluate(heads, empty, alive, nbr, values):
    """``values[p]``: player ``p``'s expected turns left (:func:`turns_left` of their snakes'
    rooms) plus a hundredth of their whole room as a tie-break; -1 for a player out."""
    rooms = np.empty((4, 4), np.int64)
    snake_rooms(heads, empty, alive, nbr, rooms)
    for p in range(1, 4):
        if alive[p]:
            values[p] = turns_left(rooms[p]) + 0.01 * rooms[p].sum()
        else:
            values[p] = -1.0


WIN = 1000.0  # the score of a turn that leaves the mover alone in the game


@nb.njit(cache=True)
def relative(values, alive, me):
    """The mover's value less the best other player's still in the game."""
    best = -1.0
    others = 0
    for p in range(1, 4):
        if p != me and alive[p]:
            others += 1
            best = max(best, values[p])
    if others == 0:
        return WIN
    return values[me] - best + 100.0 * (2 - others)


@nb.njit(cache=True)
def after_turn(heads, empty, alive, mover, k, nbr, values, me):
    """Score for ``me`` of the position just reached by ``mover``'s turn (already applied,
    ``k`` the next turn's steps): players who then have no turn count as out."""
    live = alive.copy()
    for p in range(1, 4):
        if p != mover and live[p] and not has_turn(heads[p], empty, k, nbr):
            live[p] = False
    if not live[me]:
        return -WIN
    evaluate(heads, empty, live, nbr, values)
    return relative(values, live, me)


@nb.njit(cache=True)
def score_turns(heads, empty, alive, mover, k, nbr, scores):
    """``scores[t]``: :func:`after_turn` of each of the mover's turns (in :func:`gen_turns`
    order) for the mover; returns how many turns there are."""
    buf = np.empty((MAX_TURNS, 3, 2), np.int64)
    n = gen_turns(heads[mover], empty, k, nbr, buf)
    values = np.empty(4, np.float64)
    nk = min(k + 1, 3)
    for t in range(n):
        h = heads.copy()
        e = empty.copy()
        apply_turn(h, e, mover, buf, t, k)
        scores[t] = after_turn(h, e, alive, mover, nk, nbr, values, mover)
    return n


@nb.njit(cache=True)
def best_turns(heads, empty, alive, mover, k, nbr, width, chosen, chosen_scores):
    """The mover's ``width`` best turns by :func:`score_turns`, best first (ties in the
    rules' order), into ``chosen`` (shape ``(width, 3, 2)``) and ``chosen_scores``;
    returns how many there are (fewer when there are fewer turns)."""
    buf = np.empty((MAX_TURNS, 3, 2), np.int64)
    scores = np.empty(MAX_TURNS, np.float64)
    n = gen_turns(heads[mover], empty, k, nbr, buf)
    values = np.empty(4, np.float64)
    nk = min(k + 1, 3)
    for t in range(n):
        h = heads.copy()
        e = empty.copy()
        apply_turn(h, e, mover, buf, t, k)
        scores[t] = after_turn(h, e, alive, mover, nk, nbr, values, mover)
    order = np.argsort(-scores[:n], kind="mergesort")
    m = min(width, n)
    for i in range(m):
        chosen[i] = buf[order[i]]
        chosen_scores[i] = scores[order[i]]
    return m


@nb.njit(cache=True)
def best_reply_scores(heads, empty, alive, mover, k, nbr, roots, scores):
    """Best-reply search (Schadd & Winands 2011) two plies deep: ``scores[i]`` is the
    mover's score after root turn ``roots[i]`` and then the one reply, by whichever
    opponent, that is worst for the mover (the opponents are treated as one player making
    a single turn).  Each root's worst is exact (no cut-off against the other roots): the
    caller weighs it with the turn's own evaluation."""
    buf = np.empty((MAX_TURNS, 3, 2), np.int64)
    reply = np.empty((MAX_TURNS, 3, 2), np.int64)
    n = gen_turns(heads[mover], empty, k, nbr, buf)
    values = np.empty(4, np.float64)
    nk = min(k + 1, 3)
    for i in range(len(roots)):
        h = heads.copy()
        e = empty.copy()
        apply_turn(h, e, mover, buf, roots[i], k)
        live = alive.copy()
        for p in range(1, 4):
            if p != mover and live[p] and not has_turn(h[p], e, nk, nbr):
                live[p] = False
        static = after_turn(h, e, alive, mover, nk, nbr, values, mover)
        worst = np.inf
        for o in range(1, 4):
            if o == mover or not live[o]:
                continue
            m = gen_turns(h[o], e, nk, nbr, reply)
            for t in range(m):
                h2 = h.copy()
                e2 = e.copy()
                apply_turn(h2, e2, o, reply, t, nk)
                worst = min(worst, after_turn(h2, e2, live, o, 3, nbr, values, mover))
        if worst == np.inf:  # nobody left to reply
            worst = static
        scores[i] = worst
    return n


@nb.njit(cache=True)
def evaluate_left(heads, empty, out, n_out, nbr, values):
    """:func:`evaluate` for the players not among the ``n_out`` of ``out``."""
    alive = np.ones(4, np.bool_)
    alive[0] = False
    for i in range(n_out):
        alive[out[i]] = False
    evaluate(heads, empty, alive, nbr, values)


@nb.njit(cache=True)
def rollout(heads, empty, mover, k, out, n_out, nbr, seed, tries, turns, values):
    """At most ``turns`` turns of :func:`playout`'s policy, then :func:`evaluate` (on the
    arrays given, changed): ``values[p]`` for the players still in, ``out`` the players
    out in order.  Returns ``n_out``."""
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(seed) | np.uint64(1)
    buf = np.empty((MAX_TURNS, 3, 2), np.int64)
    played = 0
    while mover and played < turns:
        n = gen_turns(heads[mover], empty, k, nbr, buf)
        t = below(rng, n)
        best = exits_score(heads, empty, mover, buf, t, k, nbr)
        for _ in range(tries - 1):
            other = below(rng, n)
            score = exits_score(heads, empty, mover, buf, other, k, nbr)
            if score > best:
                t, best = other, score
        apply_turn(heads, empty, mover, buf, t, k)
        played += 1
        k = min(k + 1, 3)
        mover, n_out = advance(heads, empty, mover, k, out, n_out, nbr)
    evaluate_left(heads, empty, out, n_out, nbr, values)
    return n_out


@nb.njit(cache=True)
def fast_rollout(heads, empty, mover, k, out, n_out, nbr, adj, seed, tries, turns, values):
    """:func:`rollout` exactly (the same turns for a seed), each random turn drawn by its
    number in the rules' list (:func:`count_turns`, :func:`nth_turn`) instead of from the
    whole list: a playout to the end about 2.3 times faster (bench/RESULTS.md)."""
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(seed) | np.uint64(1)
    exits = np.empty((4, 6), np.int64)
    sizes = np.empty(4, np.int64)
    counts = np.empty(6, np.int64)
    draws = np.empty((2, 3, 2), np.int64)  # the best draw so far and the one being tried
    played = 0
    while mover and played < turns:
        snakes = heads[mover]
        n = count_turns(snakes, empty, k, nbr, adj, exits, sizes, counts)
        nth_turn(snakes, k, adj, exits, sizes, counts, below(rng, n), draws, 0)
        best = exits_score(heads, empty, mover, draws, 0, k, nbr)
        for _ in range(tries - 1):
            nth_turn(snakes, k, adj, exits, sizes, counts, below(rng, n), draws, 1)
            score = exits_score(heads, empty, mover, draws, 1, k, nbr)
            if score > best:
                draws[0], best = draws[1], score
        apply_turn(heads, empty, mover, draws, 0, k)
        played += 1
        k = min(k + 1, 3)
        mover, n_out = advance(heads, empty, mover, k, out, n_out, nbr)
    evaluate_left(heads, empty, out, n_out, nbr, values)
    return n_out


def arrays(heads: list[int], empty: int, out: list[int]) -> tuple[np.ndarray, ...]:
    """The kernel's arrays for a position given as the rules' bitboards (fresh copies)."""
    cells = np.zeros((4, 4), np.int64)
    for p in (1, 2, 3):
        mask, j = heads[p], 0
        while mask:
            low = mask & -mask
            cells[p, j] = low.bit_length() - 1
            mask ^= low
            j += 1
    raw = np.frombuffer(empty.to_bytes((NBITS + 7) // 8, "little"), np.uint8)
    free = np.unpackbits(raw, bitorder="little")[:NBITS].astype(np.bool_)
    gone = np.zeros(2, np.int64)
    gone[: len(out)] = out
    return cells, free, gone


def play_out(
    heads: list[int], empty: int, mover: int, k: int, out: list[int], seed: int, tries: int = 1
) -> tuple[list[int], np.ndarray, int]:
    """:func:`playout` from a position given as the rules' bitboards: the players out in
    order, the record of turns and their number."""
    cells, free, gone = arrays(heads, empty, out)
    record = np.empty((MAX_PLIES, 3, 2), np.int64)
    plies = playout(cells, free, mover, k, gone, len(out), NBR, seed, record, tries)
    return [int(p) for p in gone], record, int(plies)


def roll_out(
    heads: list[int],
    empty: int,
    mover: int,
    k: int,
    out: list[int],
    seed: int,
    tries: int,
    turns: int,
) -> tuple[list[int], dict[int, float]]:
    """:func:`rollout` from the rules' bitboards: the players out in order and the values
    of the others."""
    cells, free, gone = arrays(heads, empty, out)
    values = np.zeros(4, np.float64)
    n_out = rollout(cells, free, mover, k, gone, len(out), NBR, seed, tries, turns, values)
    out_now = [int(p) for p in gone[:n_out]]
    return out_now, {p: float(values[p]) for p in (1, 2, 3) if p not in out_now}
