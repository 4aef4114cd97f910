"""The first exact solver of small Slime-Moku boards, in plain Python: alpha-beta over
win/draw/loss with a transposition table, on the bitboards of
:mod:`slimetrail.games.moku.board`.  The compiled solver the game offers
(:mod:`slimetrail.games.moku.solver`) runs the same search; this one is its slow, readable
baseline (``research/bench/moku_solve.py``).

A node is ``(mine, theirs, empty, slime)`` from the mover's side; its value is +1 (the mover
wins), 0 (draw) or -1.  Two facts of the rules keep the tree small:

* the mover's stone lands on the slime's cell whatever the move, so one row test decides
  whether every move wins at once;
* a move to a cell that completes the opponent's row loses at once (the opponent writes
  there), and a move whose every reply lands on a cell completing the mover's row wins at
  once: one ply of look-ahead with the row test settles both, and orders the other moves
  by how few safe replies they leave (8 times fewer nodes on 5x5 than plain order).

The table is keyed by the stones and the slime from the mover's side (colours do not matter:
the rules are the same for both), brought to the least of its eight images under the
board's symmetries (the rules ignore the start cell once play is under way), and holds exact
values or bounds.  Run it from the command
line to solve the small boards::

    python -m research.moku.pysolver 4 4 5 4
"""

from __future__ import annotations

import sys
import time

from slimetrail.core.bits import cells_of
from slimetrail.core.game import Game, GameOptionError, Move, SolveResult, SolveTimeout, State
from slimetrail.games.moku.board import MokuBoard
from slimetrail.games.moku.solver import symmetries

MAX_CELLS = 36  # 6x6: the largest board this solver is offered (bigger ones take too long)
EXACT, LOWER, UPPER = 0, 1, 2
WORDS = {1: "win", 0: "draw", -1: "loss"}


class Search:
    """One solve: its table, node count and deadline."""

    def __init__(self, board: MokuBoard, time_limit: float | None) -> None:
        self.board = board
        self.symmetries = symmetries(board)
        self.table: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        self.nodes = 0
        self.deadline = None if time_limit is None else time.monotonic() + time_limit

    def value(self, mine: int, theirs: int, empty: int, slime: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        late = self.deadline is not None and not self.nodes & 0xFFF
        if late and time.monotonic() > self.deadline:  # type: ignore[operator]
            raise SolveTimeout("slime-moku solve ran out of time")
        board = self.board
        mine |= 1 << slime
        if board.makes_row(mine, slime):
            return 1
        if not empty & (empty - 1):
            return 0  # the one move left fills the board
        key, perm, inverse = self.canonical(mine, theirs, slime)
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            stored, flag, image = entry
            if flag == EXACT:
                return stored
            if flag == LOWER and stored >= beta:
                return stored
            if flag == UPPER and stored <= alpha:
                return stored
            first = inverse[image] if image >= 0 else -1
        makes_row, neighbours = board.makes_row, board.neighbours
        # One ply of look-ahead orders the moves: a step onto the opponent's gap loses at
        # once (they write there) and is dropped; a step that leaves the opponent no reply
        # off the mover's gaps wins at once; the others go fewest safe replies first.
        scored = []
        for move in cells_of(neighbours[slime] & empty or empty):
            if makes_row(theirs | 1 << move, move):
                continue
            after = empty & ~(1 << move)
            safe = 0
            for reply in cells_of(neighbours[move] & after or after):
                # A reply onto the mover's gap loses for the opponent, unless it fills the board.
                if not (after & ~(1 << reply) and makes_row(mine | 1 << reply, reply)):
                    safe += 1
            if not safe:
                self.table[key] = (1, EXACT, perm[move])
                return 1
            scored.append((safe, move))
        if not scored:
            self.table[key] = (-1, EXACT, -1)
            return -1
        scored.sort()
        order = [move for _, move in scored]
        if first in order:
            order.remove(first)
            order.insert(0, first)
        best, best_move, start_alpha = -2, -1, alpha
        for move in order:
            v = -self.value(theirs, mine, empty & ~(1 << move), move, -beta, -alpha)
            if v > best:
                best, best_move = v, move
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        self.table[key] = (best, flag, perm[best_move])
        return best

    def canonical(
        self, mine: int, theirs: int, slime: int
    ) -> tuple[tuple[int, int, int], list[int], list[int]]:
        """The least image of the node under the symmetries, with that symmetry's maps
        (the table's best move is kept in the image's cells)."""
        board = self.board
        width, n, row_mask = board.width, board.n, (1 << board.n) - 1
        mine_rows = [mine >> r * width & row_mask for r in range(n)]
        their_rows = [theirs >> r * width & row_mask for r in range(n)]
        best: tuple[int, int, int] | None = None
        maps: tuple[list[int], list[int]] = ([], [])
        for perm, inverse, rows in self.symmetries:
            m = t = 0
            for table, mine_row, their_row in zip(rows, mine_rows, their_rows, strict=True):
                m |= table[mine_row]
                t |= table[their_row]
            key = (m, t, perm[slime])
            if best is None or key < best:
                best, maps = key, (perm, inverse)
        assert best is not None
        return best, maps[0], maps[1]


def can_solve(game: Game) -> bool:
    return game.id == "slime-moku" and game.options["size"] ** 2 <= MAX_CELLS


def solve(state: State, *, distance: bool = False, time_limit: float | None = None) -> SolveResult:
    """The value of ``state`` for the side to move and of each of its moves.

    ``distance`` is not offered (the search proves values, not game lengths)."""
    from slimetrail.games.moku.game import MokuState

    if not isinstance(state, MokuState) or not can_solve(state.game):
        raise GameOptionError(f"the slime-moku solver takes boards up to {MAX_CELLS} cells")
    if distance:
        raise GameOptionError("the slime-moku solver does not measure game lengths")
    started = time.monotonic()
    to_move = state.to_move
    outcome = state.outcome()
    if outcome is not None:
        value = outcome.for_player(to_move)
        return SolveResult(value, to_move, over=True, seconds=time.monotonic() - started)
    search = Search(state.game.board, time_limit)
    move_values: dict[Move, str] = {}
    work = state.copy()
    for move in work.legal_moves():
        work.push(move)
        after = work.outcome()
        if after is not None:
            v = 1 if after.winner == to_move else 0 if after.is_draw else -1
        else:
            # The child is searched from the opponent's side: its mover's stones first.
            mine, theirs = (work.black, work.white) if to_move == 2 else (work.white, work.black)
            v = -search.value(mine, theirs, work.empty, work.slime, -1, 1)
        work.pop()
        move_values[move] = WORDS[v]
    best = max(move_values.values(), key=["loss", "draw", "win"].index)
    return SolveResult(
        best,
        to_move,
        winning_moves=[m for m, v in move_values.items() if v == "win"],
        drawing_moves=[m for m, v in move_values.items() if v == "draw"],
        move_values=move_values,
        nodes=search.nodes,
        seconds=time.monotonic() - started,
    )


def main(argv: list[str]) -> None:
    """``python -m slimetrail.games.moku.solver N K [N K ...]``: solve each start position."""
    from slimetrail.core.registry import get_game

    pairs = [(int(a), int(b)) for a, b in zip(argv[::2], argv[1::2], strict=True)]
    for n, k in pairs:
        state = get_game("slime-moku", size=n, k=k).new_state()
        result = solve(state)
        wins = " ".join(state.move_str(m) for m in result.winning_moves) or "-"
        print(
            f"{n}x{n} k={k}: {result.value} for Black (winning first moves: {wins}); "
            f"{result.nodes} nodes, {result.seconds:.1f} s"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
