"""The computer players of Slime-Moku: alpha-beta over the bitboards, threat-space search
at the root, and the ladder of levels built from them, whose top level is the compiled tree
search of :mod:`slimetrail.games.moku.mcts` (against plain UCT the alpha-beta lost most of
its games; the analysis search stays the alpha-beta, which reports depths and proofs).

A node is ``(mine, theirs, empty, slime)`` from the mover's side, as in the solver.  The
mover's stone lands on the slime's cell whatever the move, so the mover's real choice is the
cell ``P`` where the OPPONENT writes next; the opponent then picks, among ``P``'s empty
neighbours, the cell where the mover writes.  Two masks of "gaps" (empty cells completing a
row of k) settle the tactics of one ply without moving anything:

* a step onto a gap of the opponent loses at once (they write there): it is never searched,
  unless every step is one;
* a step whose every reply is a gap of the mover wins (the opponent has to walk into one),
  unless the board fills up first.

Between those the search orders the steps by how few safe replies they leave (the most
forcing first), then by a history table, and scores its leaves by
:func:`slimetrail.games.moku.eval.evaluate_bits` (open lines, weighted near the slime, whose
path is where stones will be written).  At the root the threat-space search of
:mod:`slimetrail.games.moku.threats` looks for a forced win of the mover first, and drops the
steps after which the opponent has one (the defence against their threats), before the
alpha-beta chooses among the rest.

Scores are the centipawn-like integers of :mod:`slimetrail.ai.search` (``MATE - plies`` for
a proven win), so results read the same as every other game's.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from slimetrail.ai.levels import Ladder, Player, UntilLoaded
from slimetrail.ai.limits import Limit, PlayResult, check_analysis_limit
from slimetrail.ai.search import EVAL_SCALE, MATE, MATE_BOUND, mate_in
from slimetrail.core.bits import cells_of
from slimetrail.core.game import State
from slimetrail.core.i18n import N_
from slimetrail.core.loading import KernelLoad
from slimetrail.games.moku.board import MokuBoard
from slimetrail.games.moku.eval import evaluate_bits
from slimetrail.games.moku.threats import ThreatSearch

INFINITY = MATE + 1
MAX_DEPTH = 64
STUCK_WIDTH = 12  # steps searched after a lift inside the tree (a lift may go anywhere)
TABLE_LIMIT = 1 << 20  # entries; a longer search starts a fresh table
TIME_SHARE = 0.8  # of the time limit: what a level may spend (the rest is slack)
TREE_SHARE = 0.95  # of the time limit, for the tree search (it looks at the clock often)
EXACT, LOWER, UPPER = 0, 1, 2


class Abort(Exception):
    """The node or time budget ran out (or the caller asked to stop)."""


def row_gaps(board: MokuBoard, own: int, blockers: int) -> int:
    """The cells that complete k in a row of ``own``: the one free cell of every k-window
    that holds k - 1 stones of ``own`` and none of ``blockers``."""
    k = board.k
    free = board.mask & ~blockers
    gaps = 0
    for shift in board.shifts:
        open_ = board.runs(free, shift)
        if not open_:
            continue
        c0, c1, c2 = board.window_counts(own, shift)
        # k - 1 is 3 (k = 4: 011) or 4 (k = 5: 100).
        starts = open_ & (c0 & c1 & ~c2 if k == 4 else ~c0 & ~c1 & c2)
        for t in range(k):
            gaps |= starts << t * shift
    return gaps & free & ~own


class MokuSearch:
    """One search: its transposition table, history, budget and counters."""

    def __init__(
        self,
        board: MokuBoard,
        *,
        nodes: int | None = None,
        deadline: float | None = None,
        stop: threading.Event | None = None,
        threat_depth: int = 0,
    ) -> None:
        self.board = board
        self.max_nodes = nodes
        self.deadline = deadline
        self.stop = stop
        self.threat_depth = threat_depth
        self.nodes = 0
        self.hit_horizon = False
        self.table: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
        self.history: dict[int, int] = {}

    def check(self) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise Abort
        if not self.nodes & 127:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                raise Abort
            if self.stop is not None and self.stop.is_set():
                raise Abort

    # -- one ply of tactics ----------------------------------------------------------

    def steps(
        self, written: int, theirs: int, empty: int, slime: int
    ) -> tuple[list[tuple[int, int]], int | None, bool]:
        """The mover's steps that do not walk onto the opponent's gap, each with its number of
        safe replies; a step leaving none (a win in two moves) if there is one; and whether
        every step walks onto a gap.  ``written`` holds the mover's stone on ``slime``."""
        board = self.board
        neighbours = board.neighbours
        moves = neighbours[slime] & empty or empty
        mine_gaps = row_gaps(board, written, theirs)
        their_gaps = row_gaps(board, theirs, written)
        out = []
        for step in cells_of(moves & ~their_gaps):
            after = empty & ~(1 << step)
            replies = neighbours[step] & after or after
            # A reply onto the mover's gap loses, unless it fills the board (then no stone).
            safe = replies if after & (after - 1) == 0 else replies & ~mine_gaps
            count = safe.bit_count()
            if not count:
                return [], step, False
            out.append((count, step))
        return out, None, not out and bool(moves)

    # -- alpha-beta --------------------------------------------------------------------

    def negamax(
        self,
        mine: int,
        theirs: int,
        empty: int,
        slime: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """The score of the node for its mover, in the window (alpha, beta)."""
        self.nodes += 1
        self.check()
        board = self.board
        written = mine | 1 << slime
        if board.makes_row(written, slime):
            return MATE - ply - 1  # every move wins
        if not empty & (empty - 1):
            return 0  # the one move left fills the board
        if depth <= 0:
            self.hit_horizon = True
            return round(EVAL_SCALE * evaluate_bits(board, mine, theirs, empty, slime))
        key = (mine, theirs, slime)
        entry = self.table.get(key)
        tt_move = -1
        if entry is not None:
            stored_depth, flag, stored, tt_move = entry
            if stored_depth >= depth:
                score = from_table(stored, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and score >= beta)
                    or (flag == UPPER and score <= alpha)
                ):
                    return score
        steps, winner, lost = self.steps(written, theirs, empty, slime)
        if winner is not None:
            return MATE - ply - 3
        if lost:
            return -(MATE - ply - 2)
        order = self.order(steps, tt_move)
        if not board.neighbours[slime] & empty:
            order = order[:STUCK_WIDTH]
        best, best_move, start_alpha = -INFINITY, order[0], alpha
        for step in order:
            after = empty & ~(1 << step)
            if not after:
                score = 0
            else:
                score = -self.negamax(
                    theirs, written, after, step, depth - 1, -beta, -alpha, ply + 1
                )
            if score > best:
                best, best_move = score, step
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self.history[step] = self.history.get(step, 0) + depth * depth
                        break
        flag = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        if len(self.table) >= TABLE_LIMIT:
            self.table.clear()
        self.table[key] = (depth, flag, to_table(best, ply), best_move)
        return best

    def order(self, steps: list[tuple[int, int]], first: int) -> list[int]:
        history = self.history
        ranked = sorted(steps, key=lambda item: (item[0], -history.get(item[1], 0)))
        order = [step for _, step in ranked]
        if first in order:
            order.remove(first)
            order.insert(0, first)
        return order

    # -- the root ----------------------------------------------------------------------

    def root(
        self,
        state: State,
        max_depth: int = MAX_DEPTH,
        on_info: Callable[[PlayResult], None] | None = None,
    ) -> PlayResult:
        """Threats first, then iterative deepening until the budget or ``max_depth``; the
        answer of the last completed depth (depth 1 is always completed)."""
        started = time.perf_counter()
        mine, theirs = (
            (state.black, state.white) if state.to_move == 1 else (state.white, state.black)  # type: ignore[attr-defined]
        )
        empty, slime = state.empty, state.slime  # type: ignore[attr-defined]
        board = self.board
        written = mine | 1 << slime
        moves = cast("list[int]", state.legal_moves())  # a moku move is a cell index
        result = PlayResult(moves[0], score=0)
        if board.makes_row(written, slime):
            return self.finish(result, moves[0], MATE - 1, 1, started, "win")
        steps, winner, lost = self.steps(written, theirs, empty, slime)
        if winner is not None:
            return self.finish(result, winner, MATE - 3, 1, started, "win")
        if lost:
            return self.finish(result, moves[0], -(MATE - 2), 1, started, "loss")
        candidates = [step for _, step in sorted(steps)]
        if self.threat_depth:
            threats = ThreatSearch(board, self.threat_depth)
            win = threats.attack(mine, theirs, empty, slime, self.threat_depth)
            if win is not None:
                # Proven, but the threat search does not count the plies to the end.
                found = self.finish(result, win, MATE_BOUND, 1, started, "win")
                found.mate = None
                return found
            # The defence: drop the steps after which the opponent has a forced win.
            safe = [
                step
                for step in candidates
                if not (empty & ~(1 << step))
                or threats.attack(theirs, written, empty & ~(1 << step), step, self.threat_depth)
                is None
            ]
            candidates = safe or candidates
        if len(candidates) == 1:
            return self.finish(result, candidates[0], 0, 0, started, None)
        result.move = candidates[0]
        scores: dict[int, int] = {}
        for depth in range(1, max_depth + 1):
            self.hit_horizon = False
            if scores:
                candidates.sort(key=lambda m: -scores[m])
            try:
                scores, best_move, best = self.score_root(
                    mine, theirs, empty, slime, candidates, depth
                )
            except Abort:
                break
            proven = None
            if abs(best) >= MATE_BOUND:
                proven = "win" if best > 0 else "loss"
            elif not self.hit_horizon:
                proven = "win" if best > 0 else "loss" if best < 0 else "draw"
            result = self.finish(result, best_move, best, depth, started, proven)
            if on_info is not None:
                on_info(result)
            if proven is not None:
                break
        result.nodes, result.seconds = self.nodes, time.perf_counter() - started
        return result

    def score_root(
        self, mine: int, theirs: int, empty: int, slime: int, moves: list[int], depth: int
    ) -> tuple[dict[int, int], int, int]:
        """Every root move's score (exact for the best, a bound for the others)."""
        written = mine | 1 << slime
        alpha, scores = -INFINITY, {}
        best_move = moves[0]
        for step in moves:
            after = empty & ~(1 << step)
            if not after:
                score = 0
            else:
                score = -self.negamax(theirs, written, after, step, depth - 1, -INFINITY, -alpha, 1)
            scores[step] = score
            if score > alpha:
                alpha, best_move = score, step
        return scores, best_move, alpha

    def finish(
        self,
        result: PlayResult,
        move: int,
        score: int,
        depth: int,
        started: float,
        proven: str | None,
    ) -> PlayResult:
        return PlayResult(
            move,
            score=score,
            proven=proven,
            mate=mate_in(score),
            pv=[move],
            nodes=self.nodes,
            depth=depth,
            seconds=time.perf_counter() - started,
            info=dict(result.info),
        )


