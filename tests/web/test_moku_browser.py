"""Slime-Moku in a real browser: whole games against the computer by clicks on the play page.

The server is the session's ``live_server`` of tests/conftest.py (0.3 s computer moves); the
page helpers are those of pagetools.py, the ``new_page`` fixture that of conftest.py.  The
test side replays the move list on its own engine state to know what the page must show.
"""

from __future__ import annotations

import pytest
from pagetools import (
    drawn_mark,
    legal_cells,
    match_api,
    moves,
    wait_for_moves,
    wait_turn_or_result,
)

from slimetrail.ai import Limit, play
from slimetrail.core.bits import cells_of
from slimetrail.core.registry import get_game

pytestmark = pytest.mark.browser
# The server's worker process starts on the first computer move: on the loaded machine that
# took half a minute (the page's default wait is 20 s).
SLOW_START = 90_000


def replay(game, texts: list[str]):
    state = game.new_state()
    for text in texts:
        state.push_str(text)
    return state


def click(page, cell: str) -> None:
    before = len(moves(page))
    page.click(f'#board [data-cell="{cell}"]')
    wait_for_moves(page, before + 1)
    assert moves(page)[before] == cell


def test_a_whole_game_won_with_five_in_a_row(live_server, new_page) -> None:
    # On 9x9 (k = 5) about 50 plies to the row, where the default 15x15 took 110 to 150,
    # every one clicked and checked.  (On 7x7 a game against random steps can fill the board.)
    game = get_game("slime-moku", size=9)
    page = new_page(f"{live_server}/new/slime-moku?opponent=computer&level=1&side=1&size=9")
    page.set_default_timeout(SLOW_START)
    for _ in range(200):
        wait_turn_or_result(page)
        if page.locator("#result").is_visible():
            break
        state = replay(game, match_api(live_server, page)["moves"])
        assert state.to_move == 1
        # The slime's cell is the one that receives the stone of this move.
        slime = state.move_str(state.slime)
        assert drawn_mark(page, slime, "snail") and drawn_mark(page, slime, "next")
        assert sorted(legal_cells(page)) == sorted(map(state.move_str, state.legal_moves()))
        # Our moves come from a much stronger level (level 4 once drew against random steps).
        click(page, state.move_str(play(state, 5, Limit(time=5.0), seed=0).move))
    else:
        pytest.fail("the game did not end")
    match = match_api(live_server, page)
    state = replay(game, match["moves"])
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 1, state.fen()
    assert match["outcome"]["winner"] == 1
    row = [name for name, marks in state.view()["marks"].items() if "win" in marks]
    assert len(row) >= 5
    for cell in map(state.move_str, state.game.board.cells()):
        assert drawn_mark(page, cell, "win") == (cell in row), cell
    assert "Black" in page.locator("#result").inner_text()


def dead_end_step(state) -> int:
    """The step most likely to get the slime stuck on our next turn: the share of the
    opponent's replies that leave the slime with no empty neighbour, highest first."""
    board = state.game.board

    def share(step: int) -> tuple[float, int]:
        after = state.empty & ~(1 << step)
        replies = board.neighbours[step] & after or after
        stuck = sum(
            1
            for reply in cells_of(replies)
            if after & ~(1 << reply) and not board.neighbours[reply] & after & ~(1 << reply)
        )
        return stuck / max(1, replies.bit_count()), -step

    return max(state.legal_moves(), key=share)


def test_a_stuck_slime_is_lifted_by_a_click(live_server, new_page) -> None:
    game = get_game("slime-moku", size=4, k=4)
    lifts = 0
    for _ in range(6):
        page = new_page(f"{live_server}/new/slime-moku?opponent=computer&level=1&side=1&size=4&k=4")
        page.set_default_timeout(SLOW_START)
        for _ in range(20):
            wait_turn_or_result(page)
            if page.locator("#result").is_visible():
                break
            state = replay(game, match_api(live_server, page)["moves"])
            legal = sorted(legal_cells(page))
            if state.is_stuck():
                # Every empty cell is legal (none is next to the slime); lift it to the last.
                empty = cells_of(state.empty)
                assert legal == sorted(map(state.move_str, empty))
                slime = state.move_str(state.slime)
                click(page, state.move_str(empty[-1]))
                assert drawn_mark(page, slime, "stone-1")
                lifts += 1
                continue
            assert legal == sorted(map(state.move_str, state.legal_moves()))
            click(page, state.move_str(dead_end_step(state)))
        else:
            pytest.fail("the 4x4 game did not end")
        assert match_api(live_server, page)["outcome"] is not None
        if lifts:
            break
    assert lifts, "no stuck slime on our turn in six games"
