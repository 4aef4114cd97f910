"""Snake Pit's top-level search: paranoid alpha-beta (Sturtevant & Korf 2000) on the room
evaluation, compiled with numba, deepened iteratively within the time limit.

Snake Pit is Tron-like: snakes wall off rooms, and who owns the most room decides who lasts.
In such games a shallow search on a territory evaluation beats random playouts, which cannot
tell a room about to close from an open one.  The searching player ``me`` maximises
:func:`.kernel.relative` (its turns left less the best opponent's) and the opponents, taken
as one coalition, minimise it, each in turn order.

Every node evaluates all its turns (one breadth-first room walk each, :func:`child_values`):
a node one ply above the horizon is thereby searched at full width; deeper nodes keep only
their ``beam`` best turns by those values, the mover's best for ``me`` (the turns that matter
to the paranoid value).  A player left without a full turn is out at once; a position where
``me`` is out is worth ``-WIN`` plus its ply (later is better), one where ``me`` is alone
``WIN`` less its ply (sooner is better).

:func:`reference_value` is the same search in plain Python over the rules' state, the
readable statement of what the compiled one computes (the tests compare them).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numba as nb
import numpy as np

from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.core.game import GameError, Move
from slimetrail.games.snakepit import kernel
from slimetrail.games.snakepit.game import SnakePitState

WIN = kernel.WIN
MAX_PLY = 24  # deeper than any time limit reaches
INF = 1e18

# Budget array: evaluations used, the most allowed, whether the search stopped short.
USED, ALLOWED, ABORTED = 0, 1, 2


@nb.njit(cache=True)
def child_values(heads, empty, alive, mover, k, me, nbr, buf, n, values, stop_at, maximise):
    """``values[t]`` for ``me`` after each turn ``t < n`` of ``buf`` by ``mover``.  Stops
    after the first turn whose value reaches ``stop_at`` (at least it when ``maximise``,
    at most otherwise: a cutoff); returns how many turns were valued."""
    nk = min(k + 1, 3)
    scores = np.empty(4, np.float64)
    for t in range(n):
        h = heads.copy()
        e = empty.copy()
        kernel.apply_turn(h, e, mover, buf, t, k)
        values[t] = kernel.after_turn(h, e, alive, mover, nk, nbr, scores, me)
        if (maximise and values[t] >= stop_at) or (not maximise and values[t] <= stop_at):
            return t + 1
    return n


@nb.njit(cache=True)
def next_player(heads, empty, alive, mover, k, nbr, live):
    """After ``mover``'s turn (applied; ``k`` the next turn's steps): ``live`` = who is still
    in (the others without a full turn are out), and the next player, 0 if only one is left."""
    live[:] = alive
    left = 0
    for p in range(1, 4):
        if p != mover and live[p] and not kernel.has_turn(heads[p], empty, k, nbr):
            live[p] = False
        if live[p]:
            left += 1
    if left < 2:
        return 0
    player = mover
    while True:
        player = player % 3 + 1
        if live[player]:
            return player


@nb.njit(cache=True)
def open_node(heads, empty, alive, mover, k, me, depth, nbr, work, ply, game_ply, budget):
    """Value every turn of the node at ``ply`` of ``work`` (``game_ply`` below the root,
    for the won and lost values), storing how many there are in ``work``.  At the horizon
    (``depth`` 1) that is its value, returned at once, cut off once outside the window;
    otherwise its turns are put in search order and ``nan`` is returned."""
    bufs, vals, order, alphas, betas, ns = work
    buf, values = bufs[ply], vals[ply]
    n = kernel.gen_turns(heads[mover], empty, k, nbr, buf)
    ns[ply] = n
    maximise = mover == me
    if depth == 1:
        valued = child_values(
            heads,
            empty,
            alive,
            mover,
            k,
            me,
            nbr,
            buf,
            n,
            values,
            betas[ply] if maximise else alphas[ply],
            maximise,
        )
        budget[USED] += valued
        best = -INF if maximise else INF
        for t in range(valued):
            v = terminal_ply(values[t], game_ply + 1)
            best = max(best, v) if maximise else min(best, v)
        return best
    child_values(
        heads, empty, alive, mover, k, me, nbr, buf, n, values, INF if maximise else -INF, maximise
    )
    budget[USED] += n
    order[ply, :n] = np.argsort(-values[:n] if maximise else values[:n], kind="mergesort")
    return np.nan


@nb.njit(cache=True)
def line_value(heads, empty, alive, mover, k, me, depth, alpha, beta, beam, nbr, budget):
    """The paranoid value for ``me`` of the position one ply below the root with ``mover``
    to play ``k`` steps, searched ``depth`` plies within the window ``(alpha, beta)``:
    alpha-beta with an
    explicit stack (numba's cache cannot hold a recursive function)."""
    top = depth + 1
    bufs = np.empty((top, kernel.MAX_TURNS, 3, 2), np.int64)
    vals = np.empty((top, kernel.MAX_TURNS), np.float64)
    order = np.empty((top, kernel.MAX_TURNS), np.int64)
    alphas = np.empty(top, np.float64)
    betas = np.empty(top, np.float64)
    ns = np.empty(top, np.int64)
    work = (bufs, vals, order, alphas, betas, ns)
    hs = np.empty((top, 4, 4), np.int64)
    es = np.empty((top, empty.shape[0]), np.bool_)
    lives = np.empty((top, 4), np.bool_)
    movers = np.empty(top, np.int64)
    ks = np.empty(top, np.int64)
    counts = np.empty(top, np.int64)
    nexts = np.empty(top, np.int64)
    bests = np.empty(top, np.float64)
    hs[0], es[0], lives[0], movers[0], ks[0] = heads, empty, alive, mover, k
    alphas[0], betas[0] = alpha, beta
    ply = 0
    value = open_node(hs[0], es[0], lives[0], mover, k, me, depth, nbr, work, 0, 1, budget)
    if not np.isnan(value):
        return value
    counts[0] = min(beam, ns[0])
    nexts[0] = 0
    bests[0] = -INF if mover == me else INF
    while True:
        if budget[USED] > budget[ALLOWED]:
            budget[ABORTED] = 1
            return 0.0
        if nexts[ply] < counts[ply] and alphas[ply] < betas[ply]:
            t = order[ply, nexts[ply]]
            nexts[ply] += 1
            mover, k = movers[ply], ks[ply]
            if abs(vals[ply, t]) >= WIN:  # somebody's game ends here: the value is exact
                value = terminal_ply(vals[ply, t], ply + 2)
            else:
                c = ply + 1
                hs[c] = hs[ply]
                es[c] = es[ply]
                kernel.apply_turn(hs[c], es[c], mover, bufs[ply], t, k)
                ks[c] = min(k + 1, 3)
                movers[c] = next_player(hs[c], es[c], lives[ply], mover, ks[c], nbr, lives[c])
                alphas[c], betas[c] = alphas[ply], betas[ply]
                value = open_node(
                    hs[c],
                    es[c],
                    lives[c],
                    movers[c],
                    ks[c],
                    me,
                    depth - c,
                    nbr,
                    work,
                    c,
                    c + 1,
                    budget,
                )
                if np.isnan(value):  # a node to search: go down
                    ply = c
                    counts[ply] = min(beam, ns[c])
                    nexts[ply] = 0
                    bests[ply] = -INF if movers[c] == me else INF
                    continue
        else:  # the node is done: hand its value up
            value = bests[ply]
            if ply == 0:
                return value
            ply -= 1
        if movers[ply] == me:
            bests[ply] = max(bests[ply], value)
            alphas[ply] = max(alphas[ply], value)
        else:
            bests[ply] = min(bests[ply], value)
            betas[ply] = min(betas[ply], value)


@nb.njit(cache=True)
def terminal_ply(value, ply):
    """A won or lost value moved towards zero by its ply: sooner wins, later losses."""
    if value >= WIN:
        return WIN - ply
    if value <= -WIN:
        return -WIN + ply
    return value


@nb.njit(cache=True, nogil=True)
def root_values(heads, empty, alive, me, k, nbr, roots, depth, beam, values, budget):
    """``values[i]``: the paranoid value of root turn ``roots[i]`` searched ``depth`` plies
    in all (the turn itself the first), the window narrowing as the best so far rises (a
    turn that cannot beat it gets an upper bound).  Returns how many turns were searched
    before the budget ran out (all of them unless ``budget[ABORTED]``)."""
    live = np.empty(4, np.bool_)
    nk = min(k + 1, 3)
    scores = np.empty(4, np.float64)
    best = -INF
    for i in range(len(roots)):
        h = heads.copy()
        e = empty.copy()
        kernel.apply_turn(h, e, me, roots, i, k)
        static = kernel.after_turn(h, e, alive, me, nk, nbr, scores, me)
        budget[USED] += 1
        if depth <= 1 or abs(static) >= WIN:
            v = terminal_ply(static, 1)
        else:
            nxt = next_player(h, e, alive, me, nk, nbr, live)
            v = line_value(h, e, live, nxt, nk, me, depth - 1, best, INF, beam, nbr, budget)
            if budget[ABORTED]:
                return i
        values[i] = v
        best = max(best, v)
    return len(roots)


# -- the Python side -----------------------------------------------------------------------


def alive_of(state: SnakePitState) -> np.ndarray:
    """``alive[p]``: whether player ``p`` is still in the game (index 0 unused)."""
    return np.array([False] + [p not in state.out for p in (1, 2, 3)])


class ParanoidSearch:
    """Iterative deepening of :func:`root_values` from ``state`` (not changed): depth 1 is
    the evaluation of every turn, each deeper pass searches the root turns best first by
    the pass before, on at most ``root_width`` of them, ``beam`` turns a node below."""

    def __init__(self, state: SnakePitState, *, beam: int, root_width: int) -> None:
        if not state.to_move:
            raise GameError("the game is over: there is nothing to search")
        self.state = state
        self.beam = beam
        self.heads, self.empty, _ = kernel.arrays(state.heads, state.empty, state.out)
        self.alive = alive_of(state)
        self.evaluations = 0
        # Depth 1: every turn by the evaluation, best first (the rules' order among equals).
        moves = state.legal_moves()
        scores = np.empty(kernel.MAX_TURNS, np.float64)
        n = kernel.score_turns(
            self.heads, self.empty, self.alive, state.to_move, state.k, kernel.NBR, scores
        )
        order = np.argsort(-scores[:n], kind="stable")[:root_width]
        self.evaluations += n
        self.moves: list[Move] = [moves[i] for i in order]
        self.values = [terminal_ply(float(scores[i]), 1) for i in order]
        self.depth = 1

    def roots(self) -> np.ndarray:
        """The root turns in the kernel's layout, in the current order."""
        roots = np.full((len(self.moves), 3, 2), -1, np.int64)
        for i, move in enumerate(self.moves):
            steps: tuple[tuple[int, int], ...] = move  # type: ignore[assignment]
            roots[i, : len(steps)] = steps
        return roots

    def deepen(self, budget: np.ndarray) -> bool:
        """One pass a ply deeper than the last; whether it finished within ``budget``.  A
        pass stopped short still counts where a root turn it finished beat the pass before's
        favourite, searched first (that one is then played first)."""
        depth = self.depth + 1
        values = np.empty(len(self.moves), np.float64)
        start = int(budget[USED])
        done = root_values(
            self.heads,
            self.empty,
            self.alive,
            self.state.to_move,
            self.state.k,
            kernel.NBR,
            self.roots(),
            depth,
            self.beam,
            values,
            budget,
        )
        self.evaluations += int(budget[USED]) - start
        if done < len(self.moves):
            if done > 1 and max(values[1:done]) > values[0]:
                best = 1 + int(np.argmax(values[1:done]))
                self.moves.insert(0, self.moves.pop(best))
                self.values.insert(0, float(values[best]))
                self.values.pop(best + 1)
            return False
        order = np.argsort(-values, kind="stable")
        self.moves = [self.moves[i] for i in order]
        self.values = [float(values[i]) for i in order]
        self.depth = depth
        return True

    def settled(self) -> bool:
        """Whether deeper passes cannot change the answer: one turn, or a forced result."""
        return len(self.moves) == 1 or abs(self.values[0]) >= WIN - MAX_PLY

    def run(
        self,
        limit: Limit,
        *,
        stop: threading.Event | None = None,
        on_info: Callable[[PlayResult], None] | None = None,
        started: float | None = None,
    ) -> PlayResult:
        """Deepen until ``limit`` (``time`` from ``started``, by default now; ``nodes`` =
        evaluations; ``depth`` = plies), ``stop`` or a settled answer.  A watcher thread
        ends the compiled pass at the deadline or on ``stop`` (the kernel runs without the
        GIL)."""
        if started is None:
            started = time.perf_counter()
        budget = np.zeros(3, np.int64)
        budget[USED] = self.evaluations
        budget[ALLOWED] = limit.nodes if limit.nodes is not None else np.iinfo(np.int64).max
        finished = threading.Event()

        def watch() -> None:
            timeout = None if limit.time is None else started + limit.time - time.perf_counter()
            while not finished.wait(0.005 if stop is not None else timeout):
                if stop is not None and stop.is_set():
                    break
                if timeout is not None and time.perf_counter() - started >= timeout:
                    break
            budget[ALLOWED] = -1  # the pass in flight stops at its next node

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            while not self.settled() and budget[USED] < budget[ALLOWED]:
                if limit.depth is not None and self.depth >= limit.depth:
                    break
                if self.depth + 1 >= MAX_PLY:
                    break
                if not self.deepen(budget):
                    break
                if on_info is not None:
                    on_info(self.result(time.perf_counter() - started))
        finally:
            finished.set()
            watcher.join()
        result = self.result(time.perf_counter() - started)
        if on_info is not None:
            on_info(result)
        return result

    def result(self, seconds: float) -> PlayResult:
        value = self.values[0]
        proven = "win" if value >= WIN - MAX_PLY else "loss" if value <= MAX_PLY - WIN else None
        return PlayResult(
            self.moves[0],
            score=round(100 * value),
            proven=proven,
            pv=[self.moves[0]],
            nodes=self.evaluations,
            depth=self.depth,
            seconds=seconds,
            info={"evaluations": self.evaluations},
        )


# -- the readable reference ----------------------------------------------------------------


def reference_after(state: SnakePitState, mover: int, me: int) -> float:
    """:func:`.kernel.after_turn` of the position ``state`` just reached by ``mover``'s turn
    (the evaluation itself is the kernel's, tested on its own)."""
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    return float(
        kernel.after_turn(
            heads, empty, alive_of(state), mover, state.k, kernel.NBR, np.empty(4), me
        )
    )


def reference_value(state: SnakePitState, me: int, depth: int, beam: int, ply: int) -> float:
    """Plain paranoid minimax (no window) of the tree :func:`line_value` searches: every
    turn valued, all of them at the horizon, the ``beam`` best for ``me`` (the mover's
    view of best) searched further; ``state`` is changed and restored."""
    mover = state.to_move
    maximise = mover == me
    valued: list[tuple[float, Move]] = []
    for move in state.legal_moves():
        state.apply(move)  # type: ignore[arg-type]
        valued.append((reference_after(state, mover, me), move))
        state.pop()
    if depth == 1:
        values = [terminal_ply(v, ply + 1) for v, _ in valued]
        return max(values) if maximise else min(values)
    valued.sort(key=lambda pair: -pair[0] if maximise else pair[0])  # stable, as mergesort
    results = []
    for value, move in valued[:beam]:
        if abs(value) >= WIN:
            results.append(terminal_ply(value, ply + 1))
            continue
        state.apply(move)  # type: ignore[arg-type]
        results.append(reference_value(state, me, depth - 1, beam, ply + 1))
        state.pop()
    return max(results) if maximise else min(results)


def reference_root_values(state: SnakePitState, moves: list[Move], depth: int, beam: int):
    """:func:`root_values` without the window: each root turn's exact paranoid value."""
    me, values = state.to_move, []
    for move in moves:
        state.apply(move)  # type: ignore[arg-type]
        static = reference_after(state, me, me)
        if depth <= 1 or abs(static) >= WIN:
            values.append(terminal_ply(static, 1))
        else:
            values.append(reference_value(state, me, depth - 1, beam, 1))
        state.pop()
    return values
