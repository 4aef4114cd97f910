"""Exact solver of small Slither boards (``Game.exact_solver()``), and its command:

    python -m slimetrail.games.slither.solver --size 4 [--advanced] [--time 600] [--first c3]
        [--reference]

Negamax over the compiled kernel (:mod:`.kernel`) with a transposition table keyed by
Zobrist hashes of the stones and the colour to move: a position is won when the mover has a
winning turn (the kernel's exact win-in-one, steps included) or a turn after which the
opponent's position is lost.  Turns are tried placements first, each ordered by how much it
shortens the mover's connection and lengthens the opponent's (shortest paths).  That plain
search is the reference (``REFERENCE``, ``--reference``); the solver itself (``SOLVER``) adds
two exact reductions: one table entry for the eight images of a position (the two mirrors,
the half turn, and the transpose with the colours exchanged), and, when the opponent
threatens a win at once, only the turns that take a cell of that threat.

The pie needs no search: once Black has made the first turn, White either plays on or
swaps to take over Black's stones, and one of the two sides wins (Slither has no draws), so
the player who answers the first turn always wins.  Which first turns to swap is what the
solve tells: those after which Black's side wins.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import cast

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slimetrail.compiled import now
from slimetrail.core.game import (
    Game,
    GameError,
    Move,
    SolveResult,
    SolveTimeout,
    State,
)
from slimetrail.core.loading import KernelLoad
from slimetrail.core.registry import get_game
from slimetrail.games.slither import kernel
from slimetrail.games.slither.game import SlitherState

MAX_SIZE = 5  # 6x6 and up do not finish in minutes
CLOCK_EVERY = 1023  # nodes between looks at the clock
NODES, ABORTED = 0, 1  # stats[] slots
SEARCH = 2  # settled(): neither known nor out of time
# Positions a table keeps before a solve for play empties it: a process that plays many
# games on small boards would otherwise grow it without end (some 50 bytes an entry).
MAX_ENTRIES = 1 << 20


@nb.njit(cache=True)
def settled(g, n, v, advanced, k, table, stats, deadline):
    """A node's value without its turns: the table's, 1 for a win in one, -1 when out of time
    (the clock is read every 1024 nodes); ``SEARCH`` when its turns must be searched."""
    if k in table:
        return table[k]
    stats[NODES] += 1
    if stats[NODES] & CLOCK_EVERY == 0 and now() > deadline:
        stats[ABORTED] = 1
    if stats[ABORTED]:
        return -1
    win = np.empty(3, dtype=np.int64)
    if kernel.winning_turn(g, n, v, advanced, win):
        table[k] = 1
        return 1
    return SEARCH


@nb.njit(cache=True)
def ordered_turns(g, n, v, advanced):
    """The mover's legal turns, best first by the shortest-path race after each."""
    rows = np.empty((2 * n**4 + n * n, 3), dtype=np.int64)
    count = kernel.list_turns(g, n, v, advanced, rows, True)
    return by_race(g, n, v, rows[:count])


@nb.njit(cache=True)
def by_race(g, n, v, rows):
    """``rows`` (turns of ``v``) best first by the shortest-path race after each."""
    limit = n * n
    count = len(rows)
    score = np.empty(count, dtype=np.int64)
    for i in range(count):
        s, t, p = rows[i, 0], rows[i, 1], rows[i, 2]
        apply_turn(g, s, t, p, v)
        mine = kernel.distance(g, n, v, limit)
        theirs = kernel.distance(g, n, 3 - v, limit)
        undo_turn(g, s, t, p, v)
        score[i] = 4 * mine - theirs + (s >= 0)  # placements before steps on ties
    return rows[np.argsort(score, kind="mergesort")]


@nb.njit(cache=True, inline="always")
def apply_turn(g, s, t, p, v):
    if s >= 0:
        g[s] = 0
        g[t] = v
    g[p] = v


@nb.njit(cache=True, inline="always")
def undo_turn(g, s, t, p, v):
    g[p] = 0
    if s >= 0:
        g[t] = 0
        g[s] = v


@nb.njit(cache=True, inline="always")
def turn_key(zobrist, s, t, p, v):
    key = zobrist[v - 1, p]
    if s >= 0:
        key ^= zobrist[v - 1, s] ^ zobrist[v - 1, t]
    return key


