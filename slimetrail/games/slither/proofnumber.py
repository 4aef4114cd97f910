"""Proof-number search of Slither boards (df-pn), and its command for the 5x5 solves:

    python -m slimetrail.games.slither.proofnumber --size 5 [--advanced] [--first c3 ...]
        [--time 3600] [--every 60] [--table FILE]

    python -m slimetrail.games.slither.proofnumber --size 5 [--advanced] --first c3 --split
        [--workers 2] [--record FILE] [--tables DIR]

(a ``--first`` item may be a line of turns, ``"c3 a1"``.)  ``--split`` proves a position
reply by reply, each reply in a table of its own, in ``--workers`` processes: from a node
the loser is to move in, df-pn can spread its work over the whole fan of the loser's turns,
while each reply on its own is searched for its proof (Advanced Slither 5x5 after c3 fell
this way in 31.5 M nodes over its eight replies; one search of the whole had not proven it
in 11.1 M).  ``--record`` keeps the replies proven, so a split stopped part way goes on
where it was; ``--tables`` keeps each unfinished reply's table too (saved every ``--every``
seconds, with the nodes and seconds spent so far), so a reply stopped part way resumes
from its table, not from nothing; and once a reply is proven, the proven entries of its
table, which each later reply of the same position starts with (the replies' proofs meet
the same positions, the stones placed in another order: a quarter fewer nodes for the
third of Advanced Slither's replies after c3).  A reply's nodes count only its own.

Connection games fall to proof-number search far better than to negamax: a proof is narrow
(one winning turn per node of the winner, every turn of the loser, most of which lose at
once to a threat), and proof numbers find the narrow part.  This is depth-first proof-number
search (Nagai's df-pn) in its negamax form: a node's proof number is the least disproof
number of its children, its disproof number the sum of their proof numbers, with the
1 + epsilon threshold of Pawlewicz and Lew so that large fans of turns are not re-entered
for every unit of work.  Its turns and reductions are the exact ones of the fast negamax
(:mod:`.solver`): one table entry per eight images of a position, and when the opponent
threatens a win at once only the turns that stop that threat.  A child not searched yet
starts from the shortest-path race after the turn (each side's empty cells still to fill).

Slither positions never repeat (every turn but a pass adds a stone), so the table needs no
care for cycles.  Unproven table entries are estimates and proven ones exact, so a search
stopped by its clock resumes where it was from its table (``--table`` saves it to a file
every ``--every`` seconds and loads it at start).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import cache
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any, cast

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from slimetrail.compiled import now
from slimetrail.core.checkpoint import read_checkpoint, write_checkpoint
from slimetrail.core.game import GameError, Move
from slimetrail.games.slither import kernel
from slimetrail.games.slither.game import PASS, SlitherState
from slimetrail.games.slither.solver import (
    CLOCK_EVERY,
    answers_to,
    apply_turn,
    canonical_key,
    image_keys,
    turn_keys,
    undo_turn,
)

INF = (1 << 31) - 1  # a proof or disproof number of a proven node; sums saturate below
NODES, ABORTED, EXPANSIONS = 0, 1, 2  # stats[] slots
PARENT_CHECK = 10.0  # seconds: how often a split's worker looks whether the split still runs


@nb.njit(cache=True, inline="always")
def pack(pn, dn):
    return (pn << 32) | dn


@nb.njit(cache=True, inline="always")
def unpack(entry):
    return entry >> 32, entry & 0xFFFFFFFF


@nb.njit(cache=True)
def turns_to_search(g, n, v, advanced):
    """The mover's turns that can matter, and how many legal turns the mover has: all of
    them, or when the opponent threatens a win at once, the turns after which the opponent
    has no win at once (none: the mover loses)."""
    rows = np.empty((2 * n**4 + n * n, 3), dtype=np.int64)
    count = kernel.list_turns(g, n, v, advanced, rows, True)
    turns = rows[:count]
    win = np.empty(3, dtype=np.int64)
    if count == 0 or not kernel.winning_turn(g, n, 3 - v, advanced, win):
        return turns, count
    turns = answers_to(turns, win, advanced)
    keep = np.zeros(len(turns), dtype=np.bool_)
    for i in range(len(turns)):
        s, t, p = turns[i, 0], turns[i, 1], turns[i, 2]
        apply_turn(g, s, t, p, v)
        keep[i] = not kernel.winning_turn(g, n, 3 - v, advanced, win)
        undo_turn(g, s, t, p, v)
    return turns[keep], count


@nb.njit(cache=True)
def first_numbers(g, n, v, advanced, turns, keys, zsym, swaps, side, child_keys, guess):
    """Each child's table key, and its numbers before it is searched: the opponent's proof
    number grows with the cells the opponent still has to fill, its disproof number with
    the mover's."""
    limit = n * n
    for i in range(len(turns)):
        s, t, p = turns[i, 0], turns[i, 1], turns[i, 2]
        apply_turn(g, s, t, p, v)
        turn_keys(keys, zsym, s, t, p, v)
        child_keys[i] = canonical_key(keys, swaps, side, 3 - v)
        theirs = kernel.distance(g, n, 3 - v, limit)
        mine = kernel.distance(g, n, v, limit)
        guess[i] = pack(max(1, theirs), max(1, mine))
        turn_keys(keys, zsym, s, t, p, v)
        undo_turn(g, s, t, p, v)


