"""Snake Pit perft from the start, checked against the independent model (snakepit_model.py)."""

from __future__ import annotations

import pytest
from snakepit_model import Position, from_fen
from snakepit_model import perft as model_perft

from slimetrail.core.perft import divide, perft_generic
from slimetrail.core.registry import get_game

# Green to move; some of Green's turns leave both Blue and Red without a full turn.
TWO_OUT_AT_ONCE = (
    "a8,c2,j3,l12/b1,b8,b9,k4,k12,l5,l13 b2,f13,h3,m13/a2,e11,e12,f12,h2,i2,i3,m12 "
    "c7,f10,h1,m6/a6,a7,b7,f11,g1,g12,g13,l6,m7 1 3 -"
)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_from_the_start_matches_the_model(depth: int) -> None:
    state = get_game("snake-pit").new_state()
    assert state.perft(depth) == model_perft(Position(), depth)


@pytest.mark.slow
def test_perft_depth_4_matches_the_model() -> None:
    # About 5 s for the engine and 20 s for the model on this machine.
    state = get_game("snake-pit").new_state()
    assert state.perft(4) == model_perft(Position(), 4)


def test_fast_perft_agrees_with_the_generic_walk_and_divide() -> None:
    state = get_game("snake-pit").new_state()
    before = state.fen()
    assert state.perft(2) == perft_generic(state, 2)
    split = divide(state, 2)
    assert len(split) == 16 and sum(split.values()) == state.perft(2)
    assert state.fen() == before and not state.move_stack


def test_perft_where_players_go_out_matches_the_model() -> None:
    state = get_game("snake-pit").state_from_fen(TWO_OUT_AT_ONCE)
    model = from_fen(TWO_OUT_AT_ONCE)
    assert model.fen() == state.fen()
    for depth in (1, 2, 3, 4):
        assert state.perft(depth) == model_perft(model, depth) == perft_generic(state, depth)
