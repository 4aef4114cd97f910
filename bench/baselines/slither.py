"""Plain UCT for Slither and Advanced Slither, compiled with numba, independent of our AI.

The yardstick the outside testers used: UCB1 with c = 1.4, one node added per iteration, a
uniformly random playout to the end of the game, a fresh tree every move and the most visited
move played.  Each node keeps the returns (1 win, 0 loss) of the player who moved into it.

A move is a whole turn (RULES.md section 6), one tree edge per resulting board, exactly the
moves ``State.legal_moves`` lists: a placement alone, a king step of an own stone then a
placement (not back on the vacated cell, which is the placement alone; of the two spellings
``s-t/p`` and ``s-p/t`` of one board only the one whose step ends on the lower cell), ``swap``
(the pie rule, White's answer to Black's first turn) and the forced ``pass``.  The diagonal
rule is checked on the board the turn leaves; in Advanced Slither only a stone whose
orthogonal group (stones of both colours) holds both colours may step.

The turns are numbered over a superset: ``swap`` when it is allowed, then an empty cell
(the placement) times "no step, or one of the steps (own stone, empty king neighbour)":
``swap + empties * (1 + steps)`` candidates, each legal turn exactly once among them.  So:

* a playout turn is uniform over the legal turns (``swap`` included when allowed): a uniform
  candidate is drawn until one is legal; after 64 misses the legal ones are counted and one
  of them is drawn; with none the mover passes.  In Slither the count of steps is kept with
  the position, so a candidate is drawn without listing them (its step by rejection);
  Advanced Slither lists its movable stones' steps each turn;
* a node's untried turns are met in the order of a random affine permutation of the
  candidates (``(a * i + b) mod size``), so no node stores a move list.

Two passes in a row (a position where neither side has a turn, never met in play) end a
playout as a draw, 0.5 each.  The board is this module's own arrays (built from the
position's FEN); only ``State.fen`` and ``State.parse_move`` of the game are used.
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from bench.baselines.maxn import (
    CURSOR,
    FIELDS,
    FIRST,
    FULL,
    MOVE,
    NEXT,
    OPEN,
    PERM_A,
    PERM_B,
    PLAYER,
    SIZE,
    STATUS,
    TERMINAL,
    VISITS,
    best_child,
    gcd,
    new_node,
    next_random,
)
from slimetrail.core.game import Game, Move, State
from slimetrail.core.registry import get_game

EXPLORATION = 1.4
FILES = "abcdefghijklmnopqrstuvwxyz"
KING = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))  # (drow, dcol)
DIAGONALS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
KING_STEPS, DIAG, ORTH, ROW, COL, GEO_FIELDS = 0, 8, 20, 24, 25, 26  # geometry() columns
BLACK, WHITE = 0, 1
SWAP, PASS = -1, -2  # move codes; a turn is p + BASE * (s + 1) + BASE**2 * (t + 1)
BASE = 1024
NO_WINNER, DRAW = -1, 2

# The packed position (int64 array): a header, then per cell the board (0 empty, 1 Black,
# 2 White), the empty cells as a list and each cell's place in it, each colour's stones as a
# list and each stone's place in its list.
SIZE_N, CELLS, EMPTIES, STONES = 0, 1, 2, 3  # STONES + colour: how many stones it has
COLOUR, SWAPPED, SWAP_OK, PASSES, WINNER, PIE, TURNS = 5, 6, 7, 8, 9, 10, 11
EDGES = 12  # EDGES + 2 * colour + (0 low, 1 high): the colour's stones on that edge
# STEPS + colour: the colour's (stone, empty king neighbour) pairs, kept as stones come and
# go when COUNTED (Slither: a playout turn is drawn without listing the steps; Advanced
# Slither lists its movable stones' steps every turn and skips the count).
STEPS, COUNTED = 16, 18
# Right before the board, a wall: the "cell" -1 (off the board in the geometry) reads as
# neither empty nor a stone, so the steps and the diagonal rule need no bounds tests.
WALL, WALL_VALUE = 19, 3
HEADER = 20


BOARD = HEADER


@nb.njit(cache=True)
def offsets(st):
    """Where the empty list, the empty places, the stone lists and the stone places start."""
    cells = st[CELLS]
    return HEADER + cells, HEADER + 2 * cells, HEADER + 3 * cells, HEADER + 5 * cells


# Scratch (int64 array of scratch_size(cells)): a stamp counter, the number of steps, then
# per cell a flood mark, a stack, the Advanced rule's group answer (stamp and value), and the
# steps of the mover (source * BASE + target, 8 a cell).  Each flood and each listing of the
# steps (``prepare``, on every board whose candidates are numbered) takes a new stamp, so a
# group answer is used only within the listing that found it.
STAMP, STEP_COUNT = 0, 1


@nb.njit(cache=True)
def scratch_size(cells):
    return 2 + 12 * cells


PLAYOUT_TRIES = 64


def geometry(n: int) -> np.ndarray:
    """Per cell (int64 array [cells, GEO_FIELDS]): its king steps ``KING + d`` and
    orthogonal steps ``ORTH + d`` (-1 off the board), its diagonal neighbour in quadrant
    ``q`` and the two cells they share, ``DIAG + 3 * q + (0, 1, 2)``, its row and column."""
    geo = np.full((n * n, GEO_FIELDS), -1, np.int64)
    for row in range(n):
        for col in range(n):
            cell = row * n + col
            geo[cell, ROW], geo[cell, COL] = row, col
            for d, (dr, dc) in enumerate(KING):
                if 0 <= row + dr < n and 0 <= col + dc < n:
                    geo[cell, KING_STEPS + d] = (row + dr) * n + col + dc
            for d, (dr, dc) in enumerate(ORTHOGONAL):
                if 0 <= row + dr < n and 0 <= col + dc < n:
                    geo[cell, ORTH + d] = (row + dr) * n + col + dc
            for q, (dr, dc) in enumerate(DIAGONALS):
                if 0 <= row + dr < n and 0 <= col + dc < n:
                    shared = ((row + dr) * n + col + dc, (row + dr) * n + col, cell + dc)
                    geo[cell, DIAG + 3 * q : DIAG + 3 * q + 3] = shared
    return geo


# -- rules -------------------------------------------------------------------------------


@nb.njit(cache=True)
def prepare(st, geo, advanced, scratch):
    """List the mover's steps in ``scratch`` (Advanced: only of stones in mixed groups);
    the number of candidate moves."""
    cells, stone = st[CELLS], st[COLOUR] + 1
    empty_list, _, lists, _ = offsets(st)
    steps = 2 + 4 * cells
    scratch[STAMP] += 1  # group answers of another board are stale
    count = 0
    mine = lists + (stone - 1) * cells
    if st[EMPTIES] < st[STONES + stone - 1]:  # from the smaller side
        for i in range(st[EMPTIES]):
            target = st[empty_list + i]
            for d in range(8):
                source = geo[target, KING_STEPS + d]
                own = st[BOARD + source] == stone
                if advanced and own:
                    own = mixed_group(st, source, geo, scratch)
                scratch[steps + count] = source * BASE + target
                count += own  # written always, kept when it is a step: no branch
    else:
        for i in range(st[STONES + stone - 1]):
            source = st[mine + i]
            if advanced and not mixed_group(st, source, geo, scratch):
                continue
            for d in range(8):
                target = geo[source, KING_STEPS + d]
                scratch[steps + count] = source * BASE + target
                count += st[BOARD + target] == 0
    scratch[STEP_COUNT] = count
    return st[SWAP_OK] + st[EMPTIES] * (1 + count)


@nb.njit(cache=True)
def diagonal_ok(st, stone, geo, changed0, changed1, vacated):
    """Whether the diagonal rule holds for ``stone`` (1 or 2) on the board after a turn that
    put stones on ``changed0`` and ``changed1`` (-1: none) and emptied ``vacated`` (-1: none):
    the only pairs that can break are those with a new stone and those that shared the
    vacated cell."""
    for x in (changed0, changed1):
        if x < 0:
            continue
        for q in range(4):
            if (
                (st[BOARD + geo[x, DIAG + 3 * q]] == stone)
                & (st[BOARD + geo[x, DIAG + 3 * q + 1]] != stone)
                & (st[BOARD + geo[x, DIAG + 3 * q + 2]] != stone)
            ):
                return False
    if vacated >= 0:
        for q in range(4):
            if (
                (st[BOARD + geo[vacated, DIAG + 3 * q + 1]] == stone)
                & (st[BOARD + geo[vacated, DIAG + 3 * q + 2]] == stone)
                & (st[BOARD + geo[vacated, DIAG + 3 * q]] != stone)
            ):
                return False
    return True


@nb.njit(cache=True)
def mixed_group(st, cell, geo, scratch):
    """Advanced Slither: whether the orthogonal group of stones (either colour) holding
    ``cell`` holds both colours; the answer is kept for the whole group until the stamp
    moves on (a new stamp each listing of the steps)."""
    cells = st[CELLS]
    stamp_at, value_at = 2 + 2 * cells, 2 + 3 * cells
    stamp = scratch[STAMP]
    if scratch[stamp_at + cell] == stamp:
        return scratch[value_at + cell] == 1
    stack = 2 + cells
    colour = st[BOARD + cell]
    top, mixed = 1, False
    scratch[stack] = cell
    scratch[stamp_at + cell] = stamp
    seen_start = 0
    while top > seen_start:
        here = scratch[stack + seen_start]
        seen_start += 1
        for d in range(4):
            there = geo[here, ORTH + d]
            if there < 0:
                continue
            held = st[BOARD + there]
            if held == 0 or scratch[stamp_at + there] == stamp:
                continue
            if held != colour:
                mixed = True
            scratch[stamp_at + there] = stamp
            scratch[stack + top] = there
            top += 1
    for i in range(top):
        scratch[value_at + scratch[stack + i]] = 1 if mixed else 0
    return mixed


@nb.njit(cache=True)
def decode(st, index, geo, scratch):
    """The move code of candidate ``index`` (numbered by ``prepare``) if it is a legal turn,
    else -3."""
    empty_list = offsets(st)[0]
    colour = st[COLOUR]
    stone = colour + 1
    if st[SWAP_OK]:
        if index == 0:
            return SWAP
        index -= 1
    empties = st[EMPTIES]
    placed = st[empty_list + index % empties]
    which = index // empties
    step = -1 if which == 0 else scratch[2 + 4 * st[CELLS] + which - 1]
    return turn_code(st, stone, placed, step, geo)


@nb.njit(cache=True)
def turn_code(st, stone, placed, step, geo):
    """The move code of the turn that places on ``placed`` after ``step`` (source * BASE +
    target; -1: none) if it is a legal turn, written the one way the lists offer it; else -3."""
    if step < 0:
        if diagonal_ok(st, stone, geo, placed, -1, -1):
            return placed
        return -3
    source, target = step // BASE, step % BASE
    if placed == target:
        return -3  # the step fills it (and the vacated cell is no placement: the lists
        # never offer it, as that board is the placement alone on target)
    row, col = geo[placed, ROW] - geo[source, ROW], geo[placed, COL] - geo[source, COL]
    if placed < target and -1 <= row <= 1 and -1 <= col <= 1:
        return -3  # the board of the step source -> placed, then target
    st[BOARD + source] = 0
    st[BOARD + target] = stone
    st[BOARD + placed] = stone
    ok = diagonal_ok(st, stone, geo, target, placed, source)
    st[BOARD + source] = stone
    st[BOARD + target] = 0
    st[BOARD + placed] = 0
    if ok:
        return placed + BASE * (source + 1) + BASE * BASE * (target + 1)
    return -3


@nb.njit(cache=True)
def fill(st, cell, stone, geo):
    """Put a stone on the empty ``cell`` (lists kept)."""
    empty_list, empty_place, lists, stone_place = offsets(st)
    last = st[empty_list + st[EMPTIES] - 1]
    where = st[empty_place + cell]
    st[empty_list + where] = last
    st[empty_place + last] = where
    st[EMPTIES] -= 1
    colour = stone - 1
    mine = lists + colour * st[CELLS]
    st[mine + st[STONES + colour]] = cell
    st[stone_place + cell] = st[STONES + colour]
    st[STONES + colour] += 1
    if st[COUNTED]:
        empty, black, white = king_neighbours(st, cell, geo)
        st[STEPS + BLACK] -= black  # steps onto the cell, gone
        st[STEPS + WHITE] -= white
        st[STEPS + colour] += empty  # steps of the new stone
    st[BOARD + cell] = stone
    count_edges(st, cell, colour, 1, geo)


@nb.njit(cache=True)
def king_neighbours(st, cell, geo):
    """How many of the cell's king neighbours are empty, Black and White."""
    empty, black, white = 0, 0, 0
    for d in range(8):
        held = st[BOARD + geo[cell, KING_STEPS + d]]
        empty += held == 0
        black += held == 1
        white += held == 2
    return empty, black, white


