"""Snake Pit's top level: the max^n MCTS of :class:`.ai.SnakeMcts`, the whole search compiled.

The tree of the Python one (:class:`.ai.SnakeMcts` on :mod:`slimetrail.ai.mcts`, its
readable reference) with ``judged=1``, no bias and ``expand_at=1``: the root offers its
``root_width`` best turns by the evaluation, every other node its ``width`` best by the
snakes' exits (:func:`.kernel.quick_best_turns`), tried best first, then chosen by UCB1 on
the mover's own mean return (max^n); a leaf is valued by :func:`.kernel.fast_rollout`
(``turns`` playout turns, each the best of ``tries`` random turns by exits) after which the
players still in are ranked by the evaluation: returns 1, 0.5 and 0 by place, the players
out placed by the order they went out; from the endgame on (``endgame`` empty cells) the
leaves are played to the end instead.  The top level also orders the nodes fewer than
``judged`` turns deep (the opponents' replies to the root's turns) by the evaluation -- the
exits' favourites were rarely the replies the opponents played -- and adds a progressive
bias toward the evaluation's favourites there (``bias``), and lists a node's turns only once
it has been valued ``expand_at`` times (until then each visit values the node itself).  In
numba the search runs tens of times more iterations in a move than in Python.

The tree is a set of arrays; a node's children are contiguous, created together when the
node is first expanded.  The search reads the clock itself every :data:`CLOCK_EVERY`
iterations (a thread woken at the deadline ran late on a loaded machine, when it waited for
a core), and runs without the GIL, so that :class:`Watcher` can stop it on a stop event and
:func:`run_beside` can run several trees of one position on as many cores (root
parallelism), their roots' visits summed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from slimetrail.ai.limits import Limit, PlayResult, shared_out
from slimetrail.ai.search import EVAL_SCALE
from slimetrail.compiled import now
from slimetrail.core.game import GameError, Move
from slimetrail.games.snakepit import kernel
from slimetrail.games.snakepit.game import SnakePitState

EXPLORATION = 1.0  # as slimetrail.ai.mcts, for returns in [0, 1]
UNKNOWN = -1  # a node's player before its position is first reached
USED, ALLOWED = 0, 1  # the budget array: iterations run, the most allowed (-1: stop now)
CLOCK_EVERY = 63  # iterations between two looks at the clock (a mask: every 64th)
NO_DEADLINE = math.inf


@nb.njit(cache=True, inline="always")
def gone(out, n_out, p):
    """Whether player ``p`` is among the ``n_out`` players out (at most two)."""
    return (n_out > 0 and out[0] == p) or (n_out > 1 and out[1] == p)


@nb.njit(cache=True)
def leaf_returns(out, n_out, values, returns):
    """``returns[p]`` by place: the players still in ranked by ``values`` (ties to the lower
    player number), then the players out, the last to go out first."""
    returns[:] = 0.0
    if n_out == 2:
        returns[out[1]] = 0.5
    for p in range(1, 4):
        if gone(out, n_out, p):
            continue
        above = 0
        for q in range(1, 4):
            if (
                q != p
                and not gone(out, n_out, q)
                and (values[q] > values[p] or (values[q] == values[p] and q < p))
            ):
                above += 1
        returns[p] = (2 - above) / 2


@nb.njit(cache=True)
def prior(score):
    """A turn's evaluation (the mover's turns left less the best other's) as a chance in
    (0, 1): 0.5 for even, about 0.73 for two turns ahead."""
    return 1.0 / (1.0 + math.exp(-0.5 * max(min(score, 100.0), -100.0)))


@nb.njit(cache=True)
def span(left, turns, endgame):
    """The turns of a leaf's rollout with ``left`` cells empty: ``turns``, or to the end of
    the game once at most ``endgame`` cells are -- where the evaluation's rooms, which count
    cells rather than paths through them, are least exact and a playout to the end is
    short."""
    return kernel.MAX_PLIES if left <= endgame else turns


@nb.njit(cache=True)
def value_leaf(h, e, left, mv, kk, o, no, nbr, adj, rng, params, values):
    """A leaf's rollout (:func:`.kernel.fast_rollout`, or the reference
    :func:`.kernel.rollout` that lists every turn: the same turns, slower), ``left`` cells
    empty, by :func:`search`'s ``params``; returns ``n_out``."""
    tries, turns = np.int64(params[1]), np.int64(params[2])
    endgame, fast = np.int64(params[4]), params[5] > 0
    seed = np.int64(kernel.next_random(rng) >> np.uint64(2))
    span_ = span(left, turns, endgame)
    if fast:
        return kernel.fast_rollout(h, e, mv, kk, o, no, nbr, adj, seed, tries, span_, values)
    return kernel.rollout(h, e, mv, kk, o, no, nbr, seed, tries, span_, values)


