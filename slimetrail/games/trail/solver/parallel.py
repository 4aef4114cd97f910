"""Long solves: one task per root move on Ray, or one checkpointed solve in this process.

:func:`solve_split` runs the root moves as tasks on a local Ray instance of ``workers`` CPUs
(or on the cluster a Ray instance of this process is already connected to), each with its
own transposition table and checkpoint file, so a long solve can be spread and resumed; see
:mod:`slimetrail.games.trail.solver.cluster` (which also splits deeper, ``depth > 1``).
"""

from __future__ import annotations

import os

from slimetrail.core.game import SolveResult, State
from slimetrail.games.trail.solver import solve
from slimetrail.games.trail.solver.cluster import checkpoint_path, solve_on_ray


def solve_split(
    state: State,
    *,
    workers: int = 1,
    distance: bool = False,
    time_limit: float | None = None,
    checkpoint_dir: str | os.PathLike[str] | None = None,
    table_bits: int | None = None,
) -> SolveResult:
    """Like :func:`slimetrail.games.trail.solver.solve`, one Ray task per root move.

    Raises :class:`SolveTimeout` if any root move is left unsolved within ``time_limit``
    (each finished move is kept in the checkpoint directory's record, so a rerun only redoes
    the rest).  ``table_bits``: log2 of each task's table entries (16 bytes each).
    """
    return solve_on_ray(
        state,
        distance=distance,
        time_limit=time_limit,
        checkpoint_dir=checkpoint_dir,
        table_bits=table_bits,
        num_cpus=workers,
    )


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
    CPUs, else :func:`slimetrail.games.trail.solver.solve` (with one checkpoint file in
    ``checkpoint_dir``, if given; a checkpointed solve never uses the book)."""
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
