"""Iterative-deepening negamax alpha-beta over the generic :class:`State` interface.

It plays two-player zero-sum games only (:func:`require_two_player_zero_sum` says so for any
other game, as OpenSpiel's alpha-beta does); :mod:`slimetrail.ai.mcts` plays the rest.
Terminal positions come from ``legal_moves()`` being empty and ``outcome()``, leaves are
scored by ``state.evaluate()`` (in [-1, 1] for the side to move).  Scores are centipawn-like
integers for the side to move; a proven win or loss is ``MATE - plies`` and is reported as
``mate`` in the mover's own moves.  Turns need not alternate (a swap may hand the turn back):
a child's score is negated only where the player to move changes, and a finished position
is scored for the player asking, never for its meaningless ``to_move``.

The search pushes and pops moves on a private copy, so the caller's state never changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.core.game import Game, GameError, Move, State

MATE = 100_000
MATE_BOUND = MATE - 1_000  # scores beyond this are proven wins/losses
EVAL_SCALE = 1_000  # evaluate() in [-1, 1] -> centipawns
INFINITY = MATE + 1
MAX_DEPTH = 128
TT_LIMIT = 1 << 20  # entries; a long search starts a fresh table rather than eat memory

EXACT, LOWER, UPPER = 0, 1, 2


class _Abort(Exception):
    """Raised inside the tree when a limit is hit; the depth in progress is discarded."""


def require_two_player_zero_sum(game: Game) -> None:
    """Raise :class:`GameError` unless alpha-beta can play ``game``."""
    if game.num_players != 2:
        raise GameError(
            f"alpha-beta plays two-player zero-sum games; {game.id} has {game.num_players} players"
        )
    if not game.zero_sum:
        raise GameError(f"alpha-beta plays two-player zero-sum games; {game.id} is not zero-sum")


def mate_from_plies(won: bool, plies: int) -> int:
    """The mover's own moves until a proven end ``plies`` plies away, negative when lost.

    A Slime Trail player can lose on their own move (stepping into the other goal), so a
    loss on ply 1 or 3 is mate -1 or -2 -- counting the loser's moves, as a win counts the
    winner's -- and never "mate 0".
    """
    moves = (plies + 1) // 2
    return moves if won else -moves


def mate_in(score: int) -> int | None:
    """Moves of the side to move until the proven end, signed; ``None`` for heuristic scores."""
    if score >= MATE_BOUND:
        return mate_from_plies(True, MATE - score)
    if score <= -MATE_BOUND:
        return mate_from_plies(False, MATE + score)
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
        require_two_player_zero_sum(state.game)
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
        # Every 8 nodes: a node of a big board's evaluation costs a fraction of a
        # millisecond, and on a loaded machine every 128 of them overran the limit by 0.3 s.
        if self.nodes & 7 == 1:
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

    def negamax(self, depth: int, alpha: int, beta: int, ply: int, me: int) -> int:
        """The score for player ``me`` (the parent's mover), in ``me``'s window."""
        self.nodes += 1
        self.check_limits()
        moves = self.state.legal_moves()
        if not moves:
            outcome = self.state.outcome()
            if outcome is None or outcome.winner is None:
                return 0
            return MATE - ply if outcome.winner == me else -(MATE - ply)
        if self.state.to_move != me:
            return -self.expand(moves, depth, -beta, -alpha, ply)
        return self.expand(moves, depth, alpha, beta, ply)

    def expand(self, moves: list[Move], depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of an unfinished node for its own player to move."""
        state = self.state
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
        mover = state.to_move
        best, best_move = -INFINITY, None
        for move in self.ordered(moves, ply, tt_move):
            state.push(move)
            try:
                score = self.negamax(depth - 1, alpha, beta, ply + 1, mover)
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
        mover = self.state.to_move
        for move in moves:
            self.partial_best = best_move if alpha > -INFINITY else None
            self.state.push(move)
            try:
                score = self.negamax(depth - 1, alpha, INFINITY, 1, mover)
            finally:
                self.state.pop()
            if score > alpha:
                alpha, best_move = score, move
        self.tt[self.state.key()] = (depth, EXACT, alpha, best_move)
        return alpha, best_move

    def score_moves(self, depth: int) -> dict[Move, int]:
        """Exact scores of every root move to ``depth`` (for levels that choose with noise)."""
        scores = {}
        mover = self.state.to_move
        for move in self.state.legal_moves():
            self.state.push(move)
            try:
                scores[move] = self.negamax(depth - 1, -INFINITY, INFINITY, 1, mover)
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
    limit: Limit | None = None,
    *,
    stop: threading.Event | None = None,
    on_info: Callable[[PlayResult], None] | None = None,
) -> PlayResult:
    """Search ``state`` by iterative deepening until a limit is hit or the result is proven.

    The result is that of the last completed depth (depth 1 is always completed unless
    ``stop`` or a limit cuts it, in which case the best move found so far, or the first legal
    move, is returned with depth 0); ``proven`` is set once the whole tree was searched or a
    mate found.  Raises :class:`GameError` for a game that is not two-player zero-sum.
    ``state`` is not changed.
    """
    limit = limit or Limit()
    started = time.perf_counter()
    searcher = Searcher(state, movetime=limit.time, nodes=limit.nodes, stop=stop)
    moves = searcher.state.legal_moves()
    result = PlayResult(None, score=0)
    if not moves:
        return result
    result.move = moves[0]
    max_depth = limit.depth if limit.depth is not None else MAX_DEPTH
    for d in range(1, max_depth + 1):
        searcher.hit_horizon = False
        try:
            ordered = searcher.ordered(moves, 0, result.move if d > 1 else None)
            score, best = searcher.root(d, ordered)
        except _Abort:
            if d == 1 and searcher.partial_best is not None:
                result.move = searcher.partial_best
            break
        mate = mate_in(score)
        proven = None
        if mate is not None:
            proven = "win" if mate > 0 else "loss"
        elif not searcher.hit_horizon:
            proven = "win" if score > 0 else "loss" if score < 0 else "draw"
        result = PlayResult(
            move=best,
            score=score,
            proven=proven,
            mate=mate,
            pv=searcher.pv(best),
            nodes=searcher.nodes,
            depth=d,
            seconds=time.perf_counter() - started,
        )
        if on_info is not None:
            on_info(result)
        if proven is not None:
            break  # a mate found at depth d is the shortest win / longest defence
    result.nodes = searcher.nodes
    result.seconds = time.perf_counter() - started
    return result


