"""Exact solver for the Slime Trail games (square and hex boards, rastros and Taylor rules).

``solve(state)`` proves the value of a position for the side to move and the value of every
legal move.  The position is relabelled onto the region the snail can still reach (at most
128 cells: one machine word per set of cells up to 64, else two) and searched by the
compiled kernel (``ckernel.c``, C built by ``pip install``): alpha-beta over win/draw/loss
(or mate distances), a transposition table keyed on the reachable region, instant answers
next to a goal corner, the matching theorem for undirected vertex geography once no goal
can be reached, and, when only one goal can still be reached, its owner's win under Taylor's
rules or a one-sided matching bound under Rastros rules; enhanced transposition cutoffs on
big regions.
The C kernel loads in a millisecond, so a fresh process solves at once, without numpy or
numba (only positions over 128 cells, :mod:`.wide`, import them).
"""

from __future__ import annotations

import logging
import mmap
import os
import threading
import time
from array import array
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from slimetrail.core.bits import cells_of
from slimetrail.core.checkpoint import read_checkpoint, write_checkpoint
from slimetrail.core.game import Game, GameError, Move, SolveResult, SolveTimeout, State

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState
    from slimetrail.games.trail.solver.wide import WideSearch

__all__ = [
    "KernelTable",
    "SolveResult",
    "SolveTimeout",
    "SolveTooLarge",
    "can_solve",
    "release_table",
    "solve",
    "solve_long",
    "warm_up",
]

MAX_CELLS = 128  # the biggest region (counting the snail's cell) the compiled kernels hold
WORD_CELLS = 64  # up to this many, one machine word per set of cells (the faster search)
WORD_MASK = (1 << 64) - 1
MATE = 1000  # a win in k plies scores MATE - k (with distances)
SAVE_EVERY = 300.0  # seconds between checkpoint saves of a long solve: a killed run loses less
# Tables of up to 2**SPARE_BITS entries (16 or 32 MB) are kept for the thread's next solve:
# clearing a kept table costs a fraction of the page faults of a fresh one, which dominated
# solves of small positions.
SPARE_BITS = 20
# The kernels' stats[] slots: nodes searched, the abort flag (set: stop at once), and the C
# kernel's node limit (it aborts past it; 0: none).
S_NODES, S_ABORT, S_LIMIT = 0, 1, 2
# A solve starts with a table of 2**FIRST_BITS entries, grown when a root move's search
# outgrows it (more than GROW_AFTER nodes per entry): touching a fresh page of a big table
# costs about as much as a hundred nodes, so a 21-bit table (32 MB) cost a 20,000-node
# solve 0.1 s in page faults, 40 times its search (7x7 after c3 c2 b2 b3 b4 c5 d6 e6 f5 f4).
FIRST_BITS = 14
GROW_AFTER = 4
# The biggest entry, in words (the two-word kernel's: two key words and the data word).
MAX_ENTRY_WORDS = 3


class _SpareTables(threading.local):
    """Per thread: the kept table of each size (in words)."""

    def __init__(self) -> None:
        self.by_shape: dict[int, KernelTable] = {}


_spare_tables = _SpareTables()


class SolveTooLarge(GameError):
    """The snail can still reach more cells than the compiled kernels hold (127 and its own);
    ``solve`` then goes through :mod:`slimetrail.games.trail.solver.wide` instead."""


def can_solve(game: Game) -> bool:
    """Whether every position of ``game`` fits the compiled solver (a Slime Trail board of at
    most 128 cells).  Later positions of bigger boards may still fit: ``solve`` decides per
    position."""
    from slimetrail.games.trail.game import TrailGame

    return isinstance(game, TrailGame) and game.size * game.size <= MAX_CELLS


