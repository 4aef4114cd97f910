"""Compiled Monte-Carlo tree search with a solver (MCTS-Solver) for Slime-Moku's top level.

Why a tree of playouts rather than the alpha-beta of :mod:`.ai`: the game is long (a 15x15
game lasts about 200 plies) and who wins depends on where the slime is walked many moves
ahead, which a static count of open lines judges badly, while the branching factor is small
(at most 8 king steps).  Against plain UCT the alpha-beta lost most of its games.

The tree knows the tactics of :func:`slimetrail.games.moku.playout.policy` (the readable
reference, which the tests compare with :func:`policy`): take the win the slime's cell gives,
never step onto the opponent's gap, take a step that forces the opponent onto a gap.  Each of
its verdicts is exact, so a node's verdict proves it and the children it leaves out are lost
steps.  The tree is MCTS-Solver (Winands, Björnsson and Saito 2008) with draws: a node whose
mover has a winning child is a proven win, one whose children are all proven a proven loss
or draw, and proven losses are never selected again.  Selection blends in RAVE (the value of
stepping onto a cell whenever the same player did so later in the iteration).  Before the
tree, the compiled threat search (:func:`attack`, the reference being
:mod:`slimetrail.games.moku.threats`) plays a forced win and leaves out the steps after which
the opponent has one.

The playouts are random steps that never walk onto the opponent's gap while another step
exists (``SAFE``: one scan of four lines per step drawn, so nearly as cheap as uniform ones):
a uniform playout is mostly decided by who first walks into the other's row, not by the
position.  Against plain UCT at 0.3 s a move on a loaded machine (load 30-55) they scored
53% on 15x15 and 50% on 7x7 k=4 (16 games each) where the uniform ones scored 37.5% (16 and
12 games).  The policy's playouts (``INFORMED``) cost five times as much a ply.

On 15x15 a leaf's value is half its playout's and half a judgement fitted on the top level's
own games (:func:`leaf_value`: the cells that are each side's gap, the open windows of two and
three stones): the playouts judge a middle game by who first walks into the other's row, and
at 46-60 empty cells of lost games the tree had valued its positions 0.50-0.62 at 1 s and at
10 s alike.  The judgement predicts how games end as well as the playouts do, the two together
better; at a quarter of a second a move it lifted the top level from 45% to 90% against plain
UCT (bench/RESULTS.md, session 54).

One tree serves every search of a process: when a search's position is the last root two
plies on (our move and the reply), the subtree below them is kept and the new iterations go
on from its visits: the top level's strength rises steeply with its iterations (at a tenth of
a quiet 1 s move twice the iterations scored 72% on openings where a fresh tree scored 47%,
and the kept tree 63% against 49%: bench/RESULTS.md, session 50).

With ``threads`` > 1 (``Limit.threads``, a UCI engine's Threads) fresh trees grow beside the
kept one on the other cores from the start of the move, while the root's solve and threat
passes run, and their roots' visits are summed at the end (root parallelism: Chaslot, Winands
and van den Herik 2008): the strength of more iterations, on a machine with cores to spare.

The board is a padded mailbox (``n + 2`` cells a row, a wall around it), so the king steps
need no edge test, beside the stone counts of every window of k cells in a line, kept up to
date stone by stone: a cell is a gap of a colour (its stone there completes a row) while some
window through it holds k - 1 stones of that colour and none of the other, so every test of
the policy is one look-up.  Nothing is allocated per iteration.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, cast

import numba as nb
import numpy as np

from slimetrail.ai.limits import shared_out
from slimetrail.compiled import now
from slimetrail.core.game import SolveTimeout
from slimetrail.games.moku import endgame
from slimetrail.games.moku.mailbox import (
    EMPTY,
    SLIME,
    Geometry,
    count_windows,
    geometry,
    lift,
    mailbox,
    neighbours_or_all,
    place,
    window_counts,
)
from slimetrail.games.moku.solver import SOLVER

if TYPE_CHECKING:
    from slimetrail.games.moku.game import MokuState

PLAY, P_WIN, P_LOSS, P_DRAW = 0, 1, 2, 3  # policy verdicts, for the player to move
UNKNOWN, WIN, LOSS, DRAW = 0, 1, -1, 2  # proven values, for the player who moved INTO a node
CAPACITY = 1 << 21  # tree nodes; past that the tree stops growing (playouts go on)
EXPLORATION = 0.7  # UCB1's constant (less than sqrt 2: RAVE and the proofs guide the tree)
CLOCK_EVERY = 31  # iterations between two looks at the clock (a mask)
MAX_PLIES = 19 * 19 + 2  # no game is longer: every move fills a cell
RAVE = 300.0  # visits at which a step's own value and its all-moves-as-first one weigh alike / 3
RANDOM, SAFE, INFORMED = 0, 1, 2  # playouts: uniform steps, steps not onto a gap, the policy
PLAYOUTS = SAFE
# A leaf's value: this share from the judgement (:func:`leaf_value`), the rest from its playout,
# on the boards it was fitted on (15x15 and up, rows of five; the others: the playout alone).
LEAF_MIX = 0.5
JUDGED_K = 5
# The judgement's weights: a constant, the gap cells, the windows of two and of three stones
# (research/moku/judgement.py fits them on self-play games).
JUDGEMENT = np.array([0.0, 0.21, 0.018, 0.031])
THREAT_DEPTH = 6  # attacker moves of the threat search at the root
THREAT_BRANCH = 2  # safe replies a threat may leave the defender
THREAT_NODES = 20_000  # nodes of one threat search at most
THREAT_SHARE = 0.25  # of the move's time, for starting the root's threat searches
CONTEMPT = 0.1  # a drawn playout's loss of value for the root's player: play for the win
CONTEMPT_EMPTIES = 60  # ... while more cells than this are empty (late, draws are kept)
WIDER_PASSES = 1  # threat passes after the first, each 2 attacker moves deeper, 1 reply wider
ENDGAME_EMPTIES = 24  # from here on a first threat pass takes every step and every reply
ENDGAME_THREAT_SHARE = 0.6  # of the move's time, for starting threat searches from then on
LATE_EMPTIES = 40  # from here on a last pass, LATE_PASS deep and wide, on the steps left
LATE_PASS = (12, 4)  # (attacker moves, safe replies)
SOLVE_SHARE = 0.5  # of the move's time, for the exact solver at the root
SOLVE_EMPTIES = 32  # ... with this many empty cells or fewer (7x7 k=4 proves from about 33-23)
ENDGAME_SOLVE_EMPTIES = 30  # ... or, beyond 7x7, the endgame search (9x9 proves from about 28)
# On boards of 15x15 and up, from 42 empty cells and with 0.7 of the move: there the wins and
# draws thrown away at 33-42 empty cells are proven in 0.2-0.8 s (bench/RESULTS.md, session 51).
BIG_BOARD_CELLS = 15 * 15
BIG_ENDGAME_SOLVE_EMPTIES = 42
BIG_ENDGAME_SOLVE_SHARE = 0.7


@nb.njit(cache=True)
def attack(
    cells,
    slime,
    colour,
    empties,
    depth,
    branch,
    steps,
    k,
    window_cells,
    cell_windows,
    counts,
    gaps,
    budget,
):
    """A step of ``colour`` (to move, the slime on ``slime``) that wins by force within
    ``depth`` of their moves, found by threats alone (the compiled
    :meth:`slimetrail.games.moku.threats.ThreatSearch.attack`): the attacker tries every step
    leaving the defender at most ``branch`` safe replies, the defender every safe reply.
    Returns the step's cell, -1 when none was found, -2 when the slime's cell already wins.
    ``budget[0]`` counts the nodes left; at 0 the search gives up (finding nothing).  The
    arrays are left as they were."""
    budget[0] -= 1
    if budget[0] <= 0 or empties == 0:
        return -1
    if gaps[colour, slime] > 0:
        return -2
    if empties == 1:
        return -1
    place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    other = 3 - colour
    found = -1
    size = cells.shape[0]
    moves = np.empty(size, np.int64)
    replies = np.empty(size, np.int64)
    n_moves = neighbours_or_all(cells, slime, steps, moves)
    # Threats: (step, number of safe replies, the replies); a step leaving none wins.
    threat_steps = np.empty(n_moves, np.int64)
    threat_safe = np.empty(n_moves, np.int64)
    threat_replies = np.empty((n_moves, branch), np.int64)
    threats = 0
    for i in range(n_moves):
        p = moves[i]
        if gaps[other, p] > 0:
            continue  # the defender would write there and win
        cells[p] = SLIME
        n_replies = neighbours_or_all(cells, p, steps, replies)
        cells[p] = EMPTY
        safe = 0
        for j in range(n_replies):
            q = replies[j]
            # A reply onto the attacker's gap loses, unless it fills the board.
            if not (empties >= 3 and gaps[colour, q] > 0):
                if safe < branch:
                    threat_replies[threats, safe] = q
                safe += 1
                if safe > branch:
                    break
        if safe == 0:
            found = p
            break
        if depth > 1 and safe <= branch:
            threat_steps[threats] = p
            threat_safe[threats] = safe
            threats += 1
    if found < 0 and threats > 0:
        for want in range(1, branch + 1):
            for i in range(threats):
                if threat_safe[i] != want:
                    continue
                p = threat_steps[i]
                place(cells, p, other, k, window_cells, cell_windows, counts, gaps)
                won = True
                for j in range(want):
                    q = threat_replies[i, j]
                    cells[q] = SLIME
                    reply = attack(
                        cells,
                        q,
                        colour,
                        empties - 2,
                        depth - 1,
                        branch,
                        steps,
                        k,
                        window_cells,
                        cell_windows,
                        counts,
                        gaps,
                        budget,
                    )
                    cells[q] = EMPTY
                    if reply == -1:
                        won = False
                        break
                lift(cells, p, other, k, window_cells, cell_windows, counts, gaps)
                if won:
                    found = p
                    break
            if found >= 0:
                break
    lift(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    cells[slime] = SLIME
    return found


@nb.njit(cache=True, nogil=True)
def root_threats(
    cells,
    slime,
    colour,
    empties,
    depth,
    branch,
    steps,
    k,
    window_cells,
    cell_windows,
    nodes,
    banned,
    deadline,
):
    """The threat search at the root: the mover's winning step (-1: none found), else the
    steps after which the opponent has one marked in ``banned`` (steps marked already are
    not searched again).  Each search may visit
    ``nodes`` nodes; none starts after ``deadline`` (the steps not searched stay allowed)."""
    counts = np.zeros((3, window_cells.shape[0]), np.int8)
    gaps = np.zeros((3, cells.shape[0]), np.int16)
    count_windows(cells, window_cells, k, counts, gaps)
    budget = np.full(1, nodes, np.int64)
    win = attack(
        cells,
        slime,
        colour,
        empties,
        depth,
        branch,
        steps,
        k,
        window_cells,
        cell_windows,
        counts,
        gaps,
        budget,
    )
    if win != -1 or empties < 2:
        return win
    place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    moves = np.empty(cells.shape[0], np.int64)
    for i in range(neighbours_or_all(cells, slime, steps, moves)):
        if now() > deadline:
            break
        p = moves[i]
        if banned[p]:
            continue  # already known lost
        cells[p] = SLIME
        budget[0] = nodes
        if (
            attack(
                cells,
                p,
                3 - colour,
                empties - 1,
                depth,
                branch,
                steps,
                k,
                window_cells,
                cell_windows,
                counts,
                gaps,
                budget,
            )
            != -1
        ):
            banned[p] = 1
        cells[p] = EMPTY
    return -1


@nb.njit(cache=True)
def policy(cells, slime, colour, empties, steps, k, window_cells, cell_windows, counts, gaps, out):
    """The playout policy for ``colour`` to move (``empties``: the empty cells, the slime's
    not counted): ``(verdict, count)``.  P_WIN with count 1 has the winning step in
    ``out[0]`` (count 0: the stone on the slime's cell wins); P_LOSS and P_DRAW end the game;
    PLAY leaves the ``count`` safe steps in ``out``.  Unless the game ends on the slime's
    cell (P_WIN with count 0, P_DRAW), the mover's stone is written there (it is, whatever
    the step)."""
    if gaps[colour, slime] > 0:
        return P_WIN, 0
    if empties == 1:
        return P_DRAW, 0
    place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    other = 3 - colour
    count = 0
    stuck = True
    for s in steps:
        p = slime + s
        if cells[p] == EMPTY:
            stuck = False
            if gaps[other, p] == 0:
                out[count] = p
                count += 1
    if stuck:
        for p in range(cells.shape[0]):
            if cells[p] == EMPTY and gaps[other, p] == 0:
                out[count] = p
                count += 1
    if count == 0:
        return P_LOSS, 0
    if empties >= 3:
        for i in range(count):
            p = out[i]
            replies = 0
            forced = True
            for s in steps:
                q = p + s
                if cells[q] == EMPTY:
                    replies += 1
                    if gaps[colour, q] == 0:
                        forced = False
                        break
            if forced and replies > 0:
                out[0] = p
                return P_WIN, 1
    return PLAY, count


@nb.njit(cache=True)
def playout(
    cells,
    slime,
    colour,
    empties,
    steps,
    k,
    window_cells,
    cell_windows,
    counts,
    gaps,
    buf,
    entered_by,
    trace,
    plies,
):
    """A game played to its end by the policy (the arrays are changed); returns the winner's
    colour, 0 for a draw, and the plies in ``trace``: the cells stepped onto from ply
    ``plies`` on, ``entered_by`` marking each with the colour that stepped there."""
    while True:
        verdict, count = policy(
            cells, slime, colour, empties, steps, k, window_cells, cell_windows, counts, gaps, buf
        )
        if verdict == P_WIN:
            return colour, plies
        if verdict == P_LOSS:
            return 3 - colour, plies
        if verdict == P_DRAW:
            return 0, plies
        move = buf[np.random.randint(count)]
        cells[move] = SLIME
        entered_by[move] = colour
        trace[plies] = move
        plies += 1
        slime = move
        empties -= 1
        colour = 3 - colour


@nb.njit(cache=True)
def makes_row(cells, p, colour, lines, k):
    """Whether a stone of ``colour`` on ``p`` completes k in a row of that colour (a scan of
    its four lines; the wall stops every scan)."""
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


@nb.njit(cache=True, inline="always")
def random_below(rng, bound):
    """An integer in [0, ``bound``) from the xorshift64* generator in ``rng[0]`` (its top 32
    bits scaled, no division): cheaper than numpy's generator in the playout's inner loop."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    top = (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return np.int64((top * np.uint64(bound)) >> np.uint64(32))


