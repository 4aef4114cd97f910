"""The jobs a worker process runs: the computer's move, an analysis, the warm-up.

Searches never run on the server's event loop: each job is a plain function of picklable
arguments (game id, options, and the position: ``fen`` for a computer move, the move texts
of an analysis request), run by either backend of :mod:`slimetrail.web.service.computer`: a
process pool of the web server (:mod:`slimetrail.web.service.pool`) or of ``slimetrail
worker`` (:mod:`slimetrail.web.jobs`).  Inside a worker a job is also stopped by an interval
timer once it overruns its time cap by a margin, so a search that ignores its
``time_limit`` cannot hold a worker for ever.
"""

from __future__ import annotations

import functools
import signal
from collections.abc import Callable
from typing import Any

from slimetrail.core.game import GameError, SolveTimeout, State
from slimetrail.core.i18n import N_
from slimetrail.core.registry import GAMES, get_game

# A job may overrun its own time cap by this factor plus this many seconds (first calls may
# include JIT compilation) before the worker stops it.
OVERRUN_FACTOR = 2.0
OVERRUN_SECONDS = 20.0


class JobTimeout(Exception):
    """A worker job ran past its hard cap."""


def hard_cap(time_limit: float) -> float:
    return time_limit * OVERRUN_FACTOR + OVERRUN_SECONDS


def replay(game_id: str, options: dict[str, str], moves: list[str]) -> State:
    state = get_game(game_id, **options).new_state()
    for text in moves:
        state.push_str(text)
    return state


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise JobTimeout


def _capped(seconds: float, func: Callable[..., Any], *args: Any) -> Any:
    """Run ``func`` in this worker process, interrupted after ``seconds``."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def computer_move(
    game_id: str,
    options: dict[str, str],
    fen: str,
    level: int,
    time_limit: float,
    seed: int,
) -> str:
    """The computer's move (canonical text) in the position ``fen`` (no history replayed)."""
    state = get_game(game_id, **options).state_from_fen(fen)
    try:
        move = _capped(hard_cap(time_limit), choose, state, level, time_limit, seed)
    except JobTimeout:
        # The level overran its cap (a slow machine): the weakest level answers -- still a
        # search, never a random move; if even that overruns, the caller retries the job.
        move = _capped(hard_cap(time_limit), choose, state, 1, time_limit, seed)
    return state.move_str(move)


def choose(state: State, level: int, time_limit: float, seed: int) -> Any:
    from slimetrail.ai import choose_move

    return choose_move(state, level, time_limit=time_limit, seed=seed)


def analyse(
    game_id: str, options: dict[str, str], moves: list[str], time_limit: float
) -> dict[str, Any]:
    """Exact values of the position after ``moves`` and of each legal move, if solvable."""
    state = replay(game_id, options, moves)
    solver = state.game.exact_solver()
    if solver is None:
        answer = unsolved(state.to_move, NO_SOLVER, game=state.game.title)
        return answer | {"engine": engine_estimate(state, time_limit * ENGINE_SHARE)}
    try:
        result = _capped(hard_cap(time_limit), _solve, solver.solve, state, time_limit)
    except (SolveTimeout, JobTimeout):
        answer = unsolved(state.to_move, NOT_IN_TIME, seconds=f"{time_limit:g}")
        return answer | {"engine": engine_estimate(state, time_limit * ENGINE_SHARE)}
    except GameError as exc:  # a game or a position the solver does not handle
        answer = unsolved(state.to_move, exc.template, **exc.values)
        return answer | {"engine": engine_estimate(state, time_limit * ENGINE_SHARE)}
    return solved_answer(state, result)


def solved_answer(state: State, result: Any) -> dict[str, Any]:
    """The analysis answer of a proven position (``result``: a solver's)."""
    return {
        "solved": True,
        "value": result.value,
        "to_move": state.to_move,
        "moves": {state.move_str(m): v for m, v in result.move_values.items()},
        "plies": result.plies,
        "move_plies": {state.move_str(m): n for m, n in result.move_plies.items()},
        "detail": f"solved in {result.seconds:.2f} s ({result.nodes} nodes)",
    }


