"""Plain UCT for the Slime Trail games (slimetrail, slimetrail-square, slimetrail-hex), whole
search compiled, independent of Slimetrail's AI.

Square boards of any size (king steps) and hex rhombus boards (cell (c, r) touches (c±1, r),
(c, r±1), (c+1, r+1), (c-1, r-1)), both rule sets: ``rastros`` (a player who cannot move
loses) and ``taylor`` (a step to a non-goal cell from which no goal can be reached through
free cells is illegal; a stuck snail is a draw).  Entering a goal corner wins for the
corner's owner, whoever moved.  The position is read from the game's public API only: the
board's shape, size and goals from ``describe_board()``, the cells from ``fen()``.

Cells are numbered ``row * n + col`` here; a position is ``free`` (uint8 per cell, the
snail's cell not free), the snail's cell and the player to move.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bench.baselines.tree import (
    DRAW,
    MOVE,
    NCHILD,
    NLEGAL,
    NO_RESULT,
    RESULT,
    add_child,
    back_up,
    most_visited_move,
    new_rng,
    new_tree,
    pick_untried,
    random_below,
    reset,
    run_timed,
    select_ucb,
)
from slimetrail.core.game import Game, Move, State

FILES = "abcdefghijklmnopqrstuvwxyz"
SQUARE_STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
HEX_STEPS = ((1, 1), (-1, -1), (0, 1), (0, -1), (1, 0), (-1, 0))
TREE_CAPACITY = 3_000_000


class Geometry:
    """Neighbour tables of one board, the goal corners and the rule set, as arrays."""

    def __init__(self, shape: str, n: int, goals: tuple[int, int], taylor: bool) -> None:
        steps = SQUARE_STEPS if shape == "square" else HEX_STEPS
        cells = n * n
        self.n = n
        self.nbr = np.full((cells, len(steps)), -1, np.int32)
        self.degree = np.zeros(cells, np.int32)
        self.adjacent = np.zeros((cells, cells), np.bool_)
        for cell in range(cells):
            row, col = divmod(cell, n)
            for dc, dr in steps:
                if 0 <= col + dc < n and 0 <= row + dr < n:
                    other = (row + dr) * n + col + dc
                    self.nbr[cell, self.degree[cell]] = other
                    self.degree[cell] += 1
                    self.adjacent[cell, other] = True
        # goals[p - 1]: the corner player p owns.
        self.goals = np.array(goals, np.int32)
        self.taylor = taylor

    def tables(self):
        return self.nbr, self.degree, self.adjacent, self.goals, self.taylor


def cell_index(name: str, n: int) -> int:
    return (int(name[1:]) - 1) * n + FILES.index(name[0])


def geometry_of(game: Game) -> Geometry:
    board = game.describe_board()
    n = int(board["size"])
    goals = board["goals"]
    return Geometry(
        board["shape"],
        n,
        (cell_index(goals["1"], n), cell_index(goals["2"], n)),
        game.options.get("rules") == "taylor",
    )


def position_of(state: State, n: int) -> tuple[np.ndarray, int, int]:
    """(free cells, snail cell, player to move) from the state's position string."""
    rows, to_move = state.fen().split()
    free = np.zeros(n * n, np.uint8)
    snail = -1
    for top, text in enumerate(rows.split("/")):
        row, col, i = n - 1 - top, 0, 0
        while i < len(text):
            j = i
            while j < len(text) and text[j].isdecimal():
                j += 1
            if j > i:
                for c in range(col, col + int(text[i:j])):
                    free[row * n + c] = 1
                col += int(text[i:j])
                i = j
                continue
            if text[i] == "o":
                snail = row * n + col
            col, i = col + 1, i + 1
    return free, snail, int(to_move)


# -- rules --------------------------------------------------------------------------------


@nb.njit(cache=True)
def goal_component(free, goals, nbr, degree, component, stack):
    """Mark the free cells connected to a free goal corner through free cells."""
    component[:] = False
    top = 0
    for g in goals:
        if free[g]:
            component[g] = True
            stack[top] = g
            top += 1
    while top:
        top -= 1
        cell = stack[top]
        for k in range(degree[cell]):
            other = nbr[cell, k]
            if free[other] and not component[other]:
                component[other] = True
                stack[top] = other
                top += 1