def solve_long(state: State, **options) -> SolveResult:
    """A solve that may take hours (workers, checkpoints, no book):
    :func:`slimetrail.games.trail.solver.parallel.solve_long`, imported only when workers or
    checkpoints are asked for (else it is :func:`solve`)."""
    if not options.get("workers") and options.get("checkpoint_dir") is None:
        options.pop("workers", None)
        options.pop("checkpoint_dir", None)
        return solve(state, **options)
    from slimetrail.games.trail.solver.parallel import solve_long as long_solve

    return long_solve(state, **options)


def compiled_kernel() -> ModuleType:
    """The C kernel, with a clear error if it was never built."""
    try:
        from slimetrail.games.trail.solver import ckernel
    except ImportError as exc:
        raise ImportError(
            "the solver's C kernel (slimetrail/games/trail/solver/ckernel.c) is not built: "
            "install the package with pip (pip install -e . in a checkout), which compiles "
            "it (a C compiler and the Python headers are needed)"
        ) from exc
    return ckernel


def warm_up() -> None:
    """Nothing to compile: the C kernel is built when the package is installed.  Fails with
    a clear error if it was not (see :func:`compiled_kernel`)."""
    compiled_kernel()


def solve(
    state: State,
    *,
    distance: bool = False,
    time_limit: float | None = None,
    shortcuts: bool = True,
    table_bits: int | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    book: bool = True,
    first_win: bool = False,
    stop: threading.Event | None = None,
) -> SolveResult:
    """Solve ``state`` exactly; raises :class:`SolveTimeout` after ``time_limit`` seconds.

    ``shortcuts=False`` turns off the pruning next to the opponent's goal and the matching
    shortcut (for testing them against plain search).  ``checkpoint``: a file that keeps the
    transposition table and the finished root moves when the solve ends or times out; a later
    solve of the same position with the same file resumes from it (long solves in pieces).
    ``book``: answer from the opening book (:mod:`slimetrail.games.trail.solver.book`) when it
    holds the position (``nodes`` is then 0); ``book=False`` always searches. ``first_win``:
    stop at the first winning move (the value is exact; only the moves solved so far are
    listed).  ``stop``: setting this event from another thread ends the solve at once with
    :class:`SolveTimeout`.  ``state`` is not changed.
    """
    from slimetrail.games.trail.game import TrailGame

    start = time.monotonic()
    if stop is not None and time_limit is None:
        time_limit = 1e9  # a deadline that a stop can move to now (the wide layer checks it)
    deadline = 0.0 if time_limit is None else start + max(time_limit, 1e-6)
    if not isinstance(getattr(state, "game", None), TrailGame):
        raise GameError(f"the solver handles the Slime Trail games, not {state.game.id}")
    trail_state = cast("TrailState", state)  # a TrailGame's states are TrailStates
    outcome = state.outcome()
    to_move = state.to_move
    if outcome is not None:
        return SolveResult(
            value=outcome.for_player(to_move),
            to_move=to_move,
            plies=0 if distance else None,
            seconds=time.monotonic() - start,
            over=True,
        )
    if book and shortcuts and checkpoint is None:
        from slimetrail.games.trail.solver.book import lookup

        found = lookup(state)
        if found is not None:
            if not distance:
                found.plies, found.move_plies = None, {}
            found.seconds = time.monotonic() - start
            return found
    search: _Root | WideSearch
    try:
        search = _Root(state, distance, deadline, shortcuts, table_bits, checkpoint is None)
    except SolveTooLarge:
        from slimetrail.games.trail.solver.wide import WideSearch

        search = WideSearch(
            trail_state, distance, deadline, shortcuts, table_bits, checkpoint=checkpoint
        )
    finished = threading.Event()
    if stop is not None:
        threading.Thread(target=_stop_on, args=(stop, finished, search), daemon=True).start()
    try:
        if isinstance(search, _Root):
            return search.run(start, checkpoint, value_only=first_win)
        return search.solve(trail_state, start, value_only=first_win)
    finally:
        finished.set()
        if isinstance(search, _Root):
            release_table(search.table)


