"""The array tree the whole-turn baselines (Snake Pit, Slither) share: one row of ``FIELDS``
int64 a node, children as a linked list, the returns of the player who moved into a node
(max^n), and a xorshift generator.  numba's cache notices changes to a kernel's own file only:
after editing this one, clear ``bench/baselines/__pycache__``."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

# Tree node fields (int64 array [capacity, FIELDS]).
MOVE, PLAYER, FIRST, NEXT, VISITS, PERM_A, PERM_B, CURSOR, SIZE, STATUS = range(10)
FIELDS = 10
OPEN, FULL, TERMINAL = 0, 1, 2


@nb.njit(cache=True)
def next_random(rng):
    """xorshift64*: the next number of the generator whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.int64((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(1))


@nb.njit(cache=True)
def new_node(nodes, meta, move, player):
    node = meta[0]
    meta[0] += 1
    nodes[node, MOVE] = move
    nodes[node, PLAYER] = player
    nodes[node, FIRST] = -1
    nodes[node, NEXT] = -1
    nodes[node, VISITS] = 0
    nodes[node, SIZE] = -1
    nodes[node, CURSOR] = 0
    nodes[node, STATUS] = OPEN
    return node


@nb.njit(cache=True)
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@nb.njit(cache=True)
def best_child(nodes, values, node, exploration):
    log_parent = math.log(nodes[node, VISITS])
    best, best_score = -1, -1.0
    child = nodes[node, FIRST]
    while child >= 0:
        visits = nodes[child, VISITS]
        score = values[child] / visits + exploration * math.sqrt(log_parent / visits)
        if score > best_score:
            best, best_score = child, score
        child = nodes[child, NEXT]
    return best
