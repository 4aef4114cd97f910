"""The big Slime Trail boards' judgement fit: self-play games replay through the rules to their
recorded end, the sampled terms are the tree's, and the least squares find, band by band of
the snail's region, the weights a set was made with."""

import json

import numpy as np

from research.trail import judgement
from slimetrail.games.trail import mcts_kernel


def test_self_play_games_replay_to_their_recorded_end(tmp_path) -> None:
    out = tmp_path / "games.jsonl"
    args = ["--rules", "taylor", "games", "--games", "2", "--seed", "5"]
    assert judgement.main([*args, "--iterations", "200", "--out", str(out)]) == 0
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["seed"] for g in games] == [5, 6]
    for game in games:
        state = judgement.new_state(11, "taylor")
        for move in game["moves"]:
            state.push_str(move)
        assert state.is_over()
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == game["winner"]
    rows = judgement.samples(games, 11, "taylor", every=6, playouts=4)
    assert len(rows) > 10
    # Each row's terms are the tree's at that ply of that game, both sides to move sampled.
    first = games[0]
    state = judgement.new_state(11, "taylor")
    at = []
    for move in first["moves"]:
        at.append((state.to_move, mcts_kernel.judgement_of(state)))
        state.push_str(move)
    mine = rows[rows[:, 0] == first["seed"]]
    terms = [list(row[2:-2]) for row in mine]
    sides = {side for side, seen in at if seen in terms}
    assert sides == {1, 2}
    for row in mine:
        assert -1.0 <= row[-2] <= 1.0 and row[-1] in (-1.0, 0.0, 1.0)


def test_the_fit_finds_each_bands_weights() -> None:
    rng = np.random.default_rng(1)
    n, width = 8000, len(judgement.NAMES)
    terms = rng.normal(0, 1, size=(n, width))
    region = rng.integers(20, 121, size=n)
    truth = rng.normal(0, 0.3, size=(len(mcts_kernel.JUDGEMENT_BANDS), width + 1))
    band = np.array(
        [next(i for i, low in enumerate(mcts_kernel.JUDGEMENT_BANDS) if r >= low) for r in region]
    )
    outcome = np.einsum("ij,ij->i", np.c_[np.ones(n), terms], truth[band])
    outcome += rng.normal(0, 0.05, n)
    playout = rng.random(n)  # no information
    rows = np.c_[rng.integers(0, 400, n), region, terms, playout, outcome]
    weights, report = judgement.fit(rows)
    assert np.allclose(weights, truth, atol=0.02)
    assert len(report) == len(judgement.BANDS)
    for line in report:
        playouts_r2 = float(line.split("playouts ")[1].split(",")[0])
        judgement_r2 = float(line.split("judgement ")[1].split(",")[0])
        assert playouts_r2 < 0.01 < 0.5 < judgement_r2