@nb.njit(cache=True)
def count_edges(st, cell, colour, change, geo):
    """Keep the count of the colour's stones on its two edges (Black: bottom and top rows,
    White: left and right columns)."""
    along = geo[cell, ROW] if colour == BLACK else geo[cell, COL]
    if along == 0:
        st[EDGES + 2 * colour] += change
    elif along == st[SIZE_N] - 1:
        st[EDGES + 2 * colour + 1] += change


@nb.njit(cache=True)
def lift(st, cell, geo):
    """Take the stone off ``cell`` (lists kept)."""
    empty_list, empty_place, lists, stone_place = offsets(st)
    colour = st[BOARD + cell] - 1
    mine = lists + colour * st[CELLS]
    last = st[mine + st[STONES + colour] - 1]
    where = st[stone_place + cell]
    st[mine + where] = last
    st[stone_place + last] = where
    st[STONES + colour] -= 1
    count_edges(st, cell, colour, -1, geo)
    st[empty_list + st[EMPTIES]] = cell
    st[empty_place + cell] = st[EMPTIES]
    st[EMPTIES] += 1
    if st[COUNTED]:
        empty, black, white = king_neighbours(st, cell, geo)
        st[STEPS + colour] -= empty  # steps of the lifted stone, gone
        st[STEPS + BLACK] += black  # steps onto the emptied cell
        st[STEPS + WHITE] += white
    st[BOARD + cell] = 0


