"""Quick Slime-Moku strength check: the top level (or any level) against a plain compiled UCT.

    PYTHONPATH=$PWD python bench/moku_quick.py --size 9 --games 6 --time 0.2 [--level 6]
    PYTHONPATH=$PWD python bench/moku_quick.py --speed --size 15

The opponent is the yardstick the outside testers use, rebuilt independently of our AI: UCB1
(c = 1.4) over a fresh tree every move, one node expanded per iteration, uniformly random
playouts to the end of the game, the most visited move played.  It is numba code on a padded
mailbox board (tree in arrays), so it runs about as many playouts as the testers' C program.
Sides alternate (our level is Black in the even games); prints the tally and the slowest move
of each side against its limit.  A stop-gap until ``bench/baselines/moku.py`` lands.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numba as nb
import numpy as np

from slimetrail.ai import Limit, play
from slimetrail.core.registry import get_game

EMPTY, BLACK, WHITE, WALL, SLIME = 0, 1, 2, 3, 4
C_UCB = 1.4
CAPACITY = 1 << 21


def mailbox(state) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The padded board (width n + 2), the slime's padded index, the king-step offsets and
    the four line offsets."""
    game = state.game
    n, w = game.size, game.size + 2
    cells = np.full(w * w, WALL, np.int8)
    slime = -1
    for row in range(n):
        for col in range(n):
            index = game.board.index(col, row)
            p = (row + 1) * w + col + 1
            if index == state.slime:
                cells[p], slime = SLIME, p
            elif state.black >> index & 1:
                cells[p] = BLACK
            elif state.white >> index & 1:
                cells[p] = WHITE
            else:
                cells[p] = EMPTY
    steps = np.array([1, -1, w, -w, w + 1, w - 1, -w + 1, -w - 1], np.int64)
    lines = np.array([1, w, w + 1, w - 1], np.int64)
    return cells, slime, steps, lines


