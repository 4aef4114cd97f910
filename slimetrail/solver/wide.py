"""Solving positions whose region is too big for the compiled kernel (over 63 cells).

The plies near the root are searched here, in Python on the board's own bitboards, with the
kernel's rules and scores (alpha-beta, a transposition table, instant answers next to a goal
corner, Taylor's one-reachable-goal rule); every position whose region fits is handed to the
kernel with its own compact labelling.  The kernel does nearly all the work: the top plies
of a 9x9 board are a few hundred positions per kernel solve.
"""

from __future__ import annotations

import time

import numpy as np

from slimetrail.core.game import Move, State
from slimetrail.solver import (
    MAX_CELLS,
    CompactGraph,
    SolveResult,
    SolveTimeout,
    _distances_on_board,
    _mirror,
    _table_bits,
    goal_move_score,
    kernel_params,
    result_from_scores,
)
from slimetrail.solver import kernel as k

EXACT, LOWER, UPPER = 0, 1, 2


class WideSearch:
    """One solve of a big position: the Python top layer and the kernel below it.

    ``table_bits``: the kernel's table (log2 of its entries), used whole by every sub-solve;
    by default each sub-solve clears and uses only what its region and the time left can
    fill, since clearing a big table dominates quick sub-solves.  ``kernel_cells``: the
    biggest region (counting the snail's cell) handed to the kernel; only tests lower it, to
    check this layer against the kernel on small boards.
    """

    def __init__(
        self,
        state: State,
        distance: bool,
        deadline: float,
        shortcuts: bool,
        table_bits: int | None,
        kernel_cells: int = MAX_CELLS,
    ) -> None:
        game = state.game
        self.game, self.board = game, game.board
        self.distance, self.deadline, self.shortcuts = distance, deadline, shortcuts
        self.taylor = game.rules == "taylor"
        self.win = k.MATE if distance else 1
        self.kernel_cells = kernel_cells
        self.params = kernel_params(game, distance, shortcuts)
        self.goal_bits = (1 << game.goals[1], 1 << game.goals[2])
        # Move order, as in the kernel: fewest replies, then nearer the mover's own goal.
        self.order = [
            _distances_on_board(game, state.free, game.goals[p], game.goals[3 - p]) for p in (1, 2)
        ]
        self.sized_per_solve = table_bits is None
        left = deadline - time.monotonic() if deadline else 0.0
        bits = _table_bits(MAX_CELLS, left) if table_bits is None else table_bits
        self.tt_keys = np.zeros(1 << bits, np.uint64)
        self.tt_data = np.zeros(1 << bits, np.int64)
        self.stats = np.zeros(2, np.int64)
        self.table: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        self.nodes = 0

    @property
    def total_nodes(self) -> int:
        return self.nodes + int(self.stats[k.S_NODES])

    def solve(self, state: State, start: float) -> SolveResult:
        """Every root move's value (and distance), as :meth:`_Root.run` gives them."""
        side = state.to_move - 1
        bound = self.win + 1 if self.distance else self.win
        mirror = _mirror(state) or {}
        scores: dict[Move, int] = {}
        for move in state.legal_moves():
            if mirror.get(move) in scores:
                scores[move] = scores[mirror[move]]
                continue
            entered = goal_move_score(state, move, self.distance)
            if entered is not None:
                scores[move] = entered
            else:
                raw = self.search(state.free & ~(1 << move), move, 1 - side, -bound, bound)
                scores[move] = k._adjust(raw, self.distance)
        result = result_from_scores(
            scores, state.to_move, self.win if self.distance else None, self.total_nodes
        )
        result.seconds = time.monotonic() - start
        return result

    def search(self, free: int, snail: int, side: int, alpha: int, beta: int) -> int:
        """The kernel's ``negamax`` for a position of the real board."""
        dist, win = self.distance, self.win
        self.nodes += 1
        if self.deadline and time.monotonic() > self.deadline:
            raise SolveTimeout(f"no result within the time limit ({self.total_nodes} nodes)")
        neighbours = self.board.neighbours
        mine, theirs = self.goal_bits[side], self.goal_bits[1 - side]
        steps = neighbours[snail] & free
        if steps & mine:
            return win - 1 if dist else win
        graph = CompactGraph(self.game, free, snail)
        if len(graph.cells) <= self.kernel_cells:
            return self._kernel(graph, side, alpha, beta)
        region = graph.region
        reach_mine, reach_theirs = bool(region & mine), bool(region & theirs)
        if not reach_mine and not reach_theirs:
            if self.taylor:
                return k.ILLEGAL
            if not steps:
                return -win
        elif reach_mine != reach_theirs and self.taylor and self.shortcuts and not dist:
            return win if reach_mine else -win  # as in the kernel: the one goal is reached

        key = (region, snail, side)
        alpha0, tt_move = alpha, -1
        if key in self.table:
            value, flag, tt_move = self.table[key]
            if flag == EXACT:
                return value
            if flag == LOWER:
                if value >= beta:
                    return value
                alpha = max(alpha, value)
            elif flag == UPPER:
                if value <= alpha:
                    return value
                beta = min(beta, value)

        best, best_move = -k.INF, -1
        if steps & theirs:
            best, best_move = k._adjust(win, dist), (theirs.bit_length() - 1)
        rest = steps & ~theirs
        if self.shortcuts:
            near = rest & neighbours[theirs.bit_length() - 1]
            if near:
                loss2 = k._adjust(win - 1 if dist else win, dist)
                if loss2 > best:
                    best, best_move = loss2, (near & -near).bit_length() - 1
                rest &= ~near
        order = self.order[side]
        kids = sorted(
            (cell for cell in range(rest.bit_length()) if rest >> cell & 1),
            key=lambda m: (
                -1 if m == tt_move else (neighbours[m] & region).bit_count() * 64 + order[m]
            ),
        )
        alpha = max(alpha, best)
        for m in kids:
            if alpha >= beta:
                break
            raw = self.search(
                region & ~(1 << m), m, 1 - side, k._unadjust(beta, dist), k._unadjust(alpha, dist)
            )
            if raw == k.ILLEGAL:
                continue
            score = k._adjust(raw, dist)
            if score > best:
                best, best_move = score, m
                alpha = max(alpha, score)
        if best == -k.INF:
            return 0 if self.taylor else -win
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.table[key] = (best, flag, best_move)
        return best

    def _kernel(self, graph: CompactGraph, side: int, alpha: int, beta: int) -> int:
        """The kernel's score of a position that fits it.  Its table is keyed on this
        position's own labelling, so it is cleared first."""
        size = len(self.tt_keys)
        if self.sized_per_solve:
            left = self.deadline - time.monotonic() if self.deadline else 0.0
            size = min(size, 1 << _table_bits(len(graph.cells), left))
        keys, data = self.tt_keys[:size], self.tt_data[:size]
        data[:] = 0
        score = k.negamax(
            graph.free,
            0,
            side,
            alpha,
            beta,
            graph.nbr,
            graph.goals,
            graph.order,
            self.params,
            keys,
            data,
            self.stats,
            np.float64(self.deadline),
        )
        if self.stats[k.S_ABORT]:
            raise SolveTimeout(f"no result within the time limit ({self.total_nodes} nodes)")
        return int(score)
