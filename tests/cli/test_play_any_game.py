"""``slimetrail play`` for every game and any mix of seats: three players, swap and pass."""

from __future__ import annotations

import io
import re

import pytest
from clitools import run_cli
from takeaway import TakeAway

from slimetrail.cli.play import Seat, TerminalGame, parse_seats
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game


def session(state, seats, script: str, seed: int | None = 1) -> str:
    out = io.StringIO()
    code = TerminalGame(state, seats, seed, 1.0, stdin=io.StringIO(script), stdout=out).play()
    assert code == 0
    return out.getvalue()


def test_three_humans_play_toy_three_to_the_end_with_places():
    state = get_game("toy-three").new_state()
    moves = ["a1", "a2", "a3", "b1", "b2", "c3", "c1", "c2", "b3", "d1", "d3", "d2"]
    text = session(state, [Seat()] * 3, "\n".join(moves) + "\n")
    assert [state.move_str(m) for m in state.move_stack] == moves
    outcome = state.outcome()
    assert outcome is not None
    assert "Players: 1 Green (human); 2 Blue (human); 3 Red (human)." in text
    assert state.text_board() in text
    order = sorted((1, 2, 3), key=outcome.place)
    places = ", ".join(f"{outcome.place(p)}. {state.game.player_names[p - 1]}" for p in order)
    assert text.rstrip().endswith(f"Places: {places}.")
    assert "Game over. " in text


def test_a_human_against_two_computers_through_the_command_line():
    seats = "computer:2,human,computer"
    proc = run_cli("play", "--game", "toy-three", "--seats", seats, "--seed", "3", stdin="quit\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "1 Green (computer, level 2); 2 Blue (human); 3 Red (computer, level 3)" in out
    assert "Green (computer) plays " in out  # several computers: each is named
    assert "Blue (you) to move> " in out


def test_the_computer_plays_every_seat_and_the_game_ends():
    seats = "computer:1,computer:1,computer:2"
    proc = run_cli("play", "--game", "toy-three", "--seats", seats, "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(" plays ") == 12
    assert re.search(r"Places: 1\. \w+ \(computer\)", proc.stdout)


def test_swap_and_step_moves_as_text_in_toy_pie():
    state = get_game("toy-pie").new_state()
    script = "a1\nswap\nb2\nmoves\na1-a2/c3\nundo\nquit\n"
    text = session(state, [Seat(), Seat()], script)
    assert "Black to move.\n" in text
    assert "White to move.\n" in text
    # After the swap the first player wears white, and the prompt says so (toy-pie names
    # its players by seat, not by the colour they wear).
    assert "Black as White to move> " in text
    assert "White as Black to move.\n" in text
    assert "Legal moves: " in text and " a1-a2/c3 " in text  # the listing has step moves
    assert "Move taken back." in text
    assert [state.move_str(m) for m in state.move_stack] == ["a1", "swap", "b2"]


def test_a_slither_swap_renames_the_players_after_their_colours():
    state = get_game("slither", size=5).new_state()
    text = session(state, [Seat(), Seat()], "c3\nswap\nmoves\nquit\n")
    assert "Now playing: player 1 White and player 2 Black." in text
    # Slither names its players after their colours: the first player now is White.
    assert "White to move> " in text and " as " not in text
    # A hundred and more legal turns: listed only on 'moves'.
    assert text.count("Legal moves: ") == 1 and "legal:" not in text


def test_taking_the_pie_against_the_computer_tells_the_human_their_colour():
    state = get_game("slither", size=5).new_state()
    text = session(state, [Seat(1), Seat()], "swap\nquit\n")
    assert "Computer plays " in text  # Black's first stone
    # The human (seat 2, White) swaps: they now play Black, and are named so.
    assert "You now play Black." in text
    assert "Black (you) to move> " in text and " as " not in text
    assert "Computer plays " in text.split("You now play Black.")[1]  # White's turn, the computer's


def test_a_forced_pass_is_typed_as_pass():
    # A full board without three in a row: the mover must pass.
    fen = "1122221111222211 1 -"
    state = get_game("toy-pie").state_from_fen(fen)
    assert state.legal_move_strs() == ["pass"]
    text = session(state, [Seat(), Seat()], "pass\npass\n")
    assert "Black to move: the only legal move is pass." in text
    assert "Game over. Nobody could place a stone: a draw." in text


def test_undo_when_the_same_player_moves_twice():
    # Take-away: taking 2 keeps the turn, so the human (player 1) moves twice in a row.
    state = TakeAway().new_state()
    text = session(state, [Seat(), Seat(1)], "2\n1\nundo\nquit\n", seed=4)
    assert "Computer plays" in text
    assert "Move taken back." in text
    assert state.pile == 8 and state.to_move == 1  # back to after the first human move


def test_bad_seats_are_errors():
    game = get_game("toy-three")
    assert parse_seats(game, None, 2, 3, False) == [Seat(3), Seat(), Seat(3)]
    assert parse_seats(game, None, 1, 3, True) == [Seat()] * 3
    assert parse_seats(game, "human, computer:5 ,computer", 1, 2, False) == [
        Seat(),
        Seat(5),
        Seat(2),
    ]
    for seats, side, message in [
        ("human,computer", 1, "toy-three has 3 players, not 2"),
        ("human,robot,human", 1, "'robot' is not human, computer or computer:LEVEL"),
        (
            "human,computer:9,human",
            1,
            "--seats computer:9: level 9 is not one of 1..6 for toy-three",
        ),
        ("human,computer:x,human", 1, "the level must be a whole number"),
        ("human,computer:\u00b2,human", 1, "the level must be a whole number"),
        (None, 4, "--side 4 is not one of 1..3 for toy-three"),
    ]:
        with pytest.raises(GameError, match=re.escape(message)):
            parse_seats(game, seats, side, 3, False)
    proc = run_cli("play", "--game", "toy-three", "--seats", "human,human")
    assert proc.returncode == 2
    assert "toy-three has 3 players, not 2" in proc.stderr