@nb.njit(cache=True)
def connects(st, start, stone, geo, scratch):
    """Whether the orthogonal group of ``stone`` holding ``start`` joins the colour's edges
    (Black bottom and top, White left and right)."""
    n, cells = st[SIZE_N], st[CELLS]
    scratch[STAMP] += 1
    stamp = scratch[STAMP]
    mark, stack = 2, 2 + cells
    scratch[stack] = start
    scratch[mark + start] = stamp
    top, low, high = 1, False, False
    while top:
        top -= 1
        here = scratch[stack + top]
        along = geo[here, ROW] if stone == 1 else geo[here, COL]
        low |= along == 0
        high |= along == n - 1
        if low and high:
            return True
        for d in range(4):
            there = geo[here, ORTH + d]  # -1 off the board: the wall, never a stone
            if st[BOARD + there] == stone and scratch[mark + there] != stamp:
                scratch[mark + there] = stamp
                scratch[stack + top] = there
                top += 1
    return False


@nb.njit(cache=True)
def apply(st, code, geo, scratch):
    """Play the move ``code``; the turn passes, and ``st[WINNER]`` is set when it wins."""
    colour = st[COLOUR]
    st[TURNS] += 1
    # The pie: White may answer Black's first turn with swap.
    st[SWAP_OK] = st[PIE] and st[TURNS] == 1 and colour == BLACK and code != SWAP
    if code == SWAP:
        st[SWAPPED] = 1
        st[PASSES] = 0
        return
    st[COLOUR] = 1 - colour
    if code == PASS:
        st[PASSES] += 1
        if st[PASSES] >= 2:
            st[WINNER] = DRAW
        return
    st[PASSES] = 0
    stone = colour + 1
    placed = code % BASE
    source = code // BASE % BASE - 1
    target = code // (BASE * BASE) - 1
    if source >= 0:
        lift(st, source, geo)
        fill(st, target, stone, geo)
    fill(st, placed, stone, geo)
    if st[EDGES + 2 * colour] == 0 or st[EDGES + 2 * colour + 1] == 0:
        return  # no stone on one of the edges: no connection
    if connects(st, placed, stone, geo, scratch) or (
        source >= 0 and connects(st, target, stone, geo, scratch)
    ):
        st[WINNER] = colour