# Cached: every recursive call passes ``passes`` as an int64, never a literal 0 or 1, which
# would compile one overload per literal calling each other through symbols that numba's
# cache does not link again on loading (a crash; numba issues 6061 and 6713).
@nb.njit(cache=True)
def mover_wins(g, n, v, advanced, key, zobrist, side, table, stats, deadline, passes):
    """Whether ``v`` to move wins with perfect play (1) or not (0); -1 if aborted."""
    k = key ^ side if v == 2 else key
    known = settled(g, n, v, advanced, k, table, stats, deadline)
    if known != SEARCH:
        return known
    rows = ordered_turns(g, n, v, advanced)
    if len(rows) == 0:
        if passes:  # neither side has a turn: never met in play; not a win for the mover
            return 0
        r = mover_wins(
            g, n, 3 - v, advanced, key, zobrist, side, table, stats, deadline, np.int64(1)
        )
        if r < 0:
            return -1
        table[k] = 1 - r
        return 1 - r
    for i in range(len(rows)):
        s, t, p = rows[i, 0], rows[i, 1], rows[i, 2]
        apply_turn(g, s, t, p, v)
        child = key ^ turn_key(zobrist, s, t, p, v)
        r = mover_wins(
            g, n, 3 - v, advanced, child, zobrist, side, table, stats, deadline, np.int64(0)
        )
        undo_turn(g, s, t, p, v)
        if r < 0:
            return -1
        if r == 0:
            table[k] = 1
            return 1
    table[k] = 0
    return 0


# -- the fast search: the reference above plus board symmetry and forced replies -------


@nb.njit(cache=True, inline="always")
def turn_keys(keys, zsym, s, t, p, v):
    """Make (or, applied again, unmake) a turn of ``v`` on the keys of every image."""
    for i in range(len(keys)):
        keys[i] ^= zsym[i, v - 1, p]
        if s >= 0:
            keys[i] ^= zsym[i, v - 1, s] ^ zsym[i, v - 1, t]


@nb.njit(cache=True, inline="always")
def canonical_key(keys, swaps, side, v):
    """The least key over the images of the position, each with its own colour to move."""
    best = np.uint64(0xFFFFFFFFFFFFFFFF)
    for i in range(len(keys)):
        k = keys[i] ^ side if (3 - v if swaps[i] else v) == 2 else keys[i]
        best = min(best, k)
    return best


@nb.njit(cache=True)
def answers_to(rows, threat, advanced):
    """The turns among ``rows`` that can stop the opponent's winning turn ``threat``.

    The opponent's turn stays legal and winning unless one of the cells it fills is taken:
    the mover's turn never removes the opponent's stones, and the diagonal rule only looks
    at the opponent's own stones.  In Advanced Slither a stepping threat also needs a group
    of both colours, which any step of the mover may break, so every step is kept there."""
    keep = np.zeros(len(rows), dtype=np.bool_)
    filled_a, filled_b = threat[2], threat[1]  # the placement, and the step's end (-1: none)
    for i in range(len(rows)):
        s, t, p = rows[i, 0], rows[i, 1], rows[i, 2]
        keep[i] = p == filled_a or (s >= 0 and t == filled_a)
        if filled_b >= 0:
            keep[i] |= p == filled_b or (s >= 0 and t == filled_b)
            keep[i] |= advanced and s >= 0
    return rows[keep]


# Cached, as mover_wins: ``passes`` always an int64.
@nb.njit(cache=True)
def fast_mover_wins(g, n, v, advanced, keys, zsym, swaps, side, table, stats, deadline, passes):
    """As :func:`mover_wins`, with one table entry for all eight images of a position (the
    board's mirrors, and its transpose with the colours exchanged) and, when the opponent
    threatens to win at once, only the turns that stop that threat."""
    k = canonical_key(keys, swaps, side, v)
    known = settled(g, n, v, advanced, k, table, stats, deadline)
    if known != SEARCH:
        return known
    rows = np.empty((2 * n**4 + n * n, 3), dtype=np.int64)
    count = kernel.list_turns(g, n, v, advanced, rows, True)
    if count == 0:
        if passes:  # neither side has a turn: never met in play; not a win for the mover
            return 0
        r = fast_mover_wins(
            g, n, 3 - v, advanced, keys, zsym, swaps, side, table, stats, deadline, np.int64(1)
        )
        if r < 0:
            return -1
        table[k] = 1 - r
        return 1 - r
    turns = rows[:count]
    win = np.empty(3, dtype=np.int64)
    if kernel.winning_turn(g, n, 3 - v, advanced, win):
        turns = answers_to(turns, win, advanced)
    turns = by_race(g, n, v, turns)
    for i in range(len(turns)):
        s, t, p = turns[i, 0], turns[i, 1], turns[i, 2]
        apply_turn(g, s, t, p, v)
        turn_keys(keys, zsym, s, t, p, v)
        r = fast_mover_wins(
            g, n, 3 - v, advanced, keys, zsym, swaps, side, table, stats, deadline, np.int64(0)
        )
        turn_keys(keys, zsym, s, t, p, v)
        undo_turn(g, s, t, p, v)
        if r < 0:
            return -1
        if r == 0:
            table[k] = 1
            return 1
    table[k] = 0
    return 0


