"""Compiled Monte-Carlo tree search with a solver (MCTS-Solver) for the big Slime Trail boards.

Why not only alpha-beta: on the open boards (Taylor's rules, 11x11) the goal-distance
evaluation says little about who will be squeezed first, while playouts to the end of the
game measure it.  What makes the playouts worth more than uniformly random ones is the
decisive / anti-decisive policy of :func:`slimetrail.games.trail.playout.policy` (the
readable reference, which the tests compare with :func:`policy_words`): a player steps into
their own goal when it is next to the snail and never steps next to the opponent's goal while
another step exists.  The tree is MCTS-Solver (Winands, Björnsson and Saito 2008): a node whose
mover has a winning child is a proven win, one whose children are all proven losses a proven
loss, and proven losses are never selected again.  The exact solver joins at the leaves: a
node whose snail can reach at most ``LEAF_SOLVE_CELLS`` cells is given to the compiled solver
(:func:`.solver.kernel128.negamax`) with a small node budget when it is expanded, so endgames
are proven inside the tree rather than guessed by playouts; its table is kept between
searches (its entries are facts about the board's positions).  Tree and playouts are numba
code over the dense two-word cell sets of :mod:`.search_kernel`; nothing is allocated per
iteration but the solver's few frames.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, cast

import numba as nb
import numpy as np

from slimetrail.compiled import now
from slimetrail.core.game import Move
from slimetrail.games.trail.search_kernel import (
    U0,
    Compiled,
    compiled,
    flood,
    goals_in_reach,
    has,
    legal_steps,
    popcount,
)
from slimetrail.games.trail.solver import Labelling, aligned_table, kernel128, kernel_params
from slimetrail.games.trail.solver.kernel import CLOCK_EVERY as SOLVER_CLOCK_EVERY
from slimetrail.games.trail.solver.kernel import P_TAYLOR, S_ABORT, S_NODES
from slimetrail.games.trail.solver.kernel128 import ILLEGAL, bit, lowest
from slimetrail.games.trail.solver.kernel128 import negamax as exact_negamax

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

CAPACITY = 1 << 21  # tree nodes; past that the tree stops growing (playouts go on)
EXPLORATION = 0.8  # UCB1's constant (the playouts are informed: less exploration than sqrt 2)
CLOCK_EVERY = 63  # iterations between two looks at the clock
MAX_STEPS = 128  # a game on at most 128 cells has fewer steps than that
WIN, LOSS, UNKNOWN = 1, -1, 0  # proven values, for the player who moved INTO a node
# policy_words' verdicts besides a step: the mover wins, loses, or the game is drawn now
P_WIN, P_LOSS, P_DRAW = -1, -2, -3
# The exact solver at the leaves: regions up to this many cells, this many solver nodes at
# most per expanded node (at most SOLVER_CLOCK_EVERY: the kernel stops at a clock check).
LEAF_SOLVE_CELLS = 40
LEAF_BUDGET = 2048
# Under Rastros rules, a bigger region with a goal corner out of reach: enough solver nodes for
# its matching theorems at the region's root (no goal in reach: undirected vertex geography).
SPLIT_BUDGET = 64
LEAF_TABLE_BITS = 18  # the leaf solver's table: 2**18 entries of three words (6 MiB)


@nb.njit(cache=True, inline="always")
def nth(lo, hi, k):
    """The ``k``-th lowest cell of a set (``k`` < its size)."""
    for _ in range(k):
        _, lo, hi = lowest(lo, hi)
    m, _, _ = lowest(lo, hi)
    return m


@nb.njit(cache=True)
def policy_words(st_lo, st_hi, free_lo, free_hi, side, nbr, goals):
    """The playout policy's choice among the legal steps ``st``: ``(verdict, cand_lo,
    cand_hi)``; a verdict < 0 ends the game (P_WIN, P_LOSS for the mover, P_DRAW), else the
    step is drawn at random from the candidate set (see :func:`.playout.policy`).
    ``taylor`` does not matter here: the legal steps already obey it."""
    my_goal, their_goal = goals[side], goals[1 - side]
    if (st_lo | st_hi) == U0:
        return P_LOSS, U0, U0
    if has(st_lo, st_hi, my_goal):
        return P_WIN, U0, U0
    t_lo, t_hi = bit(their_goal)
    c_lo, c_hi = st_lo & ~t_lo, st_hi & ~t_hi
    if (c_lo | c_hi) == U0:
        return P_LOSS, U0, U0
    if has(free_lo, free_hi, their_goal):
        s_lo, s_hi = c_lo & ~nbr[their_goal, 0], c_hi & ~nbr[their_goal, 1]
        if (s_lo | s_hi) != U0:
            return 0, s_lo, s_hi
    return 0, c_lo, c_hi


@nb.njit(cache=True)
def may_split(free_lo, free_hi, cell, nbr):
    """Whether taking ``cell`` out of the free cells may cut their components apart: not when
    its free neighbours are joined among themselves (then every path through ``cell`` has a
    way around it)."""
    r_lo, r_hi = nbr[cell, 0] & free_lo, nbr[cell, 1] & free_hi
    if popcount(r_lo) + popcount(r_hi) <= 1:
        return False
    s, _, _ = lowest(r_lo, r_hi)
    s_lo, s_hi = bit(s)
    j_lo, j_hi = flood(s_lo, s_hi, r_lo, r_hi, nbr)
    return (j_lo != r_lo) or (j_hi != r_hi)


@nb.njit(cache=True)
def playout(free_lo, free_hi, snail, side, nbr, goals, taylor, trace):
    """A game played to its end by the policy; returns the winner's side (0 or 1) or -1 for
    a draw.  The cells stepped on are written to ``trace`` (with -1 after the last)."""
    g1_lo, g1_hi = bit(goals[0])
    g2_lo, g2_hi = bit(goals[1])
    comp_lo, comp_hi = free_lo, free_hi
    if taylor:
        comp_lo, comp_hi = flood(
            (g1_lo | g2_lo) & free_lo, (g1_hi | g2_hi) & free_hi, free_lo, free_hi, nbr
        )
    n = 0
    while True:
        st_lo = nbr[snail, 0] & free_lo & comp_lo
        st_hi = nbr[snail, 1] & free_hi & comp_hi
        verdict, c_lo, c_hi = policy_words(st_lo, st_hi, free_lo, free_hi, side, nbr, goals)
        if verdict == P_WIN:
            trace[n] = goals[side]
            trace[n + 1] = -1
            return side
        if verdict == P_LOSS:
            trace[n] = -1
            if taylor and (st_lo | st_hi) == U0:
                return -1
            return 1 - side
        m = nth(c_lo, c_hi, np.random.randint(popcount(c_lo) + popcount(c_hi)))
        trace[n] = m
        n += 1
        m_lo, m_hi = bit(m)
        free_lo &= ~m_lo
        free_hi &= ~m_hi
        comp_lo &= ~m_lo
        comp_hi &= ~m_hi
        if taylor and may_split(free_lo, free_hi, m, nbr):
            comp_lo, comp_hi = flood(
                (g1_lo | g2_lo) & free_lo, (g1_hi | g2_hi) & free_hi, free_lo, free_hi, nbr
            )
        snail = m
        side = 1 - side


@nb.njit(cache=True)
def classify(free_lo, free_hi, snail, came_from, side, nbr, goals, taylor):
    """The value of a position just stepped into when it is plain without search, for the
    player who moved into it (the side ``1 - side``): WIN,
    LOSS or UNKNOWN; 2 for a draw (Taylor: stuck).  ``came_from``: the cell the snail left."""
    if snail == goals[0] or snail == goals[1]:
        return WIN if snail == goals[1 - side] else LOSS
    st_lo, st_hi = nbr[snail, 0] & free_lo, nbr[snail, 1] & free_hi
    if (st_lo | st_hi) == U0:
        return 2 if taylor else WIN
    if has(st_lo, st_hi, goals[side]):
        return LOSS  # a goal corner is always a legal step
    if taylor:
        # The step came from a position where both goals were in reach; unless the snail's
        # cell joined parts of the walkable cells or the cell left touched a goal corner,
        # they still are (no flood needed).
        g1_lo, g1_hi = bit(goals[0])
        g2_lo, g2_hi = bit(goals[1])
        pass_lo = free_lo & ~(g1_lo | g2_lo)
        pass_hi = free_hi & ~(g1_hi | g2_hi)
        touched = (nbr[came_from, 0] & (g1_lo | g2_lo)) | (nbr[came_from, 1] & (g1_hi | g2_hi))
        if touched != U0 or may_split(pass_lo, pass_hi, snail, nbr):
            reach = goals_in_reach(free_lo, free_hi, snail, nbr, goals)
            if reach == 1 or reach == 2:
                owner = 0 if reach == 1 else 1
                return WIN if owner == 1 - side else LOSS
    return UNKNOWN


@nb.njit(cache=True)
def leaf_value(free_lo, free_hi, snail, side, solver, budget, max_cells, split_budget):
    """The proven value of a position for the player who moved into it (WIN or LOSS), by
    the exact solver within ``budget`` nodes if the snail can walk to at most ``max_cells``
    cells (goal corners not counted), else, under Rastros rules with a goal corner out of
    reach, within ``split_budget`` nodes (the solver's matching theorems may decide it at
    once); UNKNOWN otherwise, when the budget runs out, or for a draw.  A budget is at most
    ``SOLVER_CLOCK_EVERY`` nodes.  ``solver``: the arrays of :func:`leaf_solver`."""
    goal_masks, order, params, table, stats, nbr, goals = solver
    pass_lo = free_lo & ~(goal_masks[0, 0] | goal_masks[1, 0])
    pass_hi = free_hi & ~(goal_masks[0, 1] | goal_masks[1, 1])
    s_lo, s_hi = bit(snail)
    r_lo, r_hi = flood(s_lo, s_hi, pass_lo | s_lo, pass_hi | s_hi, nbr)
    if popcount(r_lo) + popcount(r_hi) - 1 > max_cells:
        if params[P_TAYLOR] != 0:
            return UNKNOWN
        for g in goals:
            touches = (nbr[g, 0] & r_lo) | (nbr[g, 1] & r_hi)
            if not has(free_lo, free_hi, g) or touches == U0:
                break  # a goal corner out of reach
        else:
            return UNKNOWN
        budget = split_budget
    if budget <= 0:
        return UNKNOWN
    # A deadline long past: the kernel stops at its first clock check, ``budget`` nodes on.
    stats[S_NODES] = SOLVER_CLOCK_EVERY - budget
    stats[S_ABORT] = 0
    score = exact_negamax(
        free_lo,
        free_hi,
        snail,
        side,
        -1,
        1,
        nbr,
        goal_masks,
        order,
        params,
        table,
        np.int64(1),
        stats,
        1e-9,
    )
    if stats[S_ABORT] != 0 or score == 0 or score == ILLEGAL:
        return UNKNOWN
    return LOSS if score > 0 else WIN


@nb.njit(cache=True)
def search_tree(
    free_lo,
    free_hi,
    snail,
    side,
    deadline,
    max_iterations,
    seed,
    c,
    kids_at,
    n_kids,
    move,
    visits,
    wins,
    proven,
    nbr,
    goals,
    taylor,
    solver,
    leaf_cells,
    used,
):
    """MCTS-Solver from the root (node 0) until ``deadline`` or ``max_iterations``; returns
    (iterations, nodes).  ``wins[k]`` counts for the player who moved into node ``k``.
    ``used``: the nodes of a tree kept from an earlier search (see :func:`keep_subtree`),
    whose node 0 is this position (expanded); 0 for a new tree.
    Nodes below the root with at most ``leaf_cells`` cells in reach are given to the exact
    solver (``solver``: see :func:`leaf_value`) when expanded."""
    np.random.seed(seed)
    trace = np.empty(160, np.int64)
    path = np.empty(160, np.int64)
    if used == 0:
        kids_at[0] = -1
        n_kids[0] = 0
        visits[0] = 0
        wins[0] = 0.0
        proven[0] = UNKNOWN
        move[0] = snail
        used = 1
    capacity = kids_at.shape[0]
    iterations = 0
    while iterations < max_iterations and proven[0] == UNKNOWN:
        if iterations > 0 and (iterations & CLOCK_EVERY) == 0 and now() > deadline:
            break
        iterations += 1
        node, depth = 0, 0
        f_lo, f_hi, s, me = free_lo, free_hi, snail, side
        path[0] = 0
        result = -2  # the winner's side, -1 a draw, -2 not known yet
        while True:
            if proven[node] != UNKNOWN:
                # the player who moved into ``node`` is side 1 - me
                result = (1 - me) if proven[node] == WIN else me
                break
            if kids_at[node] < 0:
                if used + 8 > capacity:
                    break
                if node != 0:
                    value = leaf_value(
                        f_lo, f_hi, s, me, solver, LEAF_BUDGET, leaf_cells, SPLIT_BUDGET
                    )
                    if value != UNKNOWN:
                        proven[node] = value
                        result = (1 - me) if value == WIN else me
                        break
                st_lo, st_hi = legal_steps(f_lo, f_hi, s, nbr, goals, taylor)
                kids_at[node] = used
                k = 0
                while (st_lo | st_hi) != U0:
                    m, st_lo, st_hi = lowest(st_lo, st_hi)
                    child = used + k
                    move[child] = m
                    kids_at[child] = -1
                    n_kids[child] = 0
                    visits[child] = 0
                    wins[child] = 0.0
                    m_lo, m_hi = bit(m)
                    value = classify(f_lo & ~m_lo, f_hi & ~m_hi, m, s, 1 - me, nbr, goals, taylor)
                    proven[child] = value if value != 2 else UNKNOWN
                    k += 1
                n_kids[node] = k
                used += k
            # Select: a proven win ends the node; proven losses are skipped.
            first, count = kids_at[node], n_kids[node]
            best, best_value, all_lost = -1, -1.0, True
            log_n = math.log(visits[node] + 1.0)
            for j in range(first, first + count):
                if proven[j] == WIN:
                    best, all_lost = j, False
                    best_value = 1e9
                    break
                if proven[j] == LOSS:
                    continue
                all_lost = False
                if visits[j] == 0:
                    value = 1e6 + np.random.random()
                else:
                    value = wins[j] / visits[j] + c * math.sqrt(log_n / visits[j])
                if value > best_value:
                    best, best_value = j, value
            if count == 0 and taylor:
                result = -1  # stuck on a plain cell: a draw under Taylor's rules
                break
            if count == 0 or all_lost:
                proven[node] = WIN  # the mover here has no step, or only losing ones
                result = 1 - me
                break
            if proven[best] == WIN:
                proven[node] = LOSS
                result = me
                break
            node = best
            depth += 1
            path[depth] = node
            m = move[node]
            m_lo, m_hi = bit(m)
            f_lo &= ~m_lo
            f_hi &= ~m_hi
            s, me = m, 1 - me
            if visits[node] == 0 and proven[node] == UNKNOWN:
                break
        if result == -2:
            result = playout(f_lo, f_hi, s, me, nbr, goals, taylor, trace)
        # Back up: node path[k] was entered by side (side + k - 1) % 2.
        for k in range(depth + 1):
            nd = path[k]
            visits[nd] += 1
            mover_in = (side + k + 1) % 2
            if result == mover_in:
                wins[nd] += 1.0
            elif result == -1:
                wins[nd] += 0.5
        # Proofs found below move up the path.
        for k in range(depth, 0, -1):
            parent = path[k - 1]
            if proven[parent] != UNKNOWN:
                continue
            first, count = kids_at[parent], n_kids[parent]
            all_lost = True
            for j in range(first, first + count):
                if proven[j] == WIN:
                    proven[parent] = LOSS
                    break
                if proven[j] != LOSS:
                    all_lost = False
            if proven[parent] == UNKNOWN and all_lost and count > 0:
                proven[parent] = WIN
            if proven[parent] == UNKNOWN:
                break
    return iterations, used


@nb.njit(cache=True)
def keep_subtree(root, kids_at, n_kids, move, visits, wins, proven):
    """Move the subtree of node ``root`` to the front of the arrays (``root`` becomes node
    0, each node's children still side by side), for the next search to go on with it;
    returns its number of nodes.  Copied breadth first through scratch arrays."""
    size = kids_at.shape[0]
    old = np.empty(size, np.int64)  # new index -> old index
    old[0] = root
    new_kids = np.empty(size, np.int64)
    done, used = 0, 1
    while done < used:
        at = old[done]
        first, count = kids_at[at], n_kids[at]
        if first < 0:
            new_kids[done] = -1
        else:
            new_kids[done] = used
            for j in range(count):
                old[used + j] = first + j
            used += count
        done += 1
    order = old[:used]
    # gathered first (copies), then written: a node's new place may be another's old one
    n_kids[:used] = n_kids[order]
    move[:used] = move[order]
    visits[:used] = visits[order]
    wins[:used] = wins[order]
    proven[:used] = proven[order]
    kids_at[:used] = new_kids[:used]
    return used


TREE_IN_USE = threading.Lock()
# The tree's position (the game, then its moves) once a search is over; while the next search
# is of a position after it, the subtree of that position is kept.
KEPT_FOR: list[tuple[str, tuple[Move, ...]]] = []
KEEP_AT_MOST = CAPACITY // 2  # nodes: a bigger subtree is dropped (it would soon fill the tree)


@cache
def tree() -> tuple[np.ndarray, ...]:
    """The node arrays, made once: children's first index and count, move, visits, wins,
    proven value."""
    return (
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.int64),
        np.zeros(CAPACITY, np.float64),
        np.zeros(CAPACITY, np.int64),
    )


LEAF_SOLVERS: dict[int, tuple[np.ndarray, ...]] = {}


def leaf_solver(state: TrailState) -> tuple[np.ndarray, ...]:
    """The arrays :func:`leaf_value` takes for ``state``'s board (made once per board and
    rules; the table is kept): the solver's labelling of the dense cells."""
    c = compiled(state.game)
    made = LEAF_SOLVERS.get(c.variant)
    if made is None:
        labels = Labelling(state.game, c.board_of)
        params = kernel_params(state.game, distance=False, shortcuts=True)
        table = aligned_table(kernel128.ENTRY_WORDS << LEAF_TABLE_BITS)
        stats = np.zeros(2, np.int64)
        made = (labels.goals, labels.order, params, table, stats, labels.nbr, c.goals)
        LEAF_SOLVERS[c.variant] = made
    return made


