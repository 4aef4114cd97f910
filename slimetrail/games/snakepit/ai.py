"""Snake Pit's computer players: a greedy evaluator, best-reply search and max^n MCTS.

The evaluation (:func:`.kernel.evaluate`) asks how many more turns of three each player can
make: the board is shared out by one breadth-first walk from every snake at once, and four
snakes with rooms ``r1..r4`` last the largest ``t`` with ``sum(min(r, t)) >= 3 t`` turns
(every turn needs three distinct snakes; the rules put out a player whose fourth snake
cannot help).  A turn's score is the mover's turns left minus the best opponent's.

* :class:`GreedyLevel` scores every turn by that evaluation (with noise for the weaker
  levels): the cheap one-turn look.
* :class:`BestReplyLevel`: best-reply search (Schadd & Winands 2011), the second opinion --
  the opponents are taken as one player who makes the single reply worst for the mover, and a
  turn is worth its own evaluation plus the one after that reply; on a beam of the greedy
  favourites, so that a turn of three steps (up to 864 ways) stays cheap.
* :class:`SnakeMcts`: the generic max^n MCTS (:mod:`slimetrail.ai.mcts`, each player
  maximising its own return) with progressive widening: the root offers only its best turns
  by the evaluation, deeper nodes their best by the snakes' exits; a leaf is valued by three
  compiled playout turns (each the best of three random turns by exits), after which the
  evaluation ranks the players -- the outcome the position promises (from the endgame on,
  the compiled top level plays its leaves to the end instead, and orders the opponents'
  replies below the root by the evaluation too).  The top level plays it compiled
  (:mod:`.fastmcts`, :class:`CompiledMctsLevel`), some 35 times more iterations a move;
  this Python one is its readable reference.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from slimetrail.ai.levels import Ladder, RandomLevel
from slimetrail.ai.limits import Limit, PlayResult, check_analysis_limit
from slimetrail.ai.mcts import MCTS, Node
from slimetrail.core.game import GameError, Move, State
from slimetrail.core.i18n import N_
from slimetrail.core.loading import KernelLoad
from slimetrail.games.snakepit import kernel
from slimetrail.games.snakepit.fastmcts import CompiledMcts, alive, run_beside
from slimetrail.games.snakepit.game import SnakePitGame, SnakePitState


def turn_scores(state: SnakePitState) -> tuple[list[Move], np.ndarray]:
    """The legal turns (the rules' order) and each one's evaluation for the mover."""
    moves = state.legal_moves()
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    scores = np.empty(kernel.MAX_TURNS, np.float64)
    n = kernel.score_turns(heads, empty, alive(state), state.to_move, state.k, kernel.NBR, scores)
    assert n == len(moves)
    return moves, scores[:n]


def pit(state: State) -> SnakePitState:
    """``state`` as a Snake Pit position (these players play nothing else)."""
    if not isinstance(state, SnakePitState):
        raise GameError(f"the Snake Pit players cannot play {state.game.id}")
    return state


def best_turns(state: SnakePitState, width: int) -> list[Move]:
    """The mover's ``width`` best turns by the evaluation, best first."""
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    chosen = np.empty((width, 3, 2), np.int64)
    scores = np.empty(width, np.float64)
    k = state.k
    n = kernel.best_turns(
        heads, empty, alive(state), state.to_move, k, kernel.NBR, width, chosen, scores
    )
    return [tuple((int(a), int(b)) for a, b in chosen[i, :k]) for i in range(n)]


def quick_turns(state: SnakePitState, width: int) -> list[Move]:
    """The mover's ``width`` best turns by :func:`.kernel.exits_score`, best first."""
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    chosen = np.empty((width, 3, 2), np.int64)
    k = state.k
    n = kernel.quick_best_turns(heads, empty, state.to_move, k, kernel.NBR, width, chosen)
    return [tuple((int(a), int(b)) for a, b in chosen[i, :k]) for i in range(n)]


def best_of(moves: list[Move], scores: np.ndarray, rng: random.Random, noise: float) -> int:
    """The index of the best score after Gaussian noise (ties broken at random)."""
    noisy = [s + rng.gauss(0.0, noise) + 1e-6 * rng.random() for s in scores]
    return max(range(len(moves)), key=noisy.__getitem__)


@dataclass(frozen=True)
class GreedyLevel:
    """The best turn by the evaluation, each score blurred by ``noise`` (in turns)."""

    description: str
    noise: float = 0.0

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        moves, scores = turn_scores(pit(state))
        best = best_of(moves, scores, rng, self.noise)
        return PlayResult(moves[best], score=round(100 * scores[best]), depth=1)


def best_reply(state: SnakePitState, beam: int, rng: random.Random) -> PlayResult:
    """Best-reply search on the ``beam`` turns the evaluation likes best, each valued by its
    own evaluation plus the mover's after the opponents' worst reply to it (the worst reply
    alone, the paranoid view of a three-player game, scored no better than the greedy level:
    bench/RESULTS.md, session 35)."""
    moves, scores = turn_scores(state)
    order = np.argsort(-scores, kind="stable")[:beam]
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    worst = np.empty(len(order), np.float64)
    kernel.best_reply_scores(
        heads,
        empty,
        alive(state),
        state.to_move,
        state.k,
        kernel.NBR,
        order,
        worst,
    )
    values = scores[order] + worst
    # Among equal values the greedy favourite (the beam is in its order), then at random.
    top = max(values)
    chosen = [int(order[i]) for i, v in enumerate(values) if v == top]
    move = moves[chosen[0] if scores[chosen[0]] > scores[chosen[-1]] else rng.choice(chosen)]
    return PlayResult(move, score=round(100 * top), depth=2, nodes=len(order))


@dataclass(frozen=True)
class BestReplyLevel:
    """Best-reply search two plies deep over a beam of ``beam`` turns."""

    description: str
    beam: int = 12

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        return best_reply(pit(state), self.beam, rng)


class SnakeMcts(MCTS):
    """Max^n MCTS whose nodes offer only their ``width`` best turns by the evaluation
    (``root_width`` at the root), tried best first."""

    def __init__(
        self,
        state: SnakePitState,
        *,
        seed: int,
        width: int,
        root_width: int,
        tries: int,
        turns: int | None,
    ) -> None:
        self.width, self.root_width = width, root_width
        super().__init__(state, seed=seed)
        # The playout policy, on the search's private copy only.
        self.pit = pit(self.state)  # the search's private copy, which it pushes and pops
        self.pit.playout_tries, self.pit.playout_turns = tries, turns

    def expand(self, node: Node) -> None:
        # The root's turns by the full evaluation; deeper ones by the snakes' exits alone.
        if node.move is None:
            node.untried = best_turns(pit(self.state), self.root_width)[::-1]  # pop(): best first
        else:
            node.untried = quick_turns(pit(self.state), self.width)[::-1]


@dataclass(frozen=True)
class CompiledMctsLevel:
    """:class:`.fastmcts.CompiledMcts`, :class:`SnakeMcts`'s search compiled, for the whole
    time limit (or ``nodes`` iterations)."""

    description: str
    # The longer the search, the wider it gains: 24 beat 16 at 20,000 iterations (session 32),
    # 40 beat 24 at 60,000 and at 1 s (bench/RESULTS.md, session 43)
    width: int = 40
    root_width: int = 40
    tries: int = 3
    turns: int = 3
    exploration: float = 0.5  # measured better than the generic 1.0 (bench/RESULTS.md)
    endgame: int = 45  # empty cells from which leaves are played out to the end
    # Of a move's time limit for the MCTS: the rest (the root's evaluation, the answer, the
    # tree's memory given back) took 0.002-0.014 of it on a quiet machine, the worst move of
    # the 1 s matches 1.00x the limit (RESULTS.md, session 45)
    time_share: float = 0.98
    fast: bool = True  # the rollouts' fast kernel (off: the reference, for the bench)
    judged: int = 2  # the opponents' replies to the root's turns too, by the evaluation
    bias: float = 1.0  # progressive bias: weight of the evaluation's chance in UCB
    # A node's turns are listed once it has been valued this many times: 8 instead of at its
    # second visit, some 15% more iterations a move and a seventh of the nodes, no weaker at
    # equal iterations (bench/RESULTS.md, session 45)
    expand_at: int = 8
    capacity: int = 4_000_000  # tree nodes, for long analyses: a 1 s move makes 0.2-0.4 M

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        started = time.perf_counter()  # the root's evaluation counts against the time
        if limit.time is not None:  # leave room for the answer
            limit = replace(limit, time=self.time_share * limit.time)
        if limit.time is None and limit.nodes is None:
            limit = replace(limit, time=self.time_share)
        trees = self.searches(pit(state), rng, limit.threads)
        return run_beside(trees, limit, started=started)

    def searches(
        self, state: SnakePitState, rng: random.Random, threads: int
    ) -> list[CompiledMcts]:
        """``threads`` fresh trees of this level's shape from ``state``, to run side by side
        (one when the root has nothing to decide)."""
        trees = [self.search(state, rng.getrandbits(64))]
        first = trees[0]
        if not first.winning and first.line is None and first.counts[0] > 1:
            trees += [self.search(state, rng.getrandbits(64)) for _ in range(threads - 1)]
        return trees

    def search(self, state: SnakePitState, seed: int) -> CompiledMcts:
        """A fresh search tree of this level's shape from ``state``."""
        return CompiledMcts(
            state,
            seed=seed,
            width=self.width,
            root_width=self.root_width,
            tries=self.tries,
            turns=self.turns,
            exploration=self.exploration,
            endgame=self.endgame,
            fast=self.fast,
            judged=self.judged,
            bias=self.bias,
            capacity=self.capacity,
            expand_at=self.expand_at,
        )


def analyse(
    state: State,
    limit: Limit,
    stop: threading.Event | None,
    on_info: Callable[[PlayResult], None] | None,
) -> PlayResult:
    """Full-strength analysis: the top level's compiled MCTS for the time or iterations
    given (or until ``stop``)."""
    check_analysis_limit(limit, stop, "snake-pit")
    top = LADDER.levels[LADDER.top]
    assert isinstance(top, CompiledMctsLevel)
    trees = top.searches(pit(state), random.Random(0), limit.threads)
    return run_beside(trees, limit, stop=stop, on_info=on_info)


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel function the players use, so that
    a server's worker pays for it before its first Snake Pit move rather than during one."""
    state = SnakePitGame().new_state()
    for level in LADDER.levels.values():
        level.play(state, Limit(nodes=4), random.Random(0))
    state.push(state.legal_moves()[0])
    state.push(state.legal_moves()[0])  # turns of three from here
    for level in LADDER.levels.values():
        level.play(state, Limit(nodes=4), random.Random(0))
    state.playout(random.Random(0))
    # The exact line of a player alone in its region (fastmcts.alone), which no position
    # above reaches: on the arrays of the position two turns in, a budget of a few turns.
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    first = np.empty((3, 2), np.int64)
    kernel.longest_line(heads[1], empty, 3, 8, kernel.NBR, 4, first)


KERNELS = KernelLoad(warm_up, "Snake Pit kernels")
LADDER = Ladder(
    {
        1: RandomLevel(N_("beginner: random turns, but takes a win in one")),
        2: GreedyLevel(N_("novice: the best-looking turn, often misjudged"), noise=3.0),
        3: GreedyLevel(N_("casual: the turn that leaves it the most room against the others")),
        4: BestReplyLevel(N_("club: best-reply search, the opponents' worst answer considered")),
        5: CompiledMctsLevel(N_("strong: Monte-Carlo search (max^n) for the whole time limit")),
    },
    analyse,
    kernels=KERNELS,
)
