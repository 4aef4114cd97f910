"""bench/strength.py: the one runner of our level against the game's compiled baseline."""

from __future__ import annotations

import itertools
import random

import pytest

from bench import strength


def test_a_short_match_prints_every_game_and_the_summary(capsys):
    strength.main(["--game", "slimetrail", "--option", "size=5", "--games", "2", "--time", "0.02"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "slimetrail size=5: level 6" in lines[0]
    assert sum(line.startswith("game ") for line in lines) == 2
    # A game our level did not win is followed by its moves, to replay it.
    for line, after in itertools.pairwise(lines):
        if line.startswith("game ") and "top score 1.00" not in line:
            assert after.startswith("    moves: ") and len(after.split()) > 2
    assert any(line.startswith("level 6 vs baseline: ") and "/2 = " in line for line in lines)
    assert any("playouts/move" in line and "playouts/s" in line for line in lines)
    assert any(line.startswith("worst move time / limit 0.02s") for line in lines)


def test_only_plays_the_games_named_as_in_the_whole_run(capsys):
    argv = ["--game", "slimetrail", "--option", "size=5", "--games", "4", "--time", "0.02"]
    strength.main([*argv, "--only", "2", "4"])
    games = [line for line in capsys.readouterr().out.splitlines() if line.startswith("game ")]
    assert [line.split(":")[0] for line in games] == ["game   2", "game   4"]
    assert all("top as Red" in line for line in games)


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
        (["--game", "slimetrail", "--games", "4", "--only", "5"], "from 1 to --games (4)"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        strength.parse_args(argv)
    # argparse prints its errors; an unknown game exits with the message itself.
    assert message in capsys.readouterr().err + str(exit_.value.code)


class RandomBaseline:
    """A stand-in baseline for the runner's own tests: a seeded random legal move."""

    name = "random"

    def choose(self, state, seconds, seed):
        return random.Random(seed).choice(state.legal_moves()), 1


@pytest.mark.parametrize(
    ("seats", "expected"),
    [
        ("one-top", "level 1 in one seat vs two baseline seats: won "),
        ("two-top", "baseline in one seat vs level 1 in two: baseline won "),
    ],
)
def test_three_player_matches_report_their_own_score(seats, expected, monkeypatch, capsys):
    monkeypatch.setattr(strength, "baseline_for", lambda game: RandomBaseline())
    strength.warmed_baseline.cache_clear()
    try:
        argv = ["--game", "snake-pit", "--seats", seats, "--games", "3", "--level", "1"]
        strength.main([*argv, "--time", "0.01"])
    finally:
        strength.warmed_baseline.cache_clear()
    lines = capsys.readouterr().out.splitlines()
    tops = [line.split("top as ")[1].split()[0] for line in lines if line.startswith("game ")]
    if seats == "one-top":
        assert tops == ["Green", "Blue", "Red"]
    else:
        assert tops == ["Blue+Red", "Green+Red", "Green+Blue"]
    assert any(line.startswith(expected) and "/3 = " in line for line in lines)
    assert any(line.startswith("baseline (random): 1 playouts/move") for line in lines)


def test_fixed_budgets_replay_the_same_game_whatever_the_clock(monkeypatch):
    """--iterations and --playouts: the moves do not depend on the machine's load or on the
    games played before, only on the seed and on the time a move is given, which sets the
    exact solve's nodes (its share of the move) and nothing else: no search of the top
    level looks at the clock."""
    from slimetrail.games.trail import solver, strong

    def clocked_solve(*args, **kwargs):
        raise AssertionError("a move with a fixed budget ran the solve bounded by the clock")

    monkeypatch.setattr(solver, "solve", clocked_solve)
    game = strength.get_game("slimetrail", size="9", start="e5")

    def record(seconds: float, whole: bool = False) -> list[str]:
        match = strength.Match(game, 6, seconds, "one-top", 2, iterations=2000, playouts=2000)
        moves = strength.play_one(match, 1).record
        state = game.new_state()
        for count, word in enumerate(moves):
            if not whole and strong.region_size(state) <= strong.SOLVE_REGION:
                return moves[:count]
            state.push(state.parse_move(word))
        return moves

    first = record(0.01)
    assert len(first) > 10
    assert record(0.5) == first
    assert record(0.5, whole=True) == record(0.5, whole=True)


def test_moku_fixed_budgets_replay_the_same_game_whatever_the_clock():
    """Slime-Moku's top level under --iterations runs its tree and its root threat passes
    without the clock: the same seed plays the same game at any --time, up to the exact
    endgame search (from ``ENDGAME_SOLVE_EMPTIES`` empty cells on 9x9), which keeps its share
    of the time."""
    from slimetrail.games.moku import mcts as moku_mcts

    game = strength.get_game("slime-moku", size="9", k="5")

    def record(seconds: float) -> list[str]:
        match = strength.Match(game, 6, seconds, "one-top", 3, iterations=300, playouts=600)
        moves = strength.play_one(match, 1).record
        state = game.new_state()
        for count, word in enumerate(moves):
            if state.empty.bit_count() <= moku_mcts.ENDGAME_SOLVE_EMPTIES:
                return moves[:count]
            state.push(state.parse_move(word))
        return moves

    first = record(0.001)
    assert len(first) > 20
    assert record(0.3) == first


@pytest.mark.parametrize(
    ("game_id", "options"),
    [("slimetrail", {"size": "9", "start": "e5"}), ("slime-moku", {"size": "15"})],
)
def test_the_baseline_runs_exactly_its_fixed_playouts(game_id, options):
    game = strength.get_game(game_id, **options)
    baseline = strength.warmed_baseline(game)
    _, playouts = baseline.choose(game.new_state(), 0.001, 4, 12_345)
    assert playouts == 12_345


def test_speed_prints_both_sides_figures_in_the_same_moves(capsys):
    strength.main(["--game", "slime-moku", "--size", "9", "--speed", "--time", "0.05"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    assert sum("playouts in a 0.05s move" in line for line in lines) == 2
    assert sum(" level 6 " in line and " nodes in " in line for line in lines) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "slimetrail", "--size", "7", "--iterations", "100"], "big Slime Trail"),
        (["--game", "slither", "--playouts", "100"], "Slime Trail games and Slime-Moku"),
        (["--game", "slither", "--iterations", "100"], "and Slime-Moku"),
        (["--game", "slime-moku", "--iterations", "100", "--level", "5"], "top level only"),
        (["--game", "slimetrail", "--size", "9", "--iterations", "0"], "at least 1"),
    ],
)
def test_fixed_budgets_only_where_they_exist(argv, message, capsys):
    with pytest.raises(SystemExit):
        strength.parse_args(argv)
    assert message in capsys.readouterr().err


def test_ugi_plays_our_side_through_the_engine_subprocess(capsys):
    """``--ugi``: our moves come from ``slimetrail ugi`` (go movetime), the top level's own
    player, searched (its info lines' nodes counted), every move legal."""
    argv = ["--game", "slime-moku", "--option", "size=7", "--option", "k=4"]
    strength.main([*argv, "--games", "2", "--time", "0.1", "--ugi"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("ours through UGI")
    assert sum(line.startswith("game ") for line in lines) == 2
    assert any(line.startswith("level 6 vs baseline: ") and "/2 = " in line for line in lines)
    with pytest.raises(SystemExit):
        strength.main(["--game", "snake-pit", "--ugi"])
