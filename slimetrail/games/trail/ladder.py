"""The Slime Trail games' computer players: alpha-beta over the trail evaluation at levels
1-5, and at the top level the opening books and the exact solver where they answer in time
(perfect play), the compiled big-board player elsewhere, the search otherwise.

:func:`solver_choice` picks the proven move: the shortest win, the longest defence, the
search's favourite draw.  The UGI engine reaches it through the ladder's ``solved`` hook.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from slimetrail.ai.levels import DEFAULT_LIMIT, Info, Ladder, SolverChoice
from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.ai.search import (
    EVAL_SCALE,
    MATE_BOUND,
    best_by_search,
    mate_from_plies,
    score_moves_within,
    search,
)
from slimetrail.core.game import GameError, Move, State
from slimetrail.core.i18n import N_

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

LOST_AT_ONCE = -0.95 * EVAL_SCALE  # the evaluator's "every step is poison" verdict
SOLVER_SHARE = 0.7  # of the top level's time: the exact solver; the search keeps the rest
SOLVER_FREE_CELLS = 30  # on bigger boards the solver is tried once this few cells are free
BIG_BOARD_CELLS = (65, 128)  # the boards of the compiled big-board player (strong.py)


# -- the levels ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """A level of the alpha-beta ladder; of the limit it uses the time, as a hard cap."""

    description: str
    depth: int = 0  # fixed-depth scoring of every move, chosen with noise (0: no search)
    noise: float = 0.0  # standard deviation of the noise added to each move's score
    nodes: int = 0  # iterative-deepening search bounded by nodes (0: not used)
    solver: bool = False  # perfect play where the exact solver answers in time
    beginner: bool = False  # random, but takes a win in one and avoids losing at once
    big_boards: bool = False  # the compiled player of the big Slime Trail boards, where it can

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        time_limit = limit.time if limit.time is not None else DEFAULT_LIMIT.time
        assert time_limit is not None
        if self.big_boards and big_board(state):
            from slimetrail.games.trail.game import kernels_loaded

            if not kernels_loaded():
                # A process's first move: the kernels are loading in the background, and
                # the interpreted alpha-beta plays this move within the limit.
                result = search(state, Limit(time=time_limit, nodes=self.nodes))
                result.info["search"] = "alpha-beta (compiled kernels still loading)"
                return result
            from slimetrail.games.trail import strong

            # big_board(state) holds only for a Slime Trail state
            return strong.play(cast("TrailState", state), time_limit, rng.getrandbits(32))
        return _play_search_level(state, self, time_limit, rng)


def big_board(state: State) -> bool:
    """A position of a board for the compiled big-board player (65 to 128 cells), told
    without importing it (that loads numba)."""
    from slimetrail.games.trail.game import TrailGame

    game = state.game
    return isinstance(game, TrailGame) and BIG_BOARD_CELLS[0] <= game.size**2 <= BIG_BOARD_CELLS[1]


LEVELS_TABLE: dict[int, Level] = {
    1: Level(
        N_("beginner: random, but takes a win in one and avoids losing at once"),
        # Two plies: a move after which the opponent wins at once scores as a lost mate.
        depth=2,
        beginner=True,
    ),
    # Two plies, as the beginner: seeing the reply to each move is what sets it above level 1.
    2: Level(N_("novice: looks two moves ahead, often misjudges"), depth=2, noise=400.0),
    3: Level(N_("casual: looks three moves ahead with some noise"), depth=3, noise=80.0),
    4: Level(N_("club: searches a few thousand positions"), nodes=4_000),
    5: Level(N_("strong: searches about 60 000 positions"), nodes=60_000),
    6: Level(
        N_("perfect where solvable: exact solver, deep search otherwise"),
        nodes=150_000,
        solver=True,
        big_boards=True,
    ),
}


def _analyse_by_search(
    state: State, limit: Limit, stop: threading.Event | None, on_info: Info | None
) -> PlayResult:
    return search(state, limit, stop=stop, on_info=on_info)


def _play_search_level(
    state: State, spec: Level, time_limit: float, rng: random.Random
) -> PlayResult:
    moves = state.legal_moves()
    deadline = time.perf_counter() + time_limit
    if spec.solver:
        choice = solver_choice(state, deadline, spec.nodes)
        if choice is not None:
            mate = None
            if choice.plies is not None and choice.value != "draw":
                mate = mate_from_plies(choice.value == "win", choice.plies)
            return PlayResult(choice.move, proven=choice.value, mate=mate, nodes=choice.nodes)
    if spec.nodes:
        remaining = max(0.01, deadline - time.perf_counter())
        result = search(state, Limit(time=remaining, nodes=spec.nodes))
        if result.move is None:
            result.move = moves[0]
        return result
    scores = score_moves_within(state, spec.depth, deadline)
    if spec.beginner:
        move = _beginner_move(scores, rng)
    else:
        move = max(scores, key=lambda m: scores[m] + rng.gauss(0.0, spec.noise))
    return PlayResult(move, score=scores[move], depth=spec.depth)


def _beginner_move(scores: dict[Move, int], rng: random.Random) -> Move:
    """A random move, except that a win in one is always seen and instant losses avoided."""
    wins = [m for m, s in scores.items() if s >= MATE_BOUND]
    if wins:
        return rng.choice(wins)
    # A move the opponent answers with a win is never played; one the evaluator judges lost
    # further ahead is only avoided half the time (a beginner does not see everything).
    sane = [m for m, s in scores.items() if s > -MATE_BOUND]
    careful = [m for m in sane if scores[m] > LOST_AT_ONCE or rng.random() < 0.5]
    return rng.choice(careful or sane or list(scores))


# -- the solver at the top level ------------------------------------------------------


def solver_choice(
    state: State, deadline: float, fallback_nodes: int, stop: threading.Event | None = None
) -> SolverChoice | None:
    """The best move by the books or the exact solver, or ``None`` when neither answers in time.

    Winning: the shortest win where distances are known (a full book, or a distance solve
    that fits), else the play book's or the solver's first winning move: every one of them
    wins, and the play book's keep the game on positions it or a quick solve covers.
    Drawing: the search's favourite drawing move.  Losing: the longest resistance, then the
    move leaving the opponent the fewest winning replies (the most chances to go wrong);
    without distances the search's favourite.  The solver gets ``SOLVER_SHARE`` of the time
    to ``deadline``; the rest is the search's, here or in the caller's fallback.  Until the
    compiled kernels are loaded (:func:`.game.kernels_loaded`) only the books answer.  ``stop``
    (set by another thread) ends the solver at once: the result is then ``None``.
    """
    from slimetrail.games.trail import solver
    from slimetrail.games.trail.solver import book

    booked = book.lookup(state)
    if booked is not None:
        return _by_distance(state, booked.move_values, booked.move_plies, booked.nodes)
    move = book.winning_move(state)
    if move is not None:
        return SolverChoice(move, "win", None, 0)
    free = getattr(state, "free", None)  # a Slime Trail position's empty cells
    few = isinstance(free, int) and free.bit_count() <= SOLVER_FREE_CELLS
    if not (solver.can_solve(state.game) or few):
        return None
    from slimetrail.games.trail.game import kernels_loaded

    if not kernels_loaded():
        return None  # a process's first moves: the kernel loads in the background meanwhile
    started = time.perf_counter()
    solve_end = started + SOLVER_SHARE * (deadline - started)
    try:
        # A win needs only one winning move: the first found ends the proof.
        root = solver.solve(
            state, first_win=True, time_limit=_left(solve_end), stop=stop, book=False
        )
    except (solver.SolveTimeout, GameError):  # GameError: not for this solver
        return None
    if root.value == "draw":
        drawing = [m for m in state.legal_moves() if root.move_values.get(m) == "draw"]
        move = best_by_search(state, drawing, deadline, fallback_nodes, stop)
        return SolverChoice(move, "draw", None, root.nodes)
    # A distance solve costs about three plain ones; try it only when it may fit.
    spent = time.perf_counter() - started
    if 3 * spent < solve_end - time.perf_counter():
        try:
            timed = solver.solve(
                state, distance=True, time_limit=_left(solve_end), stop=stop, book=False
            )
        except solver.SolveTimeout:
            pass
        else:
            return _by_distance(
                state, timed.move_values, timed.move_plies, root.nodes, solver, solve_end, stop
            )
    if root.value == "win":
        return SolverChoice(root.winning_moves[0], "win", None, root.nodes)
    move = best_by_search(state, state.legal_moves(), deadline, fallback_nodes, stop)
    return SolverChoice(move, "loss", None, root.nodes)


def _by_distance(
    state: State,
    values: dict[Move, str],
    plies: dict[Move, int],
    nodes: int,
    solver=None,
    solve_end: float = 0.0,
    stop: threading.Event | None = None,
) -> SolverChoice:
    """The shortest win, else the longest loss (ties: the fewest winning replies, while
    ``solver`` answers before ``solve_end``)."""
    wins = [m for m in state.legal_moves() if values.get(m) == "win"]
    if wins:
        move = min(wins, key=lambda m: plies.get(m, 0))
        return SolverChoice(move, "win", plies.get(move), nodes)
    longest = max(plies.get(m, 0) for m in values)
    candidates = [m for m in state.legal_moves() if plies.get(m, 0) == longest]
    if len(candidates) == 1 or solver is None:
        return SolverChoice(candidates[0], "loss", longest, nodes)
    fewest: tuple[int, Move] | None = None
    child = state.copy()
    for move in candidates:
        child.push(move)
        try:
            reply = solver.solve(child, time_limit=_left(solve_end), stop=stop)
        except (solver.SolveTimeout, GameError):
            break  # out of time: any of the longest defences will do
        finally:
            child.pop()
        replies = len(reply.winning_moves)
        if fewest is None or replies < fewest[0]:
            fewest = (replies, move)
    return SolverChoice(fewest[1] if fewest is not None else candidates[0], "loss", longest, nodes)


def _left(until: float) -> float:
    return max(0.001, until - time.perf_counter())


# The UGI engine asks the ladder's ``solved`` for a proven move to report with its score.
TRAIL_LADDER = Ladder(LEVELS_TABLE, _analyse_by_search, solved=solver_choice)
