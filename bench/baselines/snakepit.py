"""Plain max^n UCT for Snake Pit, compiled with numba, independent of Slimetrail's AI.

The yardstick the outside testers used: UCB1 with c = 1.4, one node added per iteration, a
uniformly random playout to the end of the game, a fresh tree every move and the most visited
move played.  With three players every node keeps the returns of the player who moved into it
(max^n UCT); a return is 1 for the winner, 0.5 for the last player out and 0 for the first
(``Outcome.score``).

A move is a whole turn (RULES.md section 5: k of the mover's four snakes, each one step to a
cell that was empty when the turn began, no two to the same cell), one tree edge per set of
steps, exactly the moves ``State.legal_moves`` lists.

* A playout turn is uniform over the legal turns: a choice of k of the four snakes and one
  empty neighbour for each chosen snake, uniform over all such combinations, drawn again
  while two snakes meet on one cell (after 64 draws the legal turns are counted and one of
  them is drawn).  Each legal turn is exactly one combination.
* The tree numbers the turns over a plainer superset: a choice of k of the four snakes (in a
  fixed table) times one of six directions per chosen snake, C(4, k) * 6^k candidates, each
  legal turn exactly once among them.  A node's untried turns are met in the order of a
  random affine permutation of the candidates (``(a * i + b) mod size``), so no node stores
  a move list.

The board, the snakes and the players out are this module's own arrays (built from the
position's FEN); only ``State.fen`` and ``State.parse_move`` of the game are used.
"""

from __future__ import annotations

import argparse
import random
import time
from itertools import combinations

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
SIDE = 13  # letters a-m and numbers 1-13; cell (L, N) is on the board when |L - N| <= 7
CELLS = SIDE * SIDE
LETTERS = "abcdefghijklm"
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))  # (dL, dN)

# The packed position (int64 array): free[cell] (1: an empty board cell), then each player's
# four snake cells, then the scalars.
SNAKES = CELLS  # SNAKES + (player - 1) * 4 + slot
MOVER = SNAKES + 12  # 0 once the game is over
STEPS = MOVER + 1  # k, the snakes this turn moves
OUT_COUNT = STEPS + 1
OUT = OUT_COUNT + 1  # the players out, in the order they went out
STATE_SIZE = OUT + 2

PLAYOUT_TRIES = 64
# Scratch (int64 array of SCRATCH): exits of the four snakes, their counts, choice weights.
DESTS, COUNTS, WEIGHTS, SCRATCH = 0, 24, 28, 34


def cell_index(letter: int, number: int) -> int:
    return (letter - 1) * SIDE + number - 1


def on_board(letter: int, number: int) -> bool:
    return 1 <= letter <= SIDE and 1 <= number <= SIDE and abs(letter - number) <= 7


def cell_name(cell: int) -> str:
    return f"{LETTERS[cell // SIDE]}{cell % SIDE + 1}"


def parse_cell(name: str) -> int:
    letter, number = LETTERS.index(name[0]) + 1, int(name[1:])
    if not on_board(letter, number):
        raise ValueError(f"{name!r} is not a cell of the Snake Pit board")
    return cell_index(letter, number)


def neighbour_table() -> np.ndarray:
    """``table[cell, d]``: the cell one step in direction ``d``, or -1 off the board."""
    table = np.full((CELLS, len(DIRECTIONS)), -1, np.int64)
    for letter in range(1, SIDE + 1):
        for number in range(1, SIDE + 1):
            if not on_board(letter, number):
                continue
            for d, (dl, dn) in enumerate(DIRECTIONS):
                if on_board(letter + dl, number + dn):
                    table[cell_index(letter, number), d] = cell_index(letter + dl, number + dn)
    return table


def combination_table() -> np.ndarray:
    """``table[k, i]``: the i-th choice of k of the four snake slots (unused slots -1)."""
    table = np.full((4, 6, 3), -1, np.int64)
    for k in (1, 2, 3):
        for i, choice in enumerate(combinations(range(4), k)):
            table[k, i, :k] = choice
    return table


NEIGHBOURS = neighbour_table()
COMBINATIONS = combination_table()
CHOICES = np.array([0, 4, 6, 4], np.int64)  # C(4, k)
POWERS = np.array([1, 6, 36, 216], np.int64)  # 6^k


# -- rules -------------------------------------------------------------------------------


@nb.njit(cache=True)
def candidates(st):
    """How many candidate turns the mover has (C(4, k) * 6^k)."""
    return CHOICES[st[STEPS]] * POWERS[st[STEPS]]


