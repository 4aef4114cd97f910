"""Plain UCT for Slime-Moku, whole search compiled, independent of Slimetrail's AI.

Any n, k = 4 or 5: the slime walks by king steps to empty cells, the cell it leaves takes a
stone of the mover's colour, k or more of one's stones in a row (orthogonal or diagonal) win,
a move that leaves no empty cell without making a row draws, and a slime with no empty
neighbour is lifted to any empty cell.  The position is read from ``fen()`` (``x`` black,
``o`` white, ``@`` the slime, digits empty cells) and the game's ``size``/``k`` options.

The board is framed by a border of WALL cells, so that a step is one added offset and never
needs a bounds test: cell (col, row) is ``(row + 1) * (n + 2) + col + 1``.  A position is
``cells`` (int8 per cell: EMPTY, player 1's or 2's stone, SLIME, WALL), the slime's cell, the
player to move and the number of empty cells.
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
EMPTY, SLIME, WALL = 0, 3, 4
# Direction d and d + 4 are opposite, so a line is the pair (d, d + 4) for d < 4.
STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
TREE_CAPACITY = 3_000_000


def offsets_of(n: int) -> np.ndarray:
    """The index offset of a step in each direction of :data:`STEPS` on the framed board."""
    return np.array([dr * (n + 2) + dc for dc, dr in STEPS], np.int64)


def cell_index(col: int, row: int, n: int) -> int:
    return (row + 1) * (n + 2) + col + 1


def position_of(state: State, n: int) -> tuple[np.ndarray, int, int, int]:
    """(cells, slime cell, player to move, empty cells) from the state's position string."""
    rows, to_move = state.fen().split()
    cells = np.full((n + 2) * (n + 2), WALL, np.int8)
    for row in range(n):
        for col in range(n):
            cells[cell_index(col, row, n)] = EMPTY
    slime = -1
    for top, text in enumerate(rows.split("/")):
        row, col, i = n - 1 - top, 0, 0
        while i < len(text):
            j = i
            while j < len(text) and text[j].isdecimal():
                j += 1
            if j > i:
                col += int(text[i:j])
                i = j
                continue
            cell = cell_index(col, row, n)
            if text[i] == "@":
                slime, cells[cell] = cell, SLIME
            else:
                cells[cell] = 1 if text[i] == "x" else 2
            col, i = col + 1, i + 1
    return cells, slime, int(to_move), int(np.count_nonzero(cells == EMPTY))


# -- rules --------------------------------------------------------------------------------


@nb.njit(cache=True)
def makes_row(cells, cell, player, offsets, k):
    """Whether ``player``'s stone on ``cell`` lies in a row of at least ``k``."""
    for d in range(4):
        run = 1
        step = offsets[d]
        other = cell + step
        while cells[other] == player:
            run += 1
            other += step
        other = cell - step
        while cells[other] == player:
            run += 1
            other -= step
        if run >= k:
            return True
    return False


@nb.njit(cache=True)
def legal_moves(cells, slime, offsets, moves):
    """Write the slime's legal destinations into ``moves``: its empty neighbours, or every
    empty cell when it has none; returns how many."""
    count = 0
    for d in range(8):
        other = slime + offsets[d]
        if cells[other] == EMPTY:
            moves[count] = other
            count += 1
    if count == 0:
        for cell in range(cells.shape[0]):
            if cells[cell] == EMPTY:
                moves[count] = cell
                count += 1
    return count


@nb.njit(cache=True)
def make_move(cells, slime, mover, empties, move, offsets, k):
    """Move the slime from ``slime`` to ``move`` for ``mover``; returns the result (the
    winner, DRAW, or NO_RESULT while the game goes on)."""
    cells[slime] = mover
    cells[move] = SLIME
    if makes_row(cells, slime, mover, offsets, k):
        return mover
    if empties == 1:
        return DRAW
    return NO_RESULT


@nb.njit(cache=True)
def playout(cells, slime, mover, empties, offsets, k, rng, trace, listed):
    """A uniformly random game from a running position (``cells`` is used up); returns the
    winner (0: a draw) and the number of slime cells written into ``trace``.  ``listed``:
    scratch for the empty cells, built the first time the slime is stuck."""
    steps = np.empty(8, np.int32)
    where = np.empty(cells.shape[0], np.int32)  # a listed cell's place in ``listed``
    count_listed = -1  # the empty cells are not listed yet
    length = 0
    while True:
        count = 0
        for d in range(8):
            # Branch-free: the step is written anyway and kept only if the cell is empty.
            other = slime + offsets[d]
            steps[count] = other
            count += cells[other] == EMPTY
        if count:
            move = steps[random_below(rng, count)]
        else:
            if count_listed < 0:
                count_listed = 0
                for cell in range(cells.shape[0]):
                    if cells[cell] == EMPTY:
                        listed[count_listed] = cell
                        where[cell] = count_listed
                        count_listed += 1
            move = listed[random_below(rng, count_listed)]
        if count_listed >= 0:
            # Take ``move`` out of the list: the last listed cell fills its place.
            count_listed -= 1
            last = listed[count_listed]
            listed[where[move]] = last
            where[last] = where[move]
        result = make_move(cells, slime, mover, empties, move, offsets, k)
        trace[length] = move
        length += 1
        if result != NO_RESULT:
            return result, length
        slime, mover, empties = move, 3 - mover, empties - 1


# -- search -------------------------------------------------------------------------------


