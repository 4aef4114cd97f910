"""A plain UCT player for the Slime Trail games, independent of Slimetrail's own AI.

The yardstick of the big-board benchmark (bench/bigboard.py), written the way generic game
programs do it: UCB1 selection (c = sqrt 2) over a tree built with the game's public rules
API (``legal_moves``/``push``/``pop``/``outcome``), one node added per iteration, a uniformly
random playout to the end of the game, the most visited move played.  Only the playout is
compiled (numba, on an array of the board's cells): it uses nothing of our search, evaluation
or solver.  Taylor's rule is applied in the playout by a flood fill from the goal corners.

    PYTHONPATH=$PWD python bench/uct.py --game slimetrail-hex --size 11 --rules rastros
prints the iterations a second from the start position.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numba as nb
import numpy as np

from slimetrail.core.game import State
from slimetrail.core.registry import get_game

EXPLORATION = math.sqrt(2.0)
WORD = (1 << 64) - 1


@nb.njit(cache=True)
def _goal_component(free, goals, nbr, comp, stack):
    """Mark in ``comp`` the free cells connected to a free goal corner (Taylor's rule)."""
    comp[:] = False
    top = 0
    for g in goals:
        if free[g]:
            comp[g] = True
            stack[top] = g
            top += 1
    while top:
        top -= 1
        c = stack[top]
        for k in range(nbr.shape[1]):
            d = nbr[c, k]
            if d >= 0 and free[d] and not comp[d]:
                comp[d] = True
                stack[top] = d
                top += 1


@nb.njit(cache=True)
def _splits(free, cell, nbr, adj):
    """Whether taking ``cell`` out of the free cells may split their components: False when
    its free neighbours are connected among themselves (then nothing else is cut off)."""
    around = np.empty(nbr.shape[1], np.int64)
    count = 0
    for k in range(nbr.shape[1]):
        d = nbr[cell, k]
        if d >= 0 and free[d]:
            around[count] = d
            count += 1
    if count <= 1:
        return False
    reached = 1  # bit j: around[j] is connected to around[0]
    grown = True
    while grown:
        grown = False
        for j in range(count):
            if reached >> j & 1:
                continue
            for i in range(count):
                if reached >> i & 1 and adj[around[i], around[j]]:
                    reached |= 1 << j
                    grown = True
                    break
    return reached != (1 << count) - 1


@nb.njit(cache=True)
def playout(words, snail, mover, goals, nbr, adj, taylor, seed):
    """A uniformly random game from the position; returns the winner (1 or 2) or 0 (a draw).

    ``words``: the free cells as 64-bit words of the board's bitboard, ``mover``: the player
    to move, ``goals``: player 1's and player 2's corners, ``nbr``: neighbour cells per cell
    (-1 pads), ``adj``: the adjacency matrix.
    """
    np.random.seed(seed)
    size = nbr.shape[0]
    free = np.zeros(size, np.bool_)
    for i in range(size):
        free[i] = (words[i >> 6] >> np.uint64(i & 63)) & np.uint64(1) != 0
    comp = np.zeros(size, np.bool_)
    stack = np.empty(size, np.int64)
    steps = np.empty(nbr.shape[1], np.int64)
    if taylor:
        _goal_component(free, goals, nbr, comp, stack)
    while True:
        if snail == goals[0]:
            return 1
        if snail == goals[1]:
            return 2
        count = 0
        for k in range(nbr.shape[1]):
            d = nbr[snail, k]
            if d >= 0 and free[d] and (not taylor or comp[d]):
                steps[count] = d
                count += 1
        if count == 0:
            return 0 if taylor else 3 - mover
        snail = steps[np.random.randint(count)]
        free[snail] = False
        if taylor:
            # The goals' component loses the snail's cell; recount it only if that may cut it.
            comp[snail] = False
            if _splits(free, snail, nbr, adj):
                _goal_component(free, goals, nbr, comp, stack)
        mover = 3 - mover


@nb.njit(cache=True)
def legal_steps(words, snail, goals, nbr, taylor):
    """The snail's legal steps (none once it stands on a goal corner)."""
    if snail == goals[0] or snail == goals[1]:
        return np.empty(0, np.int64)
    size = nbr.shape[0]
    free = np.zeros(size, np.bool_)
    for i in range(size):
        free[i] = (words[i >> 6] >> np.uint64(i & 63)) & np.uint64(1) != 0
    comp = np.zeros(size, np.bool_)
    if taylor:
        _goal_component(free, goals, nbr, comp, np.empty(size, np.int64))
    steps = np.empty(nbr.shape[1], np.int64)
    count = 0
    for k in range(nbr.shape[1]):
        d = nbr[snail, k]
        if d >= 0 and free[d] and (not taylor or comp[d]):
            steps[count] = d
            count += 1
    return steps[:count]


class Node:
    __slots__ = ("children", "move", "untried", "visits", "wins")

    def __init__(self, move: int, untried: list[int]) -> None:
        self.move = move
        self.untried = untried
        self.children: list[Node] = []
        self.visits = 0
        self.wins = 0.0  # for the player who made ``move``


class UCT:
    """Plain UCT for one Slime Trail game (its board geometry is read from the game).

    The tree walks positions as (free cells, snail cell): the rules come from the compiled
    move generator above, checked against the game's ``legal_moves`` in the bench's tests.
    """

    def __init__(self, game, seed: int = 0) -> None:
        board = game.board
        self.rng = random.Random(seed)
        size = board.n * board.width
        width = max(bin(board.neighbours[i]).count("1") for i in range(size))
        nbr = np.full((size, width), -1, np.int64)
        for i in range(size):
            cells = [j for j in range(size) if board.neighbours[i] >> j & 1]
            nbr[i, : len(cells)] = cells
        self.nbr = nbr
        self.adj = np.zeros((size, size), np.bool_)
        for i in range(size):
            for j in nbr[i]:
                if j >= 0:
                    self.adj[i, j] = True
        self.size = size
        self.goals = np.array([game.goals[1], game.goals[2]], np.int64)
        self.taylor = game.rules == "taylor"

    def words(self, free: int) -> np.ndarray:
        return np.array([free >> s & WORD for s in range(0, self.size, 64)], np.uint64)

    def moves(self, free: int, snail: int) -> list[int]:
        return legal_steps(self.words(free), snail, self.goals, self.nbr, self.taylor).tolist()

    def rollout(self, free: int, snail: int, mover: int) -> int:
        """The winner of a random playout (0: a draw); ``mover`` is the player to move."""
        return playout(
            self.words(free),
            snail,
            mover,
            self.goals,
            self.nbr,
            self.adj,
            self.taylor,
            self.rng.getrandbits(31),
        )

    def choose(self, state: State, seconds: float) -> tuple[int, int]:
        """The most visited move after ``seconds`` of search, and the iterations run."""
        free, snail, me = state.free, state.snail, state.to_move  # type: ignore[attr-defined]
        root = Node(-1, self.moves(free, snail))
        deadline = time.perf_counter() + seconds
        iterations = 0
        while iterations == 0 or time.perf_counter() < deadline:
            self.iterate(root, free, snail, me)
            iterations += 1
        best = max(root.children, key=lambda child: child.visits)
        return best.move, iterations

    def iterate(self, root: Node, free: int, snail: int, me: int) -> None:
        node, path, mover = root, [root], me
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(
                node.children,
                key=lambda c: c.wins / c.visits + EXPLORATION * math.sqrt(log_n / c.visits),
            )
            free &= ~(1 << node.move)
            snail, mover = node.move, 3 - mover
            path.append(node)
        if node.untried:
            move = node.untried.pop(self.rng.randrange(len(node.untried)))
            free &= ~(1 << move)
            snail, mover = move, 3 - mover
            child = Node(move, self.moves(free, snail))
            node.children.append(child)
            path.append(child)
        winner = self.rollout(free, snail, mover)
        # path[k] was reached by a move of the player to move at depth k - 1.
        mover = me
        for visited in path[1:]:
            visited.visits += 1
            visited.wins += 1.0 if winner == mover else 0.5 if winner == 0 else 0.0
            mover = 3 - mover
        root.visits += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="slimetrail")
    parser.add_argument("--size", default="9")
    parser.add_argument("--rules", default="rastros")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    game = get_game(args.game, size=args.size, rules=args.rules)
    uct = UCT(game, seed=1)
    state = game.new_state()
    uct.choose(state, 0.05)  # compile (or load) the playout first
    move, iterations = uct.choose(state, args.seconds)
    print(
        f"{args.game} {args.size}x{args.size} {args.rules}: {iterations / args.seconds:.0f} "
        f"iterations/s, move {state.move_str(move)}"
    )


if __name__ == "__main__":
    main()
