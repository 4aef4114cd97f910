"""df-pn (proof-number search) against the reference solver on small random positions."""

from __future__ import annotations

import random

import pytest
from trail_endgames import playout_until

from research.trail.dfpn import prove
from slimetrail.core.game import GameError, SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import solve
from slimetrail.games.trail.solver.reference import reference_solve

CONFIGS = [
    ("slimetrail", "5", "rastros"),
    ("slimetrail", "5", "taylor"),
    ("slimetrail", "7", "rastros"),
    ("slimetrail", "7", "taylor"),
    ("slimetrail-square", "6", "taylor"),
    ("slimetrail-hex", "5", "taylor"),
    ("slimetrail-hex", "6", "rastros"),
]


@pytest.mark.parametrize(("game_id", "size", "rules"), CONFIGS)
def test_dfpn_agrees_with_the_reference_solver(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(f"dfpn {game_id} {size} {rules}")
    checked = {"win": 0, "loss": 0}
    while sum(checked.values()) < 60:
        state = playout_until(game, rng, rng.randrange(3, 17))
        if state is None:
            continue
        fen = state.fen()
        expected = reference_solve(state)
        got = prove(state)
        assert state.fen() == fen  # the position is left as it was
        assert got.value == expected.value, fen
        if got.value == "win":
            # The move it names wins: the reference says so, move by move.
            assert len(got.winning_moves) == 1
            assert expected.move_values[got.winning_moves[0]] == "win", fen
        else:
            assert got.winning_moves == []
        checked[got.value] += 1
    assert min(checked.values()) >= 5  # both answers were exercised


def test_dfpn_proves_the_first_moves_of_a_small_board():
    # 5x5 Slimetrail from the centre, one first move at a time, against the reference.
    game = get_game("slimetrail", size="5")
    start = game.new_state()
    for move in start.legal_moves():
        child = start.copy()
        child.push(move)
        assert prove(child).value == reference_solve(child).value, start.move_str(move)


@pytest.mark.parametrize("rules", ["rastros", "taylor"])
def test_dfpn_agrees_with_alpha_beta_in_the_middle_game(rules):
    # Positions too big for the reference: the compiled alpha-beta (itself tested against
    # the reference) is the yardstick; every named winning move must win by it too.
    game = get_game("slimetrail", rules=rules)
    rng = random.Random(f"dfpn mid {rules}")
    for _ in range(12):
        state = game.new_state()
        for _ in range(rng.randrange(8, 15)):
            if state.outcome() is not None:
                break
            state.push(rng.choice(state.legal_moves()))
        if state.outcome() is not None:
            continue
        got = prove(state)
        assert got.value == solve(state, book=False, first_win=True).value, state.fen()
        if got.value == "win":
            mover = state.to_move
            state.push(got.winning_moves[0])
            over = state.outcome()
            assert over.winner == mover if over else solve(state, book=False).value == "loss"
            state.pop()


def test_dfpn_steps_into_its_goal():
    game = get_game("slimetrail", size="5")
    state = game.state_from_fen("5/5/5/1o3/5 1")  # player 1 next to a1
    result = prove(state)
    assert (result.value, result.winning_moves) == ("win", [game.board.parse_cell("a1")])


def test_dfpn_refuses_bad_input_with_clear_errors():
    game = get_game("slimetrail")
    state = game.new_state()
    with pytest.raises(GameError, match="at most 64 cells"):
        prove(get_game("slimetrail", size="9").new_state())
    over = game.state_from_fen(game.new_state().fen())
    for move in ("c3", "b2", "a1"):
        over.push(over.game.board.parse_cell(move))
    with pytest.raises(GameError, match="game is over"):
        prove(over)
    walled = get_game("slimetrail", size="5", rules="taylor").state_from_fen(
        "5/1xxx1/1xox1/1xxx1/5 2"
    )  # Taylor's draw: no goal in reach
    with pytest.raises(GameError, match="game is over"):
        prove(walled)
    with pytest.raises(GameError, match="Slime Trail"):
        prove(get_game("slime-moku").new_state())
    with pytest.raises(SolveTimeout):
        prove(state, time_limit=1e-6)  # the 7x7 start needs far more than one clock period
    assert state.fen() == game.new_state().fen()