class SlitherSolver:
    """The exact solver of Slither and Advanced Slither up to 5x5 (``ExactSolver``): the
    fast search, or with ``reference=True`` the plain one it is tested against."""

    def __init__(self, reference: bool = False) -> None:
        self.reference = reference
        self.tables: dict[tuple[int, bool], Dict] = {}

    def can_solve(self, game: Game) -> bool:
        return game.id in ("slither", "slither-advanced") and game.options["size"] <= MAX_SIZE

    def table(self, n: int, advanced: bool) -> Dict:
        """One table per board and rule set, kept between solves (values never change)."""
        if (n, advanced) not in self.tables:
            self.tables[n, advanced] = Dict.empty(key_type=types.uint64, value_type=types.int64)
        return self.tables[n, advanced]

    def mover_wins(self, state: SlitherState, deadline: float, stats: np.ndarray) -> bool:
        """Whether the player to move wins (the pie included)."""
        if state.is_over():
            return False
        if state.swap_available():
            return True  # play on or swap: one of the two sides wins
        n, advanced = state.game.size, state.game.advanced
        grid = kernel.layout(n).grid(*state.stones)
        v = state.colour + 1
        table = self.table(n, advanced)
        if self.reference:
            zobrist, side = zobrist_keys(n)
            key = np.uint64(0)
            for q in np.flatnonzero(grid == 1):
                key ^= zobrist[0, q]
            for q in np.flatnonzero(grid == 2):
                key ^= zobrist[1, q]
            value = mover_wins(grid, n, v, advanced, key, zobrist, side, table, stats, deadline, 0)
        else:
            zsym, swaps, side = image_keys(n)
            keys = np.zeros(len(swaps), dtype=np.uint64)
            for q in np.flatnonzero((grid == 1) | (grid == 2)):
                keys ^= zsym[:, grid[q] - 1, q]
            value = fast_mover_wins(
                grid, n, v, advanced, keys, zsym, swaps, side, table, stats, deadline, 0
            )
        if value < 0:
            raise SolveTimeout(
                f"{state.game.spec}: no proof within the time limit ({stats[NODES]} nodes)"
            )
        return bool(value)

    def winning_move(self, state: SlitherState, deadline: float) -> Move | None:
        """A turn that wins for the player to move (one that connects at once if any, else
        the first proven, in the rules' order), or ``None`` when every turn loses;
        :class:`SolveTimeout` past ``deadline`` (what was settled stays in the table, which
        is emptied once it holds :data:`MAX_ENTRIES`)."""
        board = (state.game.size, state.game.advanced)
        if len(self.table(*board)) > MAX_ENTRIES:
            del self.tables[board]  # a new one: clearing a typed dict goes entry by entry
        moves = state.legal_moves()
        for move in moves:
            state.push(move)
            over = state.is_over()
            state.pop()
            if over:
                return move
        stats = np.zeros(2, dtype=np.int64)
        for move in moves:
            state.push(move)
            try:
                won = not self.mover_wins(state, deadline, stats)
            finally:
                state.pop()
            if won:
                return move
        return None

    def solve(
        self, state: State, *, distance: bool = False, time_limit: float | None = None
    ) -> SolveResult:
        slither = state
        if not isinstance(slither, SlitherState) or not self.can_solve(slither.game):
            raise GameError(f"{state.game.spec}: the Slither solver takes boards up to 5x5")
        if distance:
            raise GameError("the Slither solver proves who wins, not in how many plies")
        started = time.monotonic()
        deadline = started + (time_limit if time_limit is not None else 1e9)
        stats = np.zeros(2, dtype=np.int64)
        if slither.is_over():
            return SolveResult("loss", slither.to_move, over=True)
        values: dict[Move, str] = {}
        for move in slither.legal_moves():
            slither.push(move)
            try:
                # after a swap the swapper wears Black and White's colour moves on: the
                # swapper wins where that mover loses, as after any other turn
                won = slither.is_over() or not self.mover_wins(slither, deadline, stats)
            finally:
                slither.pop()
            values[move] = "win" if won else "loss"
        winning = [m for m, value in values.items() if value == "win"]
        return SolveResult(
            "win" if winning else "loss",
            slither.to_move,
            winning_moves=winning,
            move_values=values,
            nodes=int(stats[NODES]),
            seconds=time.monotonic() - started,
        )


_zobrist: dict[int, tuple[np.ndarray, np.uint64]] = {}