@nb.njit(cache=True)
def may_split(free, cell, nbr, degree, adjacent):
    """Whether taking ``cell`` out of the free cells may split their components: not when
    its free neighbours are connected among themselves (any path through it has a detour)."""
    around = np.empty(8, np.int32)
    count = 0
    for k in range(degree[cell]):
        other = nbr[cell, k]
        if free[other]:
            around[count] = other
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
                if reached >> i & 1 and adjacent[around[i], around[j]]:
                    reached |= 1 << j
                    grown = True
                    break
    return reached != (1 << count) - 1


@nb.njit(cache=True)
def winner_on(snail, goals):
    """The owner of the goal corner the snail stands on, or NO_RESULT."""
    if snail == goals[0]:
        return 1
    if snail == goals[1]:
        return 2
    return NO_RESULT


@nb.njit(cache=True)
def stuck_result(mover, taylor):
    return DRAW if taylor else 3 - mover


@nb.njit(cache=True)
def legal_steps(free, snail, goals, nbr, degree, taylor, moves, component, stack):
    """Write the legal steps into ``moves``; returns how many (none on a goal corner)."""
    if winner_on(snail, goals) != NO_RESULT:
        return 0
    if taylor:
        goal_component(free, goals, nbr, degree, component, stack)
    count = 0
    for k in range(degree[snail]):
        other = nbr[snail, k]
        if free[other] and (not taylor or component[other]):
            moves[count] = other
            count += 1
    return count


@nb.njit(cache=True)
def playout(
    free, snail, mover, goals, nbr, degree, adjacent, taylor, rng, trace, component, stack
):  # fmt: skip
    """A uniformly random game from the position (``free`` is used up); returns the winner
    (0: a draw) and writes the snail's cells into ``trace``, returning their number too.
    ``component`` and ``stack``: scratch arrays of a cell each."""
    steps = np.empty(8, np.int32)
    if taylor:
        goal_component(free, goals, nbr, degree, component, stack)
    length = 0
    while True:
        won = winner_on(snail, goals)
        if won != NO_RESULT:
            return won, length
        count = 0
        # Branch-free: each step is written anyway and kept only if it is legal.
        if taylor:
            for k in range(degree[snail]):
                other = nbr[snail, k]
                steps[count] = other
                count += free[other] & component[other]
        else:
            for k in range(degree[snail]):
                other = nbr[snail, k]
                steps[count] = other
                count += free[other]
        if count == 0:
            return stuck_result(mover, taylor), length
        snail = steps[random_below(rng, count)]
        free[snail] = 0
        trace[length] = snail
        length += 1
        if taylor:
            # The goals' component loses the snail's cell; recount it only if that may cut it.
            component[snail] = False
            if may_split(free, snail, nbr, degree, adjacent):
                goal_component(free, goals, nbr, degree, component, stack)
        mover = 3 - mover


# -- search -------------------------------------------------------------------------------


@nb.njit(cache=True)
def search(
    links, wins, meta, root_free, root_snail, root_mover, goals, nbr, degree, adjacent, taylor,
    iterations, rng,
):  # fmt: skip
    cells = root_free.shape[0]
    free = np.empty(cells, np.uint8)
    moves = np.empty(8, np.int32)
    seen = np.zeros(cells, np.bool_)
    component = np.empty(cells, np.bool_)
    stack = np.empty(cells, np.int32)
    trace = np.empty(cells, np.int32)
    path = np.empty(cells + 2, np.int32)
    for _ in range(iterations):
        free[:] = root_free
        snail, mover, node, length = root_snail, root_mover, 0, 1
        path[0] = 0
        while True:
            count = -1  # the node's legal steps are not in ``moves`` yet
            if links[NLEGAL, node] < 0:
                count = legal_steps(
                    free, snail, goals, nbr, degree, taylor, moves, component, stack
                )
                links[NLEGAL, node] = count
                if count == 0:
                    won = winner_on(snail, goals)
                    links[RESULT, node] = won if won != NO_RESULT else stuck_result(mover, taylor)
            if links[NLEGAL, node] == 0:
                winner = links[RESULT, node]
                break
            if links[NCHILD, node] < links[NLEGAL, node]:
                if count < 0:
                    count = legal_steps(
                        free, snail, goals, nbr, degree, taylor, moves, component, stack
                    )
                move = pick_untried(links, node, moves, count, seen, rng)
                child = add_child(links, wins, meta, node, move)
                if child >= 0:
                    free[move] = 0
                    snail, mover = move, 3 - mover
                    path[length] = child
                    length += 1
                winner, _ = playout(
                    free, snail, mover, goals, nbr, degree, adjacent, taylor, rng, trace,
                    component, stack,
                )  # fmt: skip
                break
            node = select_ucb(links, wins, node)
            snail, mover = links[MOVE, node], 3 - mover
            free[snail] = 0
            path[length] = node
            length += 1
        back_up(links, wins, path, length, root_mover, winner)


