"""Depth-first proof-number search (df-pn) on the win/loss question of Slime Trail.

Under both rule sets a position whose snail can still reach a goal is won or lost (Taylor's
rule leaves a legal move whenever a goal is reachable; Rastros has no draws), so the
question "does the side to move win?" is the whole value.  df-pn (Nagai 2002) answers it
with a proof number ``pn`` (how many leaves must still be proven won to prove the mover's
win) and a disproof number ``dn`` per position, kept in a transposition table; the search
always descends into the most-proving child and leaves it when its numbers pass thresholds
derived from its siblings (the 1+epsilon rule of Pawlewicz and Lew widens the threshold of
the second-best sibling, so the search switches children less often).

In negamax form a child's numbers are from the child's mover's side: a node's ``pn`` is the
least ``dn`` of its children, its ``dn`` the sum of their ``pn``.  Leaves start at ``pn = 1``
and ``dn`` growing with the child's number of moves (mobility: more moves, harder to
refute; see ``DN_SCALE``).

The position is the same compact graph as the alpha-beta kernel's
(:class:`slimetrail.games.trail.solver.CompactGraph`, at most 64 cells), and the same exact
shortcuts decide positions without a search: a step into the mover's goal, the matching
theorem when no goal can be reached, one reachable goal (Taylor: its owner wins; Rastros:
the geography bounds), and the moves into or next to the opponent's goal, which lose.
The game graph is acyclic (every move slimes a cell), so df-pn's cycle problems do not
arise; transpositions are shared through the table (their numbers may be counted twice in a
sum, which costs nodes, not correctness).
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from slimetrail.compiled import cttz, now, popcount
from slimetrail.core.game import GameError, SolveResult, SolveTimeout, State
from slimetrail.games.trail.solver.kernel import (
    U0,
    U1,
    bit,
    flood,
    geography_wins,
)

INF = 1 << 40  # the proof number of a disproved position (and the disproof of a proved one)
# What the shortcuts say about a position, for its side to move.
OPEN, WIN, LOSS, ILLEGAL = 0, 1, 2, 3
# stats[] slots: mid() calls, fresh positions classified, abort flag.
S_NODES, S_EVALS, S_ABORT = 0, 1, 2
CLOCK_EVERY = 4095
# A fresh leaf starts at pn = 1, dn = DN_SCALE * moves**2.  A disproof needs every reply
# refuted, a proof one winning reply: weighting disproofs this heavily makes df-pn try a
# proof deep first, as alpha-beta does.  Tried on bench/solver_dfpn.py's sets (nodes, sum of
# 7x7 Rastros, 7x7 Taylor, 6x6 square under both rules): dn = moves 4.97 M, 2 * moves
# 3.17 M, 4 * moves 2.02 M, 8 * moves 1.38 M, 32 * moves 1.04 M, moves**2 1.43 M,
# 4 * moves**2 0.82 M, 16 * moves**2 0.82 M (the best on 7x7), 4 * moves**3 0.83 M;
# pn = dn = 1: 5.75 M; alpha-beta 0.60 M.
DN_SCALE = 16
# out[] slots: the numbers of the position mid() returns from, and a winning move once proven.
O_PN, O_DN, O_MOVE = 0, 1, 2


@nb.njit(cache=True)
def classify(free, snail, side, nbr, goals, taylor):
    """What the exact shortcuts prove about the position (``free`` canonical: the cells the
    snail reaches, its own excluded): ``OPEN`` if a search is needed.  The caller has already
    ruled out a step into the mover's own goal."""
    mine = goals[side]
    theirs = goals[1 - side]
    reach_mine = (free & mine) != U0
    reach_theirs = (free & theirs) != U0
    n = nbr.shape[0]
    if not reach_mine and not reach_theirs:
        if taylor:
            return ILLEGAL
        if nbr[snail] & free == U0:
            return LOSS
        return WIN if geography_wins(free, snail, nbr, n) else LOSS
    if reach_mine != reach_theirs:
        if taylor:
            return WIN if reach_mine else LOSS
        # Rastros with one goal cut off: the geography bounds of the alpha-beta kernel.
        if reach_mine and geography_wins(free & ~mine, snail, nbr, n):
            return WIN
        if reach_theirs and not geography_wins(free & ~theirs, snail, nbr, n):
            return LOSS
    if playable(free, snail, theirs, nbr) == U0:
        return LOSS  # every move enters the opponent's corner or lets them in
    return OPEN


@nb.njit(cache=True, inline="always")
def playable(free, snail, theirs, nbr):
    """The moves that neither enter the opponent's goal nor step next to it (both lose)."""
    rest = nbr[snail] & free & ~theirs
    if theirs != U0:
        rest &= ~nbr[np.int64(cttz(theirs))]
    return rest


