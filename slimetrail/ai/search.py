"""Iterative-deepening negamax alpha-beta over the generic :class:`State` interface.

Works for any two-player game: terminal positions come from ``legal_moves()`` being empty
and ``outcome()``, leaves are scored by ``state.evaluate()`` (in [-1, 1] for the side to
move).  Scores are centipawn-like integers for the side to move; a proven win or loss is
``MATE - plies`` and is reported as ``mate`` in the mover's own moves.

The search pushes and pops moves on a private copy, so the caller's state never changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from slimetrail.core.game import Move, State

MATE = 100_000
MATE_BOUND = MATE - 1_000  # scores beyond this are proven wins/losses
EVAL_SCALE = 1_000  # evaluate() in [-1, 1] -> centipawns
INFINITY = MATE + 1
MAX_DEPTH = 128
TT_LIMIT = 1 << 20  # entries; a long search starts a fresh table rather than eat memory

EXACT, LOWER, UPPER = 0, 1, 2


@dataclass
class SearchResult:
    best_move: Move | None
    score: int
    mate: int | None
    depth: int
    nodes: int
    pv: list[Move] = field(default_factory=list)
    seconds: float = 0.0
    exhaustive: bool = False  # the whole game tree was searched: the score is exact


class _Abort(Exception):
    """Raised inside the tree when a limit is hit; the depth in progress is discarded."""


def mate_in(score: int) -> int | None:
    """Moves of the side to move until the proven end, signed; ``None`` for heuristic scores."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


class Searcher:
    """One search: the tree walk, its transposition table and move-ordering tables."""

    def __init__(
        self,
        state: State,
        *,
        movetime: float | None = None,
        nodes: int | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.state = state.copy()
        self.deadline = None if movetime is None else time.perf_counter() + movetime
        self.node_limit = nodes
        self.stop = stop
        self.nodes = 0
        self.tt: dict[int, tuple[int, int, int, Move | None]] = {}
        self.killers: dict[int, list[Move]] = {}
        self.history: dict[Move, int] = {}
        self.hit_horizon = False
        self.partial_best: Move | None = None  # best root move of an unfinished depth

    def check_limits(self) -> None:
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Abort
        if self.nodes & 127 == 1:  # cheap enough every 128 nodes, and at the first
            if self.stop is not None and self.stop.is_set():
                raise _Abort
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                raise _Abort

    def ordered(self, moves: list[Move], ply: int, tt_move: Move | None) -> list[Move]:
        killers = self.killers.get(ply, ())
        history = self.history

        def rank(move: Move) -> int:
            if move == tt_move:
                return -(1 << 40)
            if move in killers:
                return -(1 << 30)
            return -history.get(move, 0)

        return sorted(moves, key=rank)

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        self.check_limits()
        state = self.state
        moves = state.legal_moves()
        if not moves:
            outcome = state.outcome()
            if outcome is None or outcome.winner is None:
                return 0
            return MATE - ply if outcome.winner == state.to_move else -(MATE - ply)
        if depth <= 0:
            self.hit_horizon = True
            return round(state.evaluate() * EVAL_SCALE)

        key = state.key()
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth:
                score = _from_tt(e_score, ply)
                if e_flag == EXACT:
                    return score
                if e_flag == LOWER and score >= beta:
                    return score
                if e_flag == UPPER and score <= alpha:
                    return score

        original_alpha = alpha
        best, best_move = -INFINITY, None
        for move in self.ordered(moves, ply, tt_move):
            state.push(move)
            try:
                score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                state.pop()
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        killers = self.killers.setdefault(ply, [])
                        if move not in killers:
                            killers.insert(0, move)
                            del killers[2:]
                        self.history[move] = self.history.get(move, 0) + depth * depth
                        break
        flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
        if len(self.tt) >= TT_LIMIT:
            self.tt.clear()
        self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def root(self, depth: int, moves: list[Move]) -> tuple[int, Move]:
        """Search every root move to ``depth``; returns the best score and move."""
        alpha, best_move = -INFINITY, moves[0]
        for move in moves:
            self.partial_best = best_move if alpha > -INFINITY else None
            self.state.push(move)
            try:
                score = -self.negamax(depth - 1, -INFINITY, -alpha, 1)
            finally:
                self.state.pop()
            if score > alpha:
                alpha, best_move = score, move
        self.tt[self.state.key()] = (depth, EXACT, alpha, best_move)
        return alpha, best_move

    def score_moves(self, depth: int) -> dict[Move, int]:
        """Exact scores of every root move to ``depth`` (for levels that choose with noise)."""
        scores = {}
        for move in self.state.legal_moves():
            self.state.push(move)
            try:
                scores[move] = -self.negamax(depth - 1, -INFINITY, INFINITY, 1)
            finally:
                self.state.pop()
        return scores

    def pv(self, first: Move) -> list[Move]:
        line = [first]
        state = self.state.copy()
        state.push(first)
        seen = {state.key()}
        while len(line) < MAX_DEPTH:
            entry = self.tt.get(state.key())
            if entry is None or entry[3] is None or entry[3] not in state.legal_moves():
                break
            state.push(entry[3])
            if state.key() in seen:
                break
            seen.add(state.key())
            line.append(entry[3])
        return line


def _to_tt(score: int, ply: int) -> int:
    # Mate scores are stored relative to the node, so they stay right at any ply.
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


def search(
    state: State,
    *,
    depth: int | None = None,
    movetime: float | None = None,
    nodes: int | None = None,
    stop: threading.Event | None = None,
    on_info: Callable[[SearchResult], None] | None = None,
) -> SearchResult:
    """Search ``state`` by iterative deepening until a limit is hit or the result is proven.

    ``movetime`` is in seconds.  The result is that of the last completed depth (depth 1 is
    always completed unless ``stop`` or a limit cuts it, in which case the best move found
    so far, or the first legal move, is returned with depth 0).  ``state`` is not changed.
    """
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    if nodes is not None and nodes < 1:
        raise ValueError(f"nodes must be at least 1, not {nodes}")
    started = time.perf_counter()
    searcher = Searcher(state, movetime=movetime, nodes=nodes, stop=stop)
    moves = searcher.state.legal_moves()
    result = SearchResult(None, 0, None, 0, 0)
    if not moves:
        return result
    result.best_move = moves[0]
    max_depth = depth if depth is not None else MAX_DEPTH
    for d in range(1, max_depth + 1):
        searcher.hit_horizon = False
        try:
            ordered = searcher.ordered(moves, 0, result.best_move if d > 1 else None)
            score, best = searcher.root(d, ordered)
        except _Abort:
            if d == 1 and searcher.partial_best is not None:
                result.best_move = searcher.partial_best
            break
        result = SearchResult(
            best_move=best,
            score=score,
            mate=mate_in(score),
            depth=d,
            nodes=searcher.nodes,
            pv=searcher.pv(best),
            seconds=time.perf_counter() - started,
            exhaustive=not searcher.hit_horizon,
        )
        if on_info is not None:
            on_info(result)
        if result.exhaustive or result.mate is not None:
            break  # a mate found at depth d is the shortest win / longest defence
    result.nodes = searcher.nodes
    result.seconds = time.perf_counter() - started
    return result