def _stop_on(stop: threading.Event, finished: threading.Event, search) -> None:
    """Abort ``search`` when ``stop`` is set before ``finished``: the kernel reads its abort
    flag at every node, and the deadline moved to now keeps it from resuming."""
    while not finished.is_set():
        if stop.wait(0.005):
            search.deadline = time.monotonic()
            search.stats[S_ABORT] = 1
            return


def result_from_scores(
    scores: dict[Move, int], to_move: int, mate: int | None, nodes: int
) -> SolveResult:
    """The :class:`SolveResult` of the root move scores (for the side to move; ``mate``: the
    score of a win in 0 plies when scores are distances, else ``None``)."""
    names = {1: "win", 0: "draw", -1: "loss"}
    values = {m: names[(s > 0) - (s < 0)] for m, s in scores.items()}
    best = max(scores.values())
    rank = sorted(scores, key=lambda m: -scores[m])  # fastest win / slowest loss first
    result = SolveResult(
        value=names[(best > 0) - (best < 0)],
        to_move=to_move,
        winning_moves=[m for m in rank if values[m] == "win"],
        drawing_moves=[m for m in rank if values[m] == "draw"],
        move_values=values,
        nodes=nodes,
    )
    if mate is not None:
        result.move_plies = {m: (mate - abs(s) if s else 0) for m, s in scores.items()}
        result.plies = mate - abs(best) if best else None
    return result


def goal_move_score(state, move: Move, distance: bool) -> int | None:
    """The root score of a move into a goal corner (a win or loss in one ply), else None."""
    win = MATE if distance else 1
    game = state.game
    if move == game.goals[state.to_move]:
        return win - 1 if distance else win
    if move == game.goals[3 - state.to_move]:
        return -(win - 1) if distance else -win
    return None


def adjust(score: int, distance: bool) -> int:
    """A child's score seen from the parent, one ply further from the end (the kernels'
    ``adjust``)."""
    s = -score
    if distance and s:
        s -= 1 if s > 0 else -1
    return s


def unadjust(bound: int, distance: bool) -> int:
    """The child's bound that corresponds to a parent's bound (the inverse of :func:`adjust`)."""
    if distance and bound:
        bound += 1 if bound > 0 else -1
    return -bound


def kernel_params(game, distance: bool, shortcuts: bool) -> array:
    """The kernel's ``params`` (see ``ckernel.c``): int64 Taylor's rules,
    distances, the matching shortcut, the pruning next to the opponent's goal."""
    return array("q", [game.rules == "taylor", distance, shortcuts, shortcuts])


def new_stats() -> array:
    """The kernel's ``stats``: int64 nodes searched (``S_NODES``), abort flag (``S_ABORT``),
    node limit (``S_LIMIT``, the C kernel's; 0: none)."""
    return array("q", [0, 0, 0])


