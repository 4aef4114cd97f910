"""Playing strength levels: a ladder of computer players per game.

Every game gets levels 1..top.  A game declares its own ladder by overriding
``Game.ai_ladder()`` to return a :class:`Ladder`; the Slime Trail games return
:data:`SEARCH_LADDER` (alpha-beta, and the exact solver at the top); every other game gets
:func:`mcts_ladder` (level 1 random but never missing a win in one, then MCTS with more and
more iterations, the top level searching for the whole time limit).

Every level is deterministic for a given ``seed``: randomness comes from a generator seeded
by ``(seed, position key)``, and the searches are bounded by node or iteration counts rather
than by the clock -- except the MCTS ladder's top level, which uses all the time it is given.
The limit's ``time`` is otherwise only a hard cap for slow machines or big boards (when it
cuts a search short, the move depends on how far the search got).
"""

from __future__ import annotations

import importlib
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.ai.mcts import MCTS
from slimetrail.ai.search import (
    EVAL_SCALE,
    MATE_BOUND,
    MAX_DEPTH,
    Searcher,
    _Abort,
    mate_from_plies,
    search,
)
from slimetrail.core.game import Game, GameError, Move, State

LOST_AT_ONCE = -0.95 * EVAL_SCALE  # the evaluator's "every step is poison" verdict
SOLVER_SHARE = 0.7  # of the top level's time: the exact solver; the search keeps the rest
SOLVER_FREE_CELLS = 30  # on bigger boards the solver is tried once this few cells are free
DEFAULT_LIMIT = Limit(time=1.0)

Info = Callable[[PlayResult], None]


class Player(Protocol):
    """One level of a ladder: a description for people and a way to choose a move."""

    description: str

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        """A move for the player to move; ``state`` has a legal move and must be left as it
        was.  A player honours the bounds of ``limit`` it has a use for (at least the time)."""


@dataclass(frozen=True)
class Ladder:
    """A game's computer players, by level (1 the weakest), and its analysis search."""

    levels: Mapping[int, Player]
    analyse: Callable[[State, Limit, threading.Event | None, Info | None], PlayResult]

    def __post_init__(self) -> None:
        if sorted(self.levels) != list(range(1, len(self.levels) + 1)):
            raise ValueError(f"ladder levels must be 1..n, not {sorted(self.levels)}")

    @property
    def top(self) -> int:
        return len(self.levels)


# -- the alpha-beta ladder (two-player zero-sum games with an evaluation) ----------------


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
        if self.big_boards:
            strong = _strong_module()
            if strong is not None and strong.handles(state):
                return strong.play(state, time_limit)
        return _play_search_level(state, self, time_limit, rng)


LEVELS_TABLE: dict[int, Level] = {
    1: Level(
        "beginner: random, but takes a win in one and avoids losing at once",
        # Two plies: a move after which the opponent wins at once scores as a lost mate.
        depth=2,
        beginner=True,
    ),
    2: Level("novice: looks one move ahead, often misjudges", depth=1, noise=250.0),
    3: Level("casual: looks three moves ahead with some noise", depth=3, noise=80.0),
    4: Level("club: searches a few thousand positions", nodes=4_000),
    5: Level("strong: searches about 60 000 positions", nodes=60_000),
    6: Level(
        "perfect where solvable: exact solver, deep search otherwise",
        nodes=150_000,
        solver=True,
        big_boards=True,
    ),
}


def _analyse_by_search(
    state: State, limit: Limit, stop: threading.Event | None, on_info: Info | None
) -> PlayResult:
    return search(state, limit, stop=stop, on_info=on_info)


SEARCH_LADDER = Ladder(LEVELS_TABLE, _analyse_by_search)
# The Slime Trail games' ladder (kept under these names for callers that know one game).
LEVELS: dict[int, str] = {n: level.description for n, level in LEVELS_TABLE.items()}
MAX_LEVEL = max(LEVELS)


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
    scores = _score_moves(state, spec.depth, deadline)
    if spec.beginner:
        move = _beginner_move(scores, rng)
    else:
        move = max(scores, key=lambda m: scores[m] + rng.gauss(0.0, spec.noise))
    return PlayResult(move, score=scores[move], depth=spec.depth)


# -- the generic ladder: Monte-Carlo tree search, any number of players -------------------


@dataclass(frozen=True)
class RandomLevel:
    """Random moves, except that a move ending the game with this player alone in first
    place is always taken."""

    description: str

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        mover = state.to_move
        moves = state.legal_moves()
        wins = []
        for move in moves:
            state.push(move)
            outcome = state.outcome()
            state.pop()
            if outcome is not None and outcome.winner == mover:
                wins.append(move)
        move = rng.choice(wins or moves)
        return PlayResult(move, proven="win" if wins else None, depth=1)


@dataclass(frozen=True)
class MctsLevel:
    """MCTS with ``iterations`` playouts (``None``: as many as the time limit allows)."""

    description: str
    iterations: int | None

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        bounds = (Limit(nodes=self.iterations) if self.iterations else Limit()).capped(limit)
        if bounds.time is None and bounds.nodes is None:
            bounds = bounds.capped(DEFAULT_LIMIT)
        return MCTS(state, seed=rng.getrandbits(64)).run(bounds)


def _analyse_by_mcts(
    state: State, limit: Limit, stop: threading.Event | None, on_info: Info | None
) -> PlayResult:
    if limit.time is None and limit.nodes is None and (stop is None or limit.depth is not None):
        raise GameError(
            f"{state.game.id} is analysed by MCTS: give a time or nodes limit (not only depth)"
        )
    return MCTS(state, seed=0).run(limit, stop=stop, on_info=on_info)


