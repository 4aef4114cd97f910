"""Perft: count the legal move sequences of exactly ``depth`` plies from a position.

As in chess, a game that ends earlier (goal entered, player stuck) contributes nothing at
greater depths.  :func:`perft` asks the state (:meth:`State.perft`), so a game may take a fast
path of its own (checked against the generic walk by the contract kit);
:func:`perft_generic` forces the interface-only walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slimetrail.core.game import State


def perft(state: State, depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies; ``state`` is left unchanged."""
    _check_depth(depth)
    return state.perft(depth)


def perft_generic(state: State, depth: int) -> int:
    """:func:`perft` through the public State interface only (push/pop on a copy)."""
    _check_depth(depth)
    return _generic(state.copy(), depth)


def divide(state: State, depth: int) -> dict[str, int]:
    """Perft split by first move: canonical move text -> sequences of ``depth`` plies."""
    _check_depth(depth)
    if depth == 0:
        return {}
    work = state.copy()
    out: dict[str, int] = {}
    for move in work.legal_moves():
        text = work.move_str(move)
        work.push(move)
        out[text] = perft(work, depth - 1)
        work.pop()
    return out


def _check_depth(depth: int) -> None:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"perft depth must be a whole number >= 0, not {depth!r}")


def _generic(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        state.push(move)
        total += _generic(state, depth - 1)
        state.pop()
    return total