class Labelling:
    """Board cells ``cells`` (at most 128) labelled 0..n-1 in that order, as the compiled
    kernel sees them: neighbour masks within ``cells``, goal bits (0 for a goal outside them)
    and move-order ranks.  Up to 64 cells a set of them is one ``uint64``, above that two."""

    def __init__(self, game, cells: list[int]) -> None:
        adjacent = game.board.neighbour_lists
        self.cells = cells
        self.index = index = {cell: k for k, cell in enumerate(cells)}
        lists = [[index[o] for o in adjacent[cell] if o in index] for cell in cells]
        self.neighbour_masks = [sum(1 << k for k in row) for row in lists]
        ends = [index.get(g, -1) for g in (game.goals[1], game.goals[2])]
        self.goal_masks = [1 << end if end >= 0 else 0 for end in ends]
        # Tie-break of the move order: nearer the mover's own goal first (walking distance).
        self.order_rows = [
            _distances(lists, ends[p], ends[1 - p]) if ends[p] >= 0 else [63] * len(cells)
            for p in (0, 1)
        ]
        self.words = 1 if len(cells) <= WORD_CELLS else 2

    @cached_property
    def nbr(self):
        """Per label its neighbours, as numpy ``uint64`` (one word each, or two: ``(n, 2)``)."""
        return _words(self.neighbour_masks, self.words)

    @cached_property
    def goals(self):
        """Each player's goal bit (0: out of reach), as :attr:`nbr`."""
        return _words(self.goal_masks, self.words)

    @cached_property
    def order(self):
        """Per side, the move-order rank of every label: numpy ``int64``, shape ``(2, n)``."""
        import numpy as np

        return np.array(self.order_rows, np.int64)

    @cached_property
    def word_arrays(self) -> tuple[array, array, array]:
        """``nbr``, ``goals`` (a set's words, low word first) and ``order`` (flat) as the C
        kernel takes them, without numpy."""

        def words(sets: list[int]) -> array:
            if self.words == 1:
                return array("Q", sets)
            return array("Q", [w for v in sets for w in (v & WORD_MASK, v >> 64)])

        return (
            words(self.neighbour_masks),
            words(self.goal_masks),
            array("q", [*self.order_rows[0], *self.order_rows[1]]),
        )

    def bits(self, cells: int) -> int:
        """``cells`` (a set of board cells among the labelled ones) in labels."""
        index = self.index
        return sum(1 << index[cell] for cell in cells_of(cells))

    @property
    def entry_words(self) -> int:
        """Words per table entry of this labelling's kernel."""
        kernel = compiled_kernel()
        return int(kernel.ENTRY_WORDS if self.words == 1 else kernel.WIDE_ENTRY_WORDS)

    def new_table(self, bits: int) -> KernelTable:
        """An empty transposition table of ``2**bits`` entries for this labelling's kernel:
        the thread's spare table of that size (see :func:`release_table`) in a new
        generation, if it has one."""
        words = self.entry_words << bits
        table = _spare_tables.by_shape.pop(words, None)
        if table is None:
            return KernelTable(mapped_table(words), entry_words=self.entry_words)
        table.renew(self.entry_words)
        return table

    def negamax(
        self,
        free: int,
        snail: int,
        side: int,
        alpha: int,
        beta: int,
        params,
        table: KernelTable,
        stats,
        stop: float,
    ) -> int:
        """The kernel's score of the position (labels ``free`` and ``snail``; see
        ``ckernel.c``), searched with ``table`` (from :meth:`new_table`).
        ``params`` and ``stats``: from :func:`kernel_params` and :func:`new_stats` (or int64
        numpy arrays)."""
        nbr, goals, order = self.word_arrays
        table.used = len(table.words)
        return int(
            compiled_kernel().negamax(
                free,
                snail,
                side,
                alpha,
                beta,
                nbr,
                goals,
                order,
                params,
                table.words,
                table.generation,
                stats,
                float(stop),
            )
        )


def release_table(table: KernelTable) -> None:
    """Hand a table from :meth:`Labelling.new_table` back once its solve is over, for the
    thread's next solve with a table of the same size (only tables of up to 2**SPARE_BITS
    entries are kept, one per size)."""
    if len(table.words) <= MAX_ENTRY_WORDS << SPARE_BITS:
        _spare_tables.by_shape[len(table.words)] = table


class KernelTable:
    """A kernel's transposition table: ``words``, entries of ``entry_words`` words each (the
    kernel's ``ENTRY_WORDS`` or ``WIDE_ENTRY_WORDS``; 0: not known), and the generation its
    live entries carry.  Entries of other generations count as empty, so a table is emptied
    for its next solve by taking the next generation rather than by zeroing megabytes, which
    cost more than the search of most positions.  ``used``: how many words from the start
    a kernel may have written (searched with, or handed out in a :meth:`part`)."""

    def __init__(self, words, generation: int = 1, entry_words: int = 0) -> None:
        self.words = words
        self.generation = generation
        self.entry_words = entry_words
        self.used = 0

    def renew(self, entry_words: int) -> None:
        """Empty the table for a solve whose entries have ``entry_words`` words: the next
        generation; zeroed when the generations run out or the entries change size (a key
        word of the old layout, read as a data word of the new one, may carry the new
        generation and answer as live)."""
        if entry_words != self.entry_words or self.generation >= compiled_kernel().MAX_GENERATION:
            with memoryview(self.words) as view, view[: self.used].cast("B") as raw:
                raw[:] = bytes(len(raw))
            self.generation = 0
        self.generation += 1
        self.entry_words = entry_words

    def part(self, words: int) -> KernelTable:
        """The first ``words`` words, in this generation and entry size (a smaller table in
        the same memory)."""
        self.used = max(self.used, words)
        return KernelTable(self.words[:words], self.generation, self.entry_words)