@nb.njit(cache=True)
def decode(st, index, steps):
    """The candidate turn ``index`` as ``steps[i] = (from, to)``; whether it is legal."""
    k = st[STEPS]
    base = SNAKES + (st[MOVER] - 1) * 4
    choice, digits = index // POWERS[k], index % POWERS[k]
    for i in range(k):
        start = st[base + COMBINATIONS[k, choice, i]]
        end = NEIGHBOURS[start, digits % 6]
        digits //= 6
        if end < 0 or st[end] == 0:
            return False
        for j in range(i):
            if steps[j, 1] == end:
                return False
        steps[i, 0] = start
        steps[i, 1] = end
    return True


@nb.njit(cache=True)
def pack(steps, k):
    """A turn as one number: 16 bits a step, ``from | to << 8``."""
    code = 0
    for i in range(k):
        code |= (steps[i, 0] | (steps[i, 1] << 8)) << (16 * i)
    return code


@nb.njit(cache=True)
def exits(st, player, dests, counts):
    """Each snake slot's empty neighbours: ``dests[slot * 6 : slot * 6 + counts[slot]]``."""
    base = SNAKES + (player - 1) * 4
    for slot in range(4):
        start, count = st[base + slot], 0
        for d in range(6):
            end = NEIGHBOURS[start, d]
            if end >= 0 and st[end] == 1:
                dests[slot * 6 + count] = end
                count += 1
        counts[slot] = count


@nb.njit(cache=True)
def pick(dests, counts, k, choice, index, steps, starts):
    """Exit ``index`` (mixed radix over the chosen slots' exit counts) of the snake choice
    ``choice`` as ``steps``; whether its destinations are distinct (a legal turn)."""
    for i in range(k):
        slot = COMBINATIONS[k, choice, i]
        end = dests[slot * 6 + index % counts[slot]]
        index //= counts[slot]
        for j in range(i):
            if steps[j, 1] == end:
                return False
        steps[i, 0] = starts[slot]
        steps[i, 1] = end
    return True


@nb.njit(cache=True)
def turn_weights(counts, k, weights):
    """Per snake choice the number of exit combinations; their total."""
    total = 0
    for choice in range(CHOICES[k]):
        product = 1
        for i in range(k):
            product *= counts[COMBINATIONS[k, choice, i]]
        weights[choice] = product
        total += product
    return total


@nb.njit(cache=True)
def has_turn(st, player, k, scratch, steps):
    """Whether ``player`` has a full turn of ``k`` steps."""
    dests, counts = scratch[DESTS : DESTS + 24], scratch[COUNTS : COUNTS + 4]
    exits(st, player, dests, counts)
    starts = st[SNAKES + (player - 1) * 4 : SNAKES + player * 4]
    for choice in range(CHOICES[k]):
        product = 1
        for i in range(k):
            product *= counts[COMBINATIONS[k, choice, i]]
        for index in range(product):
            if pick(dests, counts, k, choice, index, steps, starts):
                return True
    return False


@nb.njit(cache=True)
def apply(st, code, scratch, steps):
    """Play the packed turn ``code`` and hand the turn on, putting out the players met with
    no full turn (the game is over, ``st[MOVER] == 0``, when two are out)."""
    player = st[MOVER]
    base = SNAKES + (player - 1) * 4
    for i in range(st[STEPS]):
        step = (code >> (16 * i)) & 0xFFFF
        start, end = step & 0xFF, step >> 8
        st[end] = 0  # the cell left stays blocked: it was not free before either
        for slot in range(4):
            if st[base + slot] == start:
                st[base + slot] = end
    st[STEPS] = min(st[STEPS] + 1, 3)
    while st[OUT_COUNT] < 2:
        player = player % 3 + 1
        if st[OUT_COUNT] == 1 and st[OUT] == player:
            continue
        if has_turn(st, player, st[STEPS], scratch, steps):
            st[MOVER] = player
            return
        st[OUT + st[OUT_COUNT]] = player
        st[OUT_COUNT] += 1
    st[MOVER] = 0


@nb.njit(cache=True)
def returns(st, out):
    """Each player's return once the game is over: 1 last left, 0.5 second out, 0 first out."""
    out[:] = 1.0
    out[st[OUT] - 1] = 0.0
    out[st[OUT + 1] - 1] = 0.5


