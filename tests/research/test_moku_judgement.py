"""The judgement's fit: self-play games replay through the rules to their recorded end, the
sampled terms are the top level's, and the least squares find weights a set was made with."""

import json

import numpy as np
import pytest

from research.moku import judgement
from slimetrail.games.moku import mcts


def test_self_play_games_replay_to_their_recorded_end(tmp_path) -> None:
    out = tmp_path / "games.jsonl"
    args = ["games", "--games", "2", "--seed", "5", "--iterations", "60", "--out", str(out)]
    assert judgement.main(args) == 0
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["seed"] for g in games] == [5, 6]
    for game in games:
        state = judgement.new_state()
        for move in game["moves"]:
            state.push_str(move)
        assert state.is_over()
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == game["winner"]
    rows = judgement.samples(games, every=10, playouts=4)
    assert len(rows) > 10
    # Both sides to move are sampled (the empty cells' parity tells whose move it is).
    assert set(rows[:, 1] % 2) == {0.0, 1.0}
    # Each row's terms are the top level's at that ply of that game.
    first = games[0]
    state = judgement.new_state()
    at = {}
    for move in first["moves"]:
        at[state.empty.bit_count()] = mcts.judgement_of(state)
        state.push_str(move)
    for row in rows[rows[:, 0] == first["seed"]]:
        assert tuple(row[2:5]) == at[int(row[1])]
        assert 0.0 <= row[5] <= 1.0 and row[6] in (-1.0, 0.0, 1.0)


def test_the_fit_finds_the_weights_a_set_was_made_with() -> None:
    rng = np.random.default_rng(1)
    n = 3000
    terms = rng.integers(-4, 5, size=(n, 3)).astype(float)
    empties = rng.integers(20, 230, size=n)
    truth = np.array([0.05, 0.2, 0.02, 0.03])
    outcome = np.c_[np.ones(n), terms] @ truth + rng.normal(0, 0.1, n)
    playout = rng.random(n)  # no information
    rows = np.c_[rng.integers(0, 300, n), empties, terms, playout, outcome]
    weights, report = judgement.fit(rows)
    assert np.allclose(weights, truth, atol=0.01)
    assert len(report) == len(judgement.BANDS)
    for line in report:
        playouts_r2 = float(line.split("playouts ")[1].split(",")[0])
        judgement_r2 = float(line.split("judgement ")[1].split(",")[0])
        assert playouts_r2 < 0.01 < 0.5 < judgement_r2


def test_a_match_gives_each_side_its_own_share_and_both_colours_the_same_opening(
    monkeypatch,
) -> None:
    shares: dict[tuple[bool, int], set[float]] = {}
    search = mcts.search
    a_is_black = True

    def spy(state, seconds, **options):
        shares.setdefault((a_is_black, state.to_move), set()).add(options["mix"])
        assert options["keep"] is False and options["clock"] is False
        return search(state, seconds, **options)

    monkeypatch.setattr(judgement.mcts, "search", spy)
    games = []
    for a_is_black in (True, False):
        games.append(judgement.match_game((0.5, 0.0), a_is_black, 2, 7, 0.01, 20))
    # A (0.5) searches as Black (1) in the first game, as White (2) in the second.
    assert shares == {(True, 1): {0.5}, (True, 2): {0.0}, (False, 1): {0.0}, (False, 2): {0.5}}
    assert games[0][0][:2] == games[1][0][:2]  # the pair's opening
    for moves, winner in games:
        state = judgement.new_state()
        for move in moves:
            state.push_str(move)
        outcome = state.outcome()
        assert state.is_over() and outcome is not None and outcome.winner == winner


def test_the_match_command_scores_side_a(capsys) -> None:
    args = ["match", "--mix", "0.5", "0.5", "--games", "2", "--time", "0.01"]
    assert judgement.main([*args, "--iterations", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" as ")[1].split(",")[0] for line in lines] == ["Black", "White"]
    assert lines[-1].endswith("/2")


def test_a_share_outside_nought_to_one_is_refused_by_name(capsys) -> None:
    with pytest.raises(SystemExit):
        judgement.main(["match", "--mix", "0.5", "1.5"])
    assert "a share of the judgement is from 0 to 1, not 1.5" in capsys.readouterr().err
