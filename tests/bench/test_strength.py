"""bench/strength.py: the one runner of our level against the game's compiled baseline."""

from __future__ import annotations

import pytest

from bench import strength


def test_a_short_match_prints_every_game_and_the_summary(capsys):
    strength.main(["--game", "slimetrail", "--option", "size=5", "--games", "2", "--time", "0.02"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "slimetrail size=5: level 6" in lines[0]
    assert sum(line.startswith("game ") for line in lines) == 2
    assert any(line.startswith("level 6 vs baseline: ") and "/2 = " in line for line in lines)
    assert any("playouts/move" in line and "playouts/s" in line for line in lines)
    assert any(line.startswith("worst move time / limit 0.02s") for line in lines)


def test_sides_alternate_and_game_pairs_share_their_opening():
    match = strength.Match(strength.get_game("slimetrail", size="7"), 6, 0.1, "one-top", 1)
    assert [strength.top_seats_of(match, n) for n in range(4)] == [(1,), (2,), (1,), (2,)]
    game = match.game
    openings = [strength.opening_of(game.new_state(), group, seed=1) for group in range(6)]
    assert [len(o) for o in openings] == [0, 1, 2, 0, 1, 2]
    assert openings[1] == strength.opening_of(game.new_state(), 1, seed=1)


def test_three_players_rotate_one_or_two_top_seats():
    game = strength.get_game("snake-pit")
    one = strength.Match(game, 1, 0.1, "one-top", 1)
    two = strength.Match(game, 1, 0.1, "two-top", 1)
    assert [strength.top_seats_of(one, n) for n in range(3)] == [(1,), (2,), (3,)]
    assert [strength.top_seats_of(two, n) for n in range(3)] == [(2, 3), (1, 3), (1, 2)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "slimetrail", "--seats", "two-top"], "three players"),
        (["--game", "slimetrail", "--size", "4"], "size"),
        (["--game", "slimetrail", "--option", "size"], "NAME=VALUE"),
        (["--game", "nonesuch"], "nonesuch"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        strength.parse_args(argv)
    # argparse prints its errors; an unknown game exits with the message itself.
    assert message in capsys.readouterr().err + str(exit_.value.code)