@nb.njit(cache=True, nogil=True)
def search(
    heads, empty, mover, k, out, n_out, nbr, adj, tree, priors, meta, rng, params, budget, deadline
):
    """Iterate until ``budget[USED]`` (iterations) reaches ``budget[ALLOWED]``, the clock
    (``time.monotonic``) passes ``deadline`` or the nodes run out.  ``tree`` = (moves,
    players, firsts, counts, tried, visits, sums); ``meta[0]`` the nodes in use; ``params``
    = (width, tries, turns, exploration, endgame, fast, judged, bias, expand_at): nodes
    fewer than ``judged`` turns below the root offer their best turns by the evaluation, the
    deeper ones by the snakes' exits; ``priors[c]`` is child ``c``'s evaluation as a chance
    (:func:`prior`; 0.5 where only exits ordered it), added to its UCB score as ``bias *
    prior / (visits + 1)`` (progressive bias, fading with visits); a node below the root is
    expanded once it has ``expand_at`` visits."""
    moves, players, firsts, counts, tried, visits, sums = tree
    width, exploration = np.int64(params[0]), params[3]
    capacity = players.shape[0]
    path = np.empty(kernel.MAX_PLIES + 2, np.int64)
    chosen = np.empty((width, 3, 2), np.int64)
    buf = np.empty((kernel.MAX_TURNS, 3, 2), np.int64)
    scores = np.empty(kernel.MAX_TURNS, np.int64)
    values = np.zeros(4, np.float64)
    returns = np.zeros(4, np.float64)
    judged, bias = np.int64(params[6]), params[7]
    expand_at = np.int64(params[8])
    judged_scores = np.empty(width, np.float64)
    live = np.zeros(4, np.bool_)
    # One position for every iteration, reset in place; its empty cells counted as it fills.
    h, e, o = heads.copy(), empty.copy(), out.copy()
    root_left = 0
    for cell in range(empty.shape[0]):
        root_left += empty[cell]
    while budget[USED] < budget[ALLOWED]:
        if (budget[USED] & CLOCK_EVERY) == 0 and deadline < NO_DEADLINE and now() >= deadline:
            break
        h[:] = heads
        e[:] = empty
        o[:] = out
        no, mv, kk, left = n_out, mover, k, root_left
        node, depth = 0, 0
        path[0] = 0
        while True:
            if mv == 0:  # a finished game
                leaf_returns(o, no, values, returns)
                break
            if firsts[node] < 0:
                if meta[0] + width > capacity or visits[node] < expand_at:
                    # the tree is full, or the node too little visited: value it as it is
                    no = value_leaf(h, e, left, mv, kk, o, no, nbr, adj, rng, params, values)
                    leaf_returns(o, no, values, returns)
                    break
                if depth < judged:  # near the root: the full evaluation's best turns
                    live[1:] = True
                    for i in range(no):
                        live[o[i]] = False
                    m = kernel.best_turns(h, e, live, mv, kk, nbr, width, chosen, judged_scores)
                    for i in range(m):
                        priors[meta[0] + i] = prior(judged_scores[i])
                else:
                    m = kernel.select_quick(h, e, mv, kk, nbr, adj, width, chosen, buf, scores)
                    priors[meta[0] : meta[0] + m] = 0.5
                first = meta[0]
                meta[0] += m
                firsts[node], counts[node], tried[node] = first, m, 0
                for i in range(m):
                    c = first + i
                    moves[c] = chosen[i]
                    moves[c, kk:] = -1  # the steps a turn of kk leaves unused
                    players[c], firsts[c], visits[c] = UNKNOWN, -1, 0
                    sums[c] = 0.0
            if tried[node] < counts[node]:  # the next untried turn, best first
                child = firsts[node] + tried[node]
                tried[node] += 1
                expanding = True
            else:  # UCB1 on the mover's own mean return
                log_n = math.log(visits[node])
                child, best = -1, -1.0
                for c in range(firsts[node], firsts[node] + counts[node]):
                    score = sums[c, mv] / visits[c] + exploration * math.sqrt(log_n / visits[c])
                    score += bias * priors[c] / (visits[c] + 1)
                    if score > best:
                        child, best = c, score
                expanding = False
            kernel.apply_turn(h, e, mv, moves, child, kk)
            left -= kk
            kk = min(kk + 1, 3)
            mv, no = kernel.advance(h, e, mv, kk, o, no, nbr)
            players[child] = mv
            depth += 1
            path[depth] = child
            node = child
            if expanding:
                if mv == 0:
                    leaf_returns(o, no, values, returns)
                else:
                    no = value_leaf(h, e, left, mv, kk, o, no, nbr, adj, rng, params, values)
                    leaf_returns(o, no, values, returns)
                break
        for i in range(depth + 1):
            n = path[i]
            visits[n] += 1
            for p in range(1, 4):
                sums[n, p] += returns[p]
        budget[USED] += 1