def mapped_table(words: int) -> memoryview:
    """A zeroed table of ``words`` ``uint64`` for the C kernel, without numpy: anonymous
    memory (page-aligned, so a bucket never straddles two cache lines; its pages are
    zeroed by the system only once touched, as numpy's ``zeros`` does).  Private: a
    process forked later gets its own copy of what it writes (a shared mapping let forked
    workers write into their parent's spare tables, and into each other's, in the very
    generation the other's next solve takes)."""
    return memoryview(mmap.mmap(-1, 8 * words, flags=mmap.MAP_PRIVATE)).cast("Q")


def aligned_table(words: int):
    """A zeroed ``uint64`` array of ``words`` words starting on a 64-byte boundary, so that
    a bucket of the one-word kernel's table (32 bytes) never straddles two cache lines."""
    import numpy as np

    raw = np.zeros(words + 8, np.uint64)
    start = (-raw.ctypes.data % 64) // 8
    return raw[start : start + words]


def _words(values: list[int], words: int):
    """Sets of labels as the kernels take them: one ``uint64`` each, or two (low word first)."""
    import numpy as np

    if words == 1:
        return np.array(values, np.uint64)
    return np.array([(v & WORD_MASK, v >> 64) for v in values], np.uint64).reshape(-1, 2)


class CompactGraph:
    """The cells the snail can still reach from ``snail`` through ``free`` (goal corners end
    a walk), with the snail's cell first: ``labels`` is their :class:`Labelling` (``None`` if
    there are more than the kernels hold) and ``free`` every label but the snail's."""

    def __init__(self, game, free: int, snail: int) -> None:
        self.region = reachable(game, free, snail)
        self.cells = [snail, *cells_of(self.region)]
        self.labels = Labelling(game, self.cells) if len(self.cells) <= MAX_CELLS else None
        self.free = (1 << len(self.cells)) - 2


def reachable(game, free: int, snail: int) -> int:
    """The cells of ``free`` the snail can walk to (a goal corner ends a walk)."""
    board = game.board
    region, frontier = 0, 1 << snail
    while frontier:
        low = frontier & -frontier
        frontier ^= low
        new = board.neighbours[low.bit_length() - 1] & free & ~region
        region |= new
        frontier |= new & ~game.goal_mask
    return region