@nb.njit(cache=True)
def random_playout(
    cells,
    slime,
    colour,
    empties,
    steps,
    lines,
    k,
    buf,
    entered_by,
    trace,
    plies,
    rng,
    listed,
    where,
    safe,
):
    """A game played to its end by random steps, as :func:`playout` but without the policy
    (several times faster a ply); it reads ``cells`` alone.  The steps are uniformly random,
    or when ``safe`` uniformly random among those not onto the opponent's gap (the block of
    an immediate win, the one rule of the policy that a scan of four lines decides; the
    reference is :func:`slimetrail.games.moku.playout.safe_steps`).  ``listed`` and
    ``where`` are scratch for the empty cells, listed the first time the slime is stuck and
    kept up to date from then on (late in a game the slime is often stuck)."""
    n_listed = -1  # not listed yet
    # A safe step was tested not to complete the next mover's row, on the very board the
    # next mover's win test would scan: that test is then skipped (same result, one scan).
    checked = False
    while True:
        if not checked and makes_row(cells, slime, colour, lines, k):
            return colour, plies
        checked = False
        if empties == 1:
            return 0, plies
        cells[slime] = colour
        other = 3 - colour
        count = 0
        for s in steps:
            # Branch-free: every step is written, and kept if its cell is empty.
            buf[count] = slime + s
            count += cells[slime + s] == EMPTY
        if count:
            drawn = random_below(rng, count)
            move = buf[drawn]
            if safe:
                # Uniform among the steps not onto the opponent's gap: a drawn gap is
                # swapped out and another drawn; with only gaps left the last is taken.
                while count > 1:
                    if not makes_row(cells, move, other, lines, k):
                        checked = True
                        break
                    count -= 1
                    buf[drawn] = buf[count]
                    drawn = random_below(rng, count)
                    move = buf[drawn]
        else:
            if n_listed < 0:
                n_listed = 0
                for p in range(cells.shape[0]):
                    if cells[p] == EMPTY:
                        listed[n_listed] = p
                        where[p] = n_listed
                        n_listed += 1
            start = random_below(rng, n_listed)
            move = listed[start]
            if safe:
                # A lift may go anywhere: the first cell from a random place in the list
                # that is not the opponent's gap (the drawn one if every cell is).
                for i in range(n_listed):
                    p = listed[(start + i) % n_listed]
                    if not makes_row(cells, p, other, lines, k):
                        move = p
                        checked = True
                        break
        if n_listed >= 0:
            # Take the move's cell off the list: the last listed cell takes its place.
            n_listed -= 1
            last = listed[n_listed]
            listed[where[move]] = last
            where[last] = where[move]
        cells[move] = SLIME
        entered_by[move] = colour
        trace[plies] = move
        plies += 1
        slime = move
        empties -= 1
        colour = 3 - colour


