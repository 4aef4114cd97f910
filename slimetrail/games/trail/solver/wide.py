"""Solving positions whose region is too big for the compiled kernels (over 127 cells).

The plies near the root are searched here, in Python on the board's own bitboards, with the
kernel's rules and scores (alpha-beta, a transposition table, instant answers next to a goal
corner, Taylor's one-reachable-goal rule); every position whose region fits is handed to the
kernel.  The kernel does nearly all the work.  Sub-solves are labelled in a *frame*: the
region of the nearest position above them that fits the kernels, so siblings and
cousins share one labelling and the kernel's table carries over between them.

A long solve can be checkpointed: the top layer's table (every position it has decided,
including each sub-solve's answer) and the finished root moves are saved every few minutes
and when it times out, and a rerun with the same file walks straight back to where it was.
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING

import numpy as np

from slimetrail.core.bits import cells_of
from slimetrail.core.checkpoint import read_checkpoint, write_checkpoint
from slimetrail.core.game import Move
from slimetrail.games.trail.solver import (
    MATE,
    MAX_CELLS,
    S_ABORT,
    S_NODES,
    KernelTable,
    Labelling,
    SolveResult,
    SolveTimeout,
    adjust,
    aligned_table,
    board_distances,
    compiled_kernel,
    default_table_bits,
    goal_move_score,
    kernel_params,
    kernel_stop,
    mirror_moves,
    next_save,
    reachable,
    result_from_scores,
    unadjust,
)

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

EXACT, LOWER, UPPER = 0, 1, 2
ILLEGAL = 20_000  # the kernel's score of a position Taylor's rule forbids
NO_SCORE = -10_000  # below every score: no move searched yet
log = logging.getLogger("slimetrail.games.trail.solver")


class _Frame(Labelling):
    """A fixed labelling of at most 128 board cells; every position inside it gets the same
    kernel labels, so the kernel's table stays valid from one sub-solve to the next."""

    def __init__(self, game, mask: int) -> None:
        super().__init__(game, list(cells_of(mask)))
        self.mask = mask