class _Root:
    """One solve: the compact graph, the table, and the values of the root moves."""

    def __init__(
        self,
        state,
        distance: bool,
        deadline: float,
        shortcuts: bool,
        table_bits: int | None,
        grow: bool = True,
    ):
        """``table_bits``: the table's size (log2 of its entries), else it depends on the
        region and the time left, and with ``grow`` (no checkpoint, whose table must keep
        its size) the table starts small and grows to that size only as the search needs."""
        game = state.game
        self.state, self.distance, self.deadline = state, distance, deadline
        graph = CompactGraph(game, state.free, state.snail)
        if graph.labels is None:
            raise SolveTooLarge(
                f"the snail can still reach {len(graph.cells) - 1} cells; "
                f"the compiled solver handles at most {MAX_CELLS - 1}"
            )
        self.labels, self.free = graph.labels, graph.free
        self.side = state.to_move - 1
        self.params = kernel_params(game, distance, shortcuts)
        left = deadline - time.monotonic() if deadline else 0.0
        self.full_bits = (
            default_table_bits(len(graph.cells), left) if table_bits is None else table_bits
        )
        self.bits = self.full_bits
        if table_bits is None and grow:
            self.bits = min(FIRST_BITS, self.full_bits)
        self.table = self.labels.new_table(self.bits)
        self.stats = new_stats()
        self.saved_at = time.monotonic()

    def run(self, start: float, checkpoint=None, value_only: bool = False) -> SolveResult:
        """Solve every root move; ``value_only``: stop at the first win (only ``value`` is
        then complete, for callers that need no more)."""
        state, game = self.state, self.state.game
        dist = self.distance
        win = MATE if dist else 1
        mirror = mirror_moves(state)
        # Without distances nothing beats a win, so (-1, 1) already asks for the exact value.
        bound = win + 1 if dist else win
        scores: dict[Move, int] = {}
        meta = ""  # what a checkpoint must belong to
        if checkpoint is not None:
            meta = f"{game.spec}|{state.fen()}|{list(self.params)}|{len(self.table.words)} words"
        if checkpoint is not None and os.path.exists(checkpoint):
            scores = self._load(checkpoint, meta)
        for move in state.legal_moves():
            if value_only and not dist and win in scores.values():
                break  # a resumed solve may already hold its first win
            if move in scores:
                continue
            twin = mirror.get(move) if mirror else None
            if twin in scores:
                scores[move] = scores[twin]
                continue
            entered = goal_move_score(state, move, dist)
            if entered is not None:
                scores[move] = entered
            else:
                m = self.labels.index[move]
                while True:
                    # With a checkpoint, the kernel also stops when a save falls due (so a
                    # killed run keeps its work), then goes on.
                    saved_at = None if checkpoint is None else self.saved_at
                    if self.bits < self.full_bits:
                        self.stats[S_LIMIT] = self.stats[S_NODES] + (GROW_AFTER << self.bits)
                    score = self.labels.negamax(
                        self.free & ~(1 << m),
                        m,
                        1 - self.side,
                        -bound,
                        bound,
                        self.params,
                        self.table,
                        self.stats,
                        kernel_stop(self.deadline, saved_at),
                    )
                    if not self.stats[S_ABORT]:
                        break
                    if self.stats[S_LIMIT] and self.stats[S_NODES] > self.stats[S_LIMIT]:
                        self._grow()  # and search this move again
                        self.stats[S_ABORT] = 0
                        continue
                    if checkpoint is not None:
                        self._save(checkpoint, meta, scores)
                    if checkpoint is None or (self.deadline and time.monotonic() > self.deadline):
                        raise SolveTimeout(
                            f"no result within the time limit ({self.stats[S_NODES]} nodes)"
                        )
                    self.stats[S_ABORT] = 0
                scores[move] = adjust(score, dist)
        if checkpoint is not None:
            self._save(checkpoint, meta, scores)
        # The root counts too: 0 nodes means an answer from the book.
        result = result_from_scores(
            scores, state.to_move, win if dist else None, self.stats[S_NODES] + 1
        )
        result.seconds = time.monotonic() - start
        return result

    def _grow(self) -> None:
        """A table 8 times bigger (at most ``full_bits``), empty."""
        release_table(self.table)
        self.bits = min(self.bits + 3, self.full_bits)
        self.table = self.labels.new_table(self.bits)
        self.stats[S_LIMIT] = 0

    def _save(self, path, meta: str, scores: dict[Move, int]) -> None:
        import numpy as np

        self.saved_at = time.monotonic()

        write_checkpoint(
            path,
            meta,
            {
                "table": self.table.words,
                "generation": np.array([self.table.generation], np.int64),
                "moves": np.array(list(scores), np.int64),
                "scores": np.array(list(scores.values()), np.int64),
                "nodes": self.stats[:1],
            },
        )
        logging.getLogger("slimetrail.games.trail.solver").info(
            "saved %s: %d root moves, %d nodes", os.fspath(path), len(scores), self.stats[0]
        )

    def _load(self, path, meta: str) -> dict[Move, int]:
        import numpy as np

        saved = read_checkpoint(path, meta, ("table", "generation", "nodes", "moves", "scores"))
        if saved["table"].shape != self.table.words.shape:
            raise GameError(f"checkpoint {os.fspath(path)!r} has a table of another size")
        np.frombuffer(self.table.words, np.uint64)[:] = saved["table"]
        self.table.generation = int(saved["generation"][0])
        self.stats[0] = saved["nodes"][0]
        return dict(zip(saved["moves"].tolist(), saved["scores"].tolist(), strict=True))