@nb.njit(cache=True, inline="always")
def slot_of(free, snail, side, mask):
    h = free * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(snail * 2 + side) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask) & ~np.int64(1)


@nb.njit(cache=True, inline="always")
def tag_of(snail, side):
    return np.int64(snail * 2 + side + 2)  # 0 marks an empty slot


@nb.njit(cache=True)
def lookup(keys, tags, free, snail, side):
    """The table slot of the position, or -1."""
    slot = slot_of(free, snail, side, np.uint64(keys.shape[0] - 1))
    tag = tag_of(snail, side)
    for s in range(slot, slot + 2):
        if keys[s] == free and tags[s] == tag:
            return s
    return -1


@nb.njit(cache=True)
def store(keys, tags, pns, dns, work, free, snail, side, pn, dn, spent):
    """Two slots a bucket: the first keeps the entry that cost most work, the second the
    newest."""
    slot = slot_of(free, snail, side, np.uint64(keys.shape[0] - 1))
    tag = tag_of(snail, side)
    target = slot
    here = keys[slot] == free and tags[slot] == tag
    if not here and (
        (keys[slot + 1] == free and tags[slot + 1] == tag)
        or (tags[slot] != 0 and work[slot] > spent)
    ):
        target = slot + 1
    elif not here and tags[slot] != 0:
        keys[slot + 1], tags[slot + 1] = keys[slot], tags[slot]
        pns[slot + 1], dns[slot + 1], work[slot + 1] = pns[slot], dns[slot], work[slot]
    keys[target], tags[target] = free, tag
    pns[target], dns[target], work[target] = pn, dn, spent