class Watcher:
    """A thread that sets ``budget[ALLOWED]`` to -1 when ``stop`` is set, so that a compiled
    search running without the GIL stops at its next iteration."""

    def __init__(self, budget: np.ndarray, stop: threading.Event) -> None:
        self.budget = budget
        self.stop = stop
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self) -> None:
        while not self.stop.is_set() and not self.finished.wait(0.005):
            pass
        self.budget[ALLOWED] = -1  # the search in flight stops at its next check

    def done(self) -> None:
        """The search is over: end the thread."""
        self.finished.set()
        self.thread.join()


def alive(state: SnakePitState) -> np.ndarray:
    """``alive[p]``: whether player ``p`` is still in the game (index 0 unused)."""
    return np.array([False] + [p not in state.out for p in (1, 2, 3)])


LONGEST_BUDGET = 20_000  # turns tried by the exact search of a region (some 20-40 ms)


def alone(state: SnakePitState, heads: np.ndarray, empty: np.ndarray) -> tuple[int, Move] | None:
    """When no other player can reach the empty cells the mover's snakes can, its best play
    is the longest line of turns in them, whatever the others do: (its length, its first
    turn), if :func:`.kernel.longest_line` finds it within :data:`LONGEST_BUDGET`."""
    cells = kernel.region_apart(heads, empty, alive(state), state.to_move, kernel.NBR)
    if cells < 0:
        return None
    first = np.empty((3, 2), np.int64)
    snakes = heads[state.to_move]
    turns = kernel.longest_line(snakes, empty, state.k, cells, kernel.NBR, LONGEST_BUDGET, first)
    if turns <= 0:
        return None
    return turns, tuple((int(a), int(b)) for a, b in first[: state.k])