def to_table(score: int, ply: int) -> int:
    # Mate scores are stored relative to the node, so they stay right at any ply.
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def from_table(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


# -- the levels ------------------------------------------------------------------------


def sides(state: State) -> tuple[int, int]:
    black, white = state.black, state.white  # type: ignore[attr-defined]
    return (black, white) if state.to_move == 1 else (white, black)


@dataclass(frozen=True)
class RandomStep:
    """Random steps, but never onto a cell where the opponent writes a row."""

    description: str

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        search = MokuSearch(state.game.board)  # type: ignore[attr-defined]
        mine, theirs = sides(state)
        written = mine | 1 << state.slime  # type: ignore[attr-defined]
        steps, winner, _ = search.steps(written, theirs, state.empty, state.slime)  # type: ignore[attr-defined]
        if winner is not None:
            return PlayResult(winner, proven="win", depth=1)
        moves = [step for _, step in steps] or state.legal_moves()
        return PlayResult(rng.choice(moves), depth=1)


@dataclass(frozen=True)
class OnePly:
    """Each step scored by the evaluation of the position it leaves, with noise."""

    description: str
    noise: float

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        board = state.game.board  # type: ignore[attr-defined]
        search = MokuSearch(board)
        mine, theirs = sides(state)
        empty, slime = state.empty, state.slime  # type: ignore[attr-defined]
        written = mine | 1 << slime
        steps, winner, _ = search.steps(written, theirs, empty, slime)
        if winner is not None:
            return PlayResult(winner, proven="win", depth=1)
        if not steps:
            return PlayResult(state.legal_moves()[0], proven="loss", depth=1)
        scores, noisy = {}, {}
        for _, step in steps:
            after = empty & ~(1 << step)
            scores[step] = -evaluate_bits(board, theirs, written, after, step) if after else 0.0
            noisy[step] = scores[step] + rng.gauss(0.0, self.noise)
        move = max(noisy, key=noisy.__getitem__)
        return PlayResult(move, score=round(EVAL_SCALE * scores[move]), depth=1)


@dataclass(frozen=True)
class SearchLevel:
    """Alpha-beta bounded by depth and nodes (``None``: the time limit alone), with the
    threat search to ``threats`` attacker moves at the root (0: none)."""

    description: str
    depth: int = MAX_DEPTH
    nodes: int | None = None
    threats: int = 0

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        # The checks of the clock come every few nodes, after the root's threat searches:
        # a share of the limit keeps the move inside it.
        time_limit = TIME_SHARE * (limit.time if limit.time is not None else 1.0)
        nodes = self.nodes if limit.nodes is None else min(limit.nodes, self.nodes or limit.nodes)
        search = MokuSearch(
            state.game.board,  # type: ignore[attr-defined]
            nodes=nodes,
            deadline=time.perf_counter() + time_limit,
            threat_depth=self.threats,
        )
        return search.root(state, min(self.depth, limit.depth or self.depth))


def load_tree() -> None:
    """The top level's kernels: the tree's, the endgame search's and the 7x7 solver's."""
    from slimetrail.games.moku.mcts import warm_up
    from slimetrail.games.moku.solver import SEARCH

    warm_up()
    SEARCH.run()


TREE_KERNELS = KernelLoad(load_tree, "Slime-Moku top level")


@dataclass(frozen=True)
class TreeLevel:
    """The compiled MCTS-Solver of :mod:`slimetrail.games.moku.mcts`, for the whole time
    limit (1 s without one), or ``nodes`` iterations when the limit gives them."""

    description: str

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        seconds = TREE_SHARE * (limit.time if limit.time is not None else 1.0)
        return tree_play(state, seconds, rng.getrandbits(31), limit.nodes, threads=limit.threads)


def tree_play(
    state: State,
    seconds: float,
    seed: int,
    iterations: int | None = None,
    clock: bool = True,
    threads: int = 1,
) -> PlayResult:
    """The top level's move: :func:`slimetrail.games.moku.mcts.search` for ``seconds`` (or
    ``iterations``; ``clock=False``: those iterations whatever the time, for the fixed-budget
    matches of ``bench/strength.py``), its trees on ``threads`` cores."""
    from slimetrail.games.moku import mcts

    found = mcts.search(
        state,  # type: ignore[arg-type]
        seconds,
        iterations=iterations or 1 << 62,
        seed=seed,
        clock=clock,
        threads=threads,
    )
    proven_scores = {"win": MATE_BOUND, "loss": -MATE_BOUND, "draw": 0}
    score = proven_scores.get(found.proven or "", round(EVAL_SCALE * (2 * found.value - 1)))
    return PlayResult(
        found.move,
        score=score,
        value=found.value,
        proven=found.proven,
        pv=[found.move],
        nodes=found.iterations,
        info={"search": "MCTS-Solver", "iterations": found.iterations},
    )


STRONG = SearchLevel(
    N_("strong: searches about 600 positions and threats four moves deep"), nodes=600, threats=4
)
LEVELS: dict[int, Player] = {
    1: RandomStep(N_("beginner: random steps, but never onto the opponent's winning cell")),
    2: OnePly(N_("novice: looks one move ahead, with much noise"), noise=0.3),
    3: SearchLevel(N_("casual: looks two moves ahead"), depth=2),
    4: SearchLevel(
        N_("club: searches about 150 positions, sees short threats"), nodes=150, threats=2
    ),
    5: STRONG,
    # Until its kernels are loaded, level 5's interpreted alpha-beta plays its timed moves.
    6: UntilLoaded(
        TreeLevel(N_("master: a tree of tactical playouts for the whole time limit")),
        TREE_KERNELS,
        STRONG,
        "alpha-beta",
    ),
}


def analyse(
    state: State,
    limit: Limit,
    stop: threading.Event | None,
    on_info: Callable[[PlayResult], None] | None,
) -> PlayResult:
    check_analysis_limit(limit, stop, "slime-moku", depth=True)
    search = MokuSearch(
        state.game.board,  # type: ignore[attr-defined]
        nodes=limit.nodes,
        deadline=limit.deadline(),
        stop=stop,
        threat_depth=6,
    )
    return search.root(state, limit.depth or MAX_DEPTH, on_info)


LADDER = Ladder(LEVELS, analyse)
