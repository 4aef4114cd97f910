"""Independent compiled baselines: a plain UCT per game, the yardstick of ``bench/strength.py``.

Every baseline is written the way generic game programs do it -- UCB1 with c = 1.4, one node
added per iteration, uniformly random playouts to the end, a fresh tree each move, the most
visited move played -- with its own move generation, tree and playouts compiled by numba.  It
reads a position through the public game API only (``describe_board``, ``fen``, cell names)
and uses nothing of Slimetrail's AI.  See README.md here for their speeds.
"""

from __future__ import annotations

from importlib import import_module
from typing import Protocol

from slimetrail.core.game import Game, GameError, Move, State

# Game id -> the module of bench.baselines whose make_baseline(game) builds its baseline.
MODULES = {
    "slimetrail": "trail",
    "slimetrail-hex": "trail",
    "slimetrail-square": "trail",
    "slime-moku": "moku",
    "snake-pit": "snakepit",
    "slither": "slither",
    "slither-advanced": "slither",
}


class Baseline(Protocol):
    name: str

    def choose(self, state: State, seconds: float, seed: int) -> tuple[Move, int]:
        """The move a plain UCT plays after ``seconds`` of search from ``state`` (left
        unchanged), and how many playouts it ran."""
        ...


class FixedBaseline(Protocol):
    """A baseline that also runs a fixed number of playouts (Slime Trail games, Slime-Moku)."""

    name: str

    def choose(
        self, state: State, seconds: float, seed: int, playouts: int | None = None
    ) -> tuple[Move, int]:
        """As :meth:`Baseline.choose`; with ``playouts``, exactly that many, no clock."""
        ...


def baseline_for(game: Game) -> Baseline:
    """The baseline of ``game``; a clear error for a game that has none."""
    module = MODULES.get(game.id)
    if module is None:
        known = ", ".join(sorted(MODULES))
        raise GameError(f"no baseline for game {game.id!r} (baselines exist for: {known})")
    return import_module(f"bench.baselines.{module}").make_baseline(game)  # type: ignore[no-any-return]