class CompiledMcts:
    """One compiled search tree from ``state`` (not changed); :meth:`run` may be called again
    to search further on the same tree."""

    def __init__(
        self,
        state: SnakePitState,
        *,
        seed: int,
        width: int,
        root_width: int,
        tries: int,
        turns: int,
        exploration: float = EXPLORATION,
        endgame: int = 0,
        fast: bool = True,
        judged: int = 1,
        bias: float = 0.0,
        capacity: int = 1_000_000,
        expand_at: int = 1,
    ) -> None:
        if not state.to_move:
            raise GameError("the game is over: there is nothing to search")
        self.state = state
        self.heads, self.empty, self.out = kernel.arrays(state.heads, state.empty, state.out)
        self.params = np.array(
            [width, tries, turns, exploration, endgame, fast, judged, bias, expand_at], np.float64
        )
        # Uninitialised: a node's fields are written when it is created, so the memory of
        # the nodes a short search never reaches is never touched.  The narrowest types
        # that hold them (65 bytes a node, not 128: a 1 s move makes millions): cells fit
        # 16 bits, a node's turns (at most the width) 16, the node count and the visits 32;
        # the sums of returns and the priors keep 64-bit floats (32-bit sums of halves
        # stop being exact past 2**23 visits, which a long analysis reaches).
        self.moves = np.empty((capacity, 3, 2), np.int16)
        self.players = np.empty(capacity, np.int8)
        self.firsts = np.empty(capacity, np.int32)
        self.counts = np.empty(capacity, np.int16)
        self.tried = np.empty(capacity, np.int16)
        self.visits = np.empty(capacity, np.int32)
        self.sums = np.empty((capacity, 4), np.float64)
        self.priors = np.empty(capacity, np.float64)
        self.meta = np.zeros(1, np.int64)
        self.rng = np.array([(seed * 0x9E3779B97F4A7C15) % (1 << 64) or 1], np.uint64)
        self.iterations = 0
        # The root: its best turns by the full evaluation, best first.
        chosen = np.empty((root_width, 3, 2), np.int64)
        scores = np.empty(root_width, np.float64)
        n = kernel.best_turns(
            self.heads,
            self.empty,
            alive(state),
            state.to_move,
            state.k,
            kernel.NBR,
            root_width,
            chosen,
            scores,
        )
        self.players[0], self.visits[0], self.sums[0] = state.to_move, 0, 0.0
        self.firsts[0], self.counts[0], self.tried[0] = 1, n, 0
        self.moves[1 : 1 + n] = -1
        self.moves[1 : 1 + n, : state.k] = chosen[:n, : state.k]
        self.players[1 : 1 + n], self.firsts[1 : 1 + n] = UNKNOWN, -1
        self.visits[1 : 1 + n], self.sums[1 : 1 + n] = 0, 0.0
        self.priors[1 : 1 + n] = [prior(score) for score in scores[:n]]
        self.meta[0] = 1 + n
        self.winning = n > 0 and scores[0] >= kernel.WIN  # a turn that ends the game, won
        self.line = None if self.winning else alone(state, self.heads, self.empty)

    def tree(self) -> tuple[np.ndarray, ...]:
        return (
            self.moves,
            self.players,
            self.firsts,
            self.counts,
            self.tried,
            self.visits,
            self.sums,
        )

    def run(
        self,
        limit: Limit,
        *,
        stop: threading.Event | None = None,
        on_info: Callable[[PlayResult], None] | None = None,
        started: float | None = None,
    ) -> PlayResult:
        """Iterate until ``limit`` (``time`` from ``started``, by default now; ``nodes`` =
        iterations) or ``stop``; at once when the root has a winning turn or the mover is
        alone in its region (:func:`alone`)."""
        if started is None:
            started = time.perf_counter()
        budget = np.zeros(2, np.int64)
        budget[USED] = self.iterations
        unbounded = np.iinfo(np.int64).max
        budget[ALLOWED] = unbounded if limit.nodes is None else self.iterations + limit.nodes
        if not self.winning and self.line is None and self.counts[0] > 1:
            deadline = NO_DEADLINE
            if limit.time is not None:  # the same instant on the clock compiled code reads
                deadline = time.monotonic() + started + limit.time - time.perf_counter()
            watcher = None if stop is None else Watcher(budget, stop)
            try:
                search(
                    self.heads,
                    self.empty,
                    self.state.to_move,
                    self.state.k,
                    self.out,
                    len(self.state.out),
                    kernel.NBR,
                    kernel.ADJ,
                    self.tree(),
                    self.priors,
                    self.meta,
                    self.rng,
                    self.params,
                    budget,
                    deadline,
                )
            finally:
                if watcher is not None:
                    watcher.done()
            self.iterations = int(budget[USED])
        result = self.result(time.perf_counter() - started)
        if on_info is not None:
            on_info(result)
        return result

    def turn(self, node: int) -> Move:
        return tuple((int(a), int(b)) for a, b in self.moves[node] if a >= 0)

    def result(self, seconds: float, others: Sequence[CompiledMcts] = ()) -> PlayResult:
        """The answer of this tree, its root's visits and returns summed with those of
        ``others`` (trees of the same position searched beside it: the same root turns)."""
        if self.line is not None:  # the first turn of the mover's longest line, alone
            turns, move = self.line
            return PlayResult(
                move,
                pv=[move],
                depth=turns,
                seconds=seconds,
                info={"iterations": 0, "longest line": turns},
            )
        first, count = int(self.firsts[0]), int(self.counts[0])
        children = slice(first, first + count)
        me = self.state.to_move
        visits = self.visits[children].astype(np.int64)
        sums = self.sums[children, me].copy()
        for other in others:
            assert np.array_equal(other.moves[children], self.moves[children])
            visits += other.visits[children]
            sums += other.sums[children, me]
        if self.winning:
            best = 0
        else:  # the most visited, the better mean among equals
            best = max(
                range(count),
                key=lambda c: (int(visits[c]), float(sums[c]) / max(int(visits[c]), 1)),
            )
        value = 1.0 if self.winning else float(sums[best]) / max(int(visits[best]), 1)
        iterations = self.iterations + sum(other.iterations for other in others)
        # The line on: this tree's, or the tree that visited the chosen turn most's.
        tree = max((self, *others), key=lambda t: int(t.visits[first + best]))
        return tree.line_from(first + best, value, iterations, int(visits[best]), seconds)

    def line_from(
        self, best: int, value: float, iterations: int, visits: int, seconds: float
    ) -> PlayResult:
        """The answer: root turn ``best`` and the most visited line below it in this tree."""
        pv = [self.turn(best)]
        node = best
        while self.firsts[node] >= 0 and self.tried[node]:
            lo = int(self.firsts[node])
            node = max(range(lo, lo + int(self.counts[node])), key=lambda c: self.visits[c])
            if not self.visits[node]:
                break
            pv.append(self.turn(node))
        return PlayResult(
            pv[0],
            score=round((2 * value - 1) * EVAL_SCALE),
            value=float(value),
            proven="win" if self.winning else None,
            pv=pv,
            nodes=iterations,
            depth=len(pv),
            seconds=seconds,
            info={"iterations": iterations, "visits": visits},
        )