@nb.njit(cache=True)
def mid(
    free,
    snail,
    side,
    th_pn,
    th_dn,
    nbr,
    goals,
    order,
    taylor,
    keys,
    tags,
    pns,
    dns,
    work,
    stats,
    deadline,
    out,
):
    """Search the open position until its proof number reaches ``th_pn`` or its disproof
    number ``th_dn`` (or it is settled); its numbers are left in ``out``."""
    stats[S_NODES] += 1
    began = stats[S_NODES]
    if deadline > 0.0 and (stats[S_NODES] & CLOCK_EVERY) == 0 and now() > deadline:
        stats[S_ABORT] = 1
    if stats[S_ABORT] != 0:
        return
    goal_bits = goals[0] | goals[1]
    rest = playable(free, snail, goals[1 - side], nbr)
    kid_move = np.empty(8, np.int64)
    kid_free = np.empty(8, np.uint64)
    kid_rank = np.empty(8, np.int64)
    kid_pn = np.empty(8, np.int64)
    kid_dn = np.empty(8, np.int64)
    n = 0
    while rest != U0:
        m = np.int64(cttz(rest))
        rest &= rest - U1
        cf = flood(bit(m), free & ~bit(m), nbr, ~goal_bits)
        found = lookup(keys, tags, cf, m, 1 - side)
        if found >= 0:
            pn, dn = pns[found], dns[found]
        else:
            stats[S_EVALS] += 1
            verdict = classify(cf, m, 1 - side, nbr, goals, taylor)
            if verdict == ILLEGAL:
                continue
            if verdict == WIN:
                pn, dn = np.int64(0), np.int64(INF)
            elif verdict == LOSS:
                pn, dn = np.int64(INF), np.int64(0)
            else:
                pn, dn = (
                    np.int64(1),
                    DN_SCALE * max(np.int64(1), np.int64(popcount(nbr[m] & cf))) ** 2,
                )
            if verdict != OPEN:
                store(keys, tags, pns, dns, work, cf, m, 1 - side, pn, dn, np.int64(0))
        if dn == 0:  # a reply the opponent loses: won
            out[O_PN], out[O_DN], out[O_MOVE] = 0, INF, m
            store(keys, tags, pns, dns, work, free, snail, side, np.int64(0), np.int64(INF), 1)
            return
        # Ties of the numbers: fewest replies for the opponent first, then nearer the goal.
        rank = np.int64(popcount(nbr[m] & cf)) * 64 + order[side, m]
        j = n
        while j > 0 and kid_rank[j - 1] > rank:
            kid_move[j], kid_free[j], kid_rank[j] = (
                kid_move[j - 1],
                kid_free[j - 1],
                kid_rank[j - 1],
            )
            kid_pn[j], kid_dn[j] = kid_pn[j - 1], kid_dn[j - 1]
            j -= 1
        kid_move[j], kid_free[j], kid_rank[j], kid_pn[j], kid_dn[j] = m, cf, rank, pn, dn
        n += 1
    while True:
        pn = np.int64(INF)
        dn = np.int64(0)
        best, second = -1, np.int64(INF)
        for k in range(n):
            if kid_dn[k] < pn:
                second = pn
                pn = kid_dn[k]
                best = k
            elif kid_dn[k] < second:
                second = kid_dn[k]
            dn += kid_pn[k]
        if pn == 0:
            dn = np.int64(INF)
        elif dn >= INF:
            dn = np.int64(INF - 1)  # unsettled: a sum of big numbers, not a disproof
        if pn == INF:
            dn = np.int64(0)  # every reply wins for the opponent (or none is left)
        if pn >= th_pn or dn >= th_dn or stats[S_ABORT] != 0:
            break
        child_th_dn = min(th_pn, second + second // 4 + 1)
        child_th_pn = np.int64(INF) if th_dn >= INF else th_dn - dn + kid_pn[best]
        mid(
            kid_free[best],
            kid_move[best],
            1 - side,
            min(child_th_pn, np.int64(INF)),
            child_th_dn,
            nbr,
            goals,
            order,
            taylor,
            keys,
            tags,
            pns,
            dns,
            work,
            stats,
            deadline,
            out,
        )
        kid_pn[best], kid_dn[best] = out[O_PN], out[O_DN]
    if stats[S_ABORT] != 0:
        return
    out[O_PN], out[O_DN] = pn, dn
    out[O_MOVE] = kid_move[best] if pn == 0 else -1
    store(
        keys,
        tags,
        pns,
        dns,
        work,
        free,
        snail,
        side,
        pn,
        dn,
        stats[S_NODES] - began + 1,
    )


class Prover:
    """One df-pn proof of a position: its compact graph and table, kept for statistics."""

    def __init__(self, state: State, table_bits: int = 20) -> None:
        from slimetrail.games.trail.game import TrailGame
        from slimetrail.games.trail.solver import WORD_CELLS, CompactGraph

        if not isinstance(getattr(state, "game", None), TrailGame):
            raise GameError(f"df-pn handles the Slime Trail games, not {state.game.id}")
        graph = CompactGraph(state.game, state.free, state.snail)
        if graph.labels is None or len(graph.cells) > WORD_CELLS:
            raise GameError(
                f"df-pn handles regions of at most {WORD_CELLS} cells, "
                f"not {len(graph.cells)} (the snail's and those it can reach)"
            )
        self.state, self.graph, self.labels = state, graph, graph.labels
        size = 1 << table_bits
        self.keys = np.zeros(size, np.uint64)
        self.tags = np.zeros(size, np.int64)
        self.pns = np.zeros(size, np.int64)
        self.dns = np.zeros(size, np.int64)
        self.work = np.zeros(size, np.int64)
        self.stats = np.zeros(3, np.int64)

    @property
    def nodes(self) -> int:
        """Positions searched (``mid`` calls) plus fresh positions classified."""
        return int(self.stats[S_NODES] + self.stats[S_EVALS])

    def run(self, time_limit: float | None = None) -> SolveResult:
        start = time.monotonic()
        state, labels = self.state, self.labels
        side = state.to_move - 1
        taylor = state.game.rules == "taylor"
        free = np.uint64(self.graph.free)
        result = SolveResult(value="loss", to_move=state.to_move)
        mine = int(labels.goals[side])
        if int(labels.nbr[0]) & mine:  # a step into the mover's own goal
            result.value, result.winning_moves = "win", [state.game.goals[state.to_move]]
        else:
            out = np.zeros(3, np.int64)
            deadline = 0.0 if time_limit is None else start + max(time_limit, 1e-6)
            mid(
                free,
                0,
                side,
                INF,
                INF,
                labels.nbr,
                labels.goals,
                labels.order,
                taylor,
                self.keys,
                self.tags,
                self.pns,
                self.dns,
                self.work,
                self.stats,
                deadline,
                out,
            )
            if self.stats[S_ABORT]:
                raise SolveTimeout(f"df-pn: no proof within the time limit ({self.nodes} nodes)")
            if out[O_PN] == 0:
                result.value = "win"
                result.winning_moves = [labels.cells[int(out[O_MOVE])]]
        result.nodes = self.nodes
        result.seconds = time.monotonic() - start
        return result


def prove(state: State, *, time_limit: float | None = None, table_bits: int = 20) -> SolveResult:
    """Whether the side to move in ``state`` wins, by df-pn: ``value`` ("win" or "loss": an
    unfinished position has no other) and, when won, one winning move in ``winning_moves``.
    Raises :class:`SolveTimeout` after ``time_limit`` seconds, and :class:`GameError` for a
    finished position or a region of more than 64 cells."""
    if state.outcome() is not None:
        raise GameError("the game is over: there is nothing to prove")
    return Prover(state, table_bits).run(time_limit)