@nb.njit(cache=True)
def random_turn(st, rng, scratch, steps):
    """A uniformly random legal turn of the mover, packed (the mover has one): a uniform
    choice of snakes and exits, drawn again while two snakes meet on one cell."""
    dests, counts = scratch[DESTS : DESTS + 24], scratch[COUNTS : COUNTS + 4]
    weights = scratch[WEIGHTS : WEIGHTS + 6]
    k, player = st[STEPS], st[MOVER]
    exits(st, player, dests, counts)
    starts = st[SNAKES + (player - 1) * 4 : SNAKES + player * 4]
    total = turn_weights(counts, k, weights)
    draws = 0
    while True:
        if draws < PLAYOUT_TRIES:
            draws += 1
            index = next_random(rng) % total
        else:  # seldom: draws keep meeting; count the legal turns and take one of them
            legal = 0
            for index in range(total):
                legal += chosen_turn(dests, counts, k, weights, index, steps, starts)
            skip = next_random(rng) % legal
            for index in range(total):
                if chosen_turn(dests, counts, k, weights, index, steps, starts):
                    if skip == 0:
                        break
                    skip -= 1
        if chosen_turn(dests, counts, k, weights, index, steps, starts):
            return pack(steps, k)


@nb.njit(cache=True)
def chosen_turn(dests, counts, k, weights, index, steps, starts):
    """Candidate ``index`` of ``turn_weights``' numbering as ``steps``; whether legal."""
    choice = 0
    while index >= weights[choice]:
        index -= weights[choice]
        choice += 1
    return pick(dests, counts, k, choice, index, steps, starts)


@nb.njit(cache=True)
def playout(st, rng, scratch, steps, record):
    """Random turns to the end of the game (``st`` is changed); the turns played go to
    ``record`` while it has room.  Returns how many turns were played."""
    played = 0
    while st[MOVER] != 0:
        code = random_turn(st, rng, scratch, steps)
        if played < record.shape[0]:
            record[played] = code
        played += 1
        apply(st, code, scratch, steps)
    return played


@nb.njit(cache=True)
def perft(st, depth, scratch, steps):
    if depth == 0:
        return 1
    if st[MOVER] == 0:
        return 0
    total = 0
    for index in range(candidates(st)):
        if decode(st, index, steps):
            if depth == 1:
                total += 1
            else:
                child = st.copy()
                apply(child, pack(steps, st[STEPS]), scratch, steps.copy())
                total += perft(child, depth - 1, scratch.copy(), steps.copy())
    return total


# -- the tree ----------------------------------------------------------------------------


@nb.njit(cache=True)
def expand(nodes, values, ends, meta, node, st, rng, scratch, steps):
    """Add the node's next untried turn as a child and play it on ``st``; -1 once every
    turn has been tried (the node is then FULL)."""
    size = nodes[node, SIZE]
    if size < 0:  # first expansion: draw the node's permutation of the candidates
        size = candidates(st)
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
        if decode(st, index, steps):
            player = st[MOVER]
            child = new_node(nodes, meta, pack(steps, st[STEPS]), player)
            values[child] = 0.0
            nodes[child, NEXT] = nodes[node, FIRST]
            nodes[node, FIRST] = child
            apply(st, nodes[child, MOVE], scratch, steps)
            if st[MOVER] == 0:
                nodes[child, STATUS] = TERMINAL
                returns(st, ends[child])
            return child
    nodes[node, STATUS] = FULL
    return -1


@nb.njit(cache=True)
def search(nodes, values, ends, meta, root_state, st, rng, iterations, exploration):
    """Run ``iterations`` UCT iterations on the tree (root: node 0)."""
    steps = np.zeros((3, 2), np.int64)
    scratch = np.zeros(SCRATCH, np.int64)
    path = np.zeros(1024, np.int64)
    result = np.zeros(3)
    capacity = nodes.shape[0]
    for _ in range(iterations):
        st[:] = root_state
        node, depth = 0, 0
        path[0] = 0
        while nodes[node, STATUS] != TERMINAL:
            if nodes[node, STATUS] == OPEN:
                if meta[0] >= capacity:
                    break  # the tree is full: play out from here
                child = expand(nodes, values, ends, meta, node, st, rng, scratch, steps)
                if child >= 0:
                    depth += 1
                    path[depth] = child
                    node = child
                    break
            node = best_child(nodes, values, node, exploration)
            apply(st, nodes[node, MOVE], scratch, steps)
            depth += 1
            path[depth] = node
        if nodes[node, STATUS] == TERMINAL:
            result[:] = ends[node]
        else:
            playout(st, rng, scratch, steps, path[:0])
            returns(st, result)
        for i in range(depth + 1):
            n = path[i]
            nodes[n, VISITS] += 1
            if i > 0:
                values[n] += result[nodes[n, PLAYER] - 1]
        meta[1] += 1


# -- the Python side -----------------------------------------------------------------------