@nb.njit(cache=True)
def player_of(st, colour):
    """The player wearing ``colour``: player 1 starts as Black; a swap exchanges them."""
    return colour + 1 if st[SWAPPED] == 0 else 2 - colour


@nb.njit(cache=True)
def returns(st, out):
    """Each player's return once the game is over: 1 win, 0 loss, 0.5 each for a draw."""
    if st[WINNER] == DRAW:
        out[:] = 0.5
        return
    out[:] = 0.0
    out[player_of(st, st[WINNER]) - 1] = 1.0


@nb.njit(cache=True)
def below(rng, bound):
    """A random number in [0, bound) for bound < 2^31, by a multiply and a shift (a bias of
    at most bound / 2^32) rather than a division."""
    return ((next_random(rng) >> 31) * bound) >> 32


@nb.njit(cache=True)
def random_step(st, rng, geo):
    """A uniformly random step of the mover (at least one exists), as source * BASE +
    target: a random (own stone, direction) or (empty cell, direction) pair, from the
    smaller side, until it is a step -- each step is one pair, so each is equally likely."""
    stone = st[COLOUR] + 1
    empty_list, _, lists, _ = offsets(st)
    stones, empties = st[STONES + stone - 1], st[EMPTIES]
    mine = lists + (stone - 1) * st[CELLS]
    while True:
        r = next_random(rng)
        direction = KING_STEPS + ((r >> 28) & 7)  # bits below those that pick the cell
        if empties < stones:
            target = st[empty_list + (((r >> 31) * empties) >> 32)]
            source = geo[target, direction]
            if st[BOARD + source] == stone:
                return source * BASE + target
        else:
            source = st[mine + (((r >> 31) * stones) >> 32)]
            target = geo[source, direction]
            if st[BOARD + target] == 0:
                return source * BASE + target


