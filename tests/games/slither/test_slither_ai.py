"""The Slither computer players: the ladder, wins and defences in one, proofs that agree
with brute force, the pie, determinism, and the caller's position left alone."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import cast

import brute
import pytest

from slimetrail.ai import Limit, analyse, levels_for, play
from slimetrail.core.registry import get_game
from slimetrail.games.slither.ai import KERNELS, LADDER, SlitherSearch, search_move
from slimetrail.games.slither.game import SlitherState
from slimetrail.games.slither.solver import REFERENCE


@pytest.fixture(autouse=True, scope="module")
def loaded_kernels() -> None:
    """Loaded before the first move, as a server or the UGI engine does: until then a timed
    move is a random one (see tests/ai/test_time_limits.py)."""
    KERNELS.run()


def after(moves: str, **options: str) -> SlitherState:
    state = cast(SlitherState, get_game(options.pop("game", "slither"), **options).new_state())
    for text in moves.split():
        state.push_str(text)
    return state


def test_the_game_declares_its_own_ladder():
    for game_id in ("slither", "slither-advanced"):
        game = get_game(game_id)
        assert game.ai_ladder() is LADDER
        assert sorted(levels_for(game)) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_every_level_plays_a_legal_move_and_leaves_the_state(level):
    state = after("e5 d5 e6 d6 e4 d4", pie="off")
    before = (state.fen(), state.move_stack)
    result = play(state, level, Limit(time=0.2), seed=3)
    assert result.move in state.legal_moves()
    assert (state.fen(), state.move_stack) == before


# Black a1 a2 b4 on 4x4: only the step b4-a3/a4 connects (a3 alone breaks the diagonal rule).
STEP_WIN = "a1 d1 a2 d2 b4 d3"


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_every_level_takes_a_win_in_one_even_by_a_step(level):
    state = after(STEP_WIN, size="4", pie="off")
    result = play(state, level, Limit(time=0.2), seed=1)
    assert state.move_str(result.move) == "b4-a3/a4"
    assert result.proven == "win"


def test_the_search_stops_an_immediate_threat():
    # White to move; Black's c-file needs only c4 (c1 c2 c3 c5 are Black): White must put a
    # stone on c4 (placed, or stepped there from b5), every other turn loses at once.
    state = after("c1 a1 c2 a2 c3 b5 c5", size="5", pie="off")
    assert not [m for m in state.legal_moves() if brute.wins_at_once(state, m)]
    result = search_move(state, Limit(nodes=300), seed=2)
    assert "c4" in state.click_path(result.move)[-2:]
    state.push(result.move)
    assert not [m for m in state.legal_moves() if brute.wins_at_once(state, m)]


@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_proofs_agree_with_brute_force(game_id):
    proven = 0
    for back in (2, 3):
        for state in brute.late_positions(game_id, 4, range(8), back):
            try:
                wins = brute.mover_wins(state, 2_000)
            except brute.OverBudget:
                continue
            result = SlitherSearch(state, seed=5).run(Limit(nodes=5_000))
            if result.proven is None:
                continue
            proven += 1
            assert result.proven == ("win" if wins else "loss"), state.fen()
            if wins:  # the move played keeps the win
                state.push(result.move)
                assert state.is_over() or not brute.mover_wins(state, 20_000)
                state.pop()
    assert proven >= 10  # most of them are proven within the playouts


def test_the_pie_swaps_a_strong_opening_and_balances_the_first_turn():
    # The centre of 5x5 is a strong first turn: White swaps it.
    state = after("c3", size="5")
    assert search_move(state, Limit(nodes=3000), seed=1).move == "swap"
    # Black's first turn with the pie is not the search's favourite (which White would
    # take over), and without the pie it is.
    with_pie = search_move(after("", size="5"), Limit(nodes=3000), seed=1)
    without = search_move(after("", size="5", pie="off"), Limit(nodes=3000), seed=1)
    assert with_pie.value is not None and without.value is not None
    assert abs(with_pie.value - 0.5) < abs(without.value - 0.5)


def test_play_is_deterministic_for_a_seed_under_a_playout_bound():
    state = after("e5 d5 e6", pie="off")
    first = [play(state, level, seed=9).move for level in (1, 2, 3)]
    again = [play(state, level, seed=9).move for level in (1, 2, 3)]
    assert first == again


def test_analysis_runs_to_its_limit_or_the_stop_event():
    state = after("e5 d5", pie="off")
    result = analyse(state, Limit(nodes=200))
    assert result.move in state.legal_moves() and result.nodes == 200
    stop = threading.Event()
    stop.set()
    result = analyse(state, Limit(time=30.0), stop=stop)
    assert result.move in state.legal_moves() and result.nodes == 1


@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_the_top_level_plays_proven_wins_on_small_boards(game_id):
    """Boards up to 5x5, from 16 empty cells on: a timed move of the top level asks the exact
    solver first.  Wherever the brute-force model says the mover wins, it plays a proven
    win, and the model agrees that the move keeps it; where the mover loses, the search
    answers (it fights on)."""
    top = max(levels_for(get_game(game_id)))
    won = lost = 0
    for back in (3, 4, 5):
        for state in brute.late_positions(game_id, 4, range(6), back):
            try:
                wins = brute.mover_wins(state, 20_000)
            except brute.OverBudget:
                continue
            result = play(state, top, Limit(time=1.0), seed=1)
            if not wins:
                assert result.info.get("search") != "exact solver"
                assert result.move in state.legal_moves()
                lost += 1
                continue
            assert result.proven == "win" and result.info["search"] == "exact solver"
            state.push(result.move)
            assert state.is_over() or not brute.mover_wins(state, 50_000), state.fen()
            won += 1
    assert won >= 8 and lost >= 2


def test_the_top_level_wins_4x4_from_the_start():
    """Without the pie the first player wins 4x4 with every first turn (docs/solved.md); the
    top level's first turn is one the plain reference solver proves won, and so are its
    turns after each of White's replies."""
    state = after("", size="4", pie="off")
    top = max(levels_for(state.game))
    # Generous limits: a move returns once the solver proves it (a tenth of a second or so
    # here), and the solver's half of the move must hold on a loaded machine too.
    first = play(state, top, Limit(time=10.0), seed=2)
    assert first.proven == "win"
    state.push(first.move)
    assert REFERENCE.solve(state, time_limit=60).value == "loss"
    for reply in state.legal_moves()[:4]:
        state.push(reply)
        answer = play(state, top, Limit(time=5.0), seed=3)
        assert answer.proven == "win"
        state.push(answer.move)
        assert state.is_over() or REFERENCE.solve(state, time_limit=60).value == "loss"
        state.pop()
        state.pop()


def test_the_top_level_leaves_a_lost_first_turn_to_the_search():
    # With the pie every first turn loses (White swaps or plays on): the search picks the
    # balanced one, as before.
    state = after("", size="4")
    result = play(state, max(levels_for(state.game)), Limit(time=0.5), seed=1)
    assert result.info.get("search") != "exact solver" and result.proven is None
    assert result.move in state.legal_moves()


def test_loading_the_searchs_kernels_loads_the_solvers_too():
    """A process that loads the kernels without the game's warm-up (the background load of
    a first timed move) has the exact solver's ready too: the top level asks it on small
    boards, and must not load it in the middle of a move."""
    code = (
        "from slimetrail.games.slither.ai import KERNELS\n"
        "from slimetrail.games.slither.solver import SEARCHES\n"
        "assert not SEARCHES.loaded.is_set()\n"
        "KERNELS.run()\n"
        "assert SEARCHES.loaded.is_set()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