def run_beside(
    searches: Sequence[CompiledMcts],
    limit: Limit,
    *,
    stop: threading.Event | None = None,
    on_info: Callable[[PlayResult], None] | None = None,
    started: float | None = None,
) -> PlayResult:
    """Root parallelism: ``searches`` (trees of one position with different seeds) each run
    on its own thread -- the compiled search holds no GIL -- for the whole time, the
    iterations of ``limit.nodes`` shared out among them; the answer sums their roots."""
    if started is None:
        started = time.perf_counter()
    shares = [limit] * len(searches)
    if limit.nodes is not None:
        counts = shared_out(limit.nodes, len(searches))
        searches = [tree for tree, n in zip(searches, counts, strict=True) if n]
        shares = [Limit(time=limit.time, nodes=n) for n in counts if n]
    first, *others = searches
    if not others:
        return first.run(shares[0], stop=stop, on_info=on_info, started=started)
    with ThreadPoolExecutor(len(others)) as pool:
        runs = [
            pool.submit(tree.run, share, stop=stop, started=started)
            for tree, share in zip(others, shares[1:], strict=True)
        ]
        first.run(shares[0], stop=stop, started=started)
        for run in runs:
            run.result()  # a search's error is raised here
    result = first.result(time.perf_counter() - started, others)
    if on_info is not None:
        on_info(result)
    return result