def pack_state(state: State) -> np.ndarray:
    """This module's packed position from the FEN of a Snake Pit state."""
    fields = state.fen().split()
    st = np.zeros(STATE_SIZE, np.int64)
    for letter in range(1, SIDE + 1):
        for number in range(1, SIDE + 1):
            if on_board(letter, number):
                st[cell_index(letter, number)] = 1
    for player, field in enumerate(fields[:3], 1):
        snakes, _, trail = field.partition("/")
        for slot, name in enumerate(snakes.split(",")):
            st[SNAKES + (player - 1) * 4 + slot] = parse_cell(name)
            st[parse_cell(name)] = 0
        for name in trail.split(",") if trail != "-" else []:
            st[parse_cell(name)] = 0
    st[MOVER] = 0 if fields[3] == "-" else int(fields[3])
    st[STEPS] = int(fields[4])
    out = [] if fields[5] == "-" else [int(p) for p in fields[5].split(",")]
    st[OUT_COUNT] = len(out)
    st[OUT : OUT + len(out)] = out
    return st


def move_text(code: int) -> str:
    """A packed turn in the game's notation (a step is never 0: it joins two cells)."""
    steps = [(code >> (16 * i)) & 0xFFFF for i in range(3)]
    return ",".join(f"{cell_name(s & 0xFF)}-{cell_name(s >> 8)}" for s in steps if s)


class SnakePitUCT:
    """Plain max^n UCT on whole turns (see the module docstring)."""

    name = "plain UCT (compiled)"

    def __init__(self, exploration: float = EXPLORATION, chunk_seconds: float = 0.001) -> None:
        self.exploration = exploration
        self.chunk_seconds = chunk_seconds
        # Compiled (or loaded from numba's cache) now, not in the first move's time.
        warm = pack_state(get_game("snake-pit").new_state())
        nodes, values, ends = np.empty((2, FIELDS), np.int64), np.empty(2), np.empty((2, 3))
        meta = np.zeros(2, np.int64)
        new_node(nodes, meta, 0, 0)
        rng = np.ones(1, np.uint64)
        search(nodes, values, ends, meta, warm, warm.copy(), rng, 1, exploration)

    def choose(self, state: State, seconds: float, seed: int) -> tuple[Move, int]:
        return self.search_from(state, seed, seconds=seconds)

    def choose_playouts(self, state: State, playouts: int, seed: int) -> tuple[Move, int]:
        """The move after exactly ``playouts`` iterations, however long they take."""
        return self.search_from(state, seed, playouts=playouts)

    def search_from(
        self, state: State, seed: int, *, seconds: float = 0.0, playouts: int | None = None
    ) -> tuple[Move, int]:
        if state.is_over():
            raise ValueError(f"no move to choose: the game is over ({state.fen()})")
        started = time.perf_counter()
        root_state = pack_state(state)
        capacity = max(10_000, int(seconds * 400_000), (playouts or 0) + 1)
        nodes = np.empty((capacity, FIELDS), np.int64)
        values = np.empty(capacity)
        ends = np.empty((capacity, 3))
        meta = np.zeros(2, np.int64)  # nodes used, iterations run
        rng = np.array([seed * 0x9E3779B97F4A7C15 % (1 << 64) or 1], np.uint64)
        work = root_state.copy()
        new_node(nodes, meta, 0, 0)
        chunk = 1 if playouts is None else playouts
        while True:
            chunk_started = time.perf_counter()
            search(nodes, values, ends, meta, root_state, work, rng, chunk, self.exploration)
            if playouts is not None:
                break
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
        return state.parse_move(move_text(int(nodes[best, MOVE]))), int(meta[1])


def make_baseline(game: Game) -> SnakePitUCT:
    if game.id != "snake-pit":
        raise ValueError(f"the Snake Pit baseline plays snake-pit, not {game.id!r}")
    return SnakePitUCT()


def main() -> None:
    """Playouts per move from the start and a middle-game position (9 random turns)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per move")
    parser.add_argument("--moves", type=int, default=3, help="moves timed per position")
    args = parser.parse_args()
    game = get_game("snake-pit")
    baseline = make_baseline(game)
    middle, rng = game.new_state(), random.Random(1)
    for _ in range(9):
        middle.push(rng.choice(middle.legal_moves()))
    for name, state in (("start", game.new_state()), ("after 9", middle)):
        counts, times, cpu = [], [], 0.0
        for seed in range(args.moves):
            started, cpu_started = time.perf_counter(), time.process_time()
            _, playouts = baseline.choose(state, args.seconds, seed)
            times.append(time.perf_counter() - started)
            cpu += time.process_time() - cpu_started
            counts.append(playouts)
        print(
            f"snake-pit {name:>7}: {sum(counts) / len(counts):8.0f} playouts a "
            f"{args.seconds:g} s move (min {min(counts)}, max {max(counts)}; "
            f"longest move {max(times):.4f} s; {sum(counts) / cpu:.0f} a CPU second)",
            flush=True,
        )


if __name__ == "__main__":
    main()
