"""The C kernel (``ckernel.c``) against the readable reference solver, its one-word search
against its two-word one, its arguments' checks, the table that grows with the search, and
the cold start it exists for: ``slimetrail solve`` imports neither numpy nor numba (two-word
searches: tests/games/trail/test_solver_128.py)."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from array import array

import numpy as np
import pytest
from trail_endgames import playout_until

from slimetrail.core.registry import get_game
from slimetrail.games.trail import solver
from slimetrail.games.trail.solver import (
    MATE,
    CompactGraph,
    Labelling,
    SolveTimeout,
    adjust,
    ckernel,
    goal_move_score,
    kernel_params,
    new_stats,
    solve,
    wide,
)
from slimetrail.games.trail.solver.reference import reference_solve

CONFIGS = [
    ("slimetrail", "7", "rastros"),
    ("slimetrail", "7", "taylor"),
    ("slimetrail-square", "6", "rastros"),
    ("slimetrail-hex", "10", "taylor"),
    ("slimetrail-hex", "10", "rastros"),
    ("slimetrail-hex", "6", "taylor"),
]


@pytest.mark.parametrize(("game_id", "size", "rules"), CONFIGS)
def test_c_kernel_agrees_with_the_reference_solver(game_id, size, rules):
    """Values, move values and distances of random endgames, with and without the shortcuts,
    as the readable reference solver finds them."""
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(f"c kernel {game_id} {size} {rules}")
    checked = 0
    while checked < 120:
        state = playout_until(game, rng, rng.randrange(2, 15))
        if state is None:
            continue
        distance = checked % 2 == 0
        got = solve(state, distance=distance, book=False, shortcuts=checked % 3 != 0)
        expected = reference_solve(state, distance=distance)
        assert (got.value, got.move_values, got.move_plies, got.plies) == (
            expected.value,
            expected.move_values,
            expected.move_plies,
            expected.plies,
        ), (game.spec, state.fen(), distance)
        assert got.nodes >= 1
        checked += 1


def root_scores(state, labels: Labelling, distance: bool, table) -> dict[int, int]:
    """Every root move's score from the C kernel with ``labels`` (one word or two)."""
    game = state.game
    params = kernel_params(game, distance, True)
    stats = new_stats()
    free = labels.bits(state.free & sum(1 << cell for cell in labels.cells))
    bound = MATE + 1 if distance else 1
    side = state.to_move - 1
    scores = {}
    for move in state.legal_moves():
        score = goal_move_score(state, move, distance)
        if score is None:
            m = labels.index[move]
            raw = labels.negamax(
                free & ~(1 << m), m, 1 - side, -bound, bound, params, table, stats, 0.0
            )
            score = adjust(raw, distance)
        scores[move] = score
    return scores


@pytest.mark.parametrize(("game_id", "size"), [("slimetrail", "9"), ("slimetrail-hex", "10")])
def test_one_word_search_agrees_with_the_two_word_one_on_mid_game_regions(game_id, size):
    """Regions of 20 to 32 cells, too big for the reference: the same scores (with and without
    distances) from the one-word search and from the two-word one on the same position
    labelled over the whole board, under both rule sets."""
    for rules in ("rastros", "taylor"):
        game = get_game(game_id, size=size, rules=rules)
        rng = random.Random(f"c v 128 {game_id} {rules}")
        checked = 0
        while checked < 8:
            state = playout_until(game, rng, rng.randrange(20, 33))
            if state is None:
                continue
            graph = CompactGraph(game, state.free, state.snail)
            assert graph.labels is not None and graph.labels.words == 1
            others = [cell for cell in game.board.cells() if cell != state.snail]
            wide = Labelling(game, [state.snail, *others])
            assert wide.words == 2
            distance = checked % 2 == 1
            one = root_scores(state, graph.labels, distance, graph.labels.new_table(16))
            two = root_scores(state, wide, distance, wide.new_table(16))
            assert one == two, (game.spec, state.fen(), distance)
            checked += 1