@nb.njit(cache=True)
def random_turn(st, rng, geo, advanced, scratch):
    """A uniformly random legal move of the mover (``pass`` when there is none).  Slither
    draws among the same candidates as ``prepare`` numbers, from the kept count of steps,
    without listing them; Advanced Slither (whose movable stones change with every group)
    lists them (as does a position packed without the count)."""
    if advanced or not st[COUNTED]:
        size = prepare(st, geo, advanced, scratch)
        if size == 0:
            return PASS
        for _ in range(PLAYOUT_TRIES):
            code = decode(st, below(rng, size), geo, scratch)
            if code != -3:
                return code
    else:
        empties = st[EMPTIES]
        size = st[SWAP_OK] + empties * (1 + st[STEPS + st[COLOUR]])
        if size == 0:
            return PASS
        empty_list, stone = offsets(st)[0], st[COLOUR] + 1
        for _ in range(PLAYOUT_TRIES):
            index = below(rng, size)
            if st[SWAP_OK]:
                if index == 0:
                    return SWAP
                index -= 1
            step = -1 if index < empties else random_step(st, rng, geo)
            code = turn_code(st, stone, st[empty_list + index % empties], step, geo)
            if code != -3:
                return code
        size = prepare(st, geo, advanced, scratch)
    legal = 0
    for index in range(size):
        legal += decode(st, index, geo, scratch) != -3
    if legal == 0:
        return PASS
    skip = next_random(rng) % legal
    for index in range(size):
        code = decode(st, index, geo, scratch)
        if code != -3:
            if skip == 0:
                return code
            skip -= 1
    return PASS


