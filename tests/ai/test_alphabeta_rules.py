"""What alpha-beta can play, turns that do not alternate, and mate numbers."""

from __future__ import annotations

import pytest
from takeaway import TakeAway, winner_with_best_play

from slimetrail.ai import Limit, search
from slimetrail.ai.search import Searcher, mate_from_plies
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game


def test_alpha_beta_refuses_games_it_cannot_play():
    state = get_game("toy-three").new_state()
    with pytest.raises(GameError) as error:
        search(state, Limit(depth=2))
    assert str(error.value) == "alpha-beta plays two-player zero-sum games; toy-three has 3 players"
    with pytest.raises(GameError, match="toy-three has 3 players"):
        Searcher(state)
    not_zero_sum = TakeAway(players=2)
    not_zero_sum.zero_sum = False
    with pytest.raises(GameError, match="take-away is not zero-sum"):
        search(not_zero_sum.new_state(), Limit(depth=2))


@pytest.mark.parametrize("after_two", [False, True])
@pytest.mark.parametrize("pile", range(1, 13))
def test_negamax_follows_the_player_to_move_when_turns_repeat(pile, after_two):
    # Taking 2 hands the turn back to the mover, so plies do not alternate players.
    state = TakeAway().state_from_fen(f"{pile} 1 {int(after_two)}")
    winner, plies = winner_with_best_play(pile, 1, after_two)
    result = search(state)
    assert result.proven == ("win" if winner == 1 else "loss")
    assert result.mate == mate_from_plies(winner == 1, plies)
    child = state.copy()
    child.push(result.move)
    if not child.is_over():
        # The chosen move keeps the best result and the promised length.
        next_winner, next_plies = winner_with_best_play(child.pile, child.to_move, child.after_two)
        assert next_winner == winner and next_plies == plies - 1


def test_a_player_who_cannot_win_is_never_promised_a_mate():
    # 4 stones, player 1 to move: every line loses (taking 2 keeps the turn, and the
    # finished position's to_move is often the winner -- alpha-beta must not read it).
    state = TakeAway().state_from_fen("4 1 0")
    assert winner_with_best_play(4, 1) == (2, 3)
    for depth in range(1, 6):
        result = search(state, Limit(depth=depth))
        assert result.mate is None or result.mate < 0, (depth, result)
    assert search(state).mate == -2  # player 1 makes two moves, player 2 takes the last


def test_a_forced_step_into_the_other_goal_is_mate_minus_one():
    # Snail on f7, e6 e7 f6 g6 slimed: player 1's only step is into player 2's goal g7.
    state = get_game("slimetrail").state_from_fen("4xo1/4xxx/7/7/7/7/7 1")
    assert state.legal_move_strs() == ["g7"]
    result = search(state, Limit(depth=3))
    assert result.proven == "loss"
    assert result.mate == -1  # lost on the mover's own first move, not "mate 0"


def test_mate_numbers_count_the_movers_moves():
    assert [mate_from_plies(True, p) for p in (1, 2, 3, 4)] == [1, 1, 2, 2]
    assert [mate_from_plies(False, p) for p in (1, 2, 3, 4)] == [-1, -1, -2, -2]