@nb.njit(cache=True)
def judgement_terms(cells, colour, window_cells, counts, gaps):
    """The terms of the judgement for ``colour`` to move, whose stone is already on the
    slime's cell: the empty cells that are its gaps less the opponent's, and its open windows
    (none of the other colour's stones) of two and of three stones less the opponent's."""
    other = 3 - colour
    gap_cells = 0
    for p in range(cells.shape[0]):
        if cells[p] == EMPTY:
            gap_cells += (gaps[colour, p] > 0) - (gaps[other, p] > 0)
    twos = 0
    threes = 0
    for window in range(window_cells.shape[0]):
        mine, theirs = counts[colour, window], counts[other, window]
        if theirs == 0:
            twos += mine == 2
            threes += mine == 3
        elif mine == 0:
            twos -= theirs == 2
            threes -= theirs == 3
    return gap_cells, twos, threes


@nb.njit(cache=True)
def leaf_value(cells, slime, colour, k, window_cells, cell_windows, counts, gaps, judgement):
    """The judgement's expected score for ``colour`` to move (1 a win, 1/2 a draw, 0 a
    loss): the weighted terms of :func:`judgement_terms` with the mover's stone on the
    slime's cell, clipped to [-1, 1] and halved.  Why: a random playout judges a middle game
    by who first walks into the other's row; the gaps each side holds (cells the other's
    slime may never enter) and the windows that may become gaps predict the games of the top
    level as well, and the two together better (bench/RESULTS.md, session 54)."""
    place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    gap_cells, twos, threes = judgement_terms(cells, colour, window_cells, counts, gaps)
    lift(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
    cells[slime] = SLIME
    value = judgement[0] + judgement[1] * gap_cells + judgement[2] * twos
    value += judgement[3] * threes
    return 0.5 + 0.5 * min(1.0, max(-1.0, value))


@nb.njit(cache=True, nogil=True)
def search_tree(
    cells0,
    slime0,
    colour0,
    empties0,
    steps,
    k,
    window_cells,
    cell_windows,
    deadline,
    stop,
    max_iterations,
    seed,
    c,
    rave,
    playouts,
    contempt,
    lines,
    banned,
    kids_at,
    n_kids,
    move,
    visits,
    wins,
    proven,
    rave_visits,
    rave_wins,
    kept,
    mix,
    judgement,
):
    """MCTS-Solver from the root (node 0) until ``deadline``, ``stop[0]`` is set or
    ``max_iterations``; returns (iterations, nodes).  ``kept``: the nodes of a tree kept
    from an earlier search with this position at its root (:func:`keep_subtree`; 0: a new
    tree).  ``wins[j]`` counts for the player who moved into node ``j``; the root's steps
    marked in ``banned`` are left out (there must be others; in a kept tree they are marked
    lost).  ``rave`` > 0
    blends in the all-moves-as-first value of a step (``rave_wins / rave_visits``: the
    iterations in which the same player stepped onto the same cell later on), with the weight
    ``sqrt(rave / (3 visits + rave))`` (Gelly and Silver 2007).  ``playouts`` is RANDOM,
    SAFE (random steps, none onto the opponent's gap while another exists) or INFORMED
    (the policy).  A drawn iteration scores ``1/2 - contempt`` for ``colour0`` (against a
    weaker opponent a draw is a loss of chances).  A leaf's value is ``mix`` of
    :func:`leaf_value` (with the weights ``judgement``) and the rest of its playout's."""
    np.random.seed(seed)
    rng = np.full(1, np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1), np.uint64)
    cells = cells0.copy()
    counts0 = np.zeros((3, window_cells.shape[0]), np.int8)
    gaps0 = np.zeros((3, cells0.shape[0]), np.int16)
    count_windows(cells0, window_cells, k, counts0, gaps0)
    counts, gaps = counts0.copy(), gaps0.copy()
    buf = np.empty(cells0.shape[0], np.int64)
    path = np.empty(MAX_PLIES + 2, np.int64)
    trace = np.empty(MAX_PLIES + 2, np.int64)  # the cell stepped onto at every ply
    entered_by = np.zeros(cells0.shape[0], np.int8)
    listed = np.empty(cells0.shape[0], np.int64)
    where = np.empty(cells0.shape[0], np.int64)
    if kept == 0:
        kids_at[0] = -1
        n_kids[0] = 0
        visits[0] = 0
        wins[0] = 0.0
        proven[0] = UNKNOWN
        used = 1
    else:
        used = kept
        # The passes before the tree proved these steps lost: the same fact in the tree.
        for j in range(kids_at[0], kids_at[0] + n_kids[0]):
            if banned[move[j]] and proven[j] == UNKNOWN:
                proven[j] = LOSS
    capacity = kids_at.shape[0]
    iterations = 0
    while iterations < max_iterations and proven[0] == UNKNOWN:
        if iterations > 0 and (iterations & CLOCK_EVERY) == 0 and (stop[0] or now() > deadline):
            break
        iterations += 1
        cells[:] = cells0
        counts[:] = counts0
        gaps[:] = gaps0
        slime, colour, empties = slime0, colour0, empties0
        node, depth = 0, 0
        path[0] = 0
        result = -1  # the winner's colour, 0 a draw, -1 not known yet
        while True:
            if proven[node] != UNKNOWN:
                if proven[node] == DRAW:
                    result = 0
                else:
                    result = 3 - colour if proven[node] == WIN else colour
                break
            written = False
            if kids_at[node] < 0:
                if used + cells.shape[0] > capacity:
                    break
                verdict, count = policy(
                    cells,
                    slime,
                    colour,
                    empties,
                    steps,
                    k,
                    window_cells,
                    cell_windows,
                    counts,
                    gaps,
                    buf,
                )
                if verdict == P_WIN:
                    proven[node] = LOSS
                    result = colour
                    break
                if verdict == P_LOSS:
                    proven[node] = WIN
                    result = 3 - colour
                    break
                if verdict == P_DRAW:
                    proven[node] = DRAW
                    result = 0
                    break
                written = True
                if node == 0:
                    kept = 0
                    for j in range(count):
                        if banned[buf[j]] == 0:
                            buf[kept] = buf[j]
                            kept += 1
                    count = kept
                kids_at[node] = used
                for j in range(count):
                    child = used + j
                    move[child] = buf[j]
                    kids_at[child] = -1
                    n_kids[child] = 0
                    visits[child] = 0
                    wins[child] = 0.0
                    rave_visits[child] = 0.0
                    rave_wins[child] = 0.0
                    proven[child] = UNKNOWN
                n_kids[node] = count
                used += count
            first, count = kids_at[node], n_kids[node]
            best, best_value = -1, -1.0
            log_n = math.log(visits[node] + 1.0)
            for j in range(first, first + count):
                if proven[j] == LOSS:
                    continue
                if proven[j] == WIN:
                    best = j
                    break
                if visits[j] == 0:
                    value = 1e6 + np.random.random()
                else:
                    value = wins[j] / visits[j]
                    if rave > 0.0 and rave_visits[j] > 0.0:
                        beta = math.sqrt(rave / (3.0 * visits[j] + rave))
                        value += beta * (rave_wins[j] / rave_visits[j] - value)
                    value += c * math.sqrt(log_n / visits[j])
                if value > best_value:
                    best, best_value = j, value
            if best < 0:
                result = 3 - colour  # every child is lost: the player who moved in wins
                break
            if not written:
                place(cells, slime, colour, k, window_cells, cell_windows, counts, gaps)
            node = best
            depth += 1
            path[depth] = node
            slime = move[node]
            cells[slime] = SLIME
            entered_by[slime] = colour
            trace[depth - 1] = slime
            empties -= 1
            colour = 3 - colour
            if visits[node] == 0 and proven[node] == UNKNOWN:
                break
        plies = depth
        judged = -1.0  # the judgement's score for the leaf's player to move (-1: none)
        if result == -1 and mix > 0.0:
            judged = leaf_value(
                cells, slime, colour, k, window_cells, cell_windows, counts, gaps, judgement
            )
        leaf_colour = colour
        if result == -1 and playouts != INFORMED:
            result, plies = random_playout(
                cells,
                slime,
                colour,
                empties,
                steps,
                lines,
                k,
                buf,
                entered_by,
                trace,
                depth,
                rng,
                listed,
                where,
                playouts == SAFE,
            )
        elif result == -1:
            result, plies = playout(
                cells,
                slime,
                colour,
                empties,
                steps,
                k,
                window_cells,
                cell_windows,
                counts,
                gaps,
                buf,
                entered_by,
                trace,
                depth,
            )
        # Back up: node path[d] was entered by colour0 when d is odd.  A draw is worth
        # ``contempt`` less than a half to the root's player (and more to the other).
        for d in range(depth + 1):
            nd = path[d]
            visits[nd] += 1
            mover_in = colour0 if d % 2 == 1 else 3 - colour0
            if result == mover_in:
                score = 1.0
            elif result == 0:
                score = 0.5 - contempt if mover_in == colour0 else 0.5 + contempt
            else:
                score = 0.0
            if judged >= 0.0:
                judge = judged if mover_in == leaf_colour else 1.0 - judged
                score = (1.0 - mix) * score + mix * judge
            wins[nd] += score
        # All moves as first: a child of path[d] scores when its mover stepped onto its cell
        # at ply d or later (every cell is stepped onto at most once a game).
        if rave > 0.0:
            for d in range(depth):
                nd = path[d]
                mover = colour0 if d % 2 == 0 else 3 - colour0
                score = 1.0 if result == mover else 0.0
                if result == 0:
                    score = 0.5 - contempt if mover == colour0 else 0.5 + contempt
                for j in range(kids_at[nd], kids_at[nd] + n_kids[nd]):
                    if entered_by[move[j]] == mover:
                        rave_visits[j] += 1.0
                        rave_wins[j] += score
        for i in range(plies):
            entered_by[trace[i]] = 0
        # Proofs found below move up the path.
        for d in range(depth, 0, -1):
            parent = path[d - 1]
            if proven[parent] != UNKNOWN or kids_at[parent] < 0:
                break
            first, count = kids_at[parent], n_kids[parent]
            settled, drawn = True, False
            for j in range(first, first + count):
                if proven[j] == WIN:
                    proven[parent] = LOSS
                    break
                if proven[j] == DRAW:
                    drawn = True
                elif proven[j] != LOSS:
                    settled = False
            if proven[parent] == UNKNOWN and settled:
                proven[parent] = DRAW if drawn else WIN
            if proven[parent] == UNKNOWN:
                break
    return iterations, used


