"""Playing strength levels: a ladder of computer players per game.

Every game gets levels 1..top.  A game declares its own ladder by overriding
``Game.ai_ladder()`` to return a :class:`Ladder` (the Slime Trail games, Slime-Moku,
Slither and Snake Pit have their own, in their folders); every other game gets
:func:`mcts_ladder` (level 1 random but never missing a win in one, then MCTS with more and
more iterations, the top level searching for the whole time limit).

Every level is deterministic for a given ``seed``: randomness comes from a generator seeded
by ``(seed, position key)``, and the searches are bounded by node or iteration counts rather
than by the clock -- except the MCTS ladder's top level, which uses all the time it is given.
The limit's ``time`` is otherwise only a hard cap for slow machines or big boards (when it
cuts a search short, the move depends on how far the search got).  It counts from the call:
no timed move waits for numba to load a game's kernels (:mod:`slimetrail.core.loading`): a
level that needs them is wrapped in :class:`UntilLoaded` with a stand-in, and a ladder whose
every level is compiled names them once, ``Ladder(kernels=...)``, for a random stand-in.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.ai.mcts import MCTS
from slimetrail.core.game import Game, GameError, Move, State
from slimetrail.core.loading import KernelLoad

DEFAULT_LIMIT = Limit(time=1.0)

Info = Callable[[PlayResult], None]


@dataclass(frozen=True)
class SolverChoice:
    """A proven move: what a ladder's ``solved`` hook answers."""

    move: Move
    value: str  # "win", "loss" or "draw" for the side to move, proven
    plies: int | None  # game length under best play after this move, if it was computed
    nodes: int = 0  # the solver's nodes for the value proof (0: from a book)


class Player(Protocol):
    """One level of a ladder: a description for people and a way to choose a move."""

    @property
    def description(self) -> str:
        """What the level is, for people (read-only: levels are frozen dataclasses)."""

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        """A move for the player to move; ``state`` has a legal move and must be left as it
        was.  A player honours the bounds of ``limit`` it has a use for (at least the time)."""


@dataclass(frozen=True)
class Ladder:
    """A game's computer players, by level (1 the weakest), and its analysis search."""

    levels: Mapping[int, Player]
    analyse: Callable[[State, Limit, threading.Event | None, Info | None], PlayResult]
    # A proven move where the game's books or exact solver answer in time, for engines that
    # report proven scores: (state, perf_counter deadline, fallback nodes, stop), or None.
    solved: Callable[[State, float, int, threading.Event | None], SolverChoice | None] | None = None
    # The compiled kernels every level needs: until they are loaded (in the background, see
    # :mod:`slimetrail.core.loading`), a timed move is a random one that takes a win in one.
    kernels: KernelLoad | None = None

    def player(self, level: int) -> Player:
        """Level ``level``'s player, standing in for it while the ladder's kernels load."""
        player = self.levels[level]
        if self.kernels is None:
            return player
        return UntilLoaded(player, self.kernels, WHILE_LOADING, "random")

    def __post_init__(self) -> None:
        if sorted(self.levels) != list(range(1, len(self.levels) + 1)):
            raise ValueError(f"ladder levels must be 1..n, not {sorted(self.levels)}")

    @property
    def top(self) -> int:
        return len(self.levels)


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
WHILE_LOADING = RandomLevel("random, but takes a win in one: while the kernels load")


@dataclass(frozen=True)
class UntilLoaded:
    """``level``, which needs ``kernels``; a timed move never waits for their load: until
    they are loaded (in the background) ``stand_in`` plays it, its info naming ``stand_in_kind``."""

    level: Player
    kernels: KernelLoad
    stand_in: Player
    stand_in_kind: str  # "random", "alpha-beta": what the move's info says played it

    @property
    def description(self) -> str:
        return self.level.description

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        if limit.time is not None and not self.kernels.ready():
            result = self.stand_in.play(state, limit, rng)
            result.info["search"] = f"{self.stand_in_kind} (compiled kernels still loading)"
            return result
        return self.level.play(state, limit, rng)


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
    rng = random.Random(hash((seed, state.key())) if seed is not None else None)
    if len(moves) == 1:
        result = PlayResult(moves[0], pv=[moves[0]])
    else:
        result = ladder.player(level).play(state, limit, rng)
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
    """The game's analysis search at full strength (its ladder's: alpha-beta for the Slime
    Trail games, MCTS for games without a ladder of their own), within ``limit`` or until
    ``stop``; ``state`` is not changed."""
    if state.is_over():
        raise GameError("the game is over: there is nothing to analyse")
    return ladder_for(state.game).analyse(state, limit or DEFAULT_LIMIT, stop, on_info)