@dataclass(frozen=True)
class MctsResult:
    move: int  # a board index
    proven: str | None  # "win" / "loss" for the side to move, when the tree proved it
    value: float  # the move's playout score, for the side to move, in [0, 1]
    visits: int  # of the move
    iterations: int
    nodes: int
    kept: int  # nodes kept from the earlier search


def warm_up(state: TrailState) -> None:
    """Compile (or load from numba's cache) what a search runs, the kept tree's compaction
    included, so that no timed move waits for it; the next search starts a new tree."""
    search(state, 1.0, iterations=CLOCK_EVERY + 1, keep=False)
    with TREE_IN_USE:
        keep_subtree(0, *tree())
    forget_tree()


def forget_tree() -> None:
    """Start the next search with a new tree (independent runs of one position)."""
    with TREE_IN_USE:
        KEPT_FOR.clear()


def kept_node(state: TrailState, c: Compiled) -> int:
    """The node of ``state`` in the kept tree, or -1 (another game, or never expanded)."""
    kids_at, n_kids, move = tree()[:3]
    if not KEPT_FOR:
        return -1
    spec, moves = KEPT_FOR[0]
    if spec != state.game.spec or tuple(state.move_stack[: len(moves)]) != moves:
        return -1
    node = 0
    for step in state.move_stack[len(moves) :]:
        first, count = int(kids_at[node]), int(n_kids[node])
        if first < 0:
            return -1
        dense = c.dense[cast(int, step)]  # a Slime Trail move is a board index
        found = [j for j in range(first, first + count) if move[j] == dense]
        if not found:
            return -1
        node = found[0]
    return node if kids_at[node] >= 0 else -1