def score_moves_within(state: State, depth: int, deadline: float) -> dict[Move, int]:
    """Every move's score at ``depth`` (a ``time.perf_counter()`` deadline), shallower if
    the deadline is hit; all 0 if even depth 1 does not fit."""
    for d in range(depth, 0, -1):
        # Each shallower retry gets a few milliseconds even past the deadline.
        searcher = Searcher(state, movetime=max(0.02, deadline - time.perf_counter()))
        try:
            return searcher.score_moves(d)
        except _Abort:
            continue
    return dict.fromkeys(state.legal_moves(), 0)


def best_by_search(
    state: State,
    moves: list[Move],
    deadline: float,
    nodes: int,
    stop: threading.Event | None = None,
) -> Move:
    """The search's favourite among ``moves`` (all of equal game-theoretic value), deepening
    until ``deadline`` (``time.perf_counter()``), ``nodes`` or ``stop``."""
    best = moves[0]
    if len(moves) == 1:
        return best
    searcher = Searcher(
        state, movetime=max(0.001, deadline - time.perf_counter()), nodes=nodes, stop=stop
    )
    try:
        for depth in range(1, MAX_DEPTH + 1):
            searcher.hit_horizon = False
            _, best = searcher.root(depth, searcher.ordered(moves, 0, best))
            if not searcher.hit_horizon:
                break
    except _Abort:
        pass  # keep the choice of the last completed depth
    return best
