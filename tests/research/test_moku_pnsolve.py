"""The df-pn prover of Slime-Moku against brute force on the independent model and against the
Python solver."""

from __future__ import annotations

import random

import pytest
from moku_model import from_fen, minimax

from research.moku import pysolver as solver
from research.moku.pnsearch import ProofSearch
from slimetrail.core.game import SolveTimeout
from slimetrail.core.registry import get_game

VALUES = {"win": 1, "draw": 0, "loss": -1}


def node(state):
    mine, theirs = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    return mine, theirs, state.empty, state.slime


@pytest.mark.parametrize(("n", "k", "games"), [(4, 4, 20), (5, 4, 12), (5, 5, 8), (6, 4, 10)])
def test_values_match_brute_force_near_the_end(n: int, k: int, games: int) -> None:
    game = get_game("slime-moku", size=n, k=k)
    search = ProofSearch(game.board, table_bits=16)
    rng = random.Random(n * 10 + k)
    seen = set()
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if state.empty.bit_count() <= 7:
                exact = minimax(from_fen(n, k, state.fen()))
                assert search.value(*node(state)) == exact, state.fen()
                seen.add(exact)
            state.push(rng.choice(state.legal_moves()))
    assert len(seen) >= 2, seen


def test_values_match_the_python_solver_in_mid_game() -> None:
    game = get_game("slime-moku", size=5, k=4)
    search = ProofSearch(game.board, table_bits=18)
    rng = random.Random(11)
    seen = set()
    for _ in range(10):
        state = game.new_state()
        for _ in range(8):
            state.push(rng.choice(state.legal_moves()))
        if state.is_over():
            continue
        exact = VALUES[solver.solve(state).value]
        seen.add(exact)
        assert search.value(*node(state)) == exact, state.fen()
    assert len(seen) >= 2, seen


def test_a_budget_stops_the_proof_and_the_table_resumes_it() -> None:
    state = get_game("slime-moku", size=5, k=4).new_state()
    state.push(state.legal_moves()[0])
    search = ProofSearch(state.game.board, table_bits=18)
    with pytest.raises(SolveTimeout):
        search.prove(*node(state), True, budget=500)
    assert 0 < search.phi < 1 << 50 and 0 < search.delta < 1 << 50
    expected = VALUES[solver.solve(state).value]
    assert search.prove(*node(state), True) == (expected == 1)
