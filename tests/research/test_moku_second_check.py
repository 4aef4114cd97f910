"""The second method for the Slime-Moku proofs (research/moku/second_check.py, the top level's
endgame search asked one question) against the 64-bit solver that made them."""

from __future__ import annotations

import contextlib
import io
import random

import pytest
from test_moku_fastsolve import fast_value

from research.moku.second_check import check, main, position
from slimetrail.core.registry import get_game
from slimetrail.games.moku.solver import FastSearch


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
            wins, _, _ = check(state, "win", 16, 1 << 40, report=lambda _: None)
            loses, _, _ = check(state, "loss", 16, 1 << 40, report=lambda _: None)
            assert (wins, loses) == (value == 1, value == -1), state.fen()
    assert seen == {-1, 0, 1}


def test_a_6x6_win_is_proven_in_chunks_and_from_the_command_line() -> None:
    """After c3 c4 b3 a2 a1 b1 b2 a3, eight plies down the principal line of the 6x6 win
    with rows of four, Black still wins: a search cut into chunks of 2,000 nodes says so,
    and so does the command."""
    lines: list[str] = []
    state = position(6, 4, ["c3", "c4", "b3", "a2", "a1", "b1", "b2", "a3"])
    holds, nodes, _ = check(state, "win", 16, 2_000, report=lines.append)
    assert holds and nodes > 2_000 and lines  # it needed more than one chunk
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["6", "4", "c3", "c4", "b3", "a2", "a1", "b1", "b2", "a3", "--table-bits", "16"])
    assert out.getvalue().splitlines()[-1].startswith("yes: ")


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