def mcts_ladder(iterations: tuple[int, ...] = (100, 400, 1_600, 6_400)) -> Ladder:
    """Level 1 random (taking a win in one), then one MCTS level per iteration count, then
    a top level that searches for the whole time limit."""
    levels: dict[int, Player] = {1: RandomLevel("beginner: random, but takes a win in one")}
    for count in iterations:
        levels[len(levels) + 1] = MctsLevel(f"Monte-Carlo search, {count} playouts", count)
    levels[len(levels) + 1] = MctsLevel("Monte-Carlo search for the whole time limit", None)
    return Ladder(levels, _analyse_by_mcts)


MCTS_LADDER = mcts_ladder()


# -- the entry points -------------------------------------------------------------------


def ladder_for(game: Game) -> Ladder:
    """The game's own ladder, or the generic MCTS ladder."""
    ladder = game.ai_ladder()
    if ladder is None:
        return MCTS_LADDER
    if not isinstance(ladder, Ladder):
        raise TypeError(f"{game.id}: ai_ladder() must return a slimetrail.ai.Ladder or None")
    return ladder


def levels_for(game: Game) -> dict[int, str]:
    """The game's levels, weakest first, with their descriptions."""
    return {n: player.description for n, player in sorted(ladder_for(game).levels.items())}


def play(
    state: State, level: int, limit: Limit | None = None, *, seed: int | None = None
) -> PlayResult:
    """The computer's move at ``level`` (1..top of the game's ladder) and what it knows of
    it.  ``limit`` defaults to one second; ``state`` is not changed."""
    ladder = ladder_for(state.game)
    if isinstance(level, bool) or not isinstance(level, int) or level not in ladder.levels:
        raise GameError(f"level {level!r} is not one of 1..{ladder.top} for {state.game.id}")
    limit = limit or DEFAULT_LIMIT
    moves = state.legal_moves()
    if not moves:
        raise GameError("the game is over: there is no move to choose")
    started = time.perf_counter()
    if len(moves) == 1:
        result = PlayResult(moves[0], pv=[moves[0]])
    else:
        rng = random.Random(hash((seed, state.key())) if seed is not None else None)
        result = ladder.levels[level].play(state, limit, rng)
    result.seconds = time.perf_counter() - started
    result.info["level"] = level
    return result


def choose_move(
    state: State,
    level: int,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
) -> Move:
    """The move of :func:`play`; ``time_limit`` (seconds) is short for ``Limit(time=...)``."""
    if time_limit is not None:
        if time_limit <= 0:
            raise GameError(f"time_limit must be positive, not {time_limit}")
        limit = Limit(time=time_limit)
    return play(state, level, limit, seed=seed).move


def analyse(
    state: State,
    limit: Limit | None = None,
    *,
    stop: threading.Event | None = None,
    on_info: Info | None = None,
) -> PlayResult:
    """The game's analysis search at full strength (alpha-beta for the Slime Trail games,
    MCTS for the others), within ``limit`` or until ``stop``; ``state`` is not changed."""
    if state.is_over():
        raise GameError("the game is over: there is nothing to analyse")
    return ladder_for(state.game).analyse(state, limit or DEFAULT_LIMIT, stop, on_info)


def _score_moves(state: State, depth: int, deadline: float) -> dict[Move, int]:
    """Every move's score at ``depth``, shallower if the time cap is hit."""
    for d in range(depth, 0, -1):
        # Each shallower retry gets a few milliseconds even past the deadline.
        searcher = Searcher(state, movetime=max(0.02, deadline - time.perf_counter()))
        try:
            return searcher.score_moves(d)
        except _Abort:
            continue
    return dict.fromkeys(state.legal_moves(), 0)


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


def _solver_module():
    try:
        module = importlib.import_module("slimetrail.games.trail.solver")
    except ImportError:
        return None
    return module if hasattr(module, "solve") and hasattr(module, "can_solve") else None


def _strong_module():
    try:
        return importlib.import_module("slimetrail.games.trail.strong")
    except ImportError:
        return None


def _book_module():
    try:
        return importlib.import_module("slimetrail.games.trail.solver.book")
    except ImportError:
        return None


@dataclass(frozen=True)
class SolverChoice:
    move: Move
    value: str  # "win", "loss" or "draw" for the side to move, proven
    plies: int | None  # game length under best play after this move, if it was computed
    nodes: int = 0  # the solver's nodes for the value proof (0: from a book)


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
    to ``deadline``; the rest is the search's, here or in the caller's fallback.  ``stop``
    (set by another thread) ends the solver at once: the result is then ``None``.
    """
    solver = _solver_module()
    if solver is None:
        return None
    book = _book_module()
    if book is not None:
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
        move = _best_by_search(state, drawing, deadline, fallback_nodes, stop)
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
    move = _best_by_search(state, state.legal_moves(), deadline, fallback_nodes, stop)
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


def _best_by_search(
    state: State,
    moves: list[Move],
    deadline: float,
    nodes: int,
    stop: threading.Event | None = None,
) -> Move:
    """The search's favourite among ``moves`` (all of equal game-theoretic value)."""
    best = moves[0]
    if len(moves) == 1:
        return best
    searcher = Searcher(state, movetime=_left(deadline), nodes=nodes, stop=stop)
    try:
        for depth in range(1, MAX_DEPTH + 1):
            searcher.hit_horizon = False
            _, best = searcher.root(depth, searcher.ordered(moves, 0, best))
            if not searcher.hit_horizon:
                break
    except _Abort:
        pass  # keep the choice of the last completed depth
    return best
