"""The Slither computer players: Monte-Carlo tree search with RAVE over the compiled kernel.

The tree works on the kernel's grid (:mod:`slimetrail.games.slither.kernel`), one colour to
move per node, colours alternating (a pass is a move of the tree; the pie's swap is decided
at the root, outside it).  What makes it strong:

- RAVE / AMAF (Gelly & Silver 2007): every playout also counts for each child whose cell the
  node's colour holds at the end, as in Hex programs, so a fresh child is judged at once.
- Placements first: a node's children are its placements alone; steps join them (the node
  is *widened*) only when every placement is proven lost, or when there is no placement.
  A step turn the opponent could win with is seen by the next point.
- MCTS-Solver (Winands et al. 2008): a node whose mover has a winning turn (the kernel finds
  any, steps included) is a proven win; a widened node whose children are all proven wins
  for the opponent is a proven loss; proofs climb the tree.
- The pie: the swap is taken when the search values White's position below one half, and
  with the pie Black's first turn is the well-searched move nearest to one half.

Every level is deterministic for its seed when bounded by playouts; the top level uses the
time it is given.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from slimetrail.ai.levels import Ladder, Player
from slimetrail.ai.limits import Limit, PlayResult, check_analysis_limit
from slimetrail.ai.mcts import TreeSearch
from slimetrail.ai.search import EVAL_SCALE
from slimetrail.core.game import GameError, Move, SolveTimeout, State
from slimetrail.core.i18n import N_
from slimetrail.core.loading import KernelLoad
from slimetrail.games.slither import kernel
from slimetrail.games.slither.game import PASS, SWAP, SlitherState
from slimetrail.games.slither.solver import SEARCHES, SlitherSolver

RAVE_K = 600.0  # playouts at which a child's own mean and its AMAF mean weigh the same
EXPLORATION = 0.25  # UCT constant (RAVE does most of the exploring)
FIRST_PLAY = 1.1  # the value of an unvisited child without AMAF data: try it soon
INFO_EVERY = 500  # iterations between on_info reports
TIME_SHARE = 0.9  # of the time limit: the search; the rest is answer and overhead
PASS_ROW = (-1, -1, -1)
# The top level's exact solve on boards up to 5x5: from 16 empty cells on (a whole 4x4
# board; on 5x5 the solver answers in under a second from 13-14), for half of a move.
SOLVE_EMPTIES = 16
SOLVE_SHARE = 0.5


class Node:
    """A position of the tree: the mover's grid value, its child moves (kernel turn rows)
    and per child the stats rows of :mod:`.kernel` (visits, the mover's wins, AMAF visits
    and wins, the child's proven value for the mover or ``UNPROVEN``)."""

    __slots__ = ("cells", "kids", "mover", "proven", "rows", "stats", "visits", "widened")

    def __init__(self, mover: int, rows: np.ndarray, widened: bool) -> None:
        self.mover = mover
        self.proven: float | None = None  # 1 won, 0 lost for the mover
        self.rows = rows
        self.cells = rows[:, 2].copy()
        self.stats = np.zeros((5, len(rows)))
        self.stats[kernel.PROOF] = kernel.UNPROVEN
        self.kids: list[Node | None] = [None] * len(rows)
        self.widened = widened
        self.visits = 0

    @property
    def n(self) -> np.ndarray:
        return self.stats[kernel.N]

    @property
    def w(self) -> np.ndarray:
        return self.stats[kernel.W]

    @property
    def proof(self) -> np.ndarray:
        return self.stats[kernel.PROOF]

    def add_moves(self, rows: np.ndarray) -> None:
        """Widen: append more children, keeping what the present ones learnt."""
        more = Node(self.mover, rows, True)
        self.rows = np.concatenate([self.rows, rows])
        self.cells = np.concatenate([self.cells, more.cells])
        self.stats = np.concatenate([self.stats, more.stats], axis=1)
        self.kids += more.kids
        self.widened = True


class SlitherSearch(TreeSearch):
    """One search tree from a Slither position (the caller's state is never changed); the
    loop is the platform's (:class:`slimetrail.ai.mcts.TreeSearch`)."""

    name = "the Slither search"
    info_every = INFO_EVERY

    def __init__(self, state: SlitherState, *, seed: int = 0, rave: bool = True) -> None:
        if state.is_over():
            raise GameError("the game is over: there is nothing to search")
        self.state = state
        self.n = state.game.size
        self.advanced = state.game.advanced
        self.layout = kernel.layout(self.n)
        self.grid = self.layout.grid(*state.stones)
        self.rave = rave
        self.rng = kernel.seed_array(seed)
        # own stones x empty cells <= n^4 / 4, times 8 steps each, and the placements
        self.turn_rows = np.empty((2 * self.n**4 + self.n * self.n, 3), dtype=np.int64)
        self.root = self.expand(self.grid, state.colour + 1)
        self.iterations = 0

    # -- the tree -------------------------------------------------------------------------

    def expand(self, grid: np.ndarray, mover: int) -> Node:
        """A new node: proven won if the mover has a winning turn, else its placements (or
        every turn, or a pass, where there is no placement)."""
        win = np.empty(3, dtype=np.int64)
        if kernel.winning_turn(grid, self.n, mover, self.advanced, win):
            node = Node(mover, win.reshape(1, 3), True)
            node.proven = 1.0
            node.proof[0] = 1.0
            return node
        rows = self.turns(grid, mover, steps=False)
        widened = False
        if not len(rows):
            rows, widened = self.turns(grid, mover, steps=True), True
        if not len(rows):
            rows = np.array([PASS_ROW], dtype=np.int64)
        return Node(mover, rows, widened)

    def turns(self, grid: np.ndarray, mover: int, *, steps: bool) -> np.ndarray:
        out = self.turn_rows
        count = kernel.list_turns(grid, self.n, mover, self.advanced, out, steps)
        return out[:count].copy()

    def widen(self, node: Node, grid: np.ndarray) -> None:
        every = self.turns(grid, node.mover, steps=True)
        steps = every[every[:, 0] >= 0]
        if len(steps):
            node.add_moves(steps)
        else:
            node.widened = True

    def select(self, node: Node) -> int:
        return kernel.select_child(
            node.stats, node.visits, self.rave, RAVE_K, EXPLORATION, FIRST_PLAY
        )

    def iterate(self) -> None:
        """One descent from the root on a copy of the root grid, a playout, the backup."""
        grid = self.grid.copy()
        node = self.root
        path: list[tuple[Node, int]] = []
        winner = 0
        while True:
            if node.proven is not None:
                winner = node.mover if node.proven == 1.0 else 3 - node.mover
                break
            i = self.select(node)
            path.append((node, i))
            s, t, p = node.rows[i]
            if s >= 0:
                grid[s] = kernel.EMPTY
                grid[t] = node.mover
            if p >= 0:
                grid[p] = node.mover
            child = node.kids[i]
            if child is None:
                child = node.kids[i] = self.expand(grid, 3 - node.mover)
                if child.proven is not None:
                    winner = child.mover if child.proven == 1.0 else node.mover
                else:
                    winner, _ = kernel.playout(
                        grid, self.n, child.mover, self.advanced, self.rng, kernel.NO_RECORD
                    )
                break
            node = child
        self.backup(path, winner, grid)
        self.iterations += 1

    def backup(self, path: list[tuple[Node, int]], winner: int, grid: np.ndarray) -> None:
        for node, i in path:
            won = 0.5 if winner == kernel.STUCK else float(winner == node.mover)
            node.visits += 1
            kernel.record_result(node.stats, node.cells, i, grid, node.mover, won, self.rave)
        for node, i in reversed(path):
            child = node.kids[i]
            if child is None or child.proven is None:
                return
            node.proof[i] = 1.0 - child.proven
            if node.proof[i] == 1.0:
                node.proven = 1.0
            elif (node.proof == 0.0).all():  # every child a proven loss
                if node.widened:
                    node.proven = 0.0
                else:
                    self.widen_at(path, node)
                    return
            else:
                return

    def widen_at(self, path: list[tuple[Node, int]], target: Node) -> None:
        """Add the steps of ``target`` (its grid is rebuilt from the root along ``path``)."""
        grid = self.grid.copy()
        for node, i in path:
            if node is target:
                break
            s, t, p = node.rows[i]
            if s >= 0:
                grid[s] = kernel.EMPTY
                grid[t] = node.mover
            if p >= 0:
                grid[p] = node.mover
        self.widen(target, grid)

    def root_proven(self) -> bool:
        return self.root.proven is not None

    # -- the answer -----------------------------------------------------------------------

    def move_of(self, row: np.ndarray) -> Move:
        s, t, p = (int(x) for x in row)
        return PASS if p < 0 else self.layout.move(s, t, p)

    def best(self, node: Node) -> int:
        """A proven win, else the most visited child not proven lost (all lost: the most
        visited, the longest resistance by the search's lights)."""
        won = np.flatnonzero(node.proof == 1.0)
        if len(won):
            return int(won[0])
        visits = np.where(node.proof == 0.0, -1.0, node.n)
        if visits.max() < 0:
            visits = node.n
        return int(np.argmax(visits))

    def value(self) -> float:
        """The root mover's expected result in [0, 1]."""
        root = self.root
        if root.proven is not None:
            return root.proven
        return float(root.w.sum() / root.visits) if root.visits else 0.5

    def result(self, seconds: float, choice: int | None = None) -> PlayResult:
        root = self.root
        i = self.best(root) if choice is None else choice
        pv = [self.move_of(root.rows[i])]
        node = root.kids[i]
        while node is not None and len(node.n) and node.n.max() > 0:
            j = self.best(node)
            pv.append(self.move_of(node.rows[j]))
            node = node.kids[j]
        if root.proven is not None:
            value = root.proven
            proven: str | None = "win" if root.proven == 1.0 else "loss"
        else:
            value = float(root.w[i] / root.n[i]) if root.n[i] else 0.5
            proven = None
        return self.answer(pv, value, proven, int(root.n[i]), seconds)

    def balanced_first(self) -> int:
        """Black's first turn under the pie: among well-searched moves (a tenth of the most
        visits or more) the one whose value is nearest one half, so a swap gains little."""
        root = self.root
        if root.proven is not None or not root.visits:
            return self.best(root)
        searched = np.flatnonzero(root.n >= 0.1 * root.n.max())
        means = root.w[searched] / root.n[searched]
        return int(searched[np.argmin(np.abs(means - 0.5))])


def search_move(
    state: State,
    limit: Limit,
    *,
    seed: int = 0,
    rave: bool = True,
    stop: threading.Event | None = None,
    on_info: Callable[[PlayResult], None] | None = None,
) -> PlayResult:
    """The search's move for the player to move in a Slither position, the pie included."""
    slither = cast(SlitherState, state)
    started = time.perf_counter()
    tree = SlitherSearch(slither, seed=seed, rave=rave)
    if limit.time is not None:  # the limit counts from the call: the root's expansion too
        spent = time.perf_counter() - started
        limit = Limit(time=max(0.001, limit.time - spent), nodes=limit.nodes)
    result = tree.run(limit, stop=stop, on_info=on_info)
    if slither.swap_available():
        # The tree plays on as White; swapping makes us Black in this very position.
        white = tree.value()
        if white < 0.5:
            result = PlayResult(
                SWAP,
                score=round((1 - 2 * white) * EVAL_SCALE),
                value=1 - white,
                pv=[SWAP],
                nodes=tree.iterations,
                depth=1,
                info={"iterations": tree.iterations, "white value": white},
            )
    elif slither.game.pie and slither.turns == 0:
        result = tree.result(result.seconds, tree.balanced_first())
    result.seconds = time.perf_counter() - started
    return result


# -- the ladder -------------------------------------------------------------------------


@dataclass(frozen=True)
class BeginnerLevel:
    """Random placements (a step only when none is legal), but a win in one is taken."""

    description: str

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        slither = cast(SlitherState, state)
        tree = SlitherSearch(slither, seed=rng.getrandbits(64))
        root = tree.root
        if root.proven == 1.0:
            return PlayResult(tree.move_of(root.rows[0]), proven="win", depth=1)
        moves = slither.legal_moves()
        placements = [m for m in moves if isinstance(m, tuple) and len(m) == 1]
        return PlayResult(rng.choice(placements or moves), depth=1)


def proven_move(state: SlitherState, seconds: float) -> PlayResult | None:
    """A winning turn proven by the exact solver within ``seconds``, where the board is
    small enough (:meth:`.SlitherGame.exact_solver`) and at most :data:`SOLVE_EMPTIES` cells
    are empty; ``None`` when it proves no win (a lost position is left to the search, which
    fights on) or runs out of time."""
    solver = state.game.exact_solver()
    if not isinstance(solver, SlitherSolver):
        return None
    if state.game.size**2 - sum(stones.bit_count() for stones in state.stones) > SOLVE_EMPTIES:
        return None
    try:
        move = solver.winning_move(state, time.monotonic() + seconds)
    except SolveTimeout:
        return None
    if move is None:
        return None
    return PlayResult(move, proven="win", pv=[move], depth=1, info={"search": "exact solver"})


@dataclass(frozen=True)
class SearchLevel:
    """The search with ``playouts`` iterations (``None``: the whole time limit); with
    ``solve``, a timed move first asks the exact solver (:func:`proven_move`) for a share
    of its time."""

    description: str
    playouts: int | None
    rave: bool = True
    solve: bool = False

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        if self.solve and limit.time is not None:
            started = time.perf_counter()
            proven = proven_move(cast(SlitherState, state), SOLVE_SHARE * limit.time)
            if proven is not None:
                return proven
            left = max(0.001, limit.time - (time.perf_counter() - started))
            limit = Limit(time=left, nodes=limit.nodes)
        time_cap = TIME_SHARE * limit.time if limit.time is not None else None
        bounds = Limit(time=time_cap, nodes=self.playouts)
        if bounds.time is None and bounds.nodes is None:
            bounds = Limit(time=TIME_SHARE)
        return search_move(state, bounds, seed=rng.getrandbits(64), rave=self.rave)


def analyse(
    state: State,
    limit: Limit,
    stop: threading.Event | None,
    on_info: Callable[[PlayResult], None] | None,
) -> PlayResult:
    check_analysis_limit(limit, stop, "Slither")
    return search_move(state, Limit(time=limit.time, nodes=limit.nodes), stop=stop, on_info=on_info)


LEVELS: dict[int, Player] = {
    1: BeginnerLevel(N_("beginner: random placements, but takes a win in one")),
    2: SearchLevel(N_("novice: plain Monte-Carlo search, 100 playouts"), 100, rave=False),
    3: SearchLevel(N_("casual: Monte-Carlo search with RAVE, 250 playouts"), 250),
    4: SearchLevel(N_("club: Monte-Carlo search with RAVE, 800 playouts"), 800),
    5: SearchLevel(
        N_("strong: Monte-Carlo search with RAVE for the whole time limit"), None, solve=True
    ),
}


def load_kernels() -> None:
    """The search's kernels and the exact solver's, which the top level asks on small boards
    (:func:`proven_move`): a process that loads them in the background, without the game's
    warm-up, must not load the solver's in the middle of a move."""
    kernel.warm_up()
    SEARCHES.run()


KERNELS = KernelLoad(load_kernels, "Slither kernels")
LADDER = Ladder(LEVELS, analyse, kernels=KERNELS)