@nb.njit(cache=True)
def playout(st, rng, geo, advanced, scratch, record):
    """Random turns to the end of the game (``st`` is changed); the moves played go to
    ``record`` while it has room.  Returns how many moves were played."""
    played = 0
    while st[WINNER] == NO_WINNER:
        code = random_turn(st, rng, geo, advanced, scratch)
        if played < record.shape[0]:
            record[played] = code
        played += 1
        apply(st, code, geo, scratch)
    return played


@nb.njit(cache=True)
def count_moves(st, geo, advanced, scratch):
    """The legal moves here (``pass`` counted when forced, as ``State.legal_moves``)."""
    if st[WINNER] != NO_WINNER:
        return 0
    legal = 0
    for index in range(st[SWAP_OK], prepare(st, geo, advanced, scratch)):
        legal += decode(st, index, geo, scratch) != -3
    return legal + st[SWAP_OK] + (legal == 0)


@nb.njit(cache=True)
def perft(st, depth, geo, advanced, scratch):
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves(st, geo, advanced, scratch)
    if st[WINNER] != NO_WINNER:
        return 0
    total = 0
    legal = 0
    for index in range(prepare(st, geo, advanced, scratch)):
        code = decode(st, index, geo, scratch)
        if code != -3:
            legal += code != SWAP
            child, below = st.copy(), scratch.copy()
            apply(child, code, geo, below)
            total += perft(child, depth - 1, geo, advanced, below)
    if legal == 0:
        child, below = st.copy(), scratch.copy()
        apply(child, PASS, geo, below)
        total += perft(child, depth - 1, geo, advanced, below)
    return total


# -- the tree ----------------------------------------------------------------------------


@nb.njit(cache=True)
def add_child(nodes, values, ends, meta, node, st, code, geo, scratch):
    """A new child of ``node`` for the move ``code``, played on ``st``."""
    child = new_node(nodes, meta, code, player_of(st, st[COLOUR]))
    values[child] = 0.0
    nodes[child, NEXT] = nodes[node, FIRST]
    nodes[node, FIRST] = child
    apply(st, code, geo, scratch)
    if st[WINNER] != NO_WINNER:
        nodes[child, STATUS] = TERMINAL
        returns(st, ends[child])
    return child


@nb.njit(cache=True)
def expand(nodes, values, ends, meta, node, st, rng, geo, advanced, scratch):
    """Add the node's next untried move as a child and play it on ``st``; -1 once every
    move has been tried (the node is then FULL).  A node with no legal turn gets ``pass``."""
    size = prepare(st, geo, advanced, scratch)
    if nodes[node, SIZE] < 0:  # first expansion: draw the node's permutation of the candidates
        if size == 0:  # a full board: only a pass
            nodes[node, STATUS] = FULL
            return add_child(nodes, values, ends, meta, node, st, PASS, geo, scratch)
        a = 1 + next_random(rng) % size
        while gcd(a, size) != 1:
            a = 1 + next_random(rng) % size
        nodes[node, SIZE] = size
        nodes[node, PERM_A] = a
        nodes[node, PERM_B] = next_random(rng) % size
    a, b = nodes[node, PERM_A], nodes[node, PERM_B]
    while nodes[node, CURSOR] < size:
        index = (a * nodes[node, CURSOR] + b) % size
        nodes[node, CURSOR] += 1
        code = decode(st, index, geo, scratch)
        if code != -3:
            return add_child(nodes, values, ends, meta, node, st, code, geo, scratch)
    nodes[node, STATUS] = FULL
    if nodes[node, FIRST] < 0:
        return add_child(nodes, values, ends, meta, node, st, PASS, geo, scratch)
    return -1


