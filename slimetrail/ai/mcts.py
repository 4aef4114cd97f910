"""Monte-Carlo tree search over the generic game interface, for any number of players.

UCT (Kocsis & Szepesvari) with max^n backups: every node keeps the summed returns of
every player (``Outcome.returns()``, each in [0, 1]) and a node's player to move chooses
among its children by *their own* mean return plus the exploration term.  Nothing assumes
that turns alternate: the player to move is asked of each position, so a swap handing the
turn back or a player who is out and skipped just works.

Leaves are valued by ``State.playout(rng)`` (random moves to the end, or a game's faster
or smarter playout).  Finished positions are exact: they are never played out, and in
two-player zero-sum games proven values climb the tree as in MCTS-Solver (Winands et al.
2008): a node is won when one child is won for its mover and lost when all children are
lost, so a forced win is played even when its playouts look poor.

Randomness comes from one ``random.Random(seed)``; with an iteration limit (``Limit(nodes=)``)
the search is deterministic for a seed.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable

from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.ai.search import EVAL_SCALE
from slimetrail.core.game import GameError, Move, State

EXPLORATION = 1.0  # UCT constant for returns in [0, 1]
INFO_EVERY = 1_000  # iterations between on_info reports


class Node:
    """A position in the tree: its mover, children, visits and every player's return sum."""

    __slots__ = ("children", "move", "player", "proven", "sums", "untried", "visits")

    def __init__(self, move: Move | None, player: int, num_players: int) -> None:
        self.move = move
        self.player = player  # to move here; 0 in a finished position
        self.children: list[Node] = []
        self.untried: list[Move] | None = None  # filled when the node is first expanded
        self.visits = 0
        self.sums = [0.0] * num_players
        self.proven: tuple[float, ...] | None = None  # exact returns, once known

    def mean(self, player: int) -> float:
        if self.proven is not None:
            return self.proven[player - 1]
        return self.sums[player - 1] / self.visits if self.visits else 0.5


class TreeSearch:
    """The loop every Monte-Carlo tree search of the platform shares (this module's generic
    search and the games' own, such as Slither's RAVE search over its kernel): iterate until
    the limit, the stop event or a proven root, reporting to ``on_info`` as it goes.

    A search supplies :meth:`iterate` (one descent, playout and backup, counting
    ``iterations``), :meth:`root_proven` and :meth:`result`; :meth:`prepare` runs before the
    first iteration of each run."""

    name = "MCTS"  # in the error for a run with nothing to end it
    info_every = INFO_EVERY
    iterations: int

    def iterate(self) -> None:
        raise NotImplementedError

    def root_proven(self) -> bool:
        raise NotImplementedError

    def result(self, seconds: float) -> PlayResult:
        raise NotImplementedError

    def prepare(self, deadline: float | None, stop: threading.Event | None) -> None:
        """Work before the first iteration, within the deadline (none by default)."""

    def answer(
        self, pv: list[Move], value: float, proven: str | None, visits: int, seconds: float
    ) -> PlayResult:
        """The search's answer: its line, the mover's expected result ``value`` in [0, 1]
        (also on the score scale), what is proven and the first move's visits."""
        return PlayResult(
            pv[0],
            score=round((2 * value - 1) * EVAL_SCALE),
            value=value,
            proven=proven,
            pv=pv,
            nodes=self.iterations,
            depth=len(pv),
            seconds=seconds,
            info={"iterations": self.iterations, "visits": visits},
        )

    def run(
        self,
        limit: Limit | None = None,
        *,
        stop: threading.Event | None = None,
        on_info: Callable[[PlayResult], None] | None = None,
    ) -> PlayResult:
        """Iterate until ``limit`` (``nodes`` = iterations, ``time`` in seconds) or ``stop``;
        ends early (or at once) when the root is proven.  May be called again to search
        further on the same tree."""
        limit = limit or Limit()
        if limit.time is None and limit.nodes is None and stop is None:
            raise GameError(f"{self.name} needs a time or nodes limit, or a stop event")
        started = time.perf_counter()
        deadline = limit.deadline(started)
        target = None if limit.nodes is None else self.iterations + limit.nodes
        self.prepare(deadline, stop)
        done = 0
        while not self.root_proven():
            if done and (
                (deadline is not None and time.perf_counter() >= deadline)
                or (stop is not None and stop.is_set())
            ):
                break
            self.iterate()
            done += 1
            if target is not None and self.iterations >= target:
                break
            if on_info is not None and done % self.info_every == 0:
                on_info(self.result(time.perf_counter() - started))
        result = self.result(time.perf_counter() - started)
        if on_info is not None:
            on_info(result)
        return result