def next_save(saved_at: float) -> float:
    """When a checkpointed solve last saved at ``saved_at`` saves next."""
    return saved_at + SAVE_EVERY


def kernel_stop(deadline: float, saved_at: float | None) -> float:
    """When the kernel must pause: at ``deadline`` (0: none) or, for a checkpointed solve
    (``saved_at`` given), at its next save, whichever comes first."""
    if saved_at is None:
        return deadline
    return min(deadline, next_save(saved_at)) if deadline else next_save(saved_at)


def default_table_bits(n: int, seconds: float) -> int:
    """Table size (log2 of the entries, 16 bytes each) for a region of ``n`` cells and a
    time budget (``seconds`` <= 0: none): no bigger than the search can fill (a few million
    nodes a second), since zeroing a big table would dominate a short solve."""
    bits = 24 if n > 56 else min(22, 8 + n // 3)
    if seconds > 0:
        bits = min(bits, max(16, int(seconds * 4e6).bit_length()))
    return bits


def _distances(lists: list, goal: int, blocked: int) -> list[int]:
    """Walking distance of every vertex to ``goal`` (63 where out of reach, at most 62),
    never walking through vertex ``blocked`` (the other goal; -1: none); ``lists[v]``: the
    neighbours of ``v``."""
    dist = [63] * len(lists)
    dist[goal] = 0
    seen = [False] * len(lists)
    seen[goal] = True
    if blocked >= 0:
        seen[blocked] = True
    queue = [goal]
    for v in queue:
        d = min(dist[v] + 1, 62)
        for u in lists[v]:
            if not seen[u]:
                seen[u] = True
                dist[u] = d
                queue.append(u)
    return dist


def board_distances(game, free: int, goal: int, other_goal: int):
    """:func:`_distances` on the board itself: walking through the cells of ``free``."""
    through = free | (1 << goal)
    lists = [[o for o in row if through >> o & 1] for row in game.board.neighbour_lists]
    return _distances(lists, goal, other_goal)


def mirror_moves(state) -> dict[int, int] | None:
    """If reflecting the board in its a1 diagonal (which keeps both goal corners) leaves the
    position unchanged, the map cell -> mirrored cell; mirrored moves have equal values."""
    board = state.game.board

    def flip(cell: int) -> int:
        col, row = board.coords(cell)
        return board.index(row, col)

    if flip(state.snail) != state.snail:
        return None
    free = 0
    for cell in cells_of(state.free):
        free |= 1 << flip(cell)
    if free != state.free:
        return None
    return {cell: flip(cell) for cell in cells_of(board.neighbours[state.snail])}


class TrailSolver:
    """The Slime Trail boards' :class:`~slimetrail.core.game.ExactSolver`: this module's
    functions as the one object ``TrailGame.exact_solver()`` hands out."""

    def can_solve(self, game: Game) -> bool:
        return can_solve(game)

    def solve(
        self,
        state: State,
        *,
        distance: bool = False,
        time_limit: float | None = None,
        **options: Any,
    ) -> SolveResult:
        """:func:`solve`, with its further keywords (``book``, ``stop``, ...)."""
        return solve(state, distance=distance, time_limit=time_limit, **options)

    def solve_long(self, state: State, **options: Any) -> SolveResult:
        return solve_long(state, **options)


SOLVER = TrailSolver()
