"""The top level's player on the big Slime Trail boards (more than 64 cells, up to 128).

On these boards the exact solver rarely answers from the start.  Once the snail's region
fits its one-word kernel (64 cells), a share of the time goes to an exact solve first.  Then
a short compiled alpha-beta (:mod:`.search_kernel`) looks for a forced win (a mate, or under
Taylor's rules the cut-off of the opponent's goal); without one, the rest of the move goes to
the compiled MCTS-Solver (:mod:`.mcts_kernel`), whose playouts judge the open positions where
the goal-distance evaluation is blind (against plain UCT on 11x11 and under Taylor's rules the
alpha-beta alone lost 15-40% of its games); on hex boards under Rastros rules the alpha-beta
keeps the whole move, as it measured stronger there.  The MCTS-Solver's leaves are proven
by the exact solver where their region is small; a proven win is played as proven, and a
position a search proved won is played by its proven move from then on.  In the opening
the play book answers first (on 9x9: entries of long searches, see :mod:`.solver.book`).
Smaller boards keep the ladder's own top level (books and solver).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from slimetrail.ai.limits import PlayResult
from slimetrail.ai.search import mate_in
from slimetrail.core.game import GameError, State
from slimetrail.games.trail import mcts_kernel, search_kernel
from slimetrail.games.trail.solver.book import book_move

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

# The exact solver is tried as soon as the snail's region fits its one-word kernel: a
# first win in a region of 41-64 cells is often proven in a fraction of a second, and a
# proven win is then never left to the heuristic searches.  It gets half of the move: on
# 9x9 Taylor the wins whose proofs take 0.5-2 s were the ones thrown away, and with half
# instead of a quarter above 40 cells the top level kept 24 of 30 of them, not 17 (RESULTS).
SOLVE_REGION = 64  # cells the snail can still reach, at most, before the solver is tried
SOLVER_SHARE = 0.5  # of the move's time, for that exact solve
TACTICS_SHARE = 0.2  # of the time left, for the alpha-beta's look for a forced win
# Of the move's time, kept back for what follows the searches (their results read, the move
# returned) and for the waits for a core on a loaded machine, so that a move stays within
# 1.1x its limit (at load 13 on 2 cores the searches overran their share by up to 0.03 s).
RESERVE = 0.05
# A fixed budget (``play(..., iterations=N)``, for benchmarks that must not depend on the
# machine's load): the alpha-beta gets this many nodes per MCTS iteration, about its share of
# a timed move (a fifth of the time, at ~8x the MCTS's iterations a second on 9x9).
TACTICS_NODES_PER_ITERATION = 2
# With a fixed budget the exact solve gets nodes instead of its share of the clock (under load
# a share of the wall clock is a fraction of that CPU time): the solver kernel's nodes in a
# CPU second (0.7-2.3 M nodes in 0.25-0.5 s on 9x9 Taylor regions of 61-62 cells).
SOLVER_NODES_PER_SECOND = 3_000_000
NO_CLOCK = 1e9  # seconds: the clock does not bound a search with a fixed budget


def alpha_beta_only(state: TrailState) -> bool:
    """Hex boards under Rastros rules, where the alpha-beta alone measured stronger against
    plain UCT than with MCTS-Solver (hex 11x11: 35 of 40 games against 31 of 40)."""
    return state.game.shape == "hex" and state.game.rules == "rastros"


def handles(state: State) -> bool:
    """Whether ``state`` is a position of a board this player is for."""
    from slimetrail.games.trail.ladder import big_board

    return big_board(state)


def region_size(state: TrailState) -> int:
    """The free cells the snail can still reach (goal corners included)."""
    board = state.game.board
    return (board.reachable(1 << state.snail, state.free).bit_count()) - 1


def play(
    state: TrailState, seconds: float, seed: int = 0, iterations: int | None = None
) -> PlayResult:
    """The top level's move in ``seconds``; ``state`` (with a legal move) is not changed.
    ``seed``: the MCTS-Solver's random playouts'.  ``iterations``: a fixed budget instead of
    the clock for every search (the alpha-beta's and the exact solve's nodes, the
    MCTS-Solver's iterations), so that the move does not depend on the machine's load; the
    exact solve of a small region gets the nodes of its share of ``seconds``."""
    started = time.perf_counter()
    seconds *= 1 - RESERVE
    deadline = started + seconds
    known = mcts_kernel.proven_win(state)
    if known is not None:
        return PlayResult(known, proven="win", pv=[known], info={"search": "proven before"})
    booked = book_move(state)
    if booked is not None:
        # The opening, where a move's search is weakest: the book's long searches answer.
        move, won = booked
        how = "play book (proven)" if won else "opening book (long searches)"
        return PlayResult(move, proven="win" if won else None, pv=[move], info={"search": how})
    region = region_size(state)
    if region <= SOLVE_REGION:
        share = SOLVER_SHARE * seconds
        if iterations is None:
            solved = _solve(state, share)
        else:
            solved = _solve_nodes(state, round(share * SOLVER_NODES_PER_SECOND))
        if solved is not None:
            return solved
    left = max(0.005, deadline - time.perf_counter())
    whole = alpha_beta_only(state)
    if iterations is None:
        found = search_kernel.search(state, left if whole else TACTICS_SHARE * left)
    else:
        nodes = TACTICS_NODES_PER_ITERATION * iterations
        found = search_kernel.search(state, NO_CLOCK, nodes=nodes)
    mate = mate_in(found.score)
    # A mate, or the only goal left in reach; or all the alpha-beta was given to find.
    if whole or found.score >= search_kernel.KNOWN_WIN:
        won = found.score >= search_kernel.KNOWN_WIN
        lost = mate is not None and mate < 0
        return PlayResult(
            found.move,
            score=found.score,
            proven="win" if won else "loss" if lost else None,
            mate=mate,
            pv=[found.move],
            nodes=found.nodes,
            depth=found.depth,
            info={"search": "compiled alpha-beta"},
        )
    left = max(0.005, deadline - time.perf_counter())
    if iterations is None:
        tree = mcts_kernel.search(state, left, seed=seed)
    else:
        tree = mcts_kernel.search(state, NO_CLOCK, iterations=iterations, seed=seed)
    return PlayResult(
        tree.move,
        proven=tree.proven,
        pv=[tree.move],
        nodes=tree.iterations + found.nodes,
        depth=found.depth,
        info={
            "search": "MCTS-Solver",
            "iterations": tree.iterations,
            "visits": tree.visits,
            "leaf_proofs": tree.leaf_proofs,
        },
    )


def forget() -> None:
    """Forget what earlier moves' searches learnt (their tables, the proven wins): a move
    with a fixed budget then depends on its position and seed only (up to the exact solve's
    share of the clock), whatever was played before in the process."""
    mcts_kernel.forget()
    search_kernel.clear_table()


def _solve_nodes(state: TrailState, nodes: int) -> PlayResult | None:
    """:func:`_solve` with a node budget instead of a time limit (the solver's kernel as at
    the MCTS-Solver's leaves, its table kept with theirs)."""
    move = mcts_kernel.first_win(state, nodes)
    if move is None:
        return None
    return PlayResult(move, proven="win", pv=[move], info={"search": "exact solver (nodes)"})


def _solve(state: TrailState, seconds: float) -> PlayResult | None:
    """A proven winning move, found by the exact solver within ``seconds``; else ``None``
    (a proven loss or draw is left to the search, which plays on for the opponent's errors)."""
    from slimetrail.games.trail import solver

    try:
        root = solver.solve(state, first_win=True, time_limit=seconds, book=False)
    except (solver.SolveTimeout, GameError):
        return None
    if root.value != "win":
        return None
    move = root.winning_moves[0]
    return PlayResult(
        move, proven="win", pv=[move], nodes=root.nodes, info={"search": "exact solver"}
    )