class WideSearch:
    """One solve of a big position: the Python top layer and the kernel below it.

    ``table_bits``: the kernel's table (log2 of its entries), used whole in every frame; by
    default each frame clears and uses only what its size and the time left can fill, since
    clearing a big table dominates quick sub-solves.  ``checkpoint``: a file to save the
    solve in and resume it from.  ``kernel_cells``: the biggest region (counting the snail's
    cell) handed to the kernel; only tests lower it, to check this layer against the kernel.
    ``share_frames=False`` labels every sub-solve on its own with a cleared table (the
    benchmark's baseline).
    """

    def __init__(
        self,
        state: TrailState,
        distance: bool,
        deadline: float,
        shortcuts: bool,
        table_bits: int | None,
        kernel_cells: int = MAX_CELLS,
        checkpoint: str | os.PathLike[str] | None = None,
        share_frames: bool = True,
    ) -> None:
        game = state.game
        self.game, self.board = game, game.board
        self.distance, self.deadline, self.shortcuts = distance, deadline, shortcuts
        self.taylor = game.rules == "taylor"
        self.win = MATE if distance else 1
        self.kernel_cells = kernel_cells
        self.params = kernel_params(game, distance, shortcuts)
        self.goal_bits = (1 << game.goals[1], 1 << game.goals[2])
        # Move order, as in the kernel: fewest replies, then nearer the mover's own goal.
        self.order = [
            board_distances(game, state.free, game.goals[p], game.goals[3 - p]) for p in (1, 2)
        ]
        self.sized_per_frame = table_bits is None
        left = deadline - time.monotonic() if deadline else 0.0
        bits = default_table_bits(MAX_CELLS, left) if table_bits is None else table_bits
        # The two-word kernel's entry size: enough for frames of either kernel.
        self.tt = KernelTable(aligned_table(compiled_kernel().WIDE_ENTRY_WORDS << bits))
        self.kernel_table = self.tt.part(0)
        self.stats = np.zeros(2, np.int64)
        self.frame: _Frame | None = None
        self.share_frames = share_frames
        self.table: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        self.scores: dict[Move, int] = {}  # the root moves decided so far
        self.nodes = 0
        self.checkpoint = None if checkpoint is None else os.fspath(checkpoint)
        self.meta = f"wide|{game.spec}|{state.fen()}|{list(self.params)}"
        self.saved_at = time.monotonic()
        if self.checkpoint is not None and os.path.exists(self.checkpoint):
            self._load()

    @property
    def total_nodes(self) -> int:
        return self.nodes + int(self.stats[S_NODES])

    def solve(self, state: TrailState, start: float, value_only: bool = False) -> SolveResult:
        """Every root move's value (and distance), as :meth:`_Root.run` gives them;
        ``value_only``: stop at the first win (only ``value`` is then complete)."""
        side = state.to_move - 1
        bound = self.win + 1 if self.distance else self.win
        mirror = mirror_moves(state) or {}
        scores = self.scores
        try:
            for move in cells_of(state.legal_mask()):  # legal_moves(), as cells
                if value_only and not self.distance and self.win in scores.values():
                    break
                if move in scores:
                    continue
                if mirror.get(move) in scores:
                    scores[move] = scores[mirror[move]]
                    continue
                entered = goal_move_score(state, move, self.distance)
                if entered is not None:
                    scores[move] = entered
                else:
                    raw = self.search(state.free & ~(1 << move), move, 1 - side, -bound, bound)
                    scores[move] = adjust(raw, self.distance)
        finally:
            self._save()  # on timeout too: the next run resumes from here
        result = result_from_scores(
            scores, state.to_move, self.win if self.distance else None, self.total_nodes
        )
        result.seconds = time.monotonic() - start
        return result

    def search(
        self, free: int, snail: int, side: int, alpha: int, beta: int, frame: int = 0
    ) -> int:
        """The kernel's ``negamax`` for a position of the real board; ``frame``: the region
        of the nearest ancestor that fits the kernel (0 if none), where the sub-solves of
        this position are labelled."""
        dist, win = self.distance, self.win
        self.nodes += 1
        now = time.monotonic()
        if self.deadline and now > self.deadline:
            raise SolveTimeout(f"no result within the time limit ({self.total_nodes} nodes)")
        if now > next_save(self.saved_at):
            self._save()
        neighbours = self.board.neighbours
        mine, theirs = self.goal_bits[side], self.goal_bits[1 - side]
        steps = neighbours[snail] & free
        if steps & mine:
            return win - 1 if dist else win
        region = reachable(self.game, free, snail)
        fits = region.bit_count() + 1 <= self.kernel_cells  # the region and the snail's cell
        if not fits:
            reach_mine, reach_theirs = bool(region & mine), bool(region & theirs)
            if not reach_mine and not reach_theirs:
                if self.taylor:
                    return ILLEGAL
                if not steps:
                    return -win
            elif reach_mine != reach_theirs and self.taylor and self.shortcuts and not dist:
                return win if reach_mine else -win  # as in the kernel: the one goal is reached

        key = (region, snail, side)
        alpha0, tt_move = alpha, -1
        if key in self.table:
            value, flag, tt_move = self.table[key]
            if flag == EXACT:
                return value
            if flag == LOWER:
                if value >= beta:
                    return value
                alpha = max(alpha, value)
            elif flag == UPPER:
                if value <= alpha:
                    return value
                beta = min(beta, value)

        if fits:
            best = self._kernel(region, snail, side, alpha, beta, frame)
            if best != ILLEGAL:
                flag = UPPER if best <= alpha else LOWER if best >= beta else EXACT
                self.table[key] = (best, flag, -1)
            return best

        if region.bit_count() <= self.kernel_cells:
            frame = region  # every position below this one lies inside its region
        best, best_move = NO_SCORE, -1
        if steps & theirs:
            best, best_move = adjust(win, dist), (theirs.bit_length() - 1)
        rest = steps & ~theirs
        if self.shortcuts:
            near = rest & neighbours[theirs.bit_length() - 1]
            if near:
                loss2 = adjust(win - 1 if dist else win, dist)
                if loss2 > best:
                    best, best_move = loss2, (near & -near).bit_length() - 1
                rest &= ~near
        order = self.order[side]
        kids = sorted(
            cells_of(rest),
            key=lambda m: (
                -1 if m == tt_move else (neighbours[m] & region).bit_count() * 64 + order[m]
            ),
        )
        alpha = max(alpha, best)
        for m in kids:
            if alpha >= beta:
                break
            raw = self.search(
                region & ~(1 << m),
                m,
                1 - side,
                unadjust(beta, dist),
                unadjust(alpha, dist),
                frame,
            )
            if raw == ILLEGAL:
                continue
            score = adjust(raw, dist)
            if score > best:
                best, best_move = score, m
                alpha = max(alpha, score)
        if best == NO_SCORE:
            return 0 if self.taylor else -win
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.table[key] = (best, flag, best_move)
        return best

    def _kernel(self, region: int, snail: int, side: int, alpha: int, beta: int, frame: int) -> int:
        """The kernel's score of a position that fits it, labelled in the current frame if
        it lies inside, else in ``frame`` (or its own cells), with a cleared table."""
        cells = region | 1 << snail
        if self.frame is None or cells & ~self.frame.mask or not self.share_frames:
            if not self.share_frames or not frame or cells & ~frame:
                frame = cells
            self.frame = _Frame(self.game, frame)
            size = len(self.tt.words) // compiled_kernel().WIDE_ENTRY_WORDS  # entries
            if self.sized_per_frame:
                left = self.deadline - time.monotonic() if self.deadline else 0.0
                size = min(size, 1 << default_table_bits(self.frame.mask.bit_count(), left))
            self.tt.renew(self.frame.entry_words)
            self.kernel_table = self.tt.part(self.frame.entry_words * size)
        labels = self.frame
        while True:
            # A checkpointed solve stops the kernel when a save is due and saves its table
            # too, so a long sub-solve is not lost with the process; then it goes on.
            saved_at = None if self.checkpoint is None else self.saved_at
            score = labels.negamax(
                labels.bits(region),
                labels.index[snail],
                side,
                alpha,
                beta,
                self.params,
                self.kernel_table,
                self.stats,
                kernel_stop(self.deadline, saved_at),
            )
            if not self.stats[S_ABORT]:
                return score
            if self.deadline and time.monotonic() > self.deadline:
                raise SolveTimeout(f"no result within the time limit ({self.total_nodes} nodes)")
            self.stats[S_ABORT] = 0
            self._save()

    def _save(self) -> None:
        """Write the top layer's table, the kernel's table of the current frame and the decided
        root moves to the checkpoint (atomically)."""
        self.saved_at = time.monotonic()
        if self.checkpoint is None:
            return
        width = (self.board.mask.bit_length() + 7) // 8
        items = list(self.table.items())
        entries = np.array(
            [(snail, side, *entry) for (_, snail, side), entry in items], np.int64
        ).reshape(-1, 5)
        regions = np.frombuffer(
            b"".join(region.to_bytes(width, "little") for (region, _, _), _ in items), np.uint8
        ).reshape(-1, width)
        frame = self.frame
        write_checkpoint(
            self.checkpoint,
            self.meta,
            {
                "frame": np.frombuffer(
                    frame.mask.to_bytes(width, "little") if frame else b"", np.uint8
                ),
                "table": self.kernel_table.words if frame else np.zeros(0, np.uint64),
                "generation": np.array([self.kernel_table.generation], np.int64),
                "regions": regions,
                "entries": entries,
                "moves": np.array(list(self.scores), np.int64),
                "scores": np.array(list(self.scores.values()), np.int64),
                "nodes": np.array([self.total_nodes], np.int64),
            },
        )
        log.info(
            "saved %s: %d positions decided, %d root moves, %d nodes",
            self.checkpoint,
            len(self.table),
            len(self.scores),
            self.total_nodes,
        )

    def _load(self) -> None:
        assert self.checkpoint is not None  # only a checkpointed solve loads
        names = ("regions", "entries", "moves", "scores", "nodes")
        saved = read_checkpoint(self.checkpoint, self.meta, names, ("frame", "table", "generation"))
        for row, (snail, side, value, flag, move) in zip(
            saved["regions"], saved["entries"].tolist(), strict=True
        ):
            self.table[(int.from_bytes(row.tobytes(), "little"), snail, side)] = (value, flag, move)
        self.scores = dict(zip(saved["moves"].tolist(), saved["scores"].tolist(), strict=True))
        self.nodes = int(saved["nodes"][0])
        size = len(saved.get("table", ()))
        if size and size <= len(self.tt.words):  # the sub-solves' table as it was
            self.frame = _Frame(self.game, int.from_bytes(saved["frame"].tobytes(), "little"))
            self.tt.generation = int(saved["generation"][0])
            self.tt.entry_words = self.frame.entry_words
            self.kernel_table = self.tt.part(size)
            self.kernel_table.words[:] = saved["table"]
