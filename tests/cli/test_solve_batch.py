"""``slimetrail solve --batch`` and ``solve_many``: one JSON line per position in the input's
order, in this process or in workers, a bad line reported by number while the batch goes
on."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from slimetrail.cli.main import main
from slimetrail.core.batch import solve_many
from slimetrail.core.game import GameError, SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.trail.solver import solve

ENDGAME = "7/7/xxxxxx1/x4x1/xox2x1/xxx2x1/3xxx1 1"
LINES = [
    "c3 c2 b2 b3 b4 c5 d6 e6 f5 f4",
    "",
    "# a comment",
    "zz9",
    f"fen {ENDGAME}",
    f"fen {ENDGAME}; b4",
    f"fen {ENDGAME}; e3",
    "fen 7/7 1",
    "c3 b3 c4",
]


def run_batch(capsys, *args: str) -> tuple[int, list]:
    code = main(["solve", *args])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines()]


def expected_json(line: str, distance: bool) -> dict:
    """What plain ``solve --json`` prints for a batch line's position."""
    from slimetrail.cli.solve import batch_position, result_json

    game = get_game("slimetrail")
    state = batch_position(game, line, None)
    return result_json(state, solve(state, distance=distance), distance)


@pytest.mark.parametrize("workers", [None, "2"])
def test_batch_file_gives_one_json_line_per_position_in_order(tmp_path, capsys, workers):
    path = tmp_path / "positions.txt"
    path.write_text("\n".join(LINES) + "\n")
    args = ["--batch", str(path), "--distance"] + (["--workers", workers] if workers else [])
    code, out = run_batch(capsys, *args)
    assert code == 1  # some lines failed
    assert [o["line"] for o in out] == [1, 4, 5, 6, 7, 8, 9]
    errors = {o["line"]: o for o in out if "error" in o}
    assert set(errors) == {4, 7, 8}
    assert errors[4]["input"] == "zz9" and "'zz9'" in errors[4]["error"]
    assert "e3" in errors[7]["error"] and "7/7 1" in errors[8]["input"]
    for o in out:
        if "error" in o:
            continue
        line = LINES[o["line"] - 1]
        expected = expected_json(line, distance=True)
        assert set(o) == {"line", *expected}
        for key in ("game", "fen", "over", "value", "to_move", "move_values", "plies"):
            assert o[key] == expected[key], (line, key)
        assert o["move_plies"] == expected["move_plies"]


def test_batch_from_standard_input_and_from_a_fen():
    """``-`` reads standard input; ``--fen`` is where each line's moves start."""
    out = subprocess.run(
        [sys.executable, "-m", "slimetrail", "solve", "--batch", "-", "--fen", ENDGAME],
        input="b4\n\nc4\n",
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [o["line"] for o in lines] == [1, 3]
    assert lines[0]["to_move"] == 2 and lines[1]["to_move"] == 2
    assert lines[0]["fen"] != lines[1]["fen"]


def test_batch_refuses_moves_and_checkpoints(tmp_path, capsys):
    assert main(["solve", "--batch", "-", "c3"]) == 2
    assert "--batch" in capsys.readouterr().err
    assert main(["solve", "--batch", "-", "--checkpoint", str(tmp_path)]) == 2
    assert main(["solve", "--batch", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err


def test_batch_of_a_game_without_a_solver_fails_each_line(tmp_path, capsys):
    path = tmp_path / "moku.txt"
    path.write_text("h8\n")
    assert main(["solve", "--game", "slime-moku", "--batch", str(path)]) == 2


def test_solve_many_keeps_the_order_and_returns_errors_in_place():
    game = get_game("slimetrail")
    states = []
    for moves in ("c3 c2 b2 b3 b4 c5 d6 e6 f5 f4", "c3 b3 c4", "c3"):
        state = game.new_state()
        for text in moves.split():
            state.push_str(text)
        states.append(state)
    alone = [solve(state) for state in states]
    for workers in (1, 2):
        got = list(solve_many(iter(states), workers=workers))
        assert [r.move_values for r in got] == [r.move_values for r in alone]
    # The 7x7 start position without its book takes seconds; the other, milliseconds.
    timed = list(solve_many([game.new_state(), states[0]], time_limit=0.5, book=False))
    assert isinstance(timed[0], SolveTimeout)
    assert timed[1].move_values == alone[0].move_values
    moku = get_game("slime-moku").new_state()
    assert isinstance(next(solve_many([moku])), GameError)
    with pytest.raises(GameError, match="workers"):
        solve_many(states, workers=0)