@nb.njit(cache=True)
def distinct(child_keys):
    """Which keys are the first of their value in ``child_keys`` (turn order kept)."""
    order = np.argsort(child_keys, kind="mergesort")
    keep = np.zeros(len(child_keys), dtype=np.bool_)
    for j in range(len(order)):
        keep[order[j]] = j == 0 or child_keys[order[j]] != child_keys[order[j - 1]]
    return keep


# Cached as the negamax searches: ``passes`` always an int64, never a literal.
@nb.njit(cache=True)
def mid(g, n, v, advanced, keys, zsym, swaps, side, table, stats, deadline, passes, thpn, thdn):
    """Search the node (``v`` to move) until its proof number reaches ``thpn`` or its
    disproof number ``thdn`` (or it is proven); returns its packed numbers (from the mover's
    side: proof = the mover wins).  Stores them unless out of time."""
    k = canonical_key(keys, swaps, side, v)
    if k in table:
        pn, dn = unpack(table[k])
        if pn == 0 or dn == 0 or pn >= thpn or dn >= thdn:
            return table[k]
    else:
        stats[NODES] += 1
        if stats[NODES] & CLOCK_EVERY == 0 and now() > deadline:
            stats[ABORTED] = 1
        win = np.empty(3, dtype=np.int64)
        if kernel.winning_turn(g, n, v, advanced, win):
            table[k] = pack(0, INF)
            return table[k]
    if stats[ABORTED]:
        return pack(1, 1)
    stats[EXPANSIONS] += 1
    turns, legal = turns_to_search(g, n, v, advanced)
    count = len(turns)
    if count == 0 and legal:  # every turn leaves the opponent a win at once
        table[k] = pack(INF, 0)
        return table[k]
    if count == 0:
        if passes:  # neither side has a turn: never met in play; not a win for the mover
            return pack(INF, 0)
        # the forced pass: the opponent's numbers are the mover's, exchanged
        r = mid(
            g, n, 3 - v, advanced, keys, zsym, swaps, side, table, stats, deadline,
            np.int64(1), thdn, thpn,
        )  # fmt: skip
        cpn, cdn = unpack(r)
        if not stats[ABORTED]:
            table[k] = pack(cdn, cpn)
        return pack(cdn, cpn)
    child_keys = np.empty(count, dtype=np.uint64)
    guess = np.empty(count, dtype=np.int64)
    first_numbers(g, n, v, advanced, turns, keys, zsym, swaps, side, child_keys, guess)
    keep = distinct(child_keys)  # turns to images of one position: one child, counted once
    turns, child_keys, guess = turns[keep], child_keys[keep], guess[keep]
    count = len(turns)
    while True:
        dn = 0
        best, best_dn, second_dn, best_pn = -1, INF + 1, INF, 0
        for i in range(count):
            cpn, cdn = unpack(table.get(child_keys[i], guess[i]))
            dn = min(INF - 1, dn + cpn)
            if cdn < best_dn:
                second_dn = best_dn
                best, best_dn, best_pn = i, cdn, cpn
            elif cdn < second_dn:
                second_dn = cdn
        pn = min(best_dn, INF)
        if pn == 0:
            dn = INF
        elif pn == INF:
            dn = 0
        if stats[ABORTED]:
            return pack(pn, dn)
        if pn == 0 or dn == 0 or pn >= thpn or dn >= thdn:
            table[k] = pack(pn, dn)
            return pack(pn, dn)
        child_thpn = min(INF, thdn - dn + best_pn)
        child_thdn = min(thpn, max(second_dn + 1, second_dn + (second_dn + 3) // 4))
        s, t, p = turns[best, 0], turns[best, 1], turns[best, 2]
        apply_turn(g, s, t, p, v)
        turn_keys(keys, zsym, s, t, p, v)
        mid(
            g, n, 3 - v, advanced, keys, zsym, swaps, side, table, stats, deadline,
            np.int64(0), child_thpn, child_thdn,
        )  # fmt: skip
        turn_keys(keys, zsym, s, t, p, v)
        undo_turn(g, s, t, p, v)


# The second check: a proof read back from the table, against every legal turn.


@nb.njit(cache=True)
def proof_holds(g, n, v, advanced, keys, zsym, swaps, side, table, seen, winner, stats):
    """Whether the table proves that ``winner`` wins the node (``v`` to move): the winner
    has a win at once or a turn to a node the table marks lost for its mover; the loser
    has no win at once and every legal turn of the loser (all of them, without the
    search's reductions) leads to such a node.  ``seen`` holds the nodes checked already;
    ``stats[0]`` counts the nodes checked."""
    k = canonical_key(keys, swaps, side, v)
    if k in seen:
        return True
    stats[0] += 1
    win = np.empty(3, dtype=np.int64)
    if kernel.winning_turn(g, n, v, advanced, win):
        return v == winner
    rows = np.empty((2 * n**4 + n * n, 3), dtype=np.int64)
    count = kernel.list_turns(g, n, v, advanced, rows, True)
    if count == 0:  # the forced pass
        if kernel.list_turns(g, n, 3 - v, advanced, rows, True) == 0:
            return v == winner  # both stuck (never met in play): scored as the search does
        held = proof_holds(
            g, n, 3 - v, advanced, keys, zsym, swaps, side, table, seen, winner, stats
        )
        seen[k] = True
        return held
    held = v != winner
    for i in range(count):
        s, t, p = rows[i, 0], rows[i, 1], rows[i, 2]
        apply_turn(g, s, t, p, v)
        turn_keys(keys, zsym, s, t, p, v)
        child = canonical_key(keys, swaps, side, 3 - v)
        if v == winner:
            lost = child in table and table[child] == pack(INF, 0)
            held = lost and proof_holds(
                g, n, 3 - v, advanced, keys, zsym, swaps, side, table, seen, winner, stats
            )
        else:
            held = proof_holds(
                g, n, 3 - v, advanced, keys, zsym, swaps, side, table, seen, winner, stats
            )
        turn_keys(keys, zsym, s, t, p, v)
        undo_turn(g, s, t, p, v)
        if held == (v == winner):
            break
    if held:
        seen[k] = True
    return held


def split_words(stones: int, count: int) -> list[int]:
    """An engine bitboard (a Python int) as ``count`` 64-bit words, lowest first."""
    return [(stones >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(count)]


@nb.njit(cache=True)
def stones_key(words, to_grid, zsym, swaps, side, v):
    """:func:`canonical_key` of the position whose engine bitboards (``words[colour]``,
    see :func:`split_words`) hold its stones, ``v`` to move."""
    keys = np.zeros(zsym.shape[0], dtype=np.uint64)
    for colour in range(2):
        for w in range(words.shape[1]):
            bits = words[colour, w]
            for b in range(64):
                if (bits >> np.uint64(b)) & np.uint64(1):
                    cell = to_grid[64 * w + b]
                    for i in range(len(keys)):
                        keys[i] ^= zsym[i, colour, cell]
    return canonical_key(keys, swaps, side, v)


def new_table() -> Dict:
    return Dict.empty(key_type=types.uint64, value_type=types.int64)


@cache
def compile_search() -> None:
    """Compile (or load from numba's cache) the search's kernels for this process, with the
    argument types of every later call: one expansion of the empty 4x4 board, in a table of
    its own."""
    from slimetrail.core.registry import get_game

    state = cast(SlitherState, get_game("slither", size=4, pie="off").new_state())
    one = np.int64(1)
    node = ProofSearch(4, False).node(state)
    mid(*node, new_table(), np.zeros(3, dtype=np.int64), now() + 1e9, np.int64(0), one, one)


# The kernel's arguments for a position: grid, size, mover, rules, image keys, images' keys,
# images' colour swaps, the key of White to move.
Node = tuple[np.ndarray, int, int, bool, np.ndarray, np.ndarray, np.ndarray, np.uint64]


class ProofSearch:
    """A df-pn search of Slither positions sharing one table (one board and rule set)."""

    def __init__(self, n: int, advanced: bool, table: Dict | None = None) -> None:
        self.n, self.advanced = n, advanced
        self.table = table if table is not None else new_table()
        self.nodes = self.expansions = 0
        self.seconds = 0.0  # of search, over every run that filled the table
        self.words = (n * (n + 1) + 63) // 64  # 64-bit words of one colour's engine bitboard
        self.taken: list[np.ndarray] = []  # keys entered from other searches' proofs
        # Positions the engine's rules found won (True) or lost for their mover in earlier
        # checks (:meth:`take_ruled`), and those the last :meth:`check_by_rules` found.
        self.ruled: dict[int, bool] = {}
        self.ruled_here: dict[int, bool] = {}

    def node(self, state: SlitherState) -> Node:
        """The kernel's arguments for a position."""
        grid = kernel.layout(self.n).grid(*state.stones)
        zsym, swaps, side = image_keys(self.n)
        stones = np.flatnonzero((grid == 1) | (grid == 2))
        # Each image's key: the XOR of its stones' keys (one array operation, not a loop:
        # the rules check keys every position it walks).
        keys = np.bitwise_xor.reduce(zsym[:, grid[stones] - 1, stones], axis=1)
        return grid, self.n, state.colour + 1, self.advanced, keys, zsym, swaps, side

    def key(self, state: SlitherState) -> int:
        """The table's key of a position: one for all eight of its images.  Read from the
        state's own stones in one compiled call (the rules check keys every position it
        walks, and building :meth:`node`'s grid took half of its time)."""
        zsym, swaps, side = image_keys(self.n)
        words = np.array([split_words(stones, self.words) for stones in state.stones], np.uint64)
        to_grid = kernel.layout(self.n).to_grid
        return int(stones_key(words, to_grid, zsym, swaps, side, state.colour + 1))

    def check(self, state: SlitherState, mover_wins: bool) -> int:
        """Check the proof in the table that the mover wins (or loses) against every legal
        turn, without the search's reductions; the nodes checked.  Raises ``ValueError``
        if it does not hold."""
        seen = Dict.empty(key_type=types.uint64, value_type=types.boolean)
        stats = np.zeros(1, dtype=np.int64)
        winner = np.int64(state.colour + 1 if mover_wins else 2 - state.colour)
        if not proof_holds(*self.node(state), self.table, seen, winner, stats):
            raise ValueError(f"{state.fen()}: the table holds no proof of that")
        return int(stats[0])

    def check_by_rules(self, state: SlitherState, mover_wins: bool) -> int:
        """The proof in the table checked a second way, by the engine's own rules (the
        state's legal turns and its connection test, not the compiled kernel's): the
        winner connects at once or has a turn to a position the table marks lost for its
        mover; every legal turn of the loser leads to a position where that holds again.
        The table is only read for its keys, so a wrong turn list or win test of the kernel
        shows here.  A position an earlier check by the rules settled (:attr:`ruled`, from
        other replies' checks) is not walked again: its key is its stones' and its mover's,
        so the value found there holds here.  Returns the positions checked (:attr:`ruled_here`
        holds them, each with whether its mover wins); ``ValueError`` if the proof does not
        hold."""
        winner = state.to_move if mover_wins else 3 - state.to_move
        lost = pack(INF, 0)
        seen: dict[int, bool] = {}  # the positions found so far, as ruled
        ruled = self.ruled
        # The winner's turns are tried in the order most likely to win (the last winning turn
        # at the same depth, then the turns that won most often): nine of ten tries went to
        # turns that do not win, and the order changes only the work, not what is checked.
        killers: dict[int, Move] = {}
        wins: dict[Move, int] = {}

        def likeliest_first(moves: list[Move], killer: Move | None) -> Iterator[Move]:
            if killer in moves:
                yield killer  # most often the turn that wins: the rest is then never sorted
            yield from sorted(
                (move for move in moves if move != killer), key=lambda m: -wins.get(m, 0)
            )

        def holds(s: SlitherState, k: int, depth: int) -> bool:
            if k in seen or ruled.get(k) == (s.to_move == winner):
                return True
            seen[k] = s.to_move == winner
            moves = s.legal_moves()
            if moves == [PASS]:
                s.make(PASS)
                stuck = s.legal_moves() == [PASS]  # neither side has a turn: no proof
                held = not stuck and holds(s, self.key(s), depth + 1)
                s.pop()
            elif s.to_move == winner:
                held = False
                for move in likeliest_first(moves, killers.get(depth)):
                    s.make(move)
                    outcome = s.outcome()
                    if outcome is not None:
                        held = outcome.winner == winner
                    else:
                        child = self.key(s)
                        held = self.table.get(np.uint64(child)) == lost and holds(
                            s, child, depth + 1
                        )
                    s.pop()
                    if held:
                        killers[depth] = move
                        wins[move] = wins.get(move, 0) + 1
                        break
            else:
                held = True
                for move in moves:
                    s.make(move)
                    held = s.outcome() is None and holds(s, self.key(s), depth + 1)
                    s.pop()
                    if not held:
                        break
            if not held:
                del seen[k]
            return held

        if not holds(cast(SlitherState, state.copy()), self.key(state), 0):
            raise ValueError(f"{state.fen()}: the engine's rules find no proof of that")
        self.ruled_here = seen
        return len(seen)

    def save_ruled(self, path: Path) -> None:
        """Save what the last :meth:`check_by_rules` found (not what it was given)."""
        keys = np.fromiter(self.ruled_here.keys(), np.uint64, len(self.ruled_here))
        wins = np.fromiter(self.ruled_here.values(), np.bool_, len(self.ruled_here))
        write_checkpoint(path, self.table_meta(), {"keys": keys, "mover_wins": wins})

    def take_ruled(self, path: Path) -> int:
        """Enter the positions a :meth:`save_ruled` file holds; how many."""
        saved = read_checkpoint(path, self.table_meta(), ("keys", "mover_wins"))
        self.ruled.update(zip(saved["keys"].tolist(), saved["mover_wins"].tolist(), strict=True))
        return len(saved["keys"])

    def numbers(self, state: SlitherState, seconds: float) -> tuple[int, int]:
        """Search the position (not over, no swap pending) for at most ``seconds``; its
        proof and disproof numbers from the mover's side: ``(0, INF)`` the mover wins,
        ``(INF, 0)`` the mover loses, anything else unproven."""
        stats = np.zeros(3, dtype=np.int64)
        began = time.monotonic()
        packed = mid(
            *self.node(state),
            self.table,
            stats,
            now() + seconds,
            np.int64(0),
            np.int64(INF),
            np.int64(INF),
        )
        self.nodes += int(stats[NODES])
        self.expansions += int(stats[EXPANSIONS])
        self.seconds += time.monotonic() - began
        return int(packed) >> 32, int(packed) & 0xFFFFFFFF

    def mover_wins(
        self,
        state: SlitherState,
        seconds: float,
        every: float = 1e9,
        progress: Callable[[int, int], None] | None = None,
    ) -> bool | None:
        """Whether the mover wins, or None if not proven within ``seconds``; ``progress``
        gets the numbers every ``every`` seconds of search."""
        compile_search()  # before the clock starts: a first call may compile the kernels
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            pn, dn = self.numbers(state, min(every, left))
            if pn == 0 or dn == 0:
                return pn == 0
            if progress is not None:
                progress(pn, dn)
            if time.monotonic() >= deadline:
                return None

    def table_meta(self) -> str:
        """What a saved table must belong to: the board's size and the rule set."""
        return f"{'advanced ' if self.advanced else ''}slither {self.n}x{self.n} df-pn table"

    def save(self, path: Path) -> None:
        keys, values = entries(self.table)
        spent = np.array([self.nodes, self.expansions], dtype=np.int64)
        arrays = {"keys": keys, "values": values, "spent": spent, "seconds": self.seconds}
        write_checkpoint(path, self.table_meta(), arrays)

    def save_proven(self, path: Path) -> None:
        """Save the table's proven entries only (exact wherever they are met again), but for
        those :meth:`take_proven` entered: each file holds what its own search proved."""
        keys, values = entries(self.table)
        keep = ((values >> 32) == 0) | ((values & 0xFFFFFFFF) == 0)
        if self.taken:
            keep &= ~np.isin(keys, np.concatenate(self.taken))
        write_checkpoint(path, self.table_meta(), {"keys": keys[keep], "values": values[keep]})

    def take_proven(self, path: Path) -> int:
        """Enter the entries a :meth:`save_proven` file holds; how many."""
        saved = read_checkpoint(path, self.table_meta(), ("keys", "values"))
        fill(self.table, saved["keys"], saved["values"])
        self.taken.append(saved["keys"])
        return len(saved["keys"])

    @classmethod
    def load(cls, path: Path, n: int, advanced: bool) -> ProofSearch:
        """A search filled from a table saved by :meth:`save`; a clear ``GameError`` (a
        ``ValueError``) for a file that is unreadable or of another board or rule set.  The
        nodes and seconds spent filling it are carried on (a table saved before they were
        kept counts from nothing)."""
        search = cls(n, advanced)
        optional = ("spent", "seconds")
        saved = read_checkpoint(path, search.table_meta(), ("keys", "values"), optional)
        fill(search.table, saved["keys"], saved["values"])
        if "spent" in saved:
            search.nodes, search.expansions = (int(count) for count in saved["spent"])
            search.seconds = float(saved["seconds"])
        return search


@nb.njit(cache=True)
def entries(table):
    keys = np.empty(len(table), dtype=np.uint64)
    values = np.empty(len(table), dtype=np.int64)
    for i, (key, value) in enumerate(table.items()):
        keys[i], values[i] = key, value
    return keys, values


@nb.njit(cache=True)
def fill(table, keys, values):
    for i in range(len(keys)):
        table[keys[i]] = values[i]


def first_turns(n: int) -> list[str]:
    """One first turn of each kind up to the mirrors and the half turn (Black's goal kept),
    nearest the centre first: the cells of the board's lower-left quarter, centre lines in."""
    half = (n + 1) // 2
    cells = [(c, r) for r in range(half) for c in range(half)]
    cells.sort(key=lambda cr: (-(cr[0] + cr[1]), -cr[1], -cr[0]))
    return [f"{chr(ord('a') + c)}{r + 1}" for c, r in cells]


def replies(state: SlitherState, advanced: bool) -> list[tuple[str, SlitherState]]:
    """The mover's turns, one for each position they lead to up to the board's images (the
    first in the game's order), each with its position."""
    probe = ProofSearch(state.game.size, advanced)
    seen: set[int] = set()
    found: list[tuple[str, SlitherState]] = []
    for move in state.legal_moves():
        child = cast(SlitherState, state.copy())
        child.push(move)
        if child.outcome() is None:
            key = probe.key(child)
            if key in seen:
                continue
            seen.add(key)
        found.append((state.move_str(move), child))
    return found


def prove_line(
    game_id: str,
    size: int,
    line: str,
    seconds: float,
    table: Path | None = None,
    every: float = 600.0,
) -> dict[str, Any]:
    """One reply's share of a split proof (a worker's task): the position after ``line``
    searched for ``seconds`` in a table of its own, and a proof found checked.  With
    ``table`` the search starts from that file if it is there, and saves to it every
    ``every`` seconds and when the time is up unproven; the nodes and seconds reported are
    those of every run on the table.  The proven entries that the replies proven before it
    left beside the table, after any first turn (``*.proven.npz``, :func:`kept_files`), are
    entered first (``seeded``: how many), and once proven it leaves its own there."""
    from slimetrail.core.registry import get_game

    state = cast(SlitherState, get_game(game_id, size=size, pie="off").new_state())
    for turn in line.split():
        state.push_str(turn)
    advanced = game_id == "slither-advanced"
    if table is not None and table.exists():
        search = ProofSearch.load(table, size, advanced)
    else:
        search = ProofSearch(size, advanced)
    seeded = 0
    if table is not None:
        # The proofs of the replies done so far: their positions recur here (the same
        # stones placed in another order), and a proven entry is exact anywhere.
        for proven in kept_files(table.parent, game_id, size):
            seeded += search.take_proven(proven)
    saved = time.monotonic()

    def between(pn: int, dn: int) -> None:
        nonlocal saved
        if table is not None and time.monotonic() - saved >= every:
            search.save(table)
            saved = time.monotonic()
        if split_over():
            # A worker left behind would go on holding a core for nothing.
            if table is not None:
                search.save(table)
            os._exit(1)

    won = search.mover_wins(state, seconds, min(every, PARENT_CHECK), between)
    if table is not None:
        search.save(table)  # a proof found is not searched for again if the checks are cut
    checks_done = watch_split(split_over, PARENT_CHECK, lambda: os._exit(1))
    ruled_before = 0
    try:
        checked = 0 if won is None else search.check(state, won)
        if won is not None and table is not None:
            # What the rules settled in the checks of the replies before: not walked again.
            for ruled in kept_files(table.parent, game_id, size, RULED_SUFFIX):
                ruled_before += search.take_ruled(ruled)
        by_rules = 0 if won is None else search.check_by_rules(state, won)
    finally:
        checks_done.set()
    if won is not None and table is not None:
        search.save_ruled(beside(table, RULED_SUFFIX))
        search.save_proven(beside(table, PROVEN_SUFFIX))  # before the split removes the table
    return {
        "game": game_id,
        "size": size,
        "line": line,
        "mover_wins": won,
        "nodes": search.nodes,
        "seconds": round(search.seconds, 1),
        "checked": checked,
        "checked_by_rules": by_rules,
        "seeded": seeded,
        "ruled_before": ruled_before,
    }


# Set in a split's workers (:func:`join_split`): the split has its answer, the rest is moot.
SPLIT_DONE: list[EventType] = []


def join_split(done: EventType) -> None:
    """A split's worker process starts here: ``done`` is set once its split has an answer."""
    SPLIT_DONE[:] = [done]


def split_over() -> bool:
    """In a split's worker: whether its split has stopped or already has its answer (a
    reply the opponent wins), so that the reply in hand no longer matters."""
    parent = multiprocessing.parent_process()  # None unless a worker of the split's pool
    if parent is not None and not parent.is_alive():
        return True
    return any(done.is_set() for done in SPLIT_DONE)


def watch_split(
    over: Callable[[], bool], every: float, gone: Callable[[], None]
) -> threading.Event:
    """Call ``gone`` once ``over()`` (:func:`split_over`), looking every ``every`` seconds,
    until the event returned is set: a worker in its checks, which do not come back between
    searches, must not go on holding a core for a split that needs it no more."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(every):
            if over():
                gone()
                return

    threading.Thread(target=watch, daemon=True).start()
    return done


# Beside a proven reply's table (which then goes): the proven entries of its proof, and the
# positions the engine's rules settled in its check.
PROVEN_SUFFIX, RULED_SUFFIX = ".proven.npz", ".ruled.npz"


def beside(table: Path, suffix: str) -> Path:
    """The file of a reply whose table is ``table`` that ends in ``suffix``."""
    return table.with_name(table.name.removesuffix(".npz") + suffix)


def kept_files(tables: Path, game_id: str, size: int, suffix: str = PROVEN_SUFFIX) -> list[Path]:
    """The proven entries (or with ``RULED_SUFFIX`` the rules' findings) kept so far in
    ``tables`` by the proven replies of ``game_id`` on ``size``, whatever their first turns:
    a position's key is that of its stones, so a proof met again after other first turns
    (the same stones placed in another order) is exact there too."""
    return sorted(tables.glob(f"{game_id}-{size}-*{suffix}"))


def read_record(path: Path, game_id: str, size: int) -> dict[str, dict[str, Any]]:
    """The replies proven in an earlier split (``--record``), by line; a clear
    ``ValueError`` naming the file and line for a record that does not read."""
    if not path.exists():
        return {}
    proven: dict[str, dict[str, Any]] = {}
    for number, text in enumerate(path.read_text().splitlines(), 1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
            fields = entry["game"], entry["size"], entry["line"], entry["mover_wins"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(
                f"{path}, line {number}: not a record of a proven reply ({exc})"
            ) from exc
        if not isinstance(fields[3], bool):
            raise ValueError(f"{path}, line {number}: mover_wins is {fields[3]!r}, not a verdict")
        if fields[:2] == (game_id, size):
            proven[entry["line"]] = entry
    return proven


def split(
    game_id: str,
    size: int,
    line: str,
    state: SlitherState,
    seconds: float,
    workers: int,
    record: Path | None,
    tables: Path | None = None,
    every: float = 600.0,
) -> bool | None:
    """Whether the mover wins after ``line``, proven reply by reply: each of the mover's
    turns (one per position up to images) is searched on its own, in a table of its own, by
    ``workers`` processes (kept in ``tables`` until the reply is proven, then only its
    proven entries, which every reply searched after it in ``tables`` starts with, whatever
    its first turn; see :func:`prove_line`).  Df-pn from a node whose every child the loser
    must answer can spend its work raising the loser's numbers across the fan; from each
    child alone it goes for the proof.  Proven replies are appended to ``record`` and not
    searched again."""
    line = " ".join(line.split())  # one spelling of a line: the record's key
    mover = state.player_name(state.to_move)
    other = state.player_name(3 - state.to_move)
    advanced = game_id == "slither-advanced"
    kids = replies(state, advanced)
    for text, child in kids:
        if child.outcome() is not None:
            print(f"  {line} {text}: {mover} connects at once", flush=True)
            return True
    known = read_record(record, game_id, size) if record is not None else {}
    lines = [f"{line} {text}" for text, _ in kids]
    results = {sub: known[sub] for sub in lines if sub in known}
    for sub in results:
        print(f"  {sub}: proven before ({record})", flush=True)

    def table_of(sub: str) -> Path | None:
        return None if tables is None else tables / f"{game_id}-{size}-{sub.replace(' ', '-')}.npz"

    def note(result: dict[str, Any]) -> None:
        won = result["mover_wins"]
        verdict = "not proven" if won is None else f"{other if won else mover} wins"
        checked = (
            f"; checked against every legal turn: {result['checked']} nodes,"
            f" by the engine's rules: {result['checked_by_rules']} positions"
            + (
                f" beside {result['ruled_before']} settled in other replies' checks"
                if result.get("ruled_before")
                else ""
            )
        )
        seeded = result.get("seeded", 0)
        seeds = f", beside {seeded} proven entries of other replies" if seeded else ""
        print(
            f"  {result['line']}: {verdict} ({result['nodes']} nodes, {result['seconds']} s"
            f"{seeds}{checked if won is not None else ''})",
            flush=True,
        )
        results[result["line"]] = result
        if won is not None and record is not None:
            with record.open("a") as out:
                out.write(json.dumps(result) + "\n")
        table = table_of(result["line"])
        if won is not None and table is not None:
            table.unlink(missing_ok=True)  # proven: its table is no longer needed

    tasks = [sub for sub in lines if sub not in results]
    meta = ProofSearch(size, advanced).table_meta()
    for sub in tasks:  # a table that will not load is named before any search starts
        table = table_of(sub)
        if table is not None and table.exists():
            read_checkpoint(table, meta, ())
    for suffix in (PROVEN_SUFFIX, RULED_SUFFIX):  # and so is a proof or a check kept
        for kept in [] if tables is None else kept_files(tables, game_id, size, suffix):
            read_checkpoint(kept, meta, ())
    if workers <= 1:
        for sub in tasks:
            note(prove_line(game_id, size, sub, seconds, table_of(sub), every))
            if results[sub]["mover_wins"] is False:
                break
    else:
        context = multiprocessing.get_context("spawn")
        answered = context.Event()
        pool = ProcessPoolExecutor(
            workers, mp_context=context, initializer=join_split, initargs=(answered,)
        )
        with pool:
            futures = [
                pool.submit(prove_line, game_id, size, sub, seconds, table_of(sub), every)
                for sub in tasks
            ]
            for future in as_completed(futures):
                note(future.result())
                if future.result()["mover_wins"] is False:
                    # The opponent wins after this reply: the replies in hand are moot, and
                    # their workers save their tables and stop within PARENT_CHECK seconds.
                    answered.set()
                    pool.shutdown(cancel_futures=True)
                    break
    done = [results[sub] for sub in lines if sub in results]
    print(
        f"  {len(lines)} distinct replies, {sum(r['mover_wins'] is not None for r in done)}"
        f" proven: {sum(r['nodes'] for r in done)} nodes,"
        f" {sum(r['seconds'] for r in done):.1f} s of search; checked again:"
        f" {sum(r.get('checked', 0) for r in done)} nodes against every legal turn,"
        f" {sum(r.get('checked_by_rules', 0) for r in done)} positions by the engine's rules",
        flush=True,
    )
    verdicts = [r["mover_wins"] for r in done]
    if False in verdicts:
        return True  # a reply after which the opponent, to move, loses
    if len(verdicts) == len(lines) and all(verdicts):
        return False
    return None


def main(argv: list[str] | None = None) -> int:
    from slimetrail.core.registry import get_game

    parser = argparse.ArgumentParser(description="Solve Slither's first turns by df-pn.")
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--advanced", action="store_true", help="Advanced Slither")
    parser.add_argument(
        "--first",
        nargs="*",
        help='first turns (default: one of each kind); a line of turns in one item: "c3 a1"',
    )
    parser.add_argument("--time", type=float, default=3600.0, help="seconds per first turn")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between reports")
    parser.add_argument("--table", type=Path, help="the table's file: loaded, saved on reports")
    parser.add_argument(
        "--split", action="store_true", help="prove each position reply by reply (see split())"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes for --split")
    parser.add_argument(
        "--record", type=Path, help="--split: proven replies appended here, and not redone"
    )
    parser.add_argument(
        "--tables", type=Path, help="--split: a folder for unfinished replies' tables"
    )
    args = parser.parse_args(argv)
    if args.split and args.table is not None:
        parser.error("--split keeps a table per reply: no --table (see --tables)")
    if args.tables is not None and not args.split:
        parser.error("--tables is for --split (one table a reply); use --table")
    game = get_game("slither-advanced" if args.advanced else "slither", size=args.size, pie="off")
    starts: list[tuple[str, SlitherState]] = []
    for first in args.first or first_turns(args.size):
        state = cast(SlitherState, game.new_state())
        try:
            for turn in first.split():
                state.push_str(turn)
        except GameError as exc:
            print(f"{first}: {exc}", file=sys.stderr)
            return 2
        if not first.split() or state.outcome() is not None:
            why = "no turn, or the game is over"
            print(f"{first!r}: no position to solve ({why})", file=sys.stderr)
            return 2
        starts.append((first, state))
    if args.split:
        if args.tables is not None:
            args.tables.mkdir(parents=True, exist_ok=True)
        return split_main(
            game.id,
            args.size,
            starts,
            args.time,
            args.workers,
            args.record,
            args.tables,
            args.every,
        )
    if args.table is not None and args.table.exists():
        try:
            search = ProofSearch.load(args.table, args.size, args.advanced)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        print(f"loaded {len(search.table)} entries from {args.table}", flush=True)
    else:
        search = ProofSearch(args.size, args.advanced)
    started = time.monotonic()
    unsolved = 0
    for first, state in starts:
        mover = state.player_name(state.to_move)
        other = state.player_name(3 - state.to_move)
        began, nodes = time.monotonic(), search.nodes

        def report(
            pn: int,
            dn: int,
            first: str = first,
            began: float = began,
            nodes: int = nodes,
            mover: str = mover,
        ) -> None:
            print(
                f"  {first}: {time.monotonic() - began:.0f} s, {search.nodes - nodes} nodes,"
                f" {search.expansions} expansions,"
                f" table {len(search.table)}, {mover}'s proof {pn} disproof {dn}",
                flush=True,
            )
            if args.table is not None:
                search.save(args.table)

        won = search.mover_wins(state, args.time, args.every, report)
        seconds = time.monotonic() - began
        verdict = "not proven" if won is None else f"{mover if won else other} wins"
        unsolved += won is None
        print(
            f"{game.id} {args.size}x{args.size} after {first}: {verdict}"
            f" ({search.nodes - nodes} nodes, {seconds:.1f} s)",
            flush=True,
        )
        if won is not None:
            checked = search.check(state, won)
            by_rules = search.check_by_rules(state, won)
            print(
                f"  checked against every legal turn: {checked} nodes,"
                f" by the engine's rules: {by_rules} positions",
                flush=True,
            )
    if args.table is not None:
        search.save(args.table)
    print(f"all: {search.nodes} nodes, {time.monotonic() - started:.1f} s", flush=True)
    return 1 if unsolved else 0


def split_main(
    game_id: str,
    size: int,
    starts: list[tuple[str, SlitherState]],
    seconds: float,
    workers: int,
    record: Path | None,
    tables: Path | None = None,
    every: float = 600.0,
) -> int:
    """``--split``: each start proven reply by reply; 1 if one is left unproven."""
    began = time.monotonic()
    unsolved = 0
    for line, state in starts:
        mover = state.player_name(state.to_move)
        other = state.player_name(3 - state.to_move)
        try:
            won = split(game_id, size, line, state, seconds, workers, record, tables, every)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        verdict = "not proven" if won is None else f"{mover if won else other} wins"
        unsolved += won is None
        print(f"{game_id} {size}x{size} after {line}: {verdict}", flush=True)
    print(f"all: {time.monotonic() - began:.1f} s", flush=True)
    return 1 if unsolved else 0


if __name__ == "__main__":
    sys.exit(main())