@nb.njit(cache=True)
def search(
    nodes,
    values,
    ends,
    meta,
    root_state,
    st,
    rng,
    geo,
    advanced,
    iterations,
    exploration,
):
    """Run ``iterations`` UCT iterations on the tree (root: node 0)."""
    scratch = np.zeros(scratch_size(root_state[CELLS]), np.int64)
    path = np.zeros(4 * root_state[CELLS] + 16, np.int64)
    result = np.zeros(2)
    capacity = nodes.shape[0]
    for _ in range(iterations):
        st[:] = root_state
        node, depth = 0, 0
        path[0] = 0
        while nodes[node, STATUS] != TERMINAL:
            if nodes[node, STATUS] == OPEN:
                if meta[0] >= capacity - 1:
                    break  # the tree is full: play out from here
                child = expand(nodes, values, ends, meta, node, st, rng, geo, advanced, scratch)
                if child >= 0:
                    depth += 1
                    path[depth] = child
                    node = child
                    break
            node = best_child(nodes, values, node, exploration)
            apply(st, nodes[node, MOVE], geo, scratch)
            depth += 1
            path[depth] = node
        if nodes[node, STATUS] == TERMINAL:
            result[:] = ends[node]
        else:
            playout(st, rng, geo, advanced, scratch, path[:0])
            returns(st, result)
        for i in range(depth + 1):
            n = path[i]
            nodes[n, VISITS] += 1
            if i > 0:
                values[n] += result[nodes[n, PLAYER] - 1]
        meta[1] += 1


# -- the Python side -----------------------------------------------------------------------


def cell_name(cell: int, n: int) -> str:
    return f"{FILES[cell % n]}{cell // n + 1}"


def pack_state(state: State) -> np.ndarray:
    """This module's packed position from the FEN of a Slither state (and its game's pie
    option: ``swap`` is allowed after exactly one turn, with White to move, not swapped)."""
    rows, side, swapped, turns = state.fen().split()
    n = len(rows.split("/"))
    cells = n * n
    st = np.zeros(HEADER + 6 * cells, np.int64)
    geo = geometry(n)
    st[SIZE_N], st[CELLS], st[EMPTIES] = n, cells, cells
    st[WALL] = WALL_VALUE
    st[WINNER] = NO_WINNER
    st[COUNTED] = state.game.id == "slither"
    empty_list, empty_place = HEADER + cells, HEADER + 2 * cells
    st[empty_list : empty_list + cells] = np.arange(cells)
    st[empty_place : empty_place + cells] = np.arange(cells)
    for top_index, text in enumerate(rows.split("/")):
        row, col, run = n - 1 - top_index, 0, ""
        for char in text + " ":
            if char.isdigit():
                run += char
                continue
            col += int(run or 0)
            run = ""
            if char in "xo":
                fill(st, row * n + col, "xo".index(char) + 1, geo)
                col += 1
    st[COLOUR] = BLACK if side == "b" else WHITE
    st[SWAPPED] = swapped == "s"
    st[PIE] = state.game.option_texts().get("pie") == "on"
    st[TURNS] = int(turns)
    st[SWAP_OK] = st[PIE] and st[TURNS] == 1 and side == "w" and swapped == "-"
    if state.is_over():
        st[WINNER] = 1 - st[COLOUR]
    return st


def move_text(code: int, n: int) -> str:
    if code == SWAP:
        return "swap"
    if code == PASS:
        return "pass"
    placed, source, target = code % BASE, code // BASE % BASE - 1, code // (BASE * BASE) - 1
    if source < 0:
        return cell_name(placed, n)
    return f"{cell_name(source, n)}-{cell_name(target, n)}/{cell_name(placed, n)}"


