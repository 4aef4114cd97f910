"""bench/snakepit_strength.py: the top level against the previous one and the plain UCT."""

from __future__ import annotations

import pytest

from bench import snakepit_strength


def test_a_short_run_prints_each_pairing_with_its_interval(capsys):
    pairings = ["--pairings", "old-nodes,base-time", "--set", "endgame=60"]
    snakepit_strength.main(["--games", "3", "--iterations", "30", "--time", "0.05", *pairings])
    lines = capsys.readouterr().out.splitlines()
    assert "3 games a pairing" in lines[0] and "endgame=60" in lines[0]
    nodes = next(line.split() for line in lines if line.lstrip().startswith("old-nodes"))
    timed = next(line.split() for line in lines if line.lstrip().startswith("base-time"))
    assert nodes[1] == "3" and nodes[2].endswith("/3") and nodes[4].startswith("[")
    # Iterations a move: 30, or 0 for a turn played without a search (a winning turn, or
    # the longest line of a player alone in its region).
    assert 15 <= int(nodes[-2]) <= 30 and 15 <= int(nodes[-1]) <= 30
    assert len(timed) == len(nodes) + 2  # and the worst move of each side / the limit


def test_a_game_is_played_out_and_settings_are_checked():
    pairing, report = snakepit_strength.play_game(("base-nodes", 4, 1, 20, 0.1, (), 1.5, 1, 2))
    assert pairing == "base-nodes" and report.score in (0.0, 0.5, 1.0)
    assert report.won == (report.score == 1.0)
    # 0: a winning turn (or a lone player's longest line) is played without a search; the
    # baseline runs --ratio times our iterations
    assert set(report.work["test"]) <= {0, 20} and set(report.work["opp"]) == {30}
    assert snakepit_strength.top_level(("exploration=0.3",)).exploration == 0.3
    with pytest.raises(SystemExit, match="no setting 'warmth'"):
        snakepit_strength.top_level(("warmth=1",))
    assert snakepit_strength.wilson(15, 30) == pytest.approx((0.332, 0.668), abs=0.001)


def test_two_top_seats_put_the_baseline_in_the_tested_seat():
    pairing, report = snakepit_strength.play_game(("two-top-nodes", 1, 1, 20, 0.1, (), 1.0, 2, 2))
    assert pairing == "two-top-nodes" and report.won == (report.score == 1.0)
    # The tested seat is the baseline's (its 20 playouts a move); the other two the top
    # level's (20 iterations, or 0 for a winning turn played without a search).
    assert set(report.work["test"]) == {20} and set(report.work["opp"]) <= {0, 20}
    assert 2 * len(report.work["test"]) <= len(report.work["opp"]) + 2


def test_games_whose_first_turn_the_opening_played_for_the_tested_seat_are_told_apart(capsys):
    # Game 3: the second rotation (one random turn: Green's first) with the tested seat Green.
    _, played_for = snakepit_strength.play_game(("base-nodes", 3, 1, 20, 0.1, (), 1.0, 1, 2))
    assert not played_for.own_first_turn
    _, from_start = snakepit_strength.play_game(("base-nodes", 3, 1, 20, 0.1, (), 1.0, 1, 0))
    assert from_start.own_first_turn
    snakepit_strength.main(["--games", "6", "--iterations", "20", "--pairings", "base-nodes"])
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "base-nodes" in ln)
    # Games 0-2 open from the start, 3-5 with Green's first turn random: one played for us.
    assert "(own first turn" in line and "/5, random" in line and line.endswith("/1)")
    snakepit_strength.main(
        ["--games", "6", "--iterations", "20", "--pairings", "base-nodes", "--opening-turns", "0"]
    )
    out = capsys.readouterr().out
    assert "openings of 0-0 random turns" in out and "own first turn" not in out
    with pytest.raises(SystemExit):
        snakepit_strength.main(["--opening-turns", "-1"])