class MCTS(TreeSearch):
    """One search tree over a private copy of ``state`` (the caller's state never changes).

    ``run(limit)`` may be called again to search further on the same tree.
    """

    def __init__(
        self,
        state: State,
        *,
        seed: int | None = None,
        exploration: float = EXPLORATION,
        solver: bool | None = None,
    ) -> None:
        game = state.game
        if not state.legal_moves():
            raise GameError("the game is over: there is nothing to search")
        self.state = state.copy()
        self.rng = random.Random(seed)
        self.exploration = exploration
        self.players = game.num_players
        self.solver = game.num_players == 2 and game.zero_sum if solver is None else solver
        self.root = Node(None, state.to_move, self.players)
        self.iterations = 0
        self.expand(self.root)
        self.unchecked = list(self.root.untried or ())  # root moves not yet tried for a win

    def prepare(self, deadline: float | None, stop: threading.Event | None) -> None:
        """A win in one is never left to chance: every root move that ends the game is
        looked at before the first playout (as far as the time allows)."""
        root = self.root
        assert root.untried is not None
        while self.unchecked:
            if stop is not None and stop.is_set():
                return
            if deadline is not None and time.perf_counter() >= deadline:
                return
            move = self.unchecked.pop()
            if move not in root.untried:
                continue  # expanded by an earlier run, which saw whether it ends the game
            self.state.push(move)
            try:
                if self.state.outcome() is not None:
                    root.untried.remove(move)
                    self.child(root, move)
            finally:
                self.state.pop()
        self.solve(root)

    # -- the search -------------------------------------------------------------------

    def root_proven(self) -> bool:
        return self.root.proven is not None

    def iterate(self) -> None:
        """One selection, expansion, playout and backup."""
        state = self.state
        node = self.root
        path = [node]
        pushed = 0
        try:
            while True:
                if node.proven is not None:
                    returns = node.proven
                    break
                if node.untried is None:
                    self.expand(node)
                    if node.proven is not None:
                        returns = node.proven
                        break
                assert node.untried is not None
                if node.untried:
                    move = node.untried.pop()
                    state.push(move)
                    pushed += 1
                    child = self.child(node, move)
                    path.append(child)
                    if child.proven is not None:
                        returns = child.proven
                    else:
                        returns = state.playout(self.rng).returns()
                    break
                node = self.select(node)
                state.push(node.move)
                pushed += 1
                path.append(node)
        finally:
            for _ in range(pushed):
                state.pop()
        for visited in path:
            visited.visits += 1
            sums = visited.sums
            for i, value in enumerate(returns):
                sums[i] += value
        for visited in reversed(path[:-1]):
            if not self.solve(visited):
                break
        self.iterations += 1

    def expand(self, node: Node) -> None:
        moves = self.state.legal_moves()
        self.rng.shuffle(moves)
        node.untried = moves

    def child(self, parent: Node, move: Move) -> Node:
        """The node of the position just reached by ``move`` (already pushed)."""
        outcome = self.state.outcome()
        node = Node(move, 0 if outcome is not None else self.state.to_move, self.players)
        if outcome is not None:
            node.proven = outcome.returns()
        parent.children.append(node)
        return node

    def select(self, node: Node) -> Node:
        """UCT by the value of the player to move at ``node``."""
        player = node.player
        log_n = math.log(node.visits)
        c = self.exploration
        best, best_value = node.children[0], -math.inf
        for child in node.children:
            if not child.visits:  # a finished root child seen before the first playout
                return child
            value = child.mean(player) + c * math.sqrt(log_n / child.visits)
            if value > best_value:
                best, best_value = child, value
        return best

    def solve(self, node: Node) -> bool:
        """Prove ``node`` from its children where possible: a child that gives the mover the
        best possible return (1: alone in first place) proves it in any game; in two-player
        zero-sum games (MCTS-Solver) so do children that are all proven."""
        player = node.player
        proven = [child.proven for child in node.children if child.proven is not None]
        won = [p for p in proven if p[player - 1] == 1.0]
        if won:
            node.proven = won[0]
            return True
        if not self.solver or node.untried or len(proven) < len(node.children):
            return False
        node.proven = max(proven, key=lambda p: p[player - 1])
        return True

    # -- the answer -------------------------------------------------------------------

    def best_child(self) -> Node:
        root = self.root
        player = root.player
        if root.proven is not None:
            # A proven root: the best proven child, the most visited among equals.
            target = root.proven[player - 1]
            exact = [c for c in root.children if c.proven is not None and c.proven == root.proven]
            if not exact:
                exact = [c for c in root.children if c.mean(player) == target]
            return max(exact, key=lambda c: c.visits)
        # Otherwise the most visited, never a child proven to give the worst return.
        candidates = [
            c for c in root.children if c.proven is None or c.proven[player - 1] > 0.0
        ] or root.children
        return max(candidates, key=lambda c: (c.visits, c.mean(player)))

    def result(self, seconds: float) -> PlayResult:
        root = self.root
        if not root.children:  # stopped before the first expansion
            move = self.state.legal_moves()[0]
            return PlayResult(move, score=0, value=0.5, pv=[move], seconds=seconds)
        best = self.best_child()
        player = root.player
        value = best.mean(player)
        proven = None
        if root.proven is not None:
            proven = {1.0: "win", 0.0: "loss"}.get(root.proven[player - 1], "draw")
        pv = [best.move]
        node = best
        while node.children:
            node = max(node.children, key=lambda c: c.visits)
            pv.append(node.move)
        return self.answer(pv, value, proven, best.visits, seconds)


def mcts(
    state: State,
    limit: Limit,
    *,
    seed: int | None = None,
    stop: threading.Event | None = None,
    on_info: Callable[[PlayResult], None] | None = None,
    exploration: float = EXPLORATION,
) -> PlayResult:
    """One MCTS from ``state`` within ``limit``: the move and what the search thinks of it."""
    return MCTS(state, seed=seed, exploration=exploration).run(limit, stop=stop, on_info=on_info)
