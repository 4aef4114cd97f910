"""The search, the trail evaluator and the strength levels."""

from __future__ import annotations

import random
import threading
import time
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slimetrail.ai import MATE, Limit, choose_move, levels_for, search
from slimetrail.ai.search import mate_in
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game
from slimetrail.games.trail.eval import LOST_NOW, WIN_NOW

LEVELS = levels_for(get_game("slimetrail"))  # the Slime Trail games' ladder
MAX_LEVEL = max(LEVELS)


def brute(state) -> tuple[str, int]:
    """Exact value for the side to move and game length under best play (win fast, lose slow)."""

    @cache
    def solve(fen: str) -> tuple[str, int]:
        position = state.game.state_from_fen(fen)
        moves = position.legal_moves()
        if not moves:
            outcome = position.outcome()
            return outcome.for_player(position.to_move), 0
        best: tuple[int, int] | None = None  # (rank, plies): rank 2 win, 1 draw, 0 loss
        for move in moves:
            position.push(move)
            value, plies = solve(position.fen())
            position.pop()
            rank = {"loss": 2, "draw": 1, "win": 0}[value]
            candidate = (rank, -(plies + 1) if rank == 2 else plies + 1)
            if best is None or candidate > best:
                best = candidate
        assert best is not None
        rank, plies = best
        return ["loss", "draw", "win"][rank], abs(plies)

    return solve(state.fen())


def random_position(game, plies: int, seed: int):
    rng = random.Random(seed)
    state = game.new_state()
    for _ in range(plies):
        moves = state.legal_moves()
        if not moves:
            break
        state.push(rng.choice(moves))
    return state


def test_mate_in_one_is_found_and_reported():
    game = get_game("slimetrail")
    state = game.new_state()
    for text in ("c3", "b2"):  # player 1 to move next to their own corner a1
        state.push_str(text)
    result = search(state, Limit(depth=6))
    assert state.move_str(result.move) == "a1"
    assert result.mate == 1
    assert result.score == MATE - 1


# Snail on b3, player 2 to move; a3, a4, b4, c3, c4 slimed.  a2 and b2 touch a1, so a
# step there lets player 1 step into their corner.
POISON_FEN = "7/7/7/xxx4/xox4/7/7 2"


def test_poison_cell_is_avoided_at_depth_one():
    state = get_game("slimetrail").state_from_fen(POISON_FEN)
    assert sorted(state.legal_move_strs()) == ["a2", "b2", "c2"]
    assert state.move_str(search(state, Limit(depth=1)).move) == "c2"


def test_every_step_poison_is_a_mate_against_the_mover():
    state = get_game("slimetrail").state_from_fen(POISON_FEN.replace("/7/7 2", "/2x4/7 2"))
    assert sorted(state.legal_move_strs()) == ["a2", "b2"]
    assert state.evaluate() == LOST_NOW
    result = search(state, Limit(depth=4))
    assert result.mate == -1
    assert mate_in(result.score) == -1


