"""The Slime-Moku computer players: the gap masks and the search's proven values checked
against the independent model (moku_model.py), and the levels' behaviour through the public
``slimetrail.ai`` entry points."""

from __future__ import annotations

import random
import threading

import pytest
from moku_model import Model, from_fen, minimax, name

from slimetrail.ai import Limit, analyse, ladder_for, levels_for, play
from slimetrail.core.bits import cells_of
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game
from slimetrail.games.moku.ai import LADDER, TREE_KERNELS, MokuSearch, row_gaps

VALUES = {"win": 1, "draw": 0, "loss": -1}
CORNER = "2xxx1/1@4/x5/x5/xo1o2/oo1o1o 1"  # Black walks into a6: both its neighbours win


@pytest.fixture(autouse=True, scope="module")
def top_level_loaded() -> None:
    """The top level's kernels loaded, as a server or engine does before its first move: a
    timed move of a process that has not loaded them is the alpha-beta's (test_time_limits)."""
    TREE_KERNELS.run()


def random_state(game, plies: int, seed: int):
    rng, state = random.Random(seed), game.new_state()
    while len(state.move_stack) < plies and not state.is_over():
        state.push(rng.choice(state.legal_moves()))
    return state


def model_gaps(model: Model, colour: str) -> set[str]:
    """The empty cells where a stone of ``colour`` makes a row, by brute force."""
    out = set()
    for cell in model.empty_cells():
        model.stones[cell] = colour
        if model.has_row(colour):
            out.add(name(cell))
        del model.stones[cell]
    return out


@pytest.mark.parametrize(("n", "k"), [(6, 4), (9, 5), (15, 5)])
def test_row_gaps_match_brute_force(n: int, k: int) -> None:
    game = get_game("slime-moku", size=n, k=k)
    board = game.board
    checked = 0
    for seed in range(40):
        state = random_state(game, random.Random(seed).randrange(4, n * n // 2), seed)
        if state.is_over():
            continue
        model = from_fen(n, k, state.fen())
        for colour, own, other in (
            ("B", state.black, state.white),
            ("W", state.white, state.black),
        ):
            if model.has_row(colour):
                continue
            got = {board.name(c) for c in cells_of(row_gaps(board, own, other | 1 << state.slime))}
            assert got == model_gaps(model, colour), state.fen()
            checked += bool(got)
    assert checked >= 5


@pytest.mark.parametrize(("n", "games"), [(4, 30), (5, 10)])
def test_search_values_match_brute_force_near_the_end(n: int, games: int) -> None:
    game = get_game("slime-moku", size=n, k=4)
    rng = random.Random(20 + n)
    seen = {"win": 0, "draw": 0, "loss": 0}
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if state.empty.bit_count() <= 7 and len(state.legal_moves()) > 1:
                model = from_fen(n, 4, state.fen())
                exact = minimax(model.copy())
                result = MokuSearch(game.board, threat_depth=3).root(state)
                # The chosen move keeps the exact value, and a proof agrees with the model.
                child = model.copy()
                child.play(next(c for c in child.legal() if name(c) == state.move_str(result.move)))
                assert -minimax(child) == exact, state.fen()
                if result.proven is not None:
                    assert VALUES[result.proven] == exact, state.fen()
                    seen[result.proven] += 1
            state.push(rng.choice(state.legal_moves()))
    assert all(seen.values()), seen


def test_the_ladder_is_the_games_own() -> None:
    game = get_game("slime-moku")
    assert ladder_for(game) is LADDER
    assert list(levels_for(game)) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("level", [2, 3, 4, 5, 6])
def test_every_level_but_the_first_takes_a_forced_win(level: int) -> None:
    state = get_game("slime-moku", size=6, k=4).state_from_fen(CORNER)
    result = play(state, level, Limit(time=5.0), seed=1)
    assert state.fen() == CORNER
    state.push(result.move)
    # Every reply of White lets Black write a row.
    for reply in state.legal_moves():
        state.push(reply)
        assert any(_wins(state, move) for move in state.legal_moves()), state.fen()
        state.pop()


def _wins(state, move) -> bool:
    mover = state.to_move
    state.push(move)
    won = state.outcome() is not None and state.outcome().winner == mover
    state.pop()
    return won


def test_a_stuck_slime_is_never_lifted_onto_the_opponents_gap() -> None:
    # Black's slime on a1 is stuck (a2 b1 b2 taken); White's open four c5-f5 wins on b5 or g5.
    game = get_game("slime-moku", size=9)
    fen = "7x1/9/9/9/2oooo3/9/9/xx7/@x7 1"
    state = game.state_from_fen(fen)
    assert state.is_stuck()
    for level in range(1, 7):
        move = play(state, level, Limit(time=2.0), seed=level).move
        assert move in state.legal_moves()
        assert state.move_str(move) not in ("b5", "g5"), level
    assert state.fen() == fen


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_levels_are_deterministic_for_a_seed(level: int) -> None:
    state = random_state(get_game("slime-moku"), 12, 5)
    fen = state.fen()
    first = play(state, level, Limit(time=30.0), seed=3).move
    assert play(state, level, Limit(time=30.0), seed=3).move == first
    assert first in state.legal_moves() and state.fen() == fen


def test_stronger_levels_beat_the_beginner() -> None:
    # A few games on 9x9 (the full tables are bench/moku_strength.py's).
    game = get_game("slime-moku", size=9)
    for number in range(2):
        strong = 1 + number % 2
        state = random_state(game, 2, number)
        while not state.is_over():
            level = 3 if state.to_move == strong else 1
            state.push(play(state, level, Limit(time=5.0), seed=number).move)
        assert state.outcome().winner == strong, state.fen()


def test_analyse_honours_depth_and_stop() -> None:
    state = random_state(get_game("slime-moku"), 10, 2)
    seen = []
    result = analyse(state, Limit(depth=3), on_info=seen.append)
    assert result.depth == 3 and [r.depth for r in seen] == [1, 2, 3]
    assert result.move in state.legal_moves()
    stop = threading.Event()
    stop.set()
    stopped = analyse(state, Limit(), stop=stop)
    assert stopped.move in state.legal_moves()
    with pytest.raises(GameError):
        analyse(state, Limit())