def zobrist_keys(n: int) -> tuple[np.ndarray, np.uint64]:
    """Fixed random keys per colour and grid cell, and the key of White to move."""
    if n not in _zobrist:
        rng = np.random.default_rng(0x51E7 + n)
        keys = rng.integers(0, 2**63, size=(2, (n + 2) ** 2), dtype=np.uint64)
        _zobrist[n] = (keys, np.uint64(rng.integers(0, 2**63, dtype=np.uint64)))
    return _zobrist[n]


_images: dict[int, tuple[np.ndarray, np.ndarray, np.uint64]] = {}


def image_keys(n: int) -> tuple[np.ndarray, np.ndarray, np.uint64]:
    """Zobrist keys seen through the board's eight images: ``zsym[i, colour, cell]`` is the
    key of that stone's image under image ``i``, ``swaps[i]`` whether image ``i`` exchanges
    the colours (the transpose turns Black's top-bottom goal into White's left-right one),
    and the key of White to move.  Each image of a position keys the same table entry."""
    if n not in _images:
        zobrist, side = zobrist_keys(n)
        w = n + 2
        zsym = np.zeros((8, 2, w * w), dtype=np.uint64)
        swaps = np.zeros(8, dtype=np.bool_)
        for i in range(8):
            swaps[i] = i >= 4
            for r in range(n):
                for c in range(n):
                    rr = n - 1 - r if i & 1 else r
                    cc = n - 1 - c if i & 2 else c
                    if swaps[i]:
                        rr, cc = cc, rr
                    image = (rr + 1) * w + cc + 1
                    for colour in (0, 1):
                        zsym[i, colour, (r + 1) * w + c + 1] = zobrist[
                            1 - colour if swaps[i] else colour, image
                        ]
        _images[n] = (zsym, swaps, side)
    return _images[n]


SOLVER = SlitherSolver()
REFERENCE = SlitherSolver(reference=True)


def compile_searches() -> None:
    """Compile (or load from numba's cache) both searches now, on a 4x4 endgame of a few
    hundred nodes: the first solve of a process, or the top level's first move on a small
    board, no longer pays for their compiles."""
    state = cast(SlitherState, get_game("slither", size="4", pie="off").new_state())
    for turn in ("a1", "b2", "c3", "d4", "a2", "b3"):
        state.push_str(turn)
    for solver in (SlitherSolver(), SlitherSolver(reference=True)):
        solver.solve(state)
        solver.winning_move(state, time.monotonic() + 60)  # the top level's (a typed len)


# Once per process: Slither and Advanced Slither share the searches.
SEARCHES = KernelLoad(compile_searches, "Slither solver")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Solve a small Slither board exactly.")
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--advanced", action="store_true", help="Advanced Slither")
    parser.add_argument("--time", type=float, default=1200.0, help="seconds at most")
    parser.add_argument("--first", help="solve only the position after this first turn")
    parser.add_argument(
        "--reference", action="store_true", help="the plain search the fast one is tested against"
    )
    args = parser.parse_args(argv)
    solver = REFERENCE if args.reference else SOLVER
    game = get_game("slither-advanced" if args.advanced else "slither", size=args.size, pie="off")
    state = game.new_state()
    if args.first:
        state.push_str(args.first)
        started = time.monotonic()
        stats = np.zeros(2, dtype=np.int64)
        try:
            won = solver.mover_wins(cast(SlitherState, state), started + args.time, stats)
        except SolveTimeout:
            print(
                f"{game.id} {args.size}x{args.size} after {args.first}: not solved in"
                f" {args.time} s ({stats[NODES]} nodes)"
            )
            return 1
        seconds = time.monotonic() - started
        winner = "White" if won else "Black"
        print(f"{game.id} {args.size}x{args.size} after {args.first}: {winner} wins")
        print(f"  (pie=off; solved in {seconds:.1f} s, {stats[NODES]} nodes)")
        return 0
    try:
        result = solver.solve(state, time_limit=args.time)
    except SolveTimeout as exc:
        print(f"{game.id} {args.size}x{args.size}: not solved in {args.time} s: {exc}")
        return 1
    names = [state.move_str(m) for m in result.winning_moves]
    losing = [state.move_str(m) for m, v in result.move_values.items() if v == "loss"]
    print(
        f"{game.id} {args.size}x{args.size}: solved in {result.seconds:.1f} s, {result.nodes} nodes"
    )
    print(f"pie=off: {'Black (the first player)' if names else 'White'} wins")
    print(f"  first turns that win for Black ({len(names)}): {' '.join(names) or 'none'}")
    print(f"  first turns that lose for Black ({len(losing)}): {' '.join(losing) or 'none'}")
    print("pie=on: the second player wins -- swapping after a winning first turn above,")
    print("  playing on as White after a losing one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