def test_evaluate_sees_own_goal_next_to_the_snail():
    state = get_game("slimetrail").new_state()
    state.push_str("c3")
    state.push_str("b2")
    assert state.evaluate() == WIN_NOW


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(8, 14))
def test_search_agrees_with_brute_force_on_5x5(seed, plies):
    game = get_game("slimetrail", size=5)
    state = random_position(game, plies, seed)
    if state.is_over():
        return
    value, length = brute(state)
    result = search(state)
    assert result.proven is not None
    if value == "win":
        assert result.mate == (length + 1) // 2
        check = state.copy()
        check.push(result.move)
        assert brute(check) == ("loss", length - 1)
    else:
        assert value == "loss"  # Rastros rules have no draws
        # The loser's own moves, counting a forced step into the other goal.
        assert result.mate == -((length + 1) // 2)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(6, 12))
def test_search_is_draw_aware_under_taylor_rules(seed, plies):
    game = get_game("slimetrail-square", size=5)
    state = random_position(game, plies, seed)
    if state.is_over():
        return
    value, _ = brute(state)
    result = search(state)
    expected = {"win": 1, "loss": -1, "draw": 0}[value]
    got = 0 if result.mate is None else (1 if result.mate > 0 else -1)
    assert result.proven is not None
    assert got == expected
    if value == "draw":
        assert result.score == 0


def test_search_leaves_the_state_alone_and_reports_each_depth():
    state = get_game("slimetrail").new_state()
    state.push_str("e5")
    fen, stack = state.fen(), list(state.move_stack)
    infos = []
    result = search(state, Limit(depth=4), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4]
    assert result.depth == 4 and result.move in state.legal_moves()
    assert result.pv[0] == result.move
    assert state.fen() == fen and state.move_stack == stack


def test_search_limits():
    state = get_game("slimetrail", size=9).new_state()
    limited = search(state, Limit(nodes=500))
    assert limited.nodes <= 500 and limited.move in state.legal_moves()
    stop = threading.Event()
    stop.set()
    stopped = search(state, stop=stop)
    assert stopped.move in state.legal_moves() and stopped.depth <= 1
    started = time.perf_counter()
    timed = search(state, Limit(time=0.2))
    assert time.perf_counter() - started < 1.5  # a hard cap, with slack for a busy machine
    assert timed.depth >= 1
    with pytest.raises(ValueError, match="depth"):
        search(state, Limit(depth=0))


def test_search_on_the_hex_board():
    state = get_game("slimetrail-hex", size=6).new_state()
    result = search(state, Limit(depth=3))
    assert result.move in state.legal_moves()


def test_game_over_has_no_best_move():
    state = get_game("slimetrail").new_state()
    for text in ("c3", "b2", "a1"):
        state.push_str(text)
    assert search(state, Limit(depth=2)).move is None
    with pytest.raises(GameError, match="over"):
        choose_move(state, 1)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_every_level_plays_legal_deterministic_moves(level):
    state = get_game("slimetrail", size=5).new_state()
    for text in ("b4", "c5", "d4"):
        state.push_str(text)
    fen = state.fen()
    # Levels are bounded by node counts; a generous cap keeps the clock out of the result.
    first = choose_move(state, level, seed=7, time_limit=30)
    assert first in state.legal_moves()
    assert choose_move(state, level, seed=7, time_limit=30) == first
    assert state.fen() == fen


def test_levels_are_described_and_bad_levels_rejected():
    assert sorted(LEVELS) == list(range(1, MAX_LEVEL + 1))
    assert all(isinstance(text, str) and text for text in LEVELS.values())
    state = get_game("slimetrail").new_state()
    for bad in (0, MAX_LEVEL + 1, "3", True):
        with pytest.raises(GameError, match="level"):
            choose_move(state, bad)
    with pytest.raises(GameError, match="time_limit"):
        choose_move(state, 1, time_limit=0)


def test_beginner_takes_a_win_and_never_steps_into_the_opponent_goal():
    game = get_game("slimetrail")
    state = game.new_state()
    state.push_str("c3")
    state.push_str("b2")
    for seed in range(10):
        assert state.move_str(choose_move(state, 1, seed=seed)) == "a1"
    state = game.new_state()
    for text in ("c3", "c2", "b2"):  # player 2 to move next to player 1's corner
        state.push_str(text)
    assert "a1" in state.legal_move_strs()
    chosen = {state.move_str(choose_move(state, 1, seed=seed)) for seed in range(20)}
    assert "a1" not in chosen and len(chosen) >= 2


def test_beginner_varies_its_moves():
    state = get_game("slimetrail").new_state()
    chosen = {choose_move(state, 1, seed=seed) for seed in range(20)}
    assert len(chosen) >= 3


def test_stronger_level_beats_the_beginner():
    game = get_game("slimetrail")
    wins = 0
    for i in range(4):
        state = random_position(game, 1, i)
        strong = 1 + i % 2
        while not state.is_over():
            level = 4 if state.to_move == strong else 1
            state.push(choose_move(state, level, seed=i))
        wins += state.outcome().winner == strong
    assert wins >= 3


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(7, 12))
def test_top_level_wins_fastest_and_loses_slowest(seed, plies):
    game = get_game("slimetrail", size=5)
    state = random_position(game, plies, seed)
    if state.is_over() or len(state.legal_moves()) < 2:
        return
    value, length = brute(state)
    move = choose_move(state, MAX_LEVEL, time_limit=20, seed=seed)
    state.push(move)
    expected = {"win": "loss", "loss": "win", "draw": "draw"}[value]
    assert brute(state) == (expected, length - 1)