@nb.njit(cache=True)
def keep_subtree(
    root, used, kids_at, n_kids, move, visits, wins, proven, rave_visits, rave_wins, new_index
):
    """Move the subtree of node ``root`` to the front of the node arrays, node 0 its root, and
    return its size.  A node's children were made after it, in one block, so the subtree's
    nodes in the order of their old indices keep each block whole and none moves to a higher
    index: the copy runs in place, lowest first."""
    for i in range(root, used):
        new_index[i] = -1
    new_index[root] = 0
    for i in range(root, used):  # a child's index is higher than its parent's
        if new_index[i] >= 0 and kids_at[i] >= 0:
            for j in range(kids_at[i], kids_at[i] + n_kids[i]):
                new_index[j] = 0
    size = 0
    for i in range(root, used):
        if new_index[i] >= 0:
            new_index[i] = size
            size += 1
    for i in range(root, used):
        j = new_index[i]
        if j < 0:
            continue
        kids_at[j] = new_index[kids_at[i]] if kids_at[i] >= 0 else -1
        n_kids[j] = n_kids[i]
        move[j] = move[i]
        visits[j] = visits[i]
        wins[j] = wins[i]
        proven[j] = proven[i]
        rave_visits[j] = rave_visits[i]
        rave_wins[j] = rave_wins[i]
    return size


