"""The plain UCT tree the compiled baselines share: preallocated arrays, UCB1, random picks.

A tree is ``links`` (int32, one row per field below, one column per node), ``wins`` (float64
per node: the results of the player who made the node's move, a draw counting 1/2) and
``meta`` (int64: the node count).  Node 0 is the root; children hang off ``FIRST`` and are
chained by ``SIBLING``.  ``NLEGAL`` is -1 until the node's position has been looked at,
then its number of legal moves (0: the game is over there, ``RESULT`` saying how: the
winner, or 0 for a draw).  The random numbers are a xorshift64* generator in a uint64[1].

A game module (``trail.py``, ``moku.py``) compiles its own iteration loop from these helpers
(move generation and playouts are the game's) and hands :func:`run_timed` a step function.
Numba's cache follows a kernel's own file only: after editing this file, clear the
``__pycache__`` of its siblings (or touch them) so their kernels recompile.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numba as nb
import numpy as np

EXPLORATION = 1.4
MOVE, FIRST, SIBLING, NCHILD, NLEGAL, VISITS, RESULT = range(7)
FIELDS = 7
NO_RESULT = -1  # RESULT of a node whose game goes on
DRAW = 0
# The longest a compiled step may run between two looks at the clock.
SLICE_SECONDS = 0.002


def new_tree(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.zeros((FIELDS, capacity), np.int32),
        np.zeros(capacity, np.float64),
        np.zeros(1, np.int64),
    )


def new_rng(seed: int) -> np.ndarray:
    # xorshift must not start from 0; splitmix-style scrambling of the seed avoids it.
    value = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & (2**64 - 1)
    return np.array([value or 1], np.uint64)


@nb.njit(cache=True)
def random_below(rng, bound):
    """A uniform-enough integer in [0, bound) (xorshift64*, its top 32 bits scaled: no
    division)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    top = (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return np.int64((top * np.uint64(bound)) >> np.uint64(32))


@nb.njit(cache=True)
def clear_node(links, wins, node, move):
    links[MOVE, node] = move
    links[FIRST, node] = -1
    links[SIBLING, node] = -1
    links[NCHILD, node] = 0
    links[NLEGAL, node] = -1
    links[VISITS, node] = 0
    links[RESULT, node] = NO_RESULT
    wins[node] = 0.0


@nb.njit(cache=True)
def reset(links, wins, meta):
    """A fresh tree: the root alone."""
    clear_node(links, wins, 0, -1)
    meta[0] = 1


@nb.njit(cache=True)
def add_child(links, wins, meta, parent, move):
    """The new child of ``parent`` for ``move``, or -1 when the arrays are full."""
    node = meta[0]
    if node >= links.shape[1]:
        return -1
    meta[0] = node + 1
    clear_node(links, wins, node, move)
    links[SIBLING, node] = links[FIRST, parent]
    links[FIRST, parent] = node
    links[NCHILD, parent] += 1
    return node


@nb.njit(cache=True)
def pick_untried(links, node, moves, count, seen, rng):
    """A random one of the ``count`` legal ``moves`` that has no child yet; ``seen`` is a
    bool scratch array indexed by move, all False on entry and on exit."""
    child = links[FIRST, node]
    while child >= 0:
        seen[links[MOVE, child]] = True
        child = links[SIBLING, child]
    untried = 0
    for i in range(count):
        if not seen[moves[i]]:
            moves[untried] = moves[i]
            untried += 1
    child = links[FIRST, node]
    while child >= 0:
        seen[links[MOVE, child]] = False
        child = links[SIBLING, child]
    return moves[random_below(rng, untried)]


@nb.njit(cache=True)
def select_ucb(links, wins, node):
    """The child with the highest UCB1 value (every child has been visited)."""
    log_visits = np.log(np.float64(links[VISITS, node]))
    best, best_value = -1, -1.0
    child = links[FIRST, node]
    while child >= 0:
        visits = np.float64(links[VISITS, child])
        value = wins[child] / visits + EXPLORATION * np.sqrt(log_visits / visits)
        if value > best_value:
            best, best_value = child, value
        child = links[SIBLING, child]
    return best


@nb.njit(cache=True)
def back_up(links, wins, path, length, root_mover, winner):
    """Count one playout ending with ``winner`` (0: a draw) on ``path[:length]``; the node at
    depth d was reached by a move of ``root_mover`` when d is odd (players alternate)."""
    links[VISITS, path[0]] += 1
    mover = root_mover
    for depth in range(1, length):
        node = path[depth]
        links[VISITS, node] += 1
        if winner == mover:
            wins[node] += 1.0
        elif winner == DRAW:
            wins[node] += 0.5
        mover = 3 - mover


@nb.njit(cache=True)
def most_visited_move(links):
    best, best_visits = -1, -1
    child = links[FIRST, 0]
    while child >= 0:
        if links[VISITS, child] > best_visits:
            best, best_visits = links[MOVE, child], links[VISITS, child]
        child = links[SIBLING, child]
    return best


def run_timed(step: Callable[[int], None], seconds: float) -> int:
    """Call ``step(iterations)`` in slices of about :data:`SLICE_SECONDS` until ``seconds``
    have passed (at least one iteration); returns the iterations run."""
    deadline = time.perf_counter() + seconds
    done, batch = 0, 16
    while True:
        started = time.perf_counter()
        step(batch)
        done += batch
        now = time.perf_counter()
        left = deadline - now
        if left <= 0:
            return done
        rate = batch / max(now - started, 1e-7)
        batch = max(1, int(rate * min(SLICE_SECONDS, left)))