def board_index(state, p: int) -> int:
    w = state.game.size + 2
    return state.game.board.index(p % w - 1, p // w - 1)


@nb.njit(cache=True)
def makes_row(cells, p, colour, lines, k):
    for d in lines:
        run = 1
        q = p + d
        while cells[q] == colour:
            run += 1
            q += d
        q = p - d
        while cells[q] == colour:
            run += 1
            q -= d
        if run >= k:
            return True
    return False


@nb.njit(cache=True)
def moves_of(cells, slime, steps, out):
    """The legal destinations into ``out``; returns their number (a stuck slime: every empty)."""
    count = 0
    for s in steps:
        if cells[slime + s] == EMPTY:
            out[count] = slime + s
            count += 1
    if count == 0:
        for p in range(cells.shape[0]):
            if cells[p] == EMPTY:
                out[count] = p
                count += 1
    return count


@nb.njit(cache=True)
def apply(cells, slime, move, colour, lines, k):
    """Play ``move``; returns 1 if the mover wrote a row, else 0."""
    cells[slime] = colour
    cells[move] = SLIME
    return 1 if makes_row(cells, slime, colour, lines, k) else 0


@nb.njit(cache=True)
def random_playout(cells, slime, colour, empties, steps, lines, k, buf):
    """Uniform random moves to the end; returns the winner's colour or 0 for a draw."""
    while True:
        if empties == 0:
            return 0
        count = moves_of(cells, slime, steps, buf)
        move = buf[np.random.randint(count)]
        if apply(cells, slime, move, colour, lines, k):
            return colour
        slime = move
        empties -= 1
        colour = 3 - colour


@nb.njit(cache=True)
def uct(
    cells0,
    slime0,
    colour0,
    empties0,
    steps,
    lines,
    k,
    deadline,
    seed,
    kids_at,
    n_kids,
    move,
    visits,
    wins,
    terminal,
):
    """Plain UCT from the root; returns (best root child index, iterations).  ``wins[j]``
    counts for the player who moved into node ``j``; ``terminal[j]`` is 1 for a won node, 2
    a drawn one, 0 a running one."""
    np.random.seed(seed)
    cells = cells0.copy()
    buf = np.empty(cells0.shape[0], np.int64)
    path = np.empty(512, np.int64)
    kids_at[0] = -1
    visits[0] = 0
    used = 1
    iterations = 0
    capacity = kids_at.shape[0]
    while True:
        if (iterations & 63) == 0 and iterations > 0:
            with nb.objmode(t="float64"):
                t = time.perf_counter()
            if t > deadline:
                break
        iterations += 1
        cells[:] = cells0
        slime, colour, empties = slime0, colour0, empties0
        node, depth = 0, 0
        path[0] = 0
        result = -1
        while True:
            if terminal[node] == 1:
                result = 3 - colour  # the player who moved in
                break
            if terminal[node] == 2:
                result = 0
                break
            if kids_at[node] < 0:
                count = moves_of(cells, slime, steps, buf)
                if used + count > capacity:
                    break
                kids_at[node] = used
                n_kids[node] = count
                for j in range(count):
                    c = used + j
                    move[c] = buf[j]
                    kids_at[c] = -1
                    visits[c] = 0
                    wins[c] = 0.0
                    terminal[c] = 0
                used += count
            first, count = kids_at[node], n_kids[node]
            best, best_value = first, -1.0
            log_n = math.log(visits[node] + 1.0)
            for j in range(first, first + count):
                if visits[j] == 0:
                    value = 1e6 + np.random.random()
                else:
                    value = wins[j] / visits[j] + C_UCB * math.sqrt(log_n / visits[j])
                if value > best_value:
                    best, best_value = j, value
            fresh = visits[best] == 0
            if apply(cells, slime, move[best], colour, lines, k):
                terminal[best] = 1
            slime = move[best]
            empties -= 1
            if terminal[best] == 0 and empties == 0:
                terminal[best] = 2
            colour = 3 - colour
            node = best
            depth += 1
            path[depth] = node
            if fresh:
                break
        if result < 0:
            if terminal[node] == 1:
                result = 3 - colour
            elif terminal[node] == 2:
                result = 0
            else:
                result = random_playout(cells, slime, colour, empties, steps, lines, k, buf)
        for d in range(depth + 1):
            nd = path[d]
            visits[nd] += 1
            mover_in = colour0 if d % 2 == 1 else 3 - colour0
            if result == mover_in:
                wins[nd] += 1.0
            elif result == 0:
                wins[nd] += 0.5
    first, count = kids_at[0], n_kids[0]
    best = first
    for j in range(first, first + count):
        if visits[j] > visits[best]:
            best = j
    return move[best], iterations


TREE = (
    np.zeros(CAPACITY, np.int64),
    np.zeros(CAPACITY, np.int64),
    np.zeros(CAPACITY, np.int64),
    np.zeros(CAPACITY, np.int64),
    np.zeros(CAPACITY, np.float64),
    np.zeros(CAPACITY, np.int8),
)


def uct_move(state, seconds: float, seed: int) -> tuple[int, int]:
    cells, slime, steps, lines = mailbox(state)
    empties = state.empty.bit_count()
    terminal = TREE[5]
    terminal[0] = 0
    best, iterations = uct(
        cells,
        slime,
        state.to_move,
        empties,
        steps,
        lines,
        state.game.k,
        time.perf_counter() + seconds,
        seed,
        *TREE,
    )
    return board_index(state, int(best)), int(iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--first", type=int, default=0, help="number of the first game")
    parser.add_argument("--time", type=float, default=0.2, help="seconds a move, both sides")
    parser.add_argument("--uct-time", type=float, help="the baseline's seconds (default --time)")
    parser.add_argument("--level", type=int, default=6)
    parser.add_argument("--speed", action="store_true", help="baseline playouts a second")
    args = parser.parse_args()
    game = get_game("slime-moku", size=args.size, k=args.k)
    uct_time = args.uct_time or args.time
    uct_move(game.new_state(), 0.01, 0)  # compile
    game.warm_up()
    if args.speed:
        _, n = uct_move(game.new_state(), 1.0, 1)
        print(f"{n} playouts in 1 s from the start, {args.size}x{args.size}")
        return
    tally = {"win": 0, "loss": 0, "draw": 0}
    worst = {"ours": 0.0, "uct": 0.0}
    ours_times: list[float] = []
    for number in range(args.first, args.first + args.games):
        ours = 1 if number % 2 == 0 else 2
        state = game.new_state()
        while not state.is_over():
            started = time.perf_counter()
            if state.to_move == ours:
                move = play(state, args.level, Limit(time=args.time), seed=number).move
                spent = time.perf_counter() - started
                worst["ours"] = max(worst["ours"], spent / args.time)
                ours_times.append(spent)
            else:
                move, _ = uct_move(state, uct_time, number * 1000 + len(state.move_stack))
                worst["uct"] = max(worst["uct"], (time.perf_counter() - started) / uct_time)
            state.push(move)
        outcome = state.outcome()
        verdict = "draw" if outcome.winner is None else "win" if outcome.winner == ours else "loss"
        tally[verdict] += 1
        print(
            f"game {number}: ours {'black' if ours == 1 else 'white'} {verdict} "
            f"in {len(state.move_stack)} plies",
            flush=True,
        )
    print(
        f"{args.size}x{args.size} k={args.k} level {args.level} {args.time}s vs uct "
        f"{uct_time}s: {tally['win']} won {tally['loss']} lost {tally['draw']} drawn; "
        f"slowest move / limit: ours {worst['ours']:.2f} uct {worst['uct']:.2f}; "
        f"median ours {statistics.median(ours_times):.3f}s"
    )


if __name__ == "__main__":
    main()
