"""The won-positions tool: its labels are the solver's, and its counts add up."""

import json
from pathlib import Path
from typing import cast

import pytest

from research.trail import won_positions
from slimetrail.core.registry import get_game
from slimetrail.games.trail.game import TrailGame
from slimetrail.games.trail.solver import solve

GAME = cast(TrailGame, get_game("slimetrail", size="9", rules="taylor"))
SET = Path(won_positions.__file__).with_name("won-9x9-taylor.json")


@pytest.mark.parametrize(
    ("name", "options", "count", "regions"),
    [
        ("won-9x9-taylor.json", {"size": "9", "rules": "taylor"}, 45, (50, 64)),
        ("won-11x11-rastros.json", {"size": "11", "rules": "rastros"}, 51, (65, 80)),
    ],
)
def test_the_kept_sets_are_labelled_by_the_solver(name, options, count, regions) -> None:
    game = get_game("slimetrail", **options)
    positions = json.loads(SET.with_name(name).read_text())
    assert len(positions) == count
    assert {p["region"] for p in positions} <= set(range(regions[0], regions[1] + 1))
    quick = [p for p in positions if p["seconds"] < 0.5]
    assert len(quick) >= 10
    for position in quick:
        state = game.state_from_fen(position["fen"])
        result = solve(state, book=False)
        assert [state.move_str(m) for m in result.winning_moves] == position["wins"]
        assert len(position["wins"]) < len(state.legal_moves())


def test_build_keeps_won_positions_with_a_losing_move(tmp_path, capsys) -> None:
    out = tmp_path / "won.json"
    # Fixed budgets: the same game whatever the load (a timed one may meet no such position).
    argv = ["build", "--games", "1", "--regions", "41", "46", "--solved", "0", "30"]
    argv += ["--iterations", "2000"]
    assert won_positions.main([*argv, "--out", str(out)]) == 0
    built = json.loads(out.read_text())
    assert built and f"{len(built)} positions written" in capsys.readouterr().out
    for position in built:
        assert 41 <= position["region"] <= 46
        state = GAME.state_from_fen(position["fen"])
        values = solve(state, book=False).move_values
        assert {state.move_str(m) for m, v in values.items() if v == "win"} == set(position["wins"])
        assert set(values.values()) - {"win"}


def test_measure_counts_every_move_in_its_band(tmp_path, capsys) -> None:
    positions = json.loads(SET.read_text())
    chosen = [
        min(positions, key=lambda p: p["seconds"]),
        max(positions, key=lambda p: p["seconds"]),
    ]
    path = tmp_path / "two.json"
    path.write_text(json.dumps(chosen))
    counts = won_positions.measure(GAME, chosen, 0.2, 2)
    assert [row[1] for row in counts] == [2, 0, 0, 2]
    assert all(0 <= kept <= played for kept, played in counts)
    assert won_positions.main(["measure", str(path), "--time", "0.2"]) == 0
    assert "all: kept the win" in capsys.readouterr().out.splitlines()[-1]