def review(
    game_id: str, options: dict[str, str], moves: list[str], time_limit: float
) -> dict[str, Any]:
    """The review of the game ``moves`` (:func:`slimetrail.review.review_moves`), within
    about ``time_limit`` seconds in all."""
    from slimetrail.review import review_moves

    game = get_game(game_id, **options)
    made = functools.partial(review_moves, total_time=time_limit)
    return _capped(hard_cap(time_limit), made, game, moves)


# Where the exact solver gives up, the engine's search gets this share of its time.
ENGINE_SHARE = 0.5


def engine_estimate(state: State, time_limit: float) -> dict[str, Any] | None:
    """The engine's view of an unsolved position: its best move, score (or the game's
    expected result in [0, 1] for MCTS) and line, for the player to move; ``None`` if the
    game is over or the search failed."""
    from slimetrail.ai import Limit
    from slimetrail.ai import analyse as search

    if state.is_over():
        return None
    try:
        result = _capped(hard_cap(time_limit), search, state, Limit(time=time_limit))
    except (JobTimeout, GameError):
        return None
    if result.move is None:
        return None
    return {
        "best": state.move_str(result.move),
        "score": result.score,
        "value": result.value,
        "proven": result.proven,
        "mate": result.mate,
        "pv": pv_texts(state, result.pv or [result.move]),
        "depth": result.depth,
        "nodes": result.nodes,
    }


def pv_texts(state: State, line: list[Any]) -> list[str]:
    """A line of moves as texts (as far as it stays legal), ``state`` left as it was."""
    texts: list[str] = []
    for move in line:
        if state.is_over() or move not in state.legal_moves():
            break
        texts.append(state.move_str(move))
        state.push(move)
    for _ in texts:
        state.pop()
    return texts


# Why a position was not solved. A worker speaks no language: the answer carries the
# catalogued sentence and its values ("why"), and the web says it in the request's language.
NO_SOLVER = N_("%(game)s has no exact solver")
NOT_IN_TIME = N_("not solved within %(seconds)s s")
PAST_TIME = N_("the analysis ran past its time; try again")
FAILED = N_("the analysis failed: %(error)s")


def unsolved(to_move: int, why: str, **values: Any) -> dict[str, Any]:
    """The analysis answer for a position that was not solved; ``why`` (a catalogued
    sentence with ``values``) says why, ``detail`` in English."""
    return {
        "solved": False,
        "value": None,
        "to_move": to_move,
        "moves": {},
        "plies": None,
        "detail": why % values if values else why,
        "why": {"text": why, "values": {key: str(value) for key, value in values.items()}},
    }


def _solve(solve: Callable[..., Any], state: State, time_limit: float) -> Any:
    try:
        return solve(state, distance=True, time_limit=time_limit)
    except GameError:  # a solver that proves who wins but not in how many plies (Slither's)
        return solve(state, time_limit=time_limit)


def explore(
    game_id: str, options: dict[str, str], moves: list[str], time_limit: float
) -> dict[str, Any]:
    """An explorer position's exact values with game lengths in half the time; if that is
    too short, the values alone (a cheaper proof) in the other half."""
    state = replay(game_id, options, moves)
    solver = state.game.exact_solver()
    if solver is None:
        return unsolved(state.to_move, NO_SOLVER, game=state.game.title)
    for distance in (True, False):
        search = functools.partial(solver.solve, distance=distance, time_limit=time_limit / 2)
        try:
            return solved_answer(state, _capped(hard_cap(time_limit), search, state))
        except (SolveTimeout, JobTimeout):
            continue
        except GameError as exc:
            return unsolved(state.to_move, exc.template, **exc.values)
    return unsolved(state.to_move, NOT_IN_TIME, seconds=f"{time_limit:g}")


# The jobs an analysis worker runs, by the name a queued job carries.
ANALYSIS_JOBS: dict[str, Callable[..., dict[str, Any]]] = {
    "analyse": analyse,
    "review": review,
    "explore": explore,
}


def warm_up() -> bool:
    """Load the AI and every registered game's compiled kernels before the first request."""
    import slimetrail.ai  # noqa: F401

    for game_id in GAMES:
        GAMES[game_id].warm_up()
    return True