def tree() -> tuple[np.ndarray, ...]:
    """The first tree's node arrays: children's first index and count, move, visits, wins,
    proven value, all-moves-as-first visits and wins."""
    return tree_arrays(0)


@cache
def tree_arrays(index: int) -> tuple[np.ndarray, ...]:
    """The node arrays of the ``index``-th tree (0: the first thread's, the others side
    trees), made once."""
    return (
        np.zeros(CAPACITY, np.int32),
        np.zeros(CAPACITY, np.int32),
        np.zeros(CAPACITY, np.int32),
        np.zeros(CAPACITY, np.int32),
        np.zeros(CAPACITY, np.float32),
        np.zeros(CAPACITY, np.int8),
        np.zeros(CAPACITY, np.float32),
        np.zeros(CAPACITY, np.float32),
    )


@cache
def renumbering() -> np.ndarray:
    """:func:`keep_subtree`'s map from old node indices to new ones, made once."""
    return np.zeros(CAPACITY, np.int32)


@dataclass(frozen=True)
class TreeRoot:
    """The position at the root of a tree of :func:`tree_arrays`, and the tree's size."""

    size: int
    k: int
    black: int
    white: int
    slime: int
    to_move: int
    used: int


TREE_IN_USE = threading.Lock()  # every tree of the process, for a whole search
LAST_ROOTS: dict[int, TreeRoot] = {}  # by tree index; none: the arrays hold no tree to keep


def kept_nodes(
    state: MokuState, geo: Geometry, nodes: tuple[np.ndarray, ...], index: int = 0
) -> int:
    """The nodes of tree ``index``'s last search (``nodes``, its arrays) that the search of
    ``state`` keeps (call under ``TREE_IN_USE``).  When ``state`` is the last root two plies
    on (our move and the reply: the root's slime cell and one more hold new stones) and the
    tree reached it, its subtree is moved to the root and its size returned; else 0, a new
    tree.  Its visits are playouts from ``state`` as good as new ones, and its proofs are
    facts."""
    last = LAST_ROOTS.get(index)
    if last is None or (last.size, last.k, last.to_move) != (
        state.game.size,
        state.game.k,
        state.to_move,
    ):
        return 0
    if last.black & ~state.black or last.white & ~state.white:
        return 0
    added = (state.black | state.white) & ~(last.black | last.white)
    if added.bit_count() != 2 or not added >> last.slime & 1:
        return 0
    reply = (added & ~(1 << last.slime)).bit_length() - 1
    kids_at, n_kids, move, visits, wins, proven, rave_visits, rave_wins = nodes
    node = 0
    for cell in (reply, state.slime):
        first = int(kids_at[node])
        kids = range(first, first + int(n_kids[node])) if first >= 0 else range(0)
        node = next((j for j in kids if move[j] == geo.padded[cell]), -1)
        if node < 0:
            return 0
    if kids_at[node] < 0:
        return 0  # a leaf: nothing worth the copy
    return int(
        keep_subtree(
            node, last.used, kids_at, n_kids, move, visits, wins, proven, rave_visits, rave_wins,
            renumbering(),
        )
    )  # fmt: skip


def forget() -> None:
    """Drop the kept trees (a new search starts afresh)."""
    with TREE_IN_USE:
        LAST_ROOTS.clear()


@dataclass(frozen=True)
class MctsResult:
    move: int  # a board index
    proven: str | None  # "win", "loss" or "draw" for the side to move, when proven
    value: float  # the move's playout score, for the side to move, in [0, 1]
    visits: int  # of the move
    iterations: int
    nodes: int


@dataclass(frozen=True)
class RootSolve:
    """What the exact solver proved at the root within its time: the root's value for the
    side to move (None: not proven), a winning move, and the moves proven to lose."""

    verdict: str | None = None
    win: int | None = None
    losing: tuple[int, ...] = ()


