"""The compiled tree search of Slime-Moku's top level against its readable references: the
playout policy (playout.py), the gap counts (ai.row_gaps), the threat search (threats.py)."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
from moku_model import LINES, Cell, Model, from_fen

from slimetrail.core.registry import get_game
from slimetrail.games.moku import mcts
from slimetrail.games.moku.ai import row_gaps
from slimetrail.games.moku.mailbox import window_counts
from slimetrail.games.moku.playout import policy, safe_steps
from slimetrail.games.moku.solver import SOLVER
from slimetrail.games.moku.threats import ThreatSearch

VERDICTS = {mcts.PLAY: None, mcts.P_WIN: "win", mcts.P_LOSS: "loss", mcts.P_DRAW: "draw"}
BOARDS = [(15, 5), (9, 5), (7, 4), (6, 4), (5, 4)]


def positions(n: int, k: int, games: int, seed: int):
    """Running positions of random games (every ply of every game)."""
    game = get_game("slime-moku", size=n, k=k)
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            yield state
            state.push(rng.choice(state.legal_moves()))


def counted(state):
    geo = mcts.geometry(state.game.size, state.game.k)
    cells, slime = mcts.mailbox(state)
    counts, gaps = window_counts(cells, geo, state.game.k)
    return geo, cells, slime, counts, gaps


@pytest.mark.parametrize(("n", "k"), BOARDS)
def test_the_compiled_policy_is_the_readable_one(n: int, k: int) -> None:
    seen = set()
    for state in positions(n, k, 25, n * k):
        verdict, cells = mcts.policy_of(state)
        expected, expected_cells = policy(state)
        assert VERDICTS[verdict] == expected, state.fen()
        if expected == "win" and cells:
            assert len(cells) == 1 and cells[0] in expected_cells, state.fen()
        else:
            assert set(cells) == expected_cells, state.fen()
        seen.add(expected)
    assert {None, "win"} <= seen


@pytest.mark.parametrize(("n", "k"), BOARDS[:3])
def test_gap_counts_follow_the_stones(n: int, k: int) -> None:
    board = get_game("slime-moku", size=n, k=k).board
    for state in positions(n, k, 6, k):
        geo, cells, slime, counts, gaps = counted(state)
        for colour, own, other in ((1, state.black, state.white), (2, state.white, state.black)):
            cells_with_gap = {geo.board_of[p] for p in np.nonzero(gaps[colour])[0]}
            expected = row_gaps(board, own, other)
            assert cells_with_gap == {c for c in board.cells() if expected >> c & 1}, state.fen()
        # A stone written and taken off again leaves the counts as they were.
        before = (cells.copy(), counts.copy(), gaps.copy())
        args = (k, geo.window_cells, geo.cell_windows, counts, gaps)
        mcts.place(cells, slime, state.to_move, *args)
        mcts.lift(cells, slime, state.to_move, *args)
        cells[slime] = mcts.SLIME
        for now, then in zip((cells, counts, gaps), before, strict=True):
            assert np.array_equal(now, then)


@pytest.mark.parametrize(("n", "k"), BOARDS[:4])
def test_the_compiled_threat_search_finds_what_the_readable_one_finds(n: int, k: int) -> None:
    board = get_game("slime-moku", size=n, k=k).board
    wins = 0
    rng = random.Random(1)
    for state in positions(n, k, 8, 7 * n):
        if rng.random() > 0.3:
            continue
        geo, cells, slime, counts, gaps = counted(state)
        budget = np.full(1, 1 << 40, np.int64)
        step = mcts.attack(
            cells,
            slime,
            state.to_move,
            state.empty.bit_count(),
            4,
            2,
            geo.steps,
            k,
            geo.window_cells,
            geo.cell_windows,
            counts,
            gaps,
            budget,
        )
        expected = ThreatSearch(board, 4, 2).winning_move(state)
        assert (step != -1) == (expected is not None), state.fen()
        wins += expected is not None
    assert wins


def test_the_search_takes_a_forced_win_and_proves_it() -> None:
    # Black's b5 c5 d5 e5 and the slime on f5: Black's stone there makes the row.
    game = get_game("slime-moku", size=9)
    state = game.state_from_fen("9/9/9/9/1xxxx@3/9/9/oooo5/9 1")
    found = mcts.search(state, 0.2)
    assert found.proven == "win"
    state.push(found.move)
    assert state.outcome() is not None and state.outcome().winner == 1


def test_the_search_never_steps_onto_the_opponents_gap() -> None:
    # White's b4 c4 d4 e4 wait for a4 or f4; Black's slime on e5 must not step to f4.
    game = get_game("slime-moku", size=9)
    state = game.state_from_fen("9/9/9/x8/x1x1@4/1oooo4/9/9/x8 1")
    for seed in range(3):
        found = mcts.search(state, 0.1, seed=seed)
        assert game.board.name(found.move) != "f4"
        assert found.move in state.legal_moves()


@pytest.mark.parametrize(("n", "k"), BOARDS)
def test_random_playouts_replay_through_the_rules(n: int, k: int) -> None:
    # Late positions too, where the slime is walled in and lifted (the kernel lists the
    # empty cells then and keeps the list up to date).
    endings = set()
    lifts = 0
    for number, state in enumerate(positions(n, k, 3, 5 * n + k)):
        if number % 3:
            continue
        winner, steps = mcts.random_playout_of(state, number)
        replay = state.copy()
        for step in steps:
            lifts += replay.is_stuck()
            replay.push(step)
        # The playout stops where the next move ends the game whatever it is.
        for move in replay.legal_moves():
            after = replay.copy()
            after.push(move)
            assert after.outcome() is not None, replay.fen()
        if not replay.is_over():
            replay.push(replay.legal_moves()[0])
        outcome = replay.outcome()
        assert (outcome.winner or 0) == winner, state.fen()
        endings.add(winner)
    assert len(endings) >= 2 and lifts


@pytest.mark.parametrize(("n", "k"), BOARDS)
def test_safe_playouts_step_onto_a_gap_only_when_every_step_is_one(n: int, k: int) -> None:
    gap_steps = lifts = 0
    endings = set()
    for number, state in enumerate(positions(n, k, 3, 3 * n + k)):
        if number % 3:
            continue
        winner, steps = mcts.random_playout_of(state, number, safe=True)
        replay = state.copy()
        for step in steps:
            assert step in safe_steps(replay), replay.fen()
            theirs = replay.white if replay.to_move == 1 else replay.black
            # Forced onto the opponent's gap: the opponent wins on the next move.
            gap_steps += replay.game.board.makes_row(theirs | 1 << step, step)
            lifts += replay.is_stuck()
            replay.push(step)
        for move in replay.legal_moves():
            after = replay.copy()
            after.push(move)
            assert after.outcome() is not None, replay.fen()
        if not replay.is_over():
            replay.push(replay.legal_moves()[0])
        assert (replay.outcome().winner or 0) == winner, state.fen()
        endings.add(winner)
    assert len(endings) >= 2 and lifts and gap_steps


def test_the_root_threat_searches_start_only_before_their_deadline() -> None:
    found = 0
    for state in positions(9, 5, 6, 3):
        geo = mcts.geometry(9, 5)
        banned = {}
        for deadline in (float("inf"), 0.0):
            cells, slime = mcts.mailbox(state)
            marks = np.zeros(len(cells), np.int8)
            win = mcts.root_threats(
                cells, slime, state.to_move, state.empty.bit_count(), 4, 2, geo.steps, 5,
                geo.window_cells, geo.cell_windows, 10_000, marks, deadline,
            )  # fmt: skip
            banned[deadline] = int(marks.sum()) if win == -1 else 0
        # Past its deadline the root looks for its own win alone and bans no step.
        assert banned[0.0] == 0, state.fen()
        found += banned[float("inf")] > 0
    assert found


@pytest.mark.parametrize(("n", "k"), [(5, 4), (6, 4)])
def test_the_root_solve_agrees_with_the_exact_solver(n: int, k: int) -> None:
    verdicts = set()
    for state in positions(n, k, 6, n + k):
        if state.empty.bit_count() > 18:
            continue
        solved = mcts.solve_root(state, 60.0)
        expected = SOLVER.solve(state)
        assert solved.verdict == expected.value, state.fen()
        if expected.value == "win":
            assert solved.win in expected.winning_moves, state.fen()
        else:
            assert solved.win is None, state.fen()
            assert not solved.losing or expected.value == "draw", state.fen()
        if expected.value == "draw":
            lost = {m for m, v in expected.move_values.items() if v == "loss"}
            assert set(solved.losing) == lost, state.fen()
        verdicts.add(expected.value)
    assert verdicts == {"win", "draw", "loss"}
    # Early in the game the solver is not asked: the tree keeps the whole move.
    start = get_game("slime-moku", size=7, k=4).new_state()
    assert start.empty.bit_count() > mcts.SOLVE_EMPTIES
    assert mcts.solve_root(start, 60.0) == mcts.RootSolve()


def test_the_search_plays_the_solvers_win_and_never_a_proven_loss() -> None:
    seen = set()
    for number, state in enumerate(positions(6, 4, 6, 11)):
        if number % 3 or state.empty.bit_count() > 16:
            continue
        expected = SOLVER.solve(state)
        found = mcts.search(state, 0.2, seed=number, threat_depth=0)
        value = expected.move_values[found.move]
        if expected.value == "win":
            assert value == "win", state.fen()
        elif expected.value == "draw":
            assert value == "draw", state.fen()
        seen.add(expected.value)
    assert {"win", "draw"} <= seen


def allowed_by_passes(state, passes: list[tuple[int, int]]) -> list[set[str]]:
    """The steps each root threat pass (depth, branch) leaves in ``state`` (none wins)."""
    game = state.game
    geo = mcts.geometry(game.size, game.k)
    allowed = []
    for depth, branch in passes:
        cells, slime = mcts.mailbox(state)
        marks = np.zeros(len(cells), np.int8)
        win = mcts.root_threats(
            cells, slime, state.to_move, state.empty.bit_count(), depth, branch, geo.steps,
            game.k, geo.window_cells, geo.cell_windows, mcts.THREAT_NODES, marks, float("inf"),
        )  # fmt: skip
        assert win == -1
        allowed.append(
            {game.board.name(m) for m in state.legal_moves() if not marks[geo.padded[m]]}
        )
    return allowed


@pytest.mark.parametrize(
    ("size", "fen", "passes", "allowed"),
    [
        # Late in a lost 15x15 game: after White's g6 Black wins by threats leaving three
        # safe replies, which the narrow pass (two) does not see; the tree alone played g6.
        (
            15,
            "xxoxooxoooxooox/oxo1xoxxxx1xxxx/ox1oxxooxoooxoo/xoxoooxoxxoxoox/oxxx2xoxo1xoxo/"
            "oxxooo1xoxxxoxx/xoox1x1xooxooxo/xxxxo1ox1oxoxxo/oooxoo4xoxoo/xoxoxx4oxoxx/"
            "o1xxoo1@xoxooxo/xx1xox2xoxxxoo/oooxoox1oxoooxx/xoxoxoxoox2xox/xoxoxoxoxoxoxoo 2",
            [(mcts.THREAT_DEPTH, 2), (mcts.THREAT_DEPTH + 2, 3)],
            [{"g4", "g5", "g6", "h4", "i6"}, {"g5", "h4", "i6"}],
        ),
        # 20 empty cells left in a lost 9x9 game: after Black's g6 White forces a row by
        # replies no narrow pass follows (the endgame pass takes every step and reply); the
        # tree alone played g6.
        (
            9,
            "oxoxoxox1/x4xo1o/oo3@o1x/xxx2x2o/oooxxo2x/xxooxo1oo/ooxxoxoxx/1xoxo1oxx/1xoxoxoxo 1",
            [(mcts.THREAT_DEPTH + 2, 3), (20, 20)],
            [{"e6", "e7", "e8", "g6"}, {"e6", "e7", "e8"}],
        ),
        # 26 empty cells left in a 15x15 game lost to the baseline: after Black's l10 or n10
        # White wins by a run of threats 12 moves deep leaving 4 replies (the late pass); the
        # tree played n10 (without the late pass it plays l10 or n10 in each of these seeds).
        (
            15,
            "xoxoxoxoxoxoxox/xoooxox1ox4o/ooxxoxo1xo2oox/xxoxooxoxxoxxox/oooxxxxoo3@1o/"
            "1xxooooxox4x/oxoxxxx1o3x1o/xxoxoooxoxxooox/oxooxxoo1ooxxox/xoxxooxxxoxooxo/"
            "ooxox1xoxoxxoox/xxoo2xoooxoxxo/oxxxxoxoxxxoxox/ooxooxoxooooxox/xxoxoxoxoxxxoxo 1",
            [(mcts.THREAT_DEPTH + 2, 3), mcts.LATE_PASS],
            [{"l10", "n10", "n11"}, {"n11"}],
        ),
    ],
)
def test_each_deeper_root_pass_leaves_out_what_the_one_before_missed(
    size: int, fen: str, passes: list[tuple[int, int]], allowed: list[set[str]]
) -> None:
    game = get_game("slime-moku", size=size)
    state = game.state_from_fen(fen)
    assert state.empty.bit_count() <= max(mcts.LATE_EMPTIES, mcts.ENDGAME_EMPTIES)
    assert allowed_by_passes(state, passes) == allowed
    # The passes may start within a share of the move: long enough on a loaded machine.
    for seed in range(3):
        assert game.board.name(mcts.search(state, 1.5, seed=seed).move) in allowed[-1]


def test_contempt_scores_a_drawn_playout_below_a_half_for_the_side_to_move() -> None:
    # No row can be made any more: every playout is a draw.
    game = get_game("slime-moku", size=9)
    state = game.state_from_fen(
        "1oxooxoxo/2xoxxxoo/1ooxoo1xx/1xxoxoxox/1ox@xxo1o/x1ooox1xx/oxxxoxo1o/xooxxxxox/xooxooo2 2"
    )
    # Contempt applies while more than contempt_empties cells are empty (late, none).  The
    # tree's own scores are asked: the endgame search, which proves the draw, gets no time,
    # and the leaves are valued by their playouts alone.
    assert state.empty.bit_count() <= mcts.CONTEMPT_EMPTIES
    for contempt, empties, value in (
        (0.0, 0, 0.5),
        (0.1, 0, 0.4),
        (0.1, mcts.CONTEMPT_EMPTIES, 0.5),
    ):
        found = mcts.search(
            state, 60.0, iterations=3000, seed=1, threat_depth=0, contempt=contempt,
            contempt_empties=empties, solve_share=0.0, mix=0.0,
        )  # fmt: skip
        assert found.proven is None and found.visits > 100
        assert found.value == pytest.approx(value, abs=1e-3)


def test_a_search_without_the_clock_needs_an_iteration_budget():
    state = get_game("slime-moku", size=9).new_state()
    with pytest.raises(ValueError, match="iteration budget"):
        mcts.search(state, 1.0, clock=False)


def subtree(nodes, node):
    """A node's statistics and its children's, nested (the readable form of a tree)."""
    kids_at, n_kids, move, visits, wins, proven, rave_visits, rave_wins = nodes
    first = int(kids_at[node])
    kids = range(first, first + int(n_kids[node])) if first >= 0 else range(0)
    own = (int(move[node]), int(visits[node]), float(wins[node]), int(proven[node]))
    own += (float(rave_visits[node]), float(rave_wins[node]))
    return own, [subtree(nodes, j) for j in kids]


def opened_9x9():
    """A 9x9 rows-of-five game five plies in: the position the tree tests search."""
    state = get_game("slime-moku", size=9, k=5).new_state()
    for cell in ("d5", "d6", "e6", "f5", "f4"):
        state.push_str(cell)
    return state


def test_the_tree_below_our_move_and_the_reply_is_kept_whole() -> None:
    state = opened_9x9()
    mcts.forget()
    first = mcts.search(state, 60.0, iterations=4000, seed=3, threat_depth=0, clock=False)
    nodes = mcts.tree()
    kids_at, n_kids, move, visits = nodes[:4]
    geo = mcts.geometry(9, 5)
    # Our move, then the reply the tree visited most.
    ours = next(
        j for j in range(kids_at[0], kids_at[0] + n_kids[0]) if geo.board_of[move[j]] == first.move
    )
    reply = max(range(kids_at[ours], kids_at[ours] + n_kids[ours]), key=lambda j: visits[j])
    expected = subtree(nodes, reply)
    assert expected[1]  # a node with children
    later = state.copy()
    later.push(first.move)
    later.push(geo.board_of[move[reply]])
    elsewhere = state.copy()
    elsewhere.push(first.move)
    with mcts.TREE_IN_USE:
        # Not two plies on (one, or none): a new tree.
        assert mcts.kept_nodes(elsewhere, geo, nodes) == 0
        assert mcts.kept_nodes(state, geo, nodes) == 0
        kept = mcts.kept_nodes(later, geo, nodes)
    assert subtree(nodes, 0) == expected

    def size(tree):
        return 1 + sum(size(kid) for kid in tree[1])

    assert kept == size(expected)
    # The next search goes on from the kept visits: the root holds more than its own.
    mcts.forget()
    assert mcts.search(state, 60.0, iterations=4000, seed=3, threat_depth=0, clock=False) == first
    found = mcts.search(later, 60.0, iterations=500, seed=4, threat_depth=0, clock=False)
    assert found.iterations == 500
    assert visits[0] == expected[0][1] + 500
    mcts.forget()
    again = mcts.search(later, 60.0, iterations=500, seed=4, threat_depth=0, clock=False)
    assert visits[0] == 500 and again.iterations == 500


def model_judgement(model: Model) -> tuple[int, int, int] | None:
    """The judgement's terms counted on the independent model: every window of k cells along
    a line, with the mover's stone on the slime's cell; None when that stone makes a row."""
    me = model.to_move
    other = "W" if me == "B" else "B"
    placed = model.copy()
    placed.stones[model.slime] = me
    if placed.has_row(me):
        return None
    empty = set(model.empty_cells())
    gaps: dict[str, set[Cell]] = {me: set(), other: set()}
    twos = threes = 0
    for c in range(model.n):
        for r in range(model.n):
            for dc, dr in LINES:
                window = [(c + t * dc, r + t * dr) for t in range(model.k)]
                if not all(model.on_board(cell) for cell in window):
                    continue
                held = [placed.stones.get(cell) for cell in window]
                mine, theirs = held.count(me), held.count(other)
                sides = ((me, mine, theirs, 1), (other, theirs, mine, -1))
                for side, count, against, sign in sides:
                    if against:
                        continue
                    twos += sign * (count == 2)
                    threes += sign * (count == 3)
                    if count == model.k - 1:
                        gaps[side] |= empty.intersection(window)
    return len(gaps[me]) - len(gaps[other]), twos, threes


@pytest.mark.parametrize(("n", "k"), BOARDS[:3])
def test_the_judgement_counts_what_the_model_counts(n: int, k: int) -> None:
    seen = set()
    for index, state in enumerate(positions(n, k, 8, 7 * n + k)):
        if index % 3:
            continue
        terms = mcts.judgement_of(state)
        assert terms == model_judgement(from_fen(n, k, state.fen())), state.fen()
        seen.add(None if terms is None else terms[0] != 0)
    assert seen == {None, True, False}


def first_visits(state, mix):
    """Each root step's score after one iteration a step (each a leaf), by the step's cell."""
    _, steps = mcts.policy_of(state)
    mcts.search(
        state, 60.0, iterations=len(steps), seed=1, threat_depth=0, solve_share=0.0,
        contempt=0.0, mix=mix, keep=False,
    )  # fmt: skip
    kids_at, n_kids, move, visits, wins = mcts.tree()[:5]
    geo = mcts.geometry(state.game.size, state.game.k)
    kids = range(int(kids_at[0]), int(kids_at[0]) + int(n_kids[0]))
    assert all(visits[j] == 1 for j in kids)
    return {geo.board_of[int(move[j])]: float(wins[j]) for j in kids}


def test_a_leaf_is_valued_half_by_the_judgement_and_half_by_its_playout() -> None:
    # Quiet middle games (no step is forced).
    big, small = (
        get_game("slime-moku", size=15).new_state(),
        get_game("slime-moku", size=9).new_state(),
    )
    rng = random.Random(3)
    for state, plies in ((big, 60), (small, 20)):
        for _ in range(plies):
            state.push(rng.choice(state.legal_moves()))
        verdict, steps = mcts.policy_of(state)
        assert verdict == mcts.PLAY and len(steps) > 3
    judged = {}
    for step in mcts.policy_of(big)[1]:
        child = big.copy()
        child.push(step)
        terms = model_judgement(from_fen(15, 5, child.fen()))
        assert terms is not None
        value = float(np.clip(mcts.JUDGEMENT @ (1, *terms), -1.0, 1.0))
        judged[step] = 0.5 - 0.5 * value  # for the player who stepped into the child
    assert len(set(judged.values())) > 1
    assert first_visits(big, 1.0) == pytest.approx(judged)
    # The judgement's half, and a playout's win, draw or loss the other (the default on 15x15).
    for mix in (0.5, None):
        for step, score in first_visits(big, mix).items():
            playout = 2 * (score - 0.5 * judged[step])
            assert min(abs(playout - value) for value in (0.0, 0.5, 1.0)) < 1e-6
    # It was fitted on 15x15 games: on 9x9 the playouts alone value the leaves.
    assert set(first_visits(small, None).values()) <= {0.0, 0.5, 1.0}


def test_trees_side_by_side_share_the_iterations_and_sum_their_roots() -> None:
    """Root parallelism: the kept tree and a fresh one, each on its own thread, the
    iterations shared out; the move is the most visited over both roots, step by step."""
    state = opened_9x9()
    mcts.forget()
    found = mcts.search(
        state, 60.0, iterations=2001, seed=3, threat_depth=0, clock=False, threads=2
    )
    geo = mcts.geometry(9, 5)
    totals: dict[int, list[float]] = {}
    for nodes in (mcts.tree(), mcts.tree_arrays(1)):
        kids_at, n_kids, move, visits, wins = nodes[:5]
        for j in range(kids_at[0], kids_at[0] + n_kids[0]):
            total = totals.setdefault(int(move[j]), [0, 0.0])
            total[0] += int(visits[j])
            total[1] += float(wins[j])
    assert (mcts.tree()[3][0], mcts.tree_arrays(1)[3][0]) == (1001, 1000)
    assert found.iterations == 2001
    best = max(totals, key=lambda cell: tuple(totals[cell]))
    assert found.move == geo.board_of[best] and found.visits == totals[best][0]
    assert found.value == pytest.approx(totals[best][1] / totals[best][0])
    mcts.forget()
    again = mcts.search(
        state, 60.0, iterations=2001, seed=3, threat_depth=0, clock=False, threads=2
    )
    assert again == found  # each tree's seed makes it the same


def test_the_merged_root_matches_steps_by_cell_and_keeps_any_trees_proofs() -> None:
    def nodes(moves, visits, wins, proven):
        n = 1 + len(moves)
        kids_at, n_kids = np.full(n, -1, np.int32), np.zeros(n, np.int32)
        kids_at[0], n_kids[0] = 1, len(moves)
        return (
            kids_at,
            n_kids,
            np.array([0, *moves], np.int32),
            np.array([sum(visits), *visits], np.int32),
            np.array([0.0, *wins], np.float32),
            np.array([0, *proven], np.int8),
        )

    main = nodes([10, 11, 12], [5, 3, 2], [2.5, 1.0, 1.5], [mcts.UNKNOWN, mcts.LOSS, 0])
    helper = nodes([12, 10, 13], [4, 1, 9], [1.0, 0.5, 8.0], [mcts.WIN, mcts.DRAW, 0])
    root = mcts.merged_root(main, [helper])
    assert root.moves == [10, 11, 12]  # 13: left out of the kept tree (proven lost before)
    assert root.visits == [6, 3, 6] and root.wins == [3.0, 1.0, 2.5]
    assert root.proven == [mcts.DRAW, mcts.LOSS, mcts.WIN]


def test_side_trees_stop_when_the_root_is_solved_first() -> None:
    """The side trees start with the move; when the root's solve wins at once, they are
    stopped and waited for: the move does not take its time, and their arrays are free."""
    game = get_game("slime-moku", size=9, k=5)
    state = game.state_from_fen(
        "4x1o2/x2ooxxx1/oox@ooo1o/xoxx2xox/ox1ox2xx/oxxo2oxo/xo1xox1o1/oxxxoox2/1oooxox2 1"
    )
    started = time.perf_counter()
    found = mcts.search(state, 20.0, threads=2)
    assert found.proven == "win" and time.perf_counter() - started < 5.0
    assert not mcts.TREE_IN_USE.locked()
    state.push(found.move)
    assert mcts.solve_root(state, 5.0).verdict == "loss"


def test_side_trees_are_waited_for_and_their_errors_raised() -> None:
    def grow(arrays, share, seed, kept, allowed, stop):
        while not stop[0]:
            time.sleep(0.001)
        return share, 1

    began = time.perf_counter()
    trees = [mcts.tree_arrays(1), mcts.tree_arrays(2)]
    with mcts.SideTrees(grow, trees, [7, 5], [0, 0], 3, 10):
        pass  # leaving stops them
    assert time.perf_counter() - began < 2.0 and not mcts.TREE_IN_USE.locked()

    def failing(arrays, share, seed, kept, allowed, stop):
        raise RuntimeError("kernel")

    side = mcts.SideTrees(failing, trees[:1], [5], [0], 3, 10)
    with pytest.raises(RuntimeError, match="kernel"), side:
        side.finish()
    assert side.grown() == []  # nothing to keep of a tree that failed


def test_every_tree_is_kept_from_move_to_move() -> None:
    """With two threads both trees keep the subtree below our move and the reply: the side
    tree's root starts the next search with the visits it had there."""
    state = opened_9x9()
    mcts.forget()
    first = mcts.search(
        state, 60.0, iterations=4000, seed=3, threat_depth=0, clock=False, threads=2
    )
    assert set(mcts.LAST_ROOTS) == {0, 1}
    geo = mcts.geometry(9, 5)
    kids_at, n_kids, move, visits = mcts.tree_arrays(1)[:4]
    ours = next(
        j for j in range(kids_at[0], kids_at[0] + n_kids[0]) if geo.board_of[move[j]] == first.move
    )
    reply = max(range(kids_at[ours], kids_at[ours] + n_kids[ours]), key=lambda j: visits[j])
    before = int(visits[reply])
    assert before > 1
    later = state.copy()
    later.push(first.move)
    later.push(geo.board_of[move[reply]])
    mcts.search(later, 60.0, iterations=1000, seed=4, threat_depth=0, clock=False, threads=2)
    assert mcts.tree_arrays(1)[3][0] == before + 500
