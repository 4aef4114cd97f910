"""Level 1 ("beginner") does what the levels table says: it never hands a win in one; nor
does level 2, which must stay above it (looking one ply deep, it walked into them).

Checked independently of the search: after the beginner's move, every reply of the opponent is
pushed and the game's own outcome asked whether that reply wins on the spot.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from slimetrail.ai import choose_move, levels_for
from slimetrail.core.game import State
from slimetrail.core.registry import get_game


def hands_a_win(state: State, move: object) -> bool:
    """Whether some reply to ``move`` ends the game with the replying player the winner."""
    state.push(move)
    try:
        opponent = state.to_move
        for reply in state.legal_moves():
            state.push(reply)
            outcome = state.outcome()
            state.pop()
            if outcome is not None and outcome.winner == opponent:
                return True
        return False
    finally:
        state.pop()


def test_the_description_promises_it() -> None:
    assert "avoids losing at once" in levels_for(get_game("slimetrail"))[1]


def test_after_c3_level_1_never_hands_a_win_in_one() -> None:
    # The figure: 1. c3 b2?? (b2 next to a1) in 2 of 8 games on the server.
    state = get_game("slimetrail").new_state()
    state.push_str("c3")
    assert any(hands_a_win(state, move) for move in state.legal_moves())
    answers = {state.move_str(choose_move(state, 1, seed=seed)) for seed in range(200)}
    assert "b2" not in answers
    for text in answers:
        assert not hands_a_win(state, state.parse_move(text)), text
    assert len(answers) >= 3  # still a beginner: it varies its safe moves


def random_positions(per_board: int, most_plies: int) -> Iterator[tuple[int, State]]:
    """``per_board`` random games of 7x7 and of 9x9, each cut after 1 to ``most_plies`` - 1
    plies; those not over, with the trial's number on its board."""
    rng = random.Random(7)
    for spec in ({"size": "7"}, {"size": "9"}):
        game = get_game("slimetrail", **spec)
        for trial in range(per_board):
            state = game.new_state()
            for _ in range(rng.randrange(1, most_plies)):
                if state.is_over():
                    break
                state.push(rng.choice(state.legal_moves()))
            if not state.is_over():
                yield trial, state


def test_in_random_positions_a_safe_move_is_always_taken_when_there_is_one() -> None:
    checked = 0
    for trial, state in random_positions(30, 12):
        moves = state.legal_moves()
        if all(hands_a_win(state, m) for m in moves):
            continue
        move = choose_move(state, 1, seed=trial)
        assert not hands_a_win(state, move), (state.fen(), state.move_str(move))
        checked += 1
    assert checked >= 30


def loses_within_a_move(state: State, move: object) -> bool:
    """Whether ``move`` loses on the spot or hands the opponent a win in one."""
    state.push(move)
    outcome = state.outcome()
    state.pop()
    return (outcome is not None and outcome.winner != state.to_move) or hands_a_win(state, move)


def test_level_2_never_hands_a_win_in_one_when_a_move_does_not() -> None:
    checked = 0
    for _, state in random_positions(150, 30):
        losing = [loses_within_a_move(state, m) for m in state.legal_moves()]
        if all(losing) or not any(losing):
            continue
        for seed in range(3):
            move = choose_move(state, 2, seed=seed)
            assert not loses_within_a_move(state, move), (state.fen(), state.move_str(move))
        checked += 1
    assert checked >= 30