def solve_root(state: MokuState, seconds: float) -> RootSolve:
    """The exact solver (boards up to 7x7, ``SOLVE_EMPTIES`` empty cells or fewer: earlier it
    proves nothing in a move's time and takes it from the tree) on the root and then its
    moves, for ``seconds``: a won root yields the winning move, a drawn one the moves that
    lose.  The moves are
    searched with a null window (is this move the win? does it lose?), and the solver's
    table, kept between moves, holds on to what a search cut short had learnt.  Bigger
    boards get the endgame search (:mod:`.endgame`) from ``ENDGAME_SOLVE_EMPTIES`` on
    (:func:`endgame_solve_empties`).  No time, no solve."""
    if seconds <= 0:
        return RootSolve()
    if not SOLVER.can_solve(state.game):
        if state.empty.bit_count() > endgame_solve_empties(state.game.size):
            return RootSolve()
        return endgame_root(endgame.move_bounds(state, seconds))
    if state.empty.bit_count() > SOLVE_EMPTIES:
        return RootSolve()
    search = SOLVER.search_for(state.game.board)
    deadline = now() + seconds

    def left() -> float:
        remaining = deadline - now()
        if remaining <= 0:
            raise SolveTimeout("the root's share of the move is spent")
        return remaining

    def sides(position: MokuState) -> tuple[int, int]:
        black, white = position.black, position.white
        return (black, white) if position.to_move == 1 else (white, black)

    try:
        value = search.value(*sides(state), state.empty, state.slime, left())
    except SolveTimeout:
        return RootSolve()
    verdict = {1: "win", 0: "draw", -1: "loss"}[value]
    if value == -1:
        return RootSolve(verdict)
    losing = []
    for move in state.legal_moves():
        child = state.copy()
        child.push(move)
        outcome = child.outcome()
        try:
            if outcome is not None:
                mine = 1 if outcome.winner == state.to_move else -1 if outcome.winner else 0
            else:
                # Null windows from the opponent's side: (-1, 0) asks "does it lose?",
                # (0, 1) "does it win?".
                window = (-1, 0) if value == 1 else (0, 1)
                mine = -search.value(*sides(child), child.empty, child.slime, left(), window=window)
        except SolveTimeout:
            break
        if value == 1 and mine == 1:
            return RootSolve(verdict, win=cast(int, move))
        if mine == -1:
            losing.append(cast(int, move))
    return RootSolve(verdict, losing=tuple(losing))


def big_board(size: int) -> bool:
    """Whether a ``size`` board gets the endgame search's longer reach and bigger share."""
    return size * size >= BIG_BOARD_CELLS


def endgame_solve_empties(size: int) -> int:
    """The empty cells from which the root asks the endgame search on a ``size`` board."""
    return BIG_ENDGAME_SOLVE_EMPTIES if big_board(size) else ENDGAME_SOLVE_EMPTIES


def endgame_root(found: endgame.MoveBounds) -> RootSolve:
    """What the endgame search's bounds on the root's moves prove, as :func:`solve_root`
    tells it: the root's value once every move is settled, a winning move, the losing ones
    (none when every move loses: the tree then picks the hardest defence)."""
    values = [low for low, high in found.bounds.values() if low == high]
    settled = len(values) == len(found.bounds)
    verdict = {1: "win", 0: "draw", -1: "loss"}[max(values)] if settled and values else None
    losing = found.losing()
    return RootSolve(
        verdict,
        win=found.winning(),
        losing=() if len(losing) == len(found.bounds) else tuple(losing),
    )


def search(
    state: MokuState,
    seconds: float,
    *,
    iterations: int = 1 << 62,
    seed: int = 0,
    exploration: float = EXPLORATION,
    rave: float = RAVE,
    playouts: int = PLAYOUTS,
    threat_depth: int = THREAT_DEPTH,
    threat_branch: int = THREAT_BRANCH,
    threat_nodes: int = THREAT_NODES,
    solve_share: float | None = None,
    wider_passes: int = WIDER_PASSES,
    contempt: float = CONTEMPT,
    contempt_empties: int = CONTEMPT_EMPTIES,
    mix: float | None = None,
    clock: bool = True,
    keep: bool = True,
    threads: int = 1,
) -> MctsResult:
    """The move MCTS-Solver chooses in ``seconds`` (or ``iterations``) for a running
    ``state``.  The exact solver (on bigger boards the endgame search) has ``solve_share`` of
    the time first (None: ``SOLVE_SHARE``, ``BIG_ENDGAME_SOLVE_SHARE`` on boards of
    ``BIG_BOARD_CELLS`` and up; :func:`solve_root`): a proven win is played, moves proven
    lost are left out, and a won or drawn root needs no threat search.  Else the threat search
    (``threat_depth`` attacker moves, 0: none, threats leaving at most ``threat_branch``
    safe replies): a win it finds is played, and the steps after which it finds one for the
    opponent are left out (the searches that have not started within ``THREAT_SHARE`` of the
    time, ``ENDGAME_THREAT_SHARE`` late in the game, are skipped); then ``wider_passes``
    more passes, each two attacker moves deeper and one reply wider, on the steps left; with
    ``LATE_EMPTIES`` empty cells or fewer a last pass of ``LATE_PASS``, and with
    ``ENDGAME_EMPTIES`` or fewer a pass taking every step and every reply (exact, within its
    node budget) first.  The tree scores a drawn playout ``contempt`` below a half for the
    side to move while more than ``contempt_empties`` cells are empty, and values a leaf
    ``mix`` by the judgement (:func:`leaf_value`), the rest by its playout (None:
    ``LEAF_MIX`` on boards of ``BIG_BOARD_CELLS`` and up with rows of ``JUDGED_K``, else 0).
    A proven win is played; otherwise the most visited move not proven lost.  ``clock=False``
    (fixed-budget matches): the tree runs its ``iterations`` and the threat passes their node
    budgets whatever the time, so the move depends on the seed (and the kept tree) alone; the
    exact solver keeps its share of ``seconds``.  ``keep``: when the last search's root was this
    position two plies earlier (our move and the reply), its subtree is kept
    (:func:`kept_nodes`).  ``threads``: trees searched side by side, each on its own core, the
    iterations shared out: beside the kept one, fresh trees from the start of the move
    (:class:`SideTrees`), summed at the root (:func:`merged_root`)."""
    if not clock and iterations >= 1 << 62:
        raise ValueError("a search without the clock needs an iteration budget")
    deadline = now() + seconds if clock else math.inf
    k = state.game.k
    geo = geometry(state.game.size, k)
    cells, slime = mailbox(state)
    empties, colour = state.empty.bit_count(), state.to_move
    verdict, count, buf = root_policy(geo, cells.copy(), slime, colour, empties, k)
    if verdict != PLAY or count == 1:
        pick = int(buf[0]) if count else geo.padded[cast(int, state.legal_moves()[0])]
        root_verdict = {P_WIN: "win", P_LOSS: "loss", P_DRAW: "draw"}.get(verdict)
        score = {"win": 1.0, "loss": 0.0}.get(root_verdict or "", 0.5)
        return MctsResult(geo.board_of[pick], root_verdict, score, 0, 0, 1)
    if empties <= contempt_empties:
        contempt = 0.0
    if mix is None:
        mix = LEAF_MIX if big_board(state.game.size) and k == JUDGED_K else 0.0
    banned = np.zeros(cells.shape[0], np.int8)

    def grow(
        arrays: tuple[np.ndarray, ...],
        share: int,
        seed: int,
        kept: int,
        banned: np.ndarray,
        stop: np.ndarray,
    ) -> tuple:
        kids_at, n_kids, move, visits, wins, proven, rave_visits, rave_wins = arrays
        return search_tree(
            cells, slime, colour, empties, geo.steps, k, geo.window_cells, geo.cell_windows,
            deadline, stop, share, seed, float(exploration), float(rave), int(playouts),
            float(contempt), geo.lines, banned, kids_at, n_kids, move, visits, wins, proven,
            rave_visits, rave_wins, kept, float(mix), JUDGEMENT,
        )  # fmt: skip

    shares = [n for n in shared_out(iterations, threads) if n]
    root = TreeRoot(state.game.size, k, state.black, state.white, state.slime, colour, 0)
    with TREE_IN_USE:  # every tree of the process, for the whole search
        trees = [tree_arrays(i) for i in range(len(shares))]
        kept = [kept_nodes(state, geo, nodes, i) if keep else 0 for i, nodes in enumerate(trees)]
        LAST_ROOTS.clear()  # the arrays change below
        side = SideTrees(grow, trees[1:], shares[1:], kept[1:], seed, cells.shape[0])
        with side:
            found = searched(
                Root(state, geo, cells, slime, colour, empties, count, buf),
                RootPasses(solve_share, threat_depth, threat_branch, threat_nodes, wider_passes),
                seconds,
                deadline,
                clock,
                banned,
                side,
                lambda: grow(trees[0], shares[0], seed, kept[0], banned, NEVER),
            )
        for index, used in side.grown():
            LAST_ROOTS[index] = replace(root, used=used)
        if found.iterations:  # the first tree grew (not a root decided before it)
            LAST_ROOTS[0] = replace(root, used=found.nodes)
        return found