def search(
    state: TrailState,
    seconds: float,
    *,
    iterations: int = 1 << 62,
    seed: int = 0,
    leaf_cells: int = LEAF_SOLVE_CELLS,
    keep: bool = True,
) -> MctsResult:
    """The move MCTS-Solver chooses in ``seconds`` (or ``iterations``); ``state`` must have a
    legal move.  A proven win is played; otherwise the most visited move not proven lost.
    ``leaf_cells``: the biggest region the exact solver is tried on at a leaf (-1: none; the
    split proofs of Rastros positions with a goal corner out of reach stay).
    ``keep``: go on with the tree of the last search when ``state`` follows its position
    (the same game, its moves and more), else start a new one."""
    c = compiled(state.game)
    solver = leaf_solver(state)
    lo, hi = c.words(state.free)
    kids_at, n_kids, move, visits, wins, proven = tree()
    deadline = time.monotonic() + seconds  # counted before any wait for the tree
    with TREE_IN_USE:  # one tree for every search of the process
        root = kept_node(state, c) if keep else -1
        kept = keep_subtree(root, *tree()) if root >= 0 else 0
        if kept > KEEP_AT_MOST:
            kept = 0
        done, used = search_tree(
            lo,
            hi,
            c.dense[state.snail],
            state.to_move - 1,
            deadline,
            iterations,
            seed,
            EXPLORATION,
            kids_at,
            n_kids,
            move,
            visits,
            wins,
            proven,
            c.nbr,
            c.goals,
            c.taylor,
            solver,
            leaf_cells,
            kept,
        )
        KEPT_FOR[:] = [(state.game.spec, tuple(state.move_stack))]
        first, count = int(kids_at[0]), int(n_kids[0])
        kids = range(first, first + count)
        won = [j for j in kids if proven[j] == WIN]
        verdict: str | None
        if won:
            pick, verdict = won[0], "win"
        else:
            alive = [j for j in kids if proven[j] != LOSS]
            verdict = None if alive else "loss"
            pick = max(alive or kids, key=lambda j: (visits[j], wins[j]))
        value = float(wins[pick] / visits[pick]) if visits[pick] else 0.5
        return MctsResult(
            c.board_of[int(move[pick])],
            verdict,
            value,
            int(visits[pick]),
            int(done),
            int(used),
            kept,
        )


def playout_trace(state: TrailState, seed: int) -> tuple[int, list[int]]:
    """One compiled playout from ``state``: the winner (0: a draw) and the cells stepped on
    (board indices), for the tests to replay against :func:`.playout.policy`."""
    c = compiled(state.game)
    lo, hi = c.words(state.free)
    trace = np.empty(MAX_STEPS + 2, np.int64)
    winner = _seeded_playout(
        lo, hi, c.dense[state.snail], state.to_move - 1, c.nbr, c.goals, c.taylor, trace, seed
    )
    steps = []
    for cell in trace:
        if cell < 0:
            break
        steps.append(c.board_of[int(cell)])
    return int(winner) + 1, steps


@nb.njit(cache=True)
def _seeded_playout(free_lo, free_hi, snail, side, nbr, goals, taylor, trace, seed):
    np.random.seed(seed)
    return playout(free_lo, free_hi, snail, side, nbr, goals, taylor, trace)
