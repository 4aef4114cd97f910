"""The second method for the Slime-Moku proofs (research/moku/second_check.py, the top level's
endgame search asked one question) against the 64-bit solver that made them."""

from __future__ import annotations

import contextlib
import io
import random
import re

import pytest
from test_moku_fastsolve import fast_value

from research.moku.second_check import check, main, position, save_table
from slimetrail.core.registry import get_game
from slimetrail.games.moku.endgame import new_table
from slimetrail.games.moku.solver import FastSearch

PRINCIPAL_6X6 = ["c3", "c4", "b3", "a2", "a1", "b1", "b2", "a3"]


def test_both_questions_agree_with_the_solver() -> None:
    """Random positions of 5x5 to 7x7 (wins, draws and losses for the side to move)."""
    seen = set()
    for n, k, plies in [(5, 4, 10), (6, 4, 10), (6, 5, 8), (7, 4, 22)]:
        game = get_game("slime-moku", size=n, k=k)
        search = FastSearch(game.board, table_bits=16)
        rng = random.Random(n * 100 + k)
        for _ in range(6):
            state = game.new_state()
            while len(state.move_stack) < plies and not state.is_over():
                state.push(rng.choice(state.legal_moves()))
            if state.is_over():
                continue
            value = fast_value(search, state)
            seen.add(value)
            table = new_table(n, k, 16)
            wins, _, _ = check(state, "win", table, 1 << 40, report=lambda _: None)
            loses, _, _ = check(state, "loss", table, 1 << 40, report=lambda _: None)
            assert (wins, loses) == (value == 1, value == -1), state.fen()
    assert seen == {-1, 0, 1}


def test_a_6x6_win_is_proven_in_chunks_and_from_the_command_line() -> None:
    """After c3 c4 b3 a2 a1 b1 b2 a3, eight plies down the principal line of the 6x6 win
    with rows of four, Black still wins: a search cut into chunks of 2,000 nodes says so,
    and so does the command."""
    lines: list[str] = []
    state = position(6, 4, PRINCIPAL_6X6)
    holds, nodes, _ = check(state, "win", new_table(6, 4, 16), 2_000, report=lines.append)
    assert holds and nodes > 2_000 and lines  # it needed more than one chunk
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["6", "4", *PRINCIPAL_6X6, "--table-bits", "16"])
    assert out.getvalue().splitlines()[-1].startswith("yes: ")


def test_a_step_with_no_step_after_it_is_not_taken_for_a_forced_win() -> None:
    """Where the slime has no empty cell beside it the next player's slime goes anywhere: a
    step there leaves the opponent every reply, not none.  The move order once took such a
    step first (as if it won at once) and needed more than 750,000 nodes to prove this win."""
    state = position(
        7,
        4,
        [
            "c3",
            "b3",
            "a3",
            "a2",
            "a1",
            "b2",
            "c1",
            "c2",
            "d1",
            "e1",
            "f2",
            "e2",
            "f1",
            "g1",
            "g2",
            "f3",
        ],
    )
    holds, nodes, _ = check(state, "win", new_table(7, 4, 16), 1 << 40, report=lambda _: None)
    assert holds and nodes < 200_000


class Stop(Exception):
    pass


def test_a_question_cut_short_goes_on_from_its_saved_table(tmp_path) -> None:
    """A run stopped after a chunk, its table saved, is resumed by the command with
    ``--table``: it answers the same, counting on from the saved nodes, in fewer nodes than
    a run from an empty table."""
    state = position(6, 4, PRINCIPAL_6X6)
    question = "6x6 k=4 after " + " ".join(PRINCIPAL_6X6) + ": does Black win?"
    table = new_table(6, 4, 16)

    def stop(nodes: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        check(state, "win", table, 5_000, report=lambda _: None, after_chunk=stop)
    path = tmp_path / "moku.npz"
    save_table(table, path, 6, 4, question, 5_000)
    _, fresh, _ = check(state, "win", new_table(6, 4, 16), 1 << 40, report=lambda _: None)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["6", "4", *PRINCIPAL_6X6, "--table-bits", "16", "--table", str(path)])
    lines = out.getvalue().splitlines()
    assert lines[1] == f"resumed from {path} ({question}: 5,000 nodes)"
    answer, total, run = re.fullmatch(
        r"(\w+): ([\d,]+) nodes \(([\d,]+) in this run.*", lines[-1]
    ).groups()
    assert answer == "yes"
    assert int(total.replace(",", "")) == 5_000 + int(run.replace(",", ""))
    assert int(run.replace(",", "")) < fresh - 4_000


def test_a_table_of_another_board_or_a_corrupt_one_is_refused_and_kept(tmp_path, capsys) -> None:
    path = tmp_path / "moku.npz"
    save_table(new_table(6, 4, 16), path, 6, 4, "a question", 0)
    with pytest.raises(SystemExit):
        main(["5", "4", "--table-bits", "16", "--table", str(path)])
    assert "belongs to another solve" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["6", "4", "--table-bits", "17", "--table", str(path)])
    assert "table-bits=16" in capsys.readouterr().err
    path.write_bytes(b"not a table")
    with pytest.raises(SystemExit):
        main(["6", "4", "--table-bits", "16", "--table", str(path)])
    assert "unreadable" in capsys.readouterr().err
    assert path.read_bytes() == b"not a table"


def test_a_finished_game_is_refused_by_name() -> None:
    with pytest.raises(SystemExit, match="the game is over after"):
        position(
            4,
            4,
            [
                "d2",
                "c1",
                "b2",
                "a1",
                "a2",
                "a3",
                "a4",
                "b4",
                "b3",
                "c2",
                "d1",
                "b1",
                "c4",
                "d4",
                "d3",
            ],
        )


def test_a_bad_move_or_board_is_refused_with_its_reason() -> None:
    with pytest.raises(SystemExit, match=r"move 2 \(a2\): a2 is not next to the slime"):
        position(6, 4, ["c3", "a2"])
    with pytest.raises(SystemExit, match="size"):
        position(40, 4, [])