@nb.njit(cache=True)
def perft(free, snail, depth, goals, nbr, degree, taylor):
    """The number of legal move sequences of ``depth`` plies (``free`` is restored).  A loop
    over an explicit stack: numba's cache does not load recursive functions safely."""
    if depth == 0:
        return 1
    cells = free.shape[0]
    component = np.empty(cells, np.bool_)
    stack = np.empty(cells, np.int32)
    moves = np.empty((depth, 8), np.int32)
    counts = np.zeros(depth, np.int64)
    tried = np.zeros(depth, np.int64)
    path = np.empty(depth, np.int32)  # path[level]: the snail's cell at that level
    path[0] = snail
    counts[0] = legal_steps(free, snail, goals, nbr, degree, taylor, moves[0], component, stack)
    if depth == 1:
        return counts[0]
    total, level = 0, 0
    while True:
        if tried[level] == counts[level]:
            if level == 0:
                return total
            free[path[level]] = 1
            level -= 1
            continue
        move = moves[level, tried[level]]
        tried[level] += 1
        free[move] = 0
        if level == depth - 2:
            total += legal_steps(
                free, move, goals, nbr, degree, taylor, moves[depth - 1], component, stack
            )
            free[move] = 1
        else:
            level += 1
            path[level] = move
            tried[level] = 0
            counts[level] = legal_steps(
                free, move, goals, nbr, degree, taylor, moves[level], component, stack
            )


class TrailBaseline:
    """Plain UCT for one Slime Trail game: UCB1 (c = 1.4), one node added per iteration,
    uniformly random playouts, a fresh tree each move, the most visited move played."""

    name = "plain UCT (compiled)"

    def __init__(self, game: Game, capacity: int = TREE_CAPACITY) -> None:
        self.geometry = geometry_of(game)
        self.tree = new_tree(capacity)

    def choose(
        self, state: State, seconds: float, seed: int, playouts: int | None = None
    ) -> tuple[Move, int]:
        """As :meth:`Baseline.choose`; with ``playouts``, exactly that many and no clock (the
        fixed-budget matches of ``bench/strength.py``, the same on a loaded machine)."""
        n = self.geometry.n
        free, snail, mover = position_of(state, n)
        nbr, degree, adjacent, goals, taylor = self.geometry.tables()
        links, wins, meta = self.tree
        rng = new_rng(seed)
        reset(links, wins, meta)

        def step(iterations: int) -> None:
            search(
                links, wins, meta, free, snail, mover, goals, nbr, degree, adjacent, taylor,
                iterations, rng,
            )  # fmt: skip

        if playouts is None:
            playouts = run_timed(step, seconds)
        else:
            step(playouts)
        cell = int(most_visited_move(links))
        return state.parse_move(f"{FILES[cell % n]}{cell // n + 1}"), playouts

    # -- for the tests: the compiled rules on a State's position --------------------------

    def perft(self, state: State, depth: int) -> int:
        free, snail, _ = position_of(state, self.geometry.n)
        nbr, degree, _, goals, taylor = self.geometry.tables()
        return int(perft(free, snail, depth, goals, nbr, degree, taylor))

    def random_game(self, state: State, seed: int) -> tuple[list[str], int]:
        """A compiled random playout from ``state``: the cells the snail visits, by name, and
        the winner (0: a draw)."""
        n = self.geometry.n
        free, snail, mover = position_of(state, n)
        nbr, degree, adjacent, goals, taylor = self.geometry.tables()
        cells = n * n
        trace = np.empty(cells, np.int32)
        winner, length = playout(
            free, snail, mover, goals, nbr, degree, adjacent, taylor, new_rng(seed), trace,
            np.empty(cells, np.bool_), np.empty(cells, np.int32),
        )  # fmt: skip
        return [f"{FILES[c % n]}{c // n + 1}" for c in trace[:length]], int(winner)


def make_baseline(game: Game) -> TrailBaseline:
    return TrailBaseline(game)
