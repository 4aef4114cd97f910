"""An exact solver for small Slime-Moku boards: alpha-beta over win/draw/loss with a
transposition table, on the bitboards of :mod:`slimetrail.games.moku.board`.

A node is ``(mine, theirs, empty, slime)`` from the mover's side; its value is +1 (the mover
wins), 0 (draw) or -1.  Two facts of the rules keep the tree small:

* the mover's stone lands on the slime's cell whatever the move, so one row test decides
  whether every move wins at once;
* a move to a cell that completes the opponent's row loses at once (the opponent writes
  there), which the child finds with its own first test.

The table is keyed by the stones and the slime from the mover's side (colours do not matter:
the rules are the same for both) and holds exact values or bounds.  Run it from the command
line to solve the small boards::

    python -m slimetrail.games.moku.solver 4 4 5 4
"""

from __future__ import annotations

import sys
import time

from slimetrail.core.game import Game, GameOptionError, Move, SolveResult, SolveTimeout, State
from slimetrail.games.moku.board import MokuBoard, cells_of

MAX_CELLS = 36  # 6x6: the largest board this solver is offered (bigger ones take too long)
EXACT, LOWER, UPPER = 0, 1, 2
WORDS = {1: "win", 0: "draw", -1: "loss"}


class Search:
    """One solve: its table, node count and deadline."""

    def __init__(self, board: MokuBoard, time_limit: float | None) -> None:
        self.board = board
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
        key = (mine, theirs, slime)
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            stored, flag, first = entry
            if flag == EXACT:
                return stored
            if flag == LOWER and stored >= beta:
                return stored
            if flag == UPPER and stored <= alpha:
                return stored
        moves = board.neighbours[slime] & empty or empty
        order = cells_of(moves)
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
        self.table[key] = (best, flag, best_move)
        return best


def can_solve(game: Game) -> bool:
    return (
        game.id == "slime-moku"
        and game.options["size"].isdecimal()
        and (int(game.options["size"]) ** 2 <= MAX_CELLS)
    )


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
