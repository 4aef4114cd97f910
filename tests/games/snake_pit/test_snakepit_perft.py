"""Snake Pit perft from the start, checked against the independent model (snakepit_model.py)."""

from __future__ import annotations

import random

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


@pytest.mark.soak
def test_perft_depth_4_matches_the_model() -> None:
    # 58 million leaves: about 10 s on a quiet machine, the engine and the model alike.
    # The suite checks deeper positions instead (below), in about a tenth of the time.
    state = get_game("snake-pit").new_state()
    assert state.perft(4) == model_perft(Position(), 4)


# Seeds whose random openings (4 + seed % 9 plies) keep perft 3 under half a million leaves;
# in those of 15 and 24 Blue is out, in that of 57 Red.
OPENING_SEEDS = [2, 4, 5, 7, 8, 10, 12, 15, 24, 57]


def random_opening(seed: int):
    rng = random.Random(seed)
    state = get_game("snake-pit").new_state()
    for _ in range(4 + seed % 9):
        state.push(rng.choice(state.legal_moves()))
    return state


def test_perft_3_after_random_openings_matches_the_model() -> None:
    """Perft 4 from the start (the soak test above) sees only the first four plies.  From
    positions 4 to 12 plies into random games, perft 3 reaches plies 7 to 15, among longer
    trails, with players out and their turns skipped (Blue in the openings of seeds 15 and
    24, Red in that of 57)."""
    outs = set()
    for seed in OPENING_SEEDS:
        state = random_opening(seed)
        outs.update(state.view()["out"])
        assert state.perft(3) == model_perft(from_fen(state.fen()), 3), state.fen()
    assert outs == {2, 3}, "the openings no longer put a player out: choose other seeds"


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
