"""``slimetrail play`` driven through scripted stdin, and its board drawings."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from slimetrail.ai import choose_move
from slimetrail.cli.play import Seat, TerminalGame
from slimetrail.core.registry import get_game
from slimetrail.games.trail.text import SNAIL, TARGET, draw_board


def play(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "slimetrail", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_bad_input_gets_messages_and_the_game_goes_on():
    script = "\n".join(["zz9", "d4", "b2", "", "help", "moves", "undo", "n", "quit"]) + "\n"
    proc = play(script, "--hotseat")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "'zz9' is neither a cell of the 7x7 board nor a direction" in out
    assert "d4: the snail is already there" in out
    assert "b2 is not next to the snail on d4" in out
    assert "Type a move such as" in out
    assert "Commands:" in out and "undo" in out
    assert "Legal moves: c3 d3 e3 c4 e4 c5 d5 e5" in out
    assert "Nothing to undo." in out
    assert "Red to move.\n" in out  # after 'n' to d5
    # The legal moves are listed once: when asked.
    assert out.count("Legal moves: ") == 1 and "legal:" not in out
    assert out.rstrip().endswith("Goodbye.")
    assert "Traceback" not in proc.stderr


def test_end_of_input_ends_cleanly():
    proc = play("c3\n", "--hotseat")
    assert proc.returncode == 0
    assert "End of input: goodbye." in proc.stdout
    assert proc.stderr == ""


def test_hotseat_game_to_the_end():
    proc = play("c3\nb2\na1\n", "--hotseat")
    assert proc.returncode == 0
    assert "Game over. The snail reached Green's goal: Green wins." in proc.stdout


def test_full_game_against_the_computer():
    # Replay the computer's choices in-process (they are deterministic for a seed) to
    # write the human's side of a whole game: the human always takes the first legal move.
    game = get_game("slimetrail", size=5)
    state = game.new_state()
    human_moves = []
    while not state.is_over():
        if state.to_move == 1:
            move = state.legal_moves()[0]
            human_moves.append(state.move_str(move))
        else:
            move = choose_move(state, 2, seed=11)
        state.push(move)
    winner = state.outcome().winner
    proc = play("\n".join(human_moves) + "\n", "--size", "5", "--level", "2", "--seed", "11")
    assert proc.returncode == 0, proc.stderr
    who = "Green" if winner == 1 else "Red"
    assert "Game over. " in proc.stdout and f"{who} wins." in proc.stdout
    assert proc.stdout.count("Computer plays") == len(state.move_stack) - len(human_moves)


def test_undo_takes_back_the_move_and_the_reply():
    proc = play("e5\nundo\nundo\nquit\n", "--level", "1", "--seed", "2")
    out = proc.stdout
    assert proc.returncode == 0
    assert "Computer plays" in out
    assert "Move taken back." in out and "Nothing to undo." in out
    start_board = draw_board(get_game("slimetrail").new_state())
    assert out.count(start_board) == 2  # at the start and after the undo


def test_computer_moves_first_for_side_two_and_hint():
    proc = play("hint\nquit\n", "--side", "2", "--level", "1", "--seed", "4", "--time", "0.3")
    assert proc.returncode == 0
    assert proc.stdout.index("Computer plays") < proc.stdout.index("Hint: ")


def test_bad_options_are_errors():
    proc = play("", "--level", "99")
    assert proc.returncode == 2
    assert "--level 99 is not one of 1..6" in proc.stderr
    proc = play("", "--size", "8")
    assert proc.returncode == 2
    assert "size='8'" in proc.stderr


def _positions(picture: str, char: str) -> list[tuple[int, int]]:
    return [
        (y, x)
        for y, line in enumerate(picture.splitlines())
        for x, c in enumerate(line)
        if c == char
    ]


@pytest.mark.parametrize("size", [5, 8, 10])
def test_hex_drawing_puts_neighbours_next_to_each_other(size):
    state = get_game("slimetrail-hex", size=size).new_state()
    picture = draw_board(state)
    [(y, x)] = _positions(picture, SNAIL)
    offsets = {(ty - y, tx - x) for ty, tx in _positions(picture, TARGET)}
    assert len(offsets) == len(state.legal_moves()) == 6
    assert offsets == {(0, -4), (0, 4), (-1, -2), (-1, 2), (1, -2), (1, 2)}
    lines = picture.splitlines()
    assert len(lines) == 2 * size - 1  # a diamond, short diagonal in the middle row
    assert lines[size - 1].split()[0] == "a1"


def test_square_drawing_has_coordinates_and_marks():
    state = get_game("slimetrail").new_state()
    state.push_str("c3")
    picture = draw_board(state)
    lines = picture.splitlines()
    assert lines[0].split() == list("abcdefg") == lines[-1].split()
    assert lines[1].split() == ["7", ".", ".", ".", ".", ".", ".", "2", "7"]
    assert lines[-2].split()[:2] == ["1", "1"]  # a1 is player 1's goal
    assert lines[4].split()[4] == "#"  # d4 slimed
    assert lines[5].split()[3] == SNAIL  # c3
    assert len(_positions(picture, TARGET)) == len(state.legal_moves())


def test_hex_hotseat_game_in_process():
    # Hex directions (no 'n' on this board), a bad word and an undo, then end of input.
    state = get_game("slimetrail-hex", size=4).new_state()
    script = io.StringIO("se\nx\ne\nundo\ne\nsw\nn\n")
    out = io.StringIO()
    code = TerminalGame(state, [Seat(), Seat()], None, 1.0, stdin=script, stdout=out).play()
    text = out.getvalue()
    assert code == 0
    assert "Not a move: 'x' is neither a cell" in text
    assert "Move taken back." in text
    assert "Not a move: 'n' is neither a cell" in text  # no 'n' on the hex board
    assert text.rstrip().endswith("End of input: goodbye.")
    assert [state.game.board.name(m) for m in state.move_stack] == ["c2", "d3", "d2"]


def test_the_computer_searches_on_the_threads_given(monkeypatch):
    """``--threads``: the computer's moves and the hints ask the search for that many cores;
    less than one is an error."""
    import slimetrail.ai

    limits = []
    real = slimetrail.ai.choose_move

    def spy(state, level, limit=None, **kwargs):
        limits.append(limit)
        return real(state, level, limit, **kwargs)

    monkeypatch.setattr(slimetrail.ai, "choose_move", spy)
    state = get_game("snake-pit").new_state()
    seats = [Seat(), Seat(5), Seat(1)]
    script, out = io.StringIO("hint\nquit\n"), io.StringIO()
    code = TerminalGame(state, seats, 3, 0.2, stdin=script, stdout=out, threads=2).play()
    assert code == 0 and "Hint: " in out.getvalue()
    assert limits and all(limit.threads == 2 and limit.time == 0.2 for limit in limits)
    proc = play("", "--threads", "0")
    assert proc.returncode == 2 and "--threads 0 must be at least 1" in proc.stderr
