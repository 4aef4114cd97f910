"""bench/snakepit_iterations.py: our iteration's cost against the baseline's playout."""

from __future__ import annotations

import pytest

from bench import snakepit_iterations


def test_a_short_run_prints_costs_and_the_timed_work_ratio(capsys):
    # Moves of 0.2 s: at 0.05 s a loaded test machine can spend the whole move on the root's
    # evaluation, and the search then runs no iteration (the suite failed so once).
    args = ["--iterations", "60", "--runs", "1", "--plies", "0,9", "--seconds", "0.2"]
    snakepit_iterations.main(args)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:4]] == ["0", "9"]
    assert all(line.count("x)") == 3 for line in lines[2:4])  # the three shapes' ratios
    assert lines[4].startswith("0.2 s moves")
    timed = [line.split() for line in lines[5:7]]
    assert [row[0] for row in timed] == ["0", "9"]
    # The baseline's playouts and our iterations a move, and their ratio.
    assert all(int(row[1]) > 0 and int(row[2]) > 0 and row[3].endswith("x") for row in timed)
    assert lines[7].startswith("mean ratio")


def test_plies_past_the_games_end_are_refused():
    with pytest.raises(SystemExit, match="--plies 28"):
        snakepit_iterations.positions(1, (0, 40))
