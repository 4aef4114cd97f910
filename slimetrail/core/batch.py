"""Many positions solved exactly in one go (``slimetrail solve --batch``): in this process, or
in a pool of worker processes, the results in the order of the positions.

A fresh process pays Python's start-up and the imports before its first solve; a batch pays
them once (and each worker once), and a worker keeps its solver's tables between positions.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from slimetrail.core.game import GameError, SolveResult, SolveTimeout, State

__all__ = ["solve_many"]


def solve_many(
    positions: Iterable[State],
    *,
    workers: int = 1,
    distance: bool = False,
    time_limit: float | None = None,
    book: bool = True,
) -> Iterator[SolveResult | GameError | SolveTimeout]:
    """Each position's :class:`SolveResult` by its game's exact solver, in the order given,
    as each is ready; a position that fails gives its error (a :class:`SolveTimeout` after
    ``time_limit`` seconds, or a :class:`GameError` such as a game without a solver) in its
    place and the rest go on.

    ``workers``: solve that many positions at a time, each in a worker process (the
    positions go to them as their game's spec and FEN); 1 solves them in this process, one
    after the other.  ``positions`` is read lazily, so it may be a stream.  ``book=False``
    always searches (solvers with an opening book).
    """
    if workers < 1:
        raise GameError(f"workers must be at least 1, not {workers}")
    options = {"distance": distance, "time_limit": time_limit, "book": book}
    if workers == 1:
        return (solve_one(state, options) for state in positions)
    return _solve_in_pool(positions, workers, options)


def solve_one(state: State, options: dict[str, Any]) -> SolveResult | GameError | SolveTimeout:
    """One position, its error returned rather than raised."""
    solver = state.game.exact_solver()
    if solver is None:
        return GameError(f"{state.game.spec} has no exact solver")
    try:
        if options["book"]:
            return solver.solve(
                state, distance=options["distance"], time_limit=options["time_limit"]
            )
        solve_long = getattr(solver, "solve_long", None)
        if solve_long is None:
            return GameError(f"{state.game.id}'s solver has no opening book to bypass")
        result: SolveResult = solve_long(
            state, distance=options["distance"], time_limit=options["time_limit"], book=False
        )
        return result
    except (GameError, SolveTimeout) as exc:
        return exc


def _solve_in_pool(
    positions: Iterable[State], workers: int, options: dict[str, Any]
) -> Iterator[SolveResult | GameError | SolveTimeout]:
    import multiprocessing

    # Forking is the cheapest start (a child has everything imported already), but forking a
    # process with other threads running can deadlock the child: then a fresh interpreter.
    methods = multiprocessing.get_all_start_methods()
    method = "fork" if "fork" in methods and threading.active_count() == 1 else "spawn"
    tasks = ((state.game.spec, state.fen(), options) for state in positions)
    with multiprocessing.get_context(method).Pool(workers) as pool:
        # One position per task: solve times differ by orders of magnitude.
        yield from pool.imap(_solve_task, tasks, chunksize=1)


def _solve_task(task: tuple[str, str, dict[str, Any]]) -> SolveResult | GameError | SolveTimeout:
    from slimetrail.core.registry import parse_game_spec

    spec, fen, options = task
    try:
        state = parse_game_spec(spec).state_from_fen(fen)
    except GameError as exc:
        return exc
    return solve_one(state, options)
