"""The Slime-Moku decisions tool: its labels are the endgame search's proofs, a log's games are
read whole, and its counts add up."""

import json
from pathlib import Path

from test_moku_endgame import DRAWN_15X15  # tests/games/slime_moku, on the path by conftest

from research.moku import decisions
from slimetrail.games.moku import endgame

SET = Path(decisions.__file__).with_name("decisions-15x15.json")


def test_the_kept_set_is_labelled_by_the_endgame_search() -> None:
    positions = json.loads(SET.read_text())
    assert len(positions) == 55
    for position in positions:
        bounds = position["bounds"]
        best = max(low for low, _ in bounds.values())
        assert any(high < best for _, high in bounds.values())
        assert decisions.verdict(bounds, position["played"]) in {"right", "wrong", "open"}
    quick = [p for p in positions if p["nodes"] < 700_000][:6]
    assert len(quick) == 6
    for position in quick:
        state = decisions.new_state()
        for move in position["moves"]:
            state.push_str(move)
        again = endgame.move_bounds(state, 600.0, nodes=4 * position["nodes"] + 100_000)
        for move, (low, high) in again.bounds.items():
            kept_low, kept_high = position["bounds"][state.move_str(move)]
            # Both are proofs: the intervals hold the same value.
            assert max(low, kept_low) <= min(high, kept_high)


def test_build_labels_a_logged_decision_and_measure_counts_it(tmp_path, capsys) -> None:
    # Game 14 of session 50's 1 s run: at ply 191 (33 empty cells) the top level, White,
    # played c3, a draw, where d5 wins.
    moves = [*DRAWN_15X15.split(), "c3"]
    log = tmp_path / "match.log"
    log.write_text(
        "game   1: top as Black       result 1-0\n"
        f"game  14: top as White       result 1/2-1/2\n    moves: {' '.join(moves)}\n"
    )
    assert [(n, ours, len(m)) for n, ours, m in decisions.logged_games(log)] == [
        (14, 2, len(moves))
    ]
    out = tmp_path / "decisions.json"
    # A budget of nodes, not the clock: the labels do not depend on the machine's load.
    budget = ["--seconds", "600", "--nodes", "4000000"]
    assert (
        decisions.main(["build", str(log), "--empties", "33", "33", *budget, "--out", str(out)])
        == 0
    )
    (kept,) = json.loads(out.read_text())
    assert len(kept["moves"]) == 191 and kept["played"] == "c3"
    # The win ends the search; the other move is then searched on its own (from the reply's
    # side: some reply holds it to a draw at most).
    assert kept["bounds"]["d5"] == [1, 1]
    assert kept["bounds"]["c3"][1] <= 0
    assert decisions.verdict(kept["bounds"], "c3") == "wrong"
    assert decisions.main(["measure", str(out), "--lead", "0", "--time", "3.0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "seed 1: right 1, wrong 0, open 0"