@nb.njit(cache=True)
def search(
    links, wins, meta, root_cells, root_slime, root_mover, root_empties, offsets, k,
    iterations, rng,
):  # fmt: skip
    size = root_cells.shape[0]
    cells = np.empty(size, np.int8)
    moves = np.empty(size, np.int32)
    seen = np.zeros(size, np.bool_)
    trace = np.empty(size, np.int32)
    listed = np.empty(size, np.int32)
    path = np.empty(size + 2, np.int32)
    for _ in range(iterations):
        cells[:] = root_cells
        slime, mover, empties, node, length = root_slime, root_mover, root_empties, 0, 1
        path[0] = 0
        while True:
            count = -1  # the node's legal moves are not in ``moves`` yet
            if links[NLEGAL, node] < 0:
                # Reached by a move that did not end the game: it has moves.
                count = legal_moves(cells, slime, offsets, moves)
                links[NLEGAL, node] = count
            if links[NLEGAL, node] == 0:
                winner = links[RESULT, node]
                break
            if links[NCHILD, node] < links[NLEGAL, node]:
                if count < 0:
                    count = legal_moves(cells, slime, offsets, moves)
                move = pick_untried(links, node, moves, count, seen, rng)
                child = add_child(links, wins, meta, node, move)
                if child < 0:  # the tree is full: play out from here
                    winner, _ = playout(
                        cells, slime, mover, empties, offsets, k, rng, trace, listed
                    )
                    break
                path[length] = child
                length += 1
                result = make_move(cells, slime, mover, empties, move, offsets, k)
                if result != NO_RESULT:
                    links[NLEGAL, child] = 0
                    links[RESULT, child] = result
                    winner = result
                else:
                    winner, _ = playout(
                        cells, move, 3 - mover, empties - 1, offsets, k, rng, trace, listed
                    )
                break
            node = select_ucb(links, wins, node)
            move = links[MOVE, node]
            make_move(cells, slime, mover, empties, move, offsets, k)
            slime, mover, empties = move, 3 - mover, empties - 1
            path[length] = node
            length += 1
        back_up(links, wins, path, length, root_mover, winner)


@nb.njit(cache=True)
def perft(cells, slime, mover, empties, depth, offsets, k):
    """The number of legal move sequences of ``depth`` plies (``cells`` is restored).  A loop
    over an explicit stack: numba's cache does not load recursive functions safely."""
    if depth == 0:
        return 1
    moves = np.empty((depth, cells.shape[0]), np.int32)
    counts = np.zeros(depth, np.int64)
    tried = np.zeros(depth, np.int64)
    path = np.empty(depth, np.int32)  # path[level]: the slime's cell at that level
    path[0] = slime
    counts[0] = legal_moves(cells, slime, offsets, moves[0])
    if depth == 1:
        return counts[0]
    total, level = 0, 0
    while True:
        if tried[level] == counts[level]:
            if level == 0:
                return total
            cells[path[level]] = EMPTY
            cells[path[level - 1]] = SLIME
            level -= 1
            continue
        move = moves[level, tried[level]]
        tried[level] += 1
        player = mover if level % 2 == 0 else 3 - mover
        # A move that ends the game has no continuation.
        going_on = (
            make_move(cells, path[level], player, empties - level, move, offsets, k) == NO_RESULT
        )
        if going_on and level < depth - 2:
            level += 1
            path[level] = move
            tried[level] = 0
            counts[level] = legal_moves(cells, move, offsets, moves[level])
            continue
        if going_on:
            total += legal_moves(cells, move, offsets, moves[depth - 1])
        cells[move] = EMPTY
        cells[path[level]] = SLIME


class MokuBaseline:
    """Plain UCT for one Slime-Moku game: UCB1 (c = 1.4), one node added per iteration,
    uniformly random playouts, a fresh tree each move, the most visited move played."""

    name = "plain UCT (compiled)"

    def __init__(self, game: Game, capacity: int = TREE_CAPACITY) -> None:
        self.n = int(game.options["size"])
        self.k = int(game.options["k"])
        self.offsets = offsets_of(self.n)
        self.tree = new_tree(capacity)

    def cell_name(self, cell: int) -> str:
        row, col = divmod(cell, self.n + 2)
        return f"{FILES[col - 1]}{row}"

    def choose(
        self, state: State, seconds: float, seed: int, playouts: int | None = None
    ) -> tuple[Move, int]:
        """As :meth:`Baseline.choose`; with ``playouts``, exactly that many and no clock (the
        fixed-budget matches of ``bench/strength.py``, the same on a loaded machine)."""
        cells, slime, mover, empties = position_of(state, self.n)
        links, wins, meta = self.tree
        rng = new_rng(seed)
        reset(links, wins, meta)

        def step(iterations: int) -> None:
            search(
                links, wins, meta, cells, slime, mover, empties, self.offsets, self.k,
                iterations, rng,
            )  # fmt: skip

        if playouts is None:
            playouts = run_timed(step, seconds)
        else:
            step(playouts)
        return state.parse_move(self.cell_name(int(most_visited_move(links)))), playouts

    # -- for the tests: the compiled rules on a State's position --------------------------

    def perft(self, state: State, depth: int) -> int:
        cells, slime, mover, empties = position_of(state, self.n)
        return int(perft(cells, slime, mover, empties, depth, self.offsets, self.k))

    def random_game(self, state: State, seed: int) -> tuple[list[str], int]:
        """A compiled random playout from ``state``: the slime's cells, by name, and the
        winner (0: a draw)."""
        cells, slime, mover, empties = position_of(state, self.n)
        size = (self.n + 2) ** 2
        trace = np.empty(size, np.int32)
        winner, length = playout(
            cells, slime, mover, empties, self.offsets, self.k, new_rng(seed), trace,
            np.empty(size, np.int32),
        )  # fmt: skip
        return [self.cell_name(c) for c in trace[:length]], int(winner)


def make_baseline(game: Game) -> MokuBaseline:
    return MokuBaseline(game)