NEVER = np.zeros(1, np.int8)  # the stop flag of the first tree: it stops by its own clock


class SideTrees:
    """The trees grown beside a search from its start (each kept from move to move as the
    first one is), each on a thread of its own -- the compiled code holds no GIL, the root's
    threat and endgame searches included -- while the search's own thread runs the root's
    solve, its threat passes and then the first tree.  They know nothing of the passes'
    verdicts: :func:`merged_root` counts only the steps the first tree holds.  On leaving,
    the trees still running are stopped and waited for."""

    def __init__(
        self,
        grow: Callable[..., tuple],
        trees: list[tuple[np.ndarray, ...]],
        shares: list[int],
        kept: list[int],
        seed: int,
        cells: int,
    ) -> None:
        self.grow, self.trees, self.shares, self.kept, self.seed = grow, trees, shares, kept, seed
        self.allowed = np.zeros(cells, np.int8)  # no step left out
        self.stop = np.zeros(1, np.int8)
        self.runs: list[Future[tuple]] = []

    def __enter__(self) -> SideTrees:
        if self.trees:
            self.pool = ThreadPoolExecutor(len(self.trees))
            tasks = zip(self.trees, self.shares, self.kept, strict=True)
            self.runs = [
                self.pool.submit(self.grow, nodes, n, self.seed + i, kept, self.allowed, self.stop)
                for i, (nodes, n, kept) in enumerate(tasks, 1)
            ]
        return self

    def finish(self) -> int:
        """Wait for the trees to reach the deadline (or their iterations): their iterations."""
        return sum(run.result()[0] for run in self.runs)

    def grown(self) -> list[tuple[int, int]]:
        """(tree index, nodes) of each side tree that ran to its end (after leaving)."""
        return [
            (i + 1, int(run.result()[1]))
            for i, run in enumerate(self.runs)
            if run.done() and run.exception() is None
        ]

    def __exit__(self, *exc: object) -> None:
        if self.runs:
            self.stop[0] = 1
            self.pool.shutdown(wait=True)


@dataclass(frozen=True)
class Root:
    """The position a search is for, in the kernels' form: its board (``cells``, ``slime``),
    the side to move, its empty cells, and its ``count`` steps (the first of ``steps``)."""

    state: MokuState
    geo: Geometry
    cells: np.ndarray
    slime: int
    colour: int
    empties: int
    count: int
    steps: np.ndarray


@dataclass(frozen=True)
class RootPasses:
    """The searches the root gets before the tree (see :func:`search`): the exact solve's
    share of the move and the threat passes' settings."""

    solve_share: float | None
    threat_depth: int
    threat_branch: int
    threat_nodes: int
    wider_passes: int