class SlitherUCT:
    """Plain UCT on whole turns (see the module docstring)."""

    name = "plain UCT (compiled)"

    def __init__(
        self, advanced: bool, exploration: float = EXPLORATION, chunk_seconds: float = 0.001
    ) -> None:
        self.advanced = advanced
        self.exploration = exploration
        self.chunk_seconds = chunk_seconds
        # Compiled (or loaded from numba's cache) now, not in the first move's time.
        warm = pack_state(get_game("slither", size="4").new_state())
        nodes, values, ends = np.empty((2, FIELDS), np.int64), np.empty(2), np.empty((2, 2))
        meta = np.zeros(2, np.int64)
        new_node(nodes, meta, 0, 0)
        geo = geometry(4)
        rng = np.ones(1, np.uint64)
        search(
            nodes,
            values,
            ends,
            meta,
            warm,
            warm.copy(),
            rng,
            geo,
            advanced,
            1,
            exploration,
        )

    def choose(self, state: State, seconds: float, seed: int) -> tuple[Move, int]:
        if state.is_over():
            raise ValueError(f"no move to choose: the game is over ({state.fen()})")
        started = time.perf_counter()
        root_state = pack_state(state)
        n = int(root_state[SIZE_N])
        geo = geometry(n)
        capacity = max(10_000, int(seconds * 200_000))
        nodes = np.empty((capacity, FIELDS), np.int64)
        values = np.empty(capacity)
        ends = np.empty((capacity, 2))
        meta = np.zeros(2, np.int64)  # nodes used, iterations run
        rng = np.array([seed * 0x9E3779B97F4A7C15 % (1 << 64) or 1], np.uint64)
        work = root_state.copy()
        new_node(nodes, meta, 0, 0)
        chunk = 1
        while True:
            chunk_started = time.perf_counter()
            search(
                nodes,
                values,
                ends,
                meta,
                root_state,
                work,
                rng,
                geo,
                self.advanced,
                chunk,
                self.exploration,
            )
            now = time.perf_counter()
            left = started + seconds - now
            if left <= 0:
                break
            # Calls of about chunk_seconds each, never past the deadline.
            per_iteration = max((now - chunk_started) / chunk, 1e-7)
            chunk = max(1, int(min(self.chunk_seconds, left) / per_iteration))
        best, child = -1, nodes[0, FIRST]
        while child >= 0:
            if best < 0 or nodes[child, VISITS] > nodes[best, VISITS]:
                best = child
            child = nodes[child, NEXT]
        return state.parse_move(move_text(int(nodes[best, MOVE]), n)), int(meta[1])


def make_baseline(game: Game) -> SlitherUCT:
    if game.id not in ("slither", "slither-advanced"):
        raise ValueError(f"the Slither baseline plays slither or slither-advanced, not {game.id!r}")
    return SlitherUCT(advanced=game.id == "slither-advanced")


MIDDLE = "e5 d5 e6 d6 e4 d4 e3 d3 f3 c3 e7 d7 e8 d8"  # 14 placements on 9x9 (bench/slither.py)


def main() -> None:
    """Playouts per move from the start and a middle-game position of 9x9 (or --size)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--game", choices=("slither", "slither-advanced"), default="slither")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--pie", choices=("on", "off"), default="on")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per move")
    parser.add_argument("--moves", type=int, default=3, help="moves timed per position")
    args = parser.parse_args()
    game = get_game(args.game, size=str(args.size), pie=args.pie)
    baseline = make_baseline(game)
    middle = game.new_state()
    if args.size == 9:
        for text in MIDDLE.split():
            middle.push(middle.parse_move(text))
    for name, state in (("start", game.new_state()), (f"after {len(middle.move_stack)}", middle)):
        counts, times, cpu = [], [], 0.0
        for seed in range(args.moves):
            started, cpu_started = time.perf_counter(), time.process_time()
            _, playouts = baseline.choose(state, args.seconds, seed)
            times.append(time.perf_counter() - started)
            cpu += time.process_time() - cpu_started
            counts.append(playouts)
        print(
            f"{args.game} {args.size}x{args.size} pie={args.pie} {name:>9}: "
            f"{sum(counts) / len(counts):8.0f} playouts a {args.seconds:g} s move "
            f"(min {min(counts)}, max {max(counts)}; longest move {max(times):.4f} s; "
            f"{sum(counts) / cpu:.0f} a CPU second)",
            flush=True,
        )


if __name__ == "__main__":
    main()
