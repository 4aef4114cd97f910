"""Solves split into Ray tasks (``slimetrail.games.trail.solver.cluster``) on a local Ray
instance of two CPUs, against single-process solves.

Not collected by the suite itself: ``test_ray_solve.py`` runs this file in a pytest process of
its own, since a Ray driver whose raylet dies ends its whole process."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

ray = pytest.importorskip("ray", reason="needs the cluster extra: pip install -e '.[cluster]'")

from slimetrail.cli.main import main  # noqa: E402
from slimetrail.core.game import GameError  # noqa: E402
from slimetrail.core.registry import get_game  # noqa: E402
from slimetrail.games.trail.solver import CompactGraph, solve  # noqa: E402
from slimetrail.games.trail.solver.cluster import (  # noqa: E402
    RESULTS,
    RaySolve,
    connect,
    solve_on_ray,
)
from slimetrail.games.trail.solver.parallel import solve_split  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    connect(num_cpus=2)
    yield
    ray.shutdown()


def same_answer(split, whole) -> None:
    assert (split.value, split.move_values) == (whole.value, whole.move_values)
    assert set(split.winning_moves) == set(whole.winning_moves)


@pytest.mark.parametrize(
    ("spec", "moves"),
    [
        (("slimetrail", "7", "rastros"), ["c3", "b4", "c5", "d5", "e6", "e7"]),
        (("slimetrail-hex", "6", "taylor"), []),
        (("slimetrail-square", "6", "rastros"), ["c4"]),
    ],
)
def test_two_plies_deep_split_gives_the_single_process_answer(tmp_path, spec, moves):
    game_id, size, rules = spec
    state = get_game(game_id, size=size, rules=rules).new_state()
    for text in moves:
        state.push_str(text)
    split = solve_on_ray(state, depth=2, checkpoint_dir=tmp_path, table_bits=16)
    same_answer(split, solve(state, book=False))
    # Every task found is in the record, each with its line from the root.
    record = json.loads((tmp_path / RESULTS).read_text())
    assert record and all(len(line.split()) == 2 for *_, line in record.values())


def test_root_split_with_distances_gives_the_lengths(tmp_path):
    for game in (get_game("slimetrail", size="5"), get_game("slimetrail-hex", size="6")):
        state = game.new_state()
        for distance in (False, True):
            whole = solve(state, distance=distance, book=False)
            split = solve_split(state, workers=2, distance=distance, checkpoint_dir=tmp_path)
            same_answer(split, whole)
            assert (split.plies, split.move_plies) == (whole.plies, whole.move_plies)


@pytest.mark.slow
def test_split_of_a_position_too_big_for_the_kernel(tmp_path):
    state = get_game("slimetrail", size="9").new_state()
    line = ["d5", "e4", "f3", "g3", "h3", "i4", "i5", "h4", "h5", "g5", "h6", "h7", "i7"]
    for text in [*line, "i8"]:
        state.push_str(text)
    searched = [m for m in state.legal_moves() if m != state.game.goals[2]]
    for move in searched:  # every child but the step into a corner is a wide solve
        assert len(CompactGraph(state.game, state.free & ~(1 << move), move).cells) > 64
    split = solve_split(state, workers=2, checkpoint_dir=tmp_path, table_bits=16)
    same_answer(split, solve(state))
    assert len(list(tmp_path.glob("*.npz"))) == len(searched) == 2


def test_a_restarted_solve_redoes_only_the_tasks_missing_from_its_record(tmp_path):
    state = get_game("slimetrail-square", size="6", start="c4").new_state()
    first = solve_on_ray(state, depth=2, checkpoint_dir=tmp_path, table_bits=18)
    path = tmp_path / RESULTS
    record = json.loads(path.read_text())
    # As if the driver had stopped before the tasks under the first root move finished.
    root = state.move_str(state.legal_moves()[0])
    kept = {k: v for k, v in record.items() if v[3].split()[0] != root}
    assert len(kept) < len(record)
    path.write_text(json.dumps(kept))
    solved: list[str] = []
    again = RaySolve(state, 2, False, tmp_path, solved.append).run(connect(), table_bits=18)
    same_answer(again, first)
    assert solved and all(text.split()[0] == root for text in solved)
    # A rerun on the whole record runs no task at all.
    solved.clear()
    third = RaySolve(state, 2, False, tmp_path, solved.append).run(connect(), table_bits=18)
    assert not solved and third.move_values == first.move_values


def solve_json(*argv: str) -> dict:
    """What ``slimetrail solve --json ARGV`` prints, read back."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["solve", "--json", *argv]) == 0
    return json.loads(out.getvalue())


def test_cli_workers_split_the_solve_into_a_checkpoint_per_root_move(tmp_path):
    plain = solve_json("--size", "5", "--no-book")
    split = solve_json("--size", "5", "--workers", "2", "--checkpoint", str(tmp_path))
    assert (split["value"], split["move_values"]) == (plain["value"], plain["move_values"])
    assert sorted(split["winning_moves"]) == sorted(plain["winning_moves"])
    # A checkpoint per root move but the mirrored ones, and the split's record of results.
    assert len(list(tmp_path.glob("*.npz"))) == 5
    assert (tmp_path / RESULTS).exists()


def test_bad_splits_are_refused():
    state = get_game("slimetrail", size="5").new_state()
    with pytest.raises(GameError, match="depth must be at least 1"):
        RaySolve(state, 0, False, None)
    with pytest.raises(GameError, match="distances"):
        RaySolve(state, 2, True, None)
    with pytest.raises(GameError, match="Slime Trail"):
        RaySolve(get_game("snake-pit").new_state(), 1, False, None)


def test_a_result_before_every_root_move_is_decided_is_refused():
    state = get_game("slimetrail", size="5").new_state()
    with pytest.raises(RuntimeError, match="not decided yet"):
        RaySolve(state, 1, False, None).result()
