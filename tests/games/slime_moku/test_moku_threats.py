"""Threat-space search of Slime-Moku, checked by brute force on the independent model
(moku_model.py) and against the exact solver."""

from __future__ import annotations

import random

import pytest
from moku_model import forced_win, from_fen

from slimetrail.core.registry import get_game
from slimetrail.games.moku.solver import SOLVER as solver
from slimetrail.games.moku.threats import ThreatSearch, winning_move

# Black to move, the slime on b5: Black writes b5 and walks the slime into the corner a6,
# whose empty neighbours a5 and b6 both complete a black row of four; White must step onto
# one of them.
VALUES = {"win": 1, "draw": 0, "loss": -1}
CORNER = "2xxx1/1@4/x5/x5/xo1o2/oo1o1o 1"


def test_a_corner_whose_neighbours_are_all_gaps_wins() -> None:
    state = get_game("slime-moku", size=6, k=4).state_from_fen(CORNER)
    move = winning_move(state, depth=1)
    assert move is not None and state.move_str(move) == "a6"
    assert forced_win(from_fen(6, 4, CORNER), 3)
    state.push(move)
    for reply in list(state.legal_moves()):
        state.push(reply)
        state.push(state.legal_moves()[0])
        assert state.outcome() is not None and state.outcome().winner == 1
        state.pop()
        state.pop()


def test_writing_a_row_now_is_found_at_once() -> None:
    # The slime stands on the gap of Black's row: every move wins.
    fen = "6/6/6/xx@x2/6/o1o1o1 1"
    state = get_game("slime-moku", size=6, k=4).state_from_fen(fen)
    move = winning_move(state, depth=1)
    assert move in state.legal_moves()
    state.push(move)
    assert state.outcome() is not None and state.outcome().winner == 1


def test_a_step_onto_the_defenders_gap_is_no_threat() -> None:
    # Black writes b5; the corner a6 then has one empty neighbour, a5, the gap of Black's
    # a2-a5.  With White on b6 c6 e6 the corner wins; with White on b6 c6 d6 White would
    # write a6 and make a row first, so the corner is no threat.
    game = get_game("slime-moku", size=6, k=4)
    open_corner = "1oo1o1/1@4/x5/x5/x5/6 1"
    move = winning_move(game.state_from_fen(open_corner), depth=1)
    assert move is not None and game.board.name(move) == "a6"
    assert forced_win(from_fen(6, 4, open_corner), 3)
    guarded = "1ooo2/1@4/x5/x5/x5/6 1"
    move = winning_move(game.state_from_fen(guarded), depth=1)
    assert move is None or game.board.name(move) != "a6"
    assert (move is not None) == forced_win(from_fen(6, 4, guarded), 3)


@pytest.mark.parametrize(
    ("fen", "empties"),
    [
        ("xo3o/oxx1x@/xooxo1/oxxo2/1ooxo1/1x1x2 1", 13),
        ("2ox2/2xo2/2ox@x/2x1oo/1xo1x1/2oxo1 1", 19),
    ],
)
def test_two_move_threat_sequences_are_real_wins(fen: str, empties: int) -> None:
    # Found in random games: no single threat wins, a sequence of two does.
    game = get_game("slime-moku", size=6, k=4)
    state = game.state_from_fen(fen)
    assert state.empty.bit_count() == empties
    assert ThreatSearch(game.board, depth=1, branch=3).winning_move(state) is None
    move = ThreatSearch(game.board, depth=2, branch=3).winning_move(state)
    assert move is not None
    model = from_fen(6, 4, fen)
    assert not forced_win(model, 3) and forced_win(model, 5)
    result = solver.solve(state)
    assert result.value == "win" and move in result.winning_moves


@pytest.mark.parametrize(("n", "skip", "games"), [(4, 2, 25), (5, 12, 25), (6, 24, 15)])
def test_every_threat_win_is_a_solver_win(n: int, skip: int, games: int) -> None:
    game = get_game("slime-moku", size=n, k=4)
    rng = random.Random(n)
    claims = 0
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if len(state.move_stack) >= skip:
                move = ThreatSearch(game.board, depth=5, branch=3).winning_move(state)
                if move is not None:
                    result = solver.solve(state)
                    assert result.value == "win" and move in result.winning_moves, state.fen()
                    claims += 1
            state.push(rng.choice(state.legal_moves()))
    assert claims >= 5
