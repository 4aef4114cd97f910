"""Split a solve over worker processes: one root move per task.

Each worker proves the value of the position after one root move (stopping at the first win
it finds there), with its own transposition table and, optionally, its own checkpoint file,
so a long solve can be spread over processes (or machines sharing a directory) and resumed.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

from slimetrail.core.game import Move, State
from slimetrail.games.trail.solver import (
    SolveResult,
    SolveTimeout,
    SolveTooLarge,
    _mirror,
    _Root,
    result_from_scores,
    solve,
)
from slimetrail.games.trail.solver import kernel as k
from slimetrail.games.trail.solver.wide import WideSearch

NAMES = {"win": "loss", "loss": "win", "draw": "draw"}  # child's value -> mover's value
SIGNS = {"win": -1, "loss": 1, "draw": 0}  # child's value -> the sign of the mover's score


def solve_split(
    state: State,
    *,
    workers: int = 1,
    distance: bool = False,
    time_limit: float | None = None,
    checkpoint_dir: str | os.PathLike[str] | None = None,
    table_bits: int | None = None,
) -> SolveResult:
    """Like :func:`slimetrail.games.trail.solver.solve`, one worker process per root move at a time.

    Raises :class:`SolveTimeout` if any root move is left unsolved within ``time_limit``
    (each finished move is kept in its checkpoint, so a rerun only redoes the rest).
    ``table_bits``: log2 of each worker's table entries (16 bytes each), as for ``solve``.
    """
    start = time.monotonic()
    if state.outcome() is not None:
        return solve(state, distance=distance, book=False)
    game = state.game
    mirror = _mirror(state) or {}
    tasks, twins = [], {}
    if checkpoint_dir is not None:
        os.makedirs(checkpoint_dir, exist_ok=True)
    for move in state.legal_moves():
        if mirror.get(move, move) in {t[0] for t in tasks}:
            twins[move] = mirror[move]  # the mirrored move has the same value
            continue
        child = state.copy()
        child.push(move)
        path = None if checkpoint_dir is None else checkpoint_path(checkpoint_dir, child, distance)
        tasks.append((move, game.spec, child.fen(), distance, time_limit, path, table_bits))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        answers = list(pool.map(_child, tasks))
    if any(a is None for a in answers):
        left = [state.move_str(t[0]) for t, a in zip(tasks, answers, strict=True) if a is None]
        done = [
            f"{state.move_str(t[0])} {NAMES[a[0]]}"
            for t, a in zip(tasks, answers, strict=True)
            if a is not None
        ]
        raise SolveTimeout(
            f"unsolved within the time limit after {' '.join(left)}"
            + (f" (proved: {', '.join(done)})" if done else "")
        )
    # Scores as the kernel gives them, for the mover (see result_from_scores).
    scores: dict[Move, int] = {}
    nodes = 0
    for (move, *_), (value, plies, child_nodes) in zip(tasks, answers, strict=True):
        sign = SIGNS[value]
        scores[move] = sign * (k.MATE - plies - 1) if distance and sign else sign
        nodes += child_nodes
    for move, twin in twins.items():
        scores[move] = scores[twin]
    scores = {m: scores[m] for m in state.legal_moves()}
    result = result_from_scores(scores, state.to_move, k.MATE if distance else None, nodes)
    result.seconds = time.monotonic() - start
    return result


def solve_long(
    state: State,
    *,
    workers: int | None = None,
    distance: bool = False,
    time_limit: float | None = None,
    checkpoint_dir: str | os.PathLike[str] | None = None,
    table_bits: int | None = None,
    book: bool = True,
) -> SolveResult:
    """A solve that may take hours: with ``workers``, :func:`solve_split` over that many
    processes (one checkpoint per root move), else :func:`slimetrail.games.trail.solver.solve`
    (with one checkpoint file in ``checkpoint_dir``, if given; a checkpointed solve never uses
    the book)."""
    if workers:
        return solve_split(
            state,
            workers=workers,
            distance=distance,
            time_limit=time_limit,
            checkpoint_dir=checkpoint_dir,
            table_bits=table_bits,
        )
    path = None
    if checkpoint_dir is not None:
        os.makedirs(checkpoint_dir, exist_ok=True)
        path = checkpoint_path(checkpoint_dir, state, distance)
    return solve(
        state,
        distance=distance,
        time_limit=time_limit,
        checkpoint=path,
        table_bits=table_bits,
        book=book,
    )


def checkpoint_path(directory: str | os.PathLike[str], state: State, distance: bool) -> str:
    """The checkpoint file of a solve of ``state`` in ``directory``."""
    name = f"{state.game.spec} {state.fen()}".replace(" ", "_").replace("/", "-")
    return os.path.join(directory, f"{name}{'_distance' if distance else ''}.npz")


def _child(task) -> tuple[str, int, int] | None:
    """(value for the side to move, plies, nodes) of one child position, None on timeout."""
    from slimetrail.core.registry import parse_game_spec

    _, spec, fen, distance, time_limit, path, table_bits = task
    child = parse_game_spec(spec).state_from_fen(fen)
    started = time.monotonic()
    if child.outcome() is not None:
        r = solve(child, distance=distance, book=False)
        return r.value, 0, 0
    deadline = 0.0 if time_limit is None else started + time_limit
    try:
        try:
            root = _Root(child, distance, deadline, True, table_bits)
        except SolveTooLarge:
            search = WideSearch(child, distance, deadline, True, table_bits, checkpoint=path)
            r = search.solve(child, started, value_only=True)
        else:
            r = root.run(started, path, value_only=True)
    except SolveTimeout:
        return None
    return r.value, r.plies or 0, r.nodes