def test_the_table_grows_with_the_search():
    """Solves start with a small table and restart a root move in a bigger one once it
    outgrows it: the answers are those of a big table from the start."""
    game = get_game("slimetrail")
    state = game.new_state()
    for text in ("c3", "b3", "c4", "c5", "b5"):
        state.push_str(text)
    grown = solve(state, book=False)
    fixed = solve(state, book=False, table_bits=20)
    assert grown.nodes > solver.GROW_AFTER << solver.FIRST_BITS  # it did outgrow the first
    assert (grown.value, grown.move_values) == (fixed.value, fixed.move_values)
    near = solve(state, book=False, distance=True)
    assert near.move_plies == solve(state, book=False, distance=True, table_bits=20).move_plies


def test_a_stop_event_ends_a_c_search_at_once():
    """The C kernel releases the interpreter lock: another thread's stop reaches it."""
    game = get_game("slimetrail")
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    with pytest.raises(SolveTimeout):
        solve(game.new_state(), book=False, stop=stop)


def test_c_kernel_constants_match_the_python_sides():
    assert (ckernel.MATE, ckernel.ILLEGAL) == (MATE, wide.ILLEGAL)
    assert (ckernel.S_NODES, ckernel.S_ABORT, ckernel.S_LIMIT) == (
        solver.S_NODES,
        solver.S_ABORT,
        solver.S_LIMIT,
    )


def test_c_kernel_names_a_bad_argument():
    game = get_game("slimetrail", size="5")
    labels = Labelling(game, game.board.cells())
    nbr, goals, order = labels.word_arrays
    params, stats = kernel_params(game, False, True), new_stats()
    table = labels.new_table(4).words

    def call(**changes):
        args = {
            "free": 0b110,
            "snail": 0,
            "side": 0,
            "nbr": nbr,
            "order": order,
            "table": table,
            "generation": 1,
        }
        args.update(changes)
        return ckernel.negamax(
            args["free"],
            args["snail"],
            args["side"],
            -1,
            1,
            args["nbr"],
            goals,
            args["order"],
            params,
            args["table"],
            args["generation"],
            stats,
            0.0,
        )

    assert call() in (-1, 0, 1)
    for changes, message in (
        ({"snail": 25}, "snail"),
        ({"side": 2}, "side"),
        ({"free": 1 << 30}, "free"),
        ({"nbr": array("Q", [0] * 65)}, "nbr"),
        ({"order": array("q", [0] * 3)}, "order"),
        ({"table": array("Q", [0] * 12)}, "table"),
        ({"generation": 0}, "generation"),
    ):
        with pytest.raises(ValueError, match=message):
            call(**changes)
    with pytest.raises(TypeError):
        call(table=bytes(64))  # read-only


def test_c_and_numpy_tables_give_the_same_search():
    """The kernel takes numpy arrays (the wide layer's tables) as well as its own."""
    game = get_game("slimetrail")
    state = game.new_state()
    for text in ("c3", "c2", "b2", "b3", "b4", "c5", "d6", "e6", "f5", "f4"):
        state.push_str(text)
    labels = CompactGraph(game, state.free, state.snail).labels
    assert labels is not None
    mapped = root_scores(state, labels, False, labels.new_table(12))
    numpy_table = solver.KernelTable(solver.aligned_table(2 << 12))
    assert root_scores(state, labels, False, numpy_table) == mapped
    assert isinstance(numpy_table.words, np.ndarray) and numpy_table.words.any()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--size", "5", "--fen", "5/5/xxx2/1ox2/2x2 1"], "winning moves: a1 b1 a2"),
        (["--no-book", "c3", "c2", "b2", "b3", "b4", "c5", "d6", "e6", "f5", "f4"], "LOSS"),
    ],
)
def test_a_cold_solve_imports_neither_numpy_nor_numba(argv, expected):
    """``slimetrail solve`` in a fresh process: the C kernel only."""
    code = (
        "import sys; from slimetrail.cli.main import main; "
        f"main(['solve', *{argv!r}]); "
        "assert 'numpy' not in sys.modules and 'numba' not in sys.modules, 'loaded'"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert expected in out.stdout