def searched(
    root: Root,
    passes: RootPasses,
    seconds: float,
    deadline: float,
    clock: bool,
    banned: np.ndarray,
    side: SideTrees,
    grow_first: Callable[[], tuple],
) -> MctsResult:
    """:func:`search` once the root has steps to choose from, under ``TREE_IN_USE``: the
    root's solve and threat passes (the steps they prove lost marked in ``banned``), then
    the first tree (``grow_first``) beside the ``side`` trees already running."""
    state, geo, cells, empties = root.state, root.geo, root.cells, root.empties
    count, buf = root.count, root.steps
    threat_depth, threat_branch = passes.threat_depth, passes.threat_branch
    solve_share = passes.solve_share
    k = state.game.k
    if solve_share is None:
        solve_share = BIG_ENDGAME_SOLVE_SHARE if big_board(state.game.size) else SOLVE_SHARE
    solved = solve_root(state, solve_share * seconds)
    if solved.win is not None:
        return MctsResult(solved.win, "win", 1.0, 0, 0, 1)
    for lost in solved.losing:
        banned[geo.padded[lost]] = 1
    # A lost root keeps the passes: they leave out the quickest losses, for the hardest
    # defence.
    if solved.verdict in (None, "loss") and threat_depth:
        # Late in the game the exact pass is worth more than the tree's iterations.
        share = THREAT_SHARE if empties > LATE_EMPTIES else ENDGAME_THREAT_SHARE
        # (and never past that share of the whole move, the root's solve included)
        threats_end = (
            min(now() + share * seconds, deadline - (1 - ENDGAME_THREAT_SHARE) * seconds)
            if clock
            else math.inf
        )
        # A narrow pass, then a deeper and wider one on the steps it left (late in a 15x15
        # game the lost steps were often those with three safe replies).
        widths = range(passes.wider_passes + 1)
        rounds = [(threat_depth + 2 * e, threat_branch + e) for e in widths]
        if empties <= LATE_EMPTIES:
            # Late the losses of 15x15 games came from runs of threats these passes do not
            # see, e.g. 12 attacker moves leaving 4 replies (26 empty cells; the tree valued
            # the lost step at 0.58): by then the tree's iterations are cheap to give up.
            rounds.append(LATE_PASS)
        if empties <= ENDGAME_EMPTIES:
            # Every step and every reply, first: an exact search for a forced win, cheap this
            # late (a step it could not settle within its nodes goes to the narrow passes).
            rounds.insert(0, (empties, empties))
        for extra, (depth, branch) in enumerate(rounds):
            before = banned.copy()
            win = root_threats(
                cells.copy(),
                root.slime,
                root.colour,
                empties,
                depth,
                branch,
                geo.steps,
                k,
                geo.window_cells,
                geo.cell_windows,
                passes.threat_nodes,
                banned,
                threats_end,
            )
            if win >= 0:
                return MctsResult(geo.board_of[int(win)], "win", 1.0, 0, 0, 1)
            if all(banned[buf[:count]]):
                # Every step loses to a threat: keep the narrower pass's verdicts (the tree
                # picks the hardest of what is left), or none.
                banned[:] = 0 if extra == 0 or all(before[buf[:count]]) else before
                break
            if now() > threats_end:
                break
    done, used = grow_first()
    done += side.finish()
    merged = merged_root(tree(), side.trees)
    kids = range(len(merged.moves))
    won = [j for j in kids if merged.proven[j] == WIN]
    alive = [j for j in kids if merged.proven[j] != LOSS]
    verdict_name: str | None
    if won:
        pick, verdict_name = won[0], "win"
    else:
        pick = max(alive or kids, key=lambda j: (merged.visits[j], merged.wins[j]))
        settled = all(merged.proven[j] in (LOSS, DRAW) for j in kids)
        verdict_name = None if not settled else "draw" if alive else "loss"
        verdict_name = verdict_name or solved.verdict
    value = float(merged.wins[pick] / merged.visits[pick]) if merged.visits[pick] else 0.5
    return MctsResult(
        geo.board_of[int(merged.moves[pick])],
        verdict_name,
        value,
        int(merged.visits[pick]),
        int(done),
        int(used),
    )


@dataclass(frozen=True)
class RootChildren:
    """The root's steps (padded cells) and, summed over the trees, their visits and wins,
    and what any tree proved of them."""

    moves: list[int]
    visits: list[int]
    wins: list[float]
    proven: list[int]


def merged_root(
    main: tuple[np.ndarray, ...], helpers: list[tuple[np.ndarray, ...]]
) -> RootChildren:
    """The root's children of the tree ``main``, with the visits and wins of the same steps
    in the ``helpers``' trees added and their proofs taken where ``main`` has none (a proof
    holds whichever tree found it)."""
    kids_at, n_kids, move, visits, wins, proven = main[:6]
    kids = range(int(kids_at[0]), int(kids_at[0]) + int(n_kids[0]))
    root = RootChildren(
        [int(move[j]) for j in kids],
        [int(visits[j]) for j in kids],
        [float(wins[j]) for j in kids],
        [int(proven[j]) for j in kids],
    )
    where = {cell: i for i, cell in enumerate(root.moves)}
    for kids_at, n_kids, move, visits, wins, proven, *_ in helpers:
        first = int(kids_at[0])
        for j in range(first, first + int(n_kids[0])) if first >= 0 else ():
            i = where.get(int(move[j]))
            if i is None:
                continue  # a step the main tree left out: proven lost by the root's passes
            root.visits[i] += int(visits[j])
            root.wins[i] += float(wins[j])
            if root.proven[i] == UNKNOWN:
                root.proven[i] = int(proven[j])
    return root


def root_policy(
    geo: Geometry, cells: np.ndarray, slime: int, colour: int, empties: int, k: int
) -> tuple[int, int, np.ndarray]:
    """:func:`policy` on a position's mailbox (which it changes): verdict, count, cells."""
    counts, gaps = window_counts(cells, geo, k)
    buf = np.empty(cells.shape[0], np.int64)
    verdict, count = policy(
        cells,
        slime,
        colour,
        empties,
        geo.steps,
        k,
        geo.window_cells,
        geo.cell_windows,
        counts,
        gaps,
        buf,
    )
    return int(verdict), int(count), buf


def policy_of(state: MokuState) -> tuple[int, list[int]]:
    """The compiled policy's verdict and cells (board indices) for ``state``, for the tests
    to compare with :func:`slimetrail.games.moku.playout.policy`."""
    k = state.game.k
    geo = geometry(state.game.size, k)
    cells, slime = mailbox(state)
    verdict, count, buf = root_policy(geo, cells, slime, state.to_move, state.empty.bit_count(), k)
    return verdict, [geo.board_of[int(p)] for p in buf[:count]]


def judgement_of(state: MokuState) -> tuple[int, int, int] | None:
    """The terms of :func:`judgement_terms` for the side to move in ``state`` (its stone on
    the slime's cell), or None when that stone completes its row; for the fit of the weights
    (research/moku/judgement.py) and the tests."""
    k = state.game.k
    geo = geometry(state.game.size, k)
    cells, slime = mailbox(state)
    counts, gaps = window_counts(cells, geo, k)
    if gaps[state.to_move, slime] > 0:
        return None
    place(cells, slime, state.to_move, k, geo.window_cells, geo.cell_windows, counts, gaps)
    terms = judgement_terms(cells, state.to_move, geo.window_cells, counts, gaps)
    return int(terms[0]), int(terms[1]), int(terms[2])


def random_playout_of(state: MokuState, seed: int, safe: bool = False) -> tuple[int, list[int]]:
    """One compiled random playout (``safe``: by :func:`random_playout`'s safe steps) from a
    running ``state``: the winner (0: a draw) and the cells stepped onto (board indices), for
    the tests to replay through ``MokuState``."""
    k = state.game.k
    geo = geometry(state.game.size, k)
    cells, slime = mailbox(state)
    size = cells.shape[0]
    trace = np.empty(MAX_PLIES + 2, np.int64)
    rng = np.full(1, seed * 2 + 1, np.uint64)
    winner, plies = random_playout(
        cells, slime, state.to_move, state.empty.bit_count(), geo.steps, geo.lines, k,
        np.empty(size, np.int64), np.zeros(size, np.int8), trace, 0, rng,
        np.empty(size, np.int64), np.empty(size, np.int64), safe,
    )  # fmt: skip
    return int(winner), [geo.board_of[int(p)] for p in trace[:plies]]


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels, on a small board."""
    from slimetrail.core.registry import get_game

    state = cast("MokuState", get_game("slime-moku", size=7, k=4).new_state())
    search(state, 0.01, iterations=50)
    endgame.warm_up()
