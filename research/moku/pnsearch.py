"""Depth-first proof-number search (df-pn) for Slime-Moku boards up to 7x7, under numba.

Alpha-beta (:mod:`slimetrail.games.moku.solver`) spends its nodes on the long quiet lines
of a draw; a win here is a narrow forcing line (the slime pushed where every reply but one
lands on the mover's gap), and proof numbers find such lines first.  One search proves or
disproves one question about a node: "the attacker wins" when the mover is the attacker,
"the defender does not lose" when the mover is the defender.  Two searches give the exact
value (win / draw / loss).

The node rules are those of the alpha-beta solver: the mover's stone lands on the slime's
cell (one row test decides the node), a step onto the opponent's gap loses and is dropped,
a step whose every reply lands on the mover's gap wins, and a side with no open window left
cannot win.  A new child starts with proof number 1 and disproof number its count of safe
replies (few safe replies: cheap to prove).  Thresholds use the 1 + epsilon trick (epsilon
1/4).  The table holds (proof, disproof) pairs keyed by the least symmetric image of the
node and the question, two slots a bucket, the one with less work replaced.  Searches take
a node budget (not a clock) and can be resumed: the table keeps what was learnt.

Measured against the alpha-beta solver on the same questions (``python -m research.bench.moku_solve
--dfpn``), it takes more nodes on these boards: the many transpositions of the slime's walk
make proof numbers over-count (see bench/RESULTS.md), so the start solves use alpha-beta.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slimetrail.compiled import cttz
from slimetrail.core.game import GameOptionError, SolveTimeout
from slimetrail.games.moku.board import MokuBoard
from slimetrail.games.moku.solver import (
    bit,
    canonical,
    geometry,
    has_window,
    makes_row,
    slot_of,
    symmetry_tables,
)

U0, U1 = np.uint64(0), np.uint64(1)
INF = 1 << 50
MAX_PLY, MAX_MOVES = 64, 64
TABLE_BITS = 22
S_NODES, S_LIMIT, S_ABORT = 0, 1, 2
WORDS = {1: "win", 0: "draw", -1: "loss"}


@nb.njit(cache=True, inline="always")
def cap(x):
    return INF if x > INF else x


@nb.njit(cache=True)
def lookup(t_mine, t_theirs, t_meta, t_phi, t_delta, cm, ct, meta, phi0, delta0):
    """The stored (proof, disproof) of a key, or the given first guess."""
    slot = slot_of(cm, ct, meta, np.uint64(t_meta.shape[0] - 1)) & ~np.int64(1)
    for s in (slot, slot + 1):
        if t_meta[s] == meta and t_mine[s] == cm and t_theirs[s] == ct:
            return t_phi[s], t_delta[s]
    return phi0, delta0


@nb.njit(cache=True)
def store(t_mine, t_theirs, t_meta, t_phi, t_delta, t_work, cm, ct, meta, phi, delta, work):
    slot = slot_of(cm, ct, meta, np.uint64(t_meta.shape[0] - 1)) & ~np.int64(1)
    target = slot
    if t_meta[slot] == meta and t_mine[slot] == cm and t_theirs[slot] == ct:
        target = slot
    elif (
        t_meta[slot + 1] == meta and t_mine[slot + 1] == cm and t_theirs[slot + 1] == ct
    ) or t_work[slot + 1] < t_work[slot]:
        target = slot + 1
    t_mine[target], t_theirs[target], t_meta[target] = cm, ct, meta
    t_phi[target], t_delta[target], t_work[target] = phi, delta, work


@nb.njit(cache=True)
def key_meta(slime, attacker):
    """The slot's tag: the slime's cell of the image, the question, a used bit."""
    return np.int64(slime) | (np.int64(attacker) << np.int64(8)) | (np.int64(1) << 9)


@nb.njit(cache=True)
def mid(
    mine,
    theirs,
    empty,
    slime,
    attacker,
    cm,
    ct,
    cs,
    th_phi,
    th_delta,
    ply,
    k,
    neighbours,
    lines,
    shifts,
    rowmaps,
    perms,
    t_mine,
    t_theirs,
    t_meta,
    t_phi,
    t_delta,
    t_work,
    c_move,
    c_mine,
    c_theirs,
    c_slime,
    c_phi,
    c_delta,
    stats,
    out,
):
    """Search the node until its proof number reaches ``th_phi`` or its disproof number
    ``th_delta`` (or the budget ends); return the proof number, the disproof in ``out[0]``.
    Proof = the mover succeeds (wins if ``attacker``, does not lose otherwise)."""
    stats[S_NODES] += 1
    started = stats[S_NODES]
    written = mine | bit(slime)
    if makes_row(written, slime, lines, shifts, k):
        out[0] = INF
        return 0
    full = (empty & (empty - U1)) == U0  # the one move left fills the board: a draw
    if attacker != 0 and (full or not has_window(empty | written, shifts, k)):
        out[0] = 0  # the attacker can no longer win
        return INF
    if attacker == 0 and (full or not has_window(empty | theirs, shifts, k)):
        out[0] = INF  # the defender has at least the draw
        return 0
    meta = key_meta(cs, attacker)
    moves = neighbours[slime] & empty
    if moves == U0:
        moves = empty
    count = 0
    won = False
    while moves != U0:
        move = np.int64(cttz(moves))
        moves &= moves - U1
        if makes_row(theirs | bit(move), move, lines, shifts, k):
            continue  # the opponent writes there and wins
        after = empty & ~bit(move)
        if (after & (after - U1)) == U0:
            # The opponent's one move fills the board: a draw.
            if attacker != 0:
                continue
            won = True
            break
        if attacker != 0:
            if not has_window(after | written, shifts, k):
                continue  # the mover can no longer win there
        elif not has_window(after | theirs | bit(move), shifts, k):
            won = True  # the attacker can no longer win
            break
        replies = neighbours[move] & after
        if replies == U0:
            replies = after
        safe = 0
        while replies != U0:
            reply = np.int64(cttz(replies))
            replies &= replies - U1
            if not makes_row(written | bit(reply), reply, lines, shifts, k):
                safe += 1
        if safe == 0:
            won = True  # every reply lands on the mover's gap
            break
        m, t, s, _ = canonical(theirs, written, move, rowmaps, perms)
        p, d = lookup(
            t_mine,
            t_theirs,
            t_meta,
            t_phi,
            t_delta,
            m,
            t,
            key_meta(s, 1 - attacker),
            np.int64(1),
            np.int64(safe),
        )
        if p == 0:
            continue  # the opponent succeeds there
        if d == 0:
            won = True
            break
        c_move[ply, count], c_mine[ply, count], c_theirs[ply, count] = move, m, t
        c_slime[ply, count], c_phi[ply, count], c_delta[ply, count] = s, p, d
        count += 1
    if won:
        store(t_mine, t_theirs, t_meta, t_phi, t_delta, t_work, cm, ct, meta, 0, INF, 1)
        out[0] = INF
        return 0
    while True:
        phi, delta, best, second = INF, 0, -1, INF
        for i in range(count):
            delta = cap(delta + c_phi[ply, i])
            d = c_delta[ply, i]
            if d < phi:
                second, phi, best = phi, d, i
            elif d < second:
                second = d
        if phi == 0:
            delta = INF
        if phi >= th_phi or delta >= th_delta or stats[S_ABORT] != 0:
            break
        if stats[S_NODES] >= stats[S_LIMIT]:
            stats[S_ABORT] = 1
            break
        child_phi = cap(th_delta - delta + c_phi[ply, best])
        child_delta = min(th_phi, cap(second + 1 + second // 4))
        move = c_move[ply, best]
        p = mid(
            theirs,
            written,
            empty & ~bit(move),
            move,
            1 - attacker,
            c_mine[ply, best],
            c_theirs[ply, best],
            c_slime[ply, best],
            child_phi,
            child_delta,
            ply + 1,
            k,
            neighbours,
            lines,
            shifts,
            rowmaps,
            perms,
            t_mine,
            t_theirs,
            t_meta,
            t_phi,
            t_delta,
            t_work,
            c_move,
            c_mine,
            c_theirs,
            c_slime,
            c_phi,
            c_delta,
            stats,
            out,
        )
        c_phi[ply, best], c_delta[ply, best] = p, out[0]
    work = stats[S_NODES] - started + 1
    store(t_mine, t_theirs, t_meta, t_phi, t_delta, t_work, cm, ct, meta, phi, delta, work)
    out[0] = delta
    return phi


class ProofSearch:
    """One board's df-pn search and its table (kept between calls, so a search that ran out
    of budget resumes where it stopped)."""

    def __init__(self, board: MokuBoard, table_bits: int = TABLE_BITS) -> None:
        if table_bits < 2:
            raise GameOptionError("the proof table needs at least 2 bits")
        self.board = board
        self.neighbours, self.lines, self.shifts = geometry(board)
        self.rowmaps, self.perms = symmetry_tables(board)
        size = 1 << table_bits
        self.t_mine = np.zeros(size, dtype=np.uint64)
        self.t_theirs = np.zeros(size, dtype=np.uint64)
        self.t_meta = np.zeros(size, dtype=np.int64)
        self.t_phi = np.zeros(size, dtype=np.int64)
        self.t_delta = np.zeros(size, dtype=np.int64)
        self.t_work = np.zeros(size, dtype=np.int64)
        self.c_move = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.c_mine = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.uint64)
        self.c_theirs = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.uint64)
        self.c_slime = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.c_phi = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.c_delta = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.stats = np.zeros(3, dtype=np.int64)
        self.out = np.zeros(1, dtype=np.int64)
        self.phi = self.delta = 1

    @property
    def nodes(self) -> int:
        return int(self.stats[S_NODES])

    def prove(
        self,
        mine: int,
        theirs: int,
        empty: int,
        slime: int,
        attacker: bool,
        budget: int | None = None,
    ) -> bool:
        """Whether the mover of the node (``mine`` without the slime's cell) succeeds: wins
        if ``attacker``, else does not lose.  Raises :class:`SolveTimeout` after ``budget``
        more nodes; the proof and disproof numbers reached are then in ``phi``/``delta``."""
        m, t, s, _ = canonical(
            np.uint64(mine), np.uint64(theirs), np.int64(slime), self.rowmaps, self.perms
        )
        self.stats[S_ABORT] = 0
        self.stats[S_LIMIT] = INF if budget is None else self.stats[S_NODES] + budget
        phi = mid(
            np.uint64(mine),
            np.uint64(theirs),
            np.uint64(empty),
            np.int64(slime),
            np.int64(attacker),
            np.uint64(m),
            np.uint64(t),
            np.int64(s),
            np.int64(INF),
            np.int64(INF),
            np.int64(0),
            self.board.k,
            self.neighbours,
            self.lines,
            self.shifts,
            self.rowmaps,
            self.perms,
            self.t_mine,
            self.t_theirs,
            self.t_meta,
            self.t_phi,
            self.t_delta,
            self.t_work,
            self.c_move,
            self.c_mine,
            self.c_theirs,
            self.c_slime,
            self.c_phi,
            self.c_delta,
            self.stats,
            self.out,
        )
        self.phi, self.delta = int(phi), int(self.out[0])
        if self.stats[S_ABORT]:
            raise SolveTimeout(f"slime-moku proof search: no answer within {budget} nodes")
        return phi == 0

    def value(self, mine: int, theirs: int, empty: int, slime: int) -> int:
        """The exact value for the mover (+1, 0, -1): two proofs."""
        if self.prove(mine, theirs, empty, slime, True):
            return 1
        return 0 if self.prove(mine, theirs, empty, slime, False) else -1
