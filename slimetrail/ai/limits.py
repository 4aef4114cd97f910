"""What a search may spend and what it answers: one pair for every search, level and caller.

Modelled on python-chess's ``engine.Limit`` and ``engine.PlayResult``: a :class:`Limit` bounds
time, nodes and depth in any combination (each ``None`` = unbounded), and every search --
alpha-beta, MCTS, a level's player -- answers with a :class:`PlayResult`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from slimetrail.core.game import GameError, Move


@dataclass(frozen=True)
class Limit:
    """``time`` in seconds, ``nodes`` (alpha-beta nodes, MCTS iterations), ``depth`` (plies;
    alpha-beta only).  Values must be positive; ``Limit()`` bounds nothing.  ``threads``: the
    cores a search may use at once (the searches that can use more than one share their
    ``nodes`` among them; the others use one), as a UCI engine's ``Threads`` option."""

    time: float | None = None
    nodes: int | None = None
    depth: int | None = None
    threads: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.threads, bool) or not isinstance(self.threads, int):
            raise GameError(f"limit threads must be a whole number, not {self.threads!r}")
        if self.threads < 1:
            raise GameError(f"limit threads must be positive, not {self.threads}")
        for name in ("time", "nodes", "depth"):
            value = getattr(self, name)
            if value is None:
                continue
            whole = name != "time"
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise GameError(f"limit {name} must be a number, not {value!r}")
            if whole and not isinstance(value, int):
                raise GameError(f"limit {name} must be a whole number, not {value!r}")
            if value <= 0:
                raise GameError(f"limit {name} must be positive, not {value}")

    @property
    def bounded(self) -> bool:
        return any(v is not None for v in (self.time, self.nodes, self.depth))

    def deadline(self, started: float | None = None) -> float | None:
        """The ``time.perf_counter()`` value at which the time runs out, if it is bounded."""
        if self.time is None:
            return None
        return (time.perf_counter() if started is None else started) + self.time

    def capped(self, other: Limit) -> Limit:
        """Each bound the smaller of the two (``None`` = unbounded)."""

        def least(a: Any, b: Any) -> Any:
            return b if a is None else a if b is None else min(a, b)

        return Limit(
            least(self.time, other.time),
            least(self.nodes, other.nodes),
            least(self.depth, other.depth),
            min(self.threads, other.threads),
        )


def shared_out(total: int, parts: int) -> list[int]:
    """``total`` iterations shared among ``parts`` searches side by side (``Limit.threads``),
    as evenly as whole numbers go, the first ones taking the remainder."""
    whole, extra = divmod(total, parts)
    return [whole + (i < extra) for i in range(parts)]


@dataclass
class PlayResult:
    """A search's answer for the player to move.

    ``move``: the chosen move (``None`` once the game is over).  ``score``: centipawn-like,
    for the player to move (alpha-beta's score; MCTS maps its value to the same scale).
    ``value``: the expected result in [0, 1] for the player to move (MCTS's mean return;
    alpha-beta leaves it ``None``).  ``proven``: ``"win"``, ``"loss"`` or ``"draw"`` for the
    player to move when the search proved it; ``mate``: moves of the player to move until
    the proven end, negative when losing.  ``pv``: the expected line, starting with ``move``.
    ``info``: more, per search (``level``, ``iterations``, ...).
    """

    move: Move | None
    score: int | None = None
    value: float | None = None
    proven: str | None = None
    mate: int | None = None
    pv: list[Move] = field(default_factory=list)
    nodes: int = 0
    depth: int = 0
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)


def check_analysis_limit(
    limit: Limit, stop: threading.Event | None, game: str, *, depth: bool = False
) -> None:
    """The preamble of every game's analysis: refuse (:class:`GameError`) a search that
    nothing would end.  ``depth``: the search honours a depth limit (alpha-beta); a
    Monte-Carlo search does not, so a depth alone is refused even with a stop event (the
    caller would not get the depth asked for)."""
    if limit.time is not None or limit.nodes is not None:
        return
    if depth:
        if limit.depth is None and stop is None:
            raise GameError(f"{game} analysis needs a time, nodes or depth limit, or a stop")
    elif stop is None or limit.depth is not None:
        raise GameError(f"{game} is analysed by MCTS: give a time or nodes limit (not only depth)")


def clock_budget(remaining_ms: float, increment_ms: float = 0) -> float:
    """Seconds to think for one move on a clock with ``remaining_ms`` left and
    ``increment_ms`` added per move: about a twentieth of what is left plus most of the
    increment, never more than half of what is left (shared by UGI and the web's computer)."""
    budget_ms = min(remaining_ms / 20 + increment_ms * 0.8, remaining_ms / 2)
    return max(0.005, budget_ms / 1000)
