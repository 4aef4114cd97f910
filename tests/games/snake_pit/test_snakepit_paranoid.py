"""Snake Pit's top level: the compiled paranoid search against its readable reference, its
limits (time, evaluations, depth, a stop event) and its answers."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from slimetrail.ai import Limit
from slimetrail.core.game import GameError
from slimetrail.games.snakepit import kernel, paranoid
from slimetrail.games.snakepit.ai import KERNELS
from slimetrail.games.snakepit.game import SnakePitGame, SnakePitState

GAME = SnakePitGame()


@pytest.fixture(autouse=True, scope="module")
def loaded_kernels() -> None:
    KERNELS.run()


def random_state(seed: int, plies: int) -> SnakePitState:
    rng = random.Random(seed)
    state = GAME.new_state()
    for _ in range(plies):
        if state.is_over():
            break
        state.push(rng.choice(state.legal_moves()))
    return state


def searched_positions() -> list[SnakePitState]:
    """Early, middle and late positions of random games (late ones end games in the tree)."""
    found = []
    for seed in range(6):
        for plies in (2, 12, 24, 30):
            state = random_state(seed, plies)
            if not state.is_over():
                found.append(state)
    return found


@pytest.mark.parametrize(("depth", "beam"), [(2, 3), (3, 3), (4, 2)])
def test_compiled_root_values_are_the_reference_minimax(depth: int, beam: int) -> None:
    """Exact where the window allows (the first root turn, and every turn that beats the
    ones before it); an upper bound at most the best so far otherwise."""
    cut = 0
    for state in searched_positions():
        search = paranoid.ParanoidSearch(state, beam=beam, root_width=5)
        fen = state.fen()
        expected = paranoid.reference_root_values(state, search.moves, depth, beam)
        assert state.fen() == fen
        values = np.empty(len(search.moves))
        budget = np.array([0, 1 << 60, 0], np.int64)
        done = paranoid.root_values(
            search.heads,
            search.empty,
            search.alive,
            state.to_move,
            state.k,
            kernel.NBR,
            search.roots(),
            depth,
            beam,
            values,
            budget,
        )
        assert done == len(search.moves) and not budget[paranoid.ABORTED]
        best = -np.inf
        for value, exact in zip(values, expected, strict=True):
            if exact > best:
                assert value == pytest.approx(exact), fen
            else:
                assert value <= best + 1e-9, fen
                cut += value != pytest.approx(exact)
            best = max(best, exact)
        assert max(values) == pytest.approx(max(expected)), fen
    assert cut, "no root turn was ever cut off: the window is not exercised"


def test_deeper_passes_reorder_the_root_and_report_their_depth() -> None:
    state = random_state(1, 10)
    search = paranoid.ParanoidSearch(state, beam=4, root_width=8)
    first = list(search.moves)
    result = search.run(Limit(depth=3))
    assert result.depth == 3 and search.depth == 3
    assert sorted(map(str, search.moves)) == sorted(map(str, first))
    assert search.values == sorted(search.values, reverse=True)
    assert result.move == search.moves[0] and result.move in state.legal_moves()


def test_an_evaluation_budget_is_deterministic_and_respected() -> None:
    state = random_state(2, 9)
    answers = set()
    for _ in range(2):
        result = paranoid.ParanoidSearch(state, beam=6, root_width=12).run(Limit(nodes=20_000))
        answers.add((result.move, result.depth, result.nodes))
    ((move, depth, nodes),) = answers
    assert depth >= 2 and move in state.legal_moves()
    # The pass that ran over the budget stopped within one node's turns of it.
    assert nodes <= 20_000 + 2 * kernel.MAX_TURNS


@pytest.mark.parametrize("seconds", [0.1, 0.3])
def test_the_time_limit_is_kept_from_the_start_given(seconds: float) -> None:
    """Loosely (the faster of two, within 1.5x): the watcher thread that stops the pass may
    wait for a core on a loaded machine; bench/timing.py measures the precise worst case."""
    state = random_state(3, 6)  # an open board: passes grow fast
    times = []
    for _ in range(2):
        started = time.perf_counter()
        search = paranoid.ParanoidSearch(state, beam=10, root_width=30)
        result = search.run(Limit(time=seconds), started=started)
        times.append(time.perf_counter() - started)
        assert result.move in state.legal_moves() and result.depth >= 2
    assert min(times) <= 1.5 * seconds, times


def test_a_stop_event_ends_an_unbounded_search() -> None:
    state = random_state(4, 6)
    stop = threading.Event()
    reports = []
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    started = time.perf_counter()
    result = paranoid.ParanoidSearch(state, beam=10, root_width=30).run(
        Limit(), stop=stop, on_info=reports.append
    )
    assert time.perf_counter() - started < 0.5
    assert reports and reports[-1] is result and result.move in state.legal_moves()


def test_a_finished_game_cannot_be_searched() -> None:
    state = GAME.new_state()
    rng = random.Random(5)
    while not state.is_over():
        state.push(rng.choice(state.legal_moves()))
    with pytest.raises(GameError, match="over"):
        paranoid.ParanoidSearch(state, beam=4, root_width=4)
