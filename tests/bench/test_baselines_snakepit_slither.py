"""The compiled plain-UCT baselines of Snake Pit and Slither (bench/baselines) against the
games' own rules: move counts (perft), random playouts replayed through ``State``, legal
chosen moves, a won-in-1 taken, and the time a move takes."""

from __future__ import annotations

import math
import random
import time
from collections import Counter

import numpy as np
import pytest

from bench.baselines import slither, snakepit
from slimetrail.core.registry import get_game


def random_position(game, plies: int, seed: int):
    """The position after ``plies`` random moves (fewer if the game ends first)."""
    state, rng = game.new_state(), random.Random(seed)
    for _ in range(plies):
        if state.is_over():
            break
        state.push(rng.choice(state.legal_moves()))
    return state


def assert_uniform(draws: list[str], legal: list[str]) -> None:
    """Every draw legal, every legal move drawn, and the counts no further from uniform than
    chance allows (chi-square within six standard deviations of its mean)."""
    counts = Counter(draws)
    assert set(counts) == set(legal)
    expected = len(draws) / len(legal)
    chi_square = sum((counts[m] - expected) ** 2 / expected for m in legal)
    freedom = len(legal) - 1
    assert chi_square < freedom + 6 * math.sqrt(2 * freedom)


# -- Snake Pit -----------------------------------------------------------------------------

# Red to move; one of its 11 turns puts Green and Blue out at once.
SNAKE_PIT_WIN_IN_1 = (
    "c5,c8,i8,j6/b1,b8,b9,c2,c3,c4,c9,c10,d4,i9,j9,k5,k6,k10,k11,k12,l5,l6,l13 "
    "a3,f10,i6,k8/a1,a2,b2,b3,b4,d10,d11,e10,e11,e12,i2,i3,i5,j4,j5,j8,k9,l10,l11,m12 "
    "a4,f13,h5,h7/a7,b5,b6,b7,f12,g1,g3,g12,g13,h2,h3,h4,i7,j7,k7,l7,l8,m7 3 3 -"
)


def snake_pit_perft(state, depth: int) -> int:
    scratch, steps = np.zeros(snakepit.SCRATCH, np.int64), np.zeros((3, 2), np.int64)
    return snakepit.perft(snakepit.pack_state(state), depth, scratch, steps)


def snake_pit_position(st) -> tuple:
    """The free cells, each player's snakes (in any slot order) and the scalars."""
    snakes = st[snakepit.SNAKES : snakepit.MOVER].reshape(3, 4)
    return (
        st[: snakepit.SNAKES].tolist(),
        [sorted(row) for row in snakes.tolist()],
        st[snakepit.MOVER :].tolist(),
    )


@pytest.mark.parametrize("plies", [0, 1, 2, 5, 9, 14])
def test_snake_pit_perft_agrees_with_the_game(plies):
    state = random_position(get_game("snake-pit"), plies, seed=plies)
    assert snake_pit_perft(state, 2) == state.perft(2)


def test_snake_pit_perft_agrees_near_the_end_with_players_out():
    game = get_game("snake-pit")
    checked = 0
    for seed in range(40):
        state = random_position(game, 60, seed)
        while state.move_stack and (state.is_over() or not state.out):
            state.pop()
        if state.out and not state.is_over():
            assert snake_pit_perft(state, 2) == state.perft(2), state.fen()
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("seed", range(12))
def test_snake_pit_playouts_replay_through_the_game(seed):
    game = get_game("snake-pit")
    state = random_position(game, seed % 4, seed)
    st = snakepit.pack_state(state)
    record = np.zeros(200, np.int64)
    rng = np.array([seed + 1], np.uint64)
    scratch, steps = np.zeros(snakepit.SCRATCH, np.int64), np.zeros((3, 2), np.int64)
    played = snakepit.playout(st, rng, scratch, steps, record)
    for code in record[:played]:
        state.push(state.parse_move(snakepit.move_text(int(code))))
    returns = np.zeros(3)
    snakepit.returns(st, returns)
    assert state.is_over()
    assert tuple(returns) == state.outcome().returns()
    assert snake_pit_position(snakepit.pack_state(state)) == snake_pit_position(st)


@pytest.mark.parametrize("plies", [1, 12])
def test_snake_pit_playout_turns_are_uniform(plies):
    state = random_position(get_game("snake-pit"), plies, seed=5)
    legal = [state.move_str(m) for m in state.legal_moves()]
    st = snakepit.pack_state(state)
    rng = np.array([7], np.uint64)
    scratch, steps = np.zeros(snakepit.SCRATCH, np.int64), np.zeros((3, 2), np.int64)
    draws = [
        state.move_str(
            state.parse_move(snakepit.move_text(snakepit.random_turn(st, rng, scratch, steps)))
        )
        for _ in range(100 * len(legal))
    ]
    assert_uniform(draws, legal)


def test_snake_pit_baseline_plays_a_legal_move_in_its_time():
    game = get_game("snake-pit")
    baseline = snakepit.make_baseline(game)
    for plies in (0, 1, 7):
        state = random_position(game, plies, seed=plies)
        fen = state.fen()
        started = time.perf_counter()
        move, playouts = baseline.choose(state, 0.2, seed=plies)
        assert time.perf_counter() - started < 0.2 + 0.3  # generous: a loaded test machine
        assert state.fen() == fen
        assert move in state.legal_moves()
        assert playouts > 0


def test_snake_pit_baseline_runs_exactly_a_playout_budget():
    game = get_game("snake-pit")
    baseline = snakepit.make_baseline(game)
    state = random_position(game, 5, seed=2)
    fen = state.fen()
    move, playouts = baseline.choose_playouts(state, 1234, seed=3)
    assert playouts == 1234 and move in state.legal_moves() and state.fen() == fen
    assert baseline.choose_playouts(state, 1234, seed=3) == (move, 1234)  # seeded


def test_snake_pit_baseline_takes_a_win_in_1():
    game = get_game("snake-pit")
    state = game.state_from_fen(SNAKE_PIT_WIN_IN_1)
    mover = state.to_move
    assert len(state.legal_moves()) == 11
    move, _ = snakepit.make_baseline(game).choose(state, 0.3, seed=1)
    state.push(move)
    assert state.is_over() and state.outcome().winner == mover


def test_snake_pit_baseline_refuses_other_games():
    with pytest.raises(ValueError, match="snake-pit"):
        snakepit.make_baseline(get_game("slither"))


# -- Slither -------------------------------------------------------------------------------

SLITHER_GAMES = [
    ("slither", 5, "on"),
    ("slither", 5, "off"),
    ("slither", 7, "on"),
    ("slither", 7, "off"),
    ("slither-advanced", 5, "on"),
    ("slither-advanced", 7, "off"),
]


def slither_perft(state, depth: int) -> int:
    st = slither.pack_state(state)
    geo = slither.geometry(int(st[slither.SIZE_N]))
    scratch = np.zeros(slither.scratch_size(int(st[slither.CELLS])), np.int64)
    advanced = state.game.id == "slither-advanced"
    return slither.perft(st, depth, geo, advanced, scratch)


@pytest.mark.parametrize(("game_id", "size", "pie"), SLITHER_GAMES)
@pytest.mark.parametrize("plies", [0, 1, 2, 8, 16])
def test_slither_perft_agrees_with_the_game(game_id, size, pie, plies):
    state = random_position(get_game(game_id, size=str(size), pie=pie), plies, seed=plies)
    if state.is_over():
        state.pop()
    depth = 3 if size == 5 and plies < 2 else 2  # the first turns: through the pie's swap
    assert slither_perft(state, depth) == state.perft(depth)


@pytest.mark.parametrize(("game_id", "size", "pie"), SLITHER_GAMES)
def test_slither_playouts_replay_through_the_game(game_id, size, pie):
    game = get_game(game_id, size=str(size), pie=pie)
    advanced = game_id == "slither-advanced"
    geo = slither.geometry(size)
    for seed in range(8):
        state = random_position(game, seed % 3, seed)
        st = slither.pack_state(state)
        record = np.zeros(4 * size * size, np.int64)
        scratch = np.zeros(slither.scratch_size(size * size), np.int64)
        rng = np.array([seed + 1], np.uint64)
        played = slither.playout(st, rng, geo, advanced, scratch, record)
        for code in record[:played]:
            state.push(state.parse_move(slither.move_text(int(code), size)))
        returns = np.zeros(2)
        slither.returns(st, returns)
        assert state.is_over()
        assert tuple(returns) == state.outcome().returns()
        # the board and the header (the lists of cells are in another order)
        cells = slither.BOARD + size * size
        assert slither.pack_state(state)[:cells].tolist() == st[:cells].tolist()


@pytest.mark.parametrize(
    ("game_id", "pie", "plies"),
    [("slither", "on", 1), ("slither", "off", 6), ("slither-advanced", "on", 12)],
)
def test_slither_playout_moves_are_uniform(game_id, pie, plies):
    """Through the pie's swap (after one turn), steps and Advanced's movable stones."""
    state = random_position(get_game(game_id, size="5", pie=pie), plies, seed=4)
    legal = [state.move_str(m) for m in state.legal_moves()]
    st = slither.pack_state(state)
    geo = slither.geometry(5)
    scratch = np.zeros(slither.scratch_size(25), np.int64)
    rng = np.array([9], np.uint64)
    advanced = game_id == "slither-advanced"
    draws = []
    for _ in range(100 * len(legal)):
        code = slither.random_turn(st, rng, geo, advanced, scratch)
        draws.append(state.move_str(state.parse_move(slither.move_text(int(code), 5))))
    assert_uniform(draws, legal)


@pytest.mark.parametrize(("game_id", "size", "pie"), SLITHER_GAMES)
def test_slither_baseline_plays_a_legal_move_in_its_time(game_id, size, pie):
    game = get_game(game_id, size=str(size), pie=pie)
    baseline = slither.make_baseline(game)
    for plies in (0, 1, 9):
        state = random_position(game, plies, seed=plies)
        if state.is_over():
            state.pop()
        fen = state.fen()
        started = time.perf_counter()
        move, playouts = baseline.choose(state, 0.1, seed=plies)
        assert time.perf_counter() - started < 0.1 + 0.3  # generous: a loaded test machine
        assert state.fen() == fen
        assert move in state.legal_moves()
        assert playouts > 0


@pytest.mark.parametrize(
    ("game_id", "pie", "fen", "win"),
    [
        ("slither", "off", "ox2o/xxo2/xxoox/o3x/3o1 b - 14", "a3-b2/b1"),
        ("slither-advanced", "on", "oxo1o/xxxxo/oooxx/x1xxx/1o1oo w - 21", "c3-b2/c1"),
    ],
)
def test_slither_baseline_takes_the_only_win_in_1(game_id, pie, fen, win):
    game = get_game(game_id, size="5", pie=pie)
    state = game.state_from_fen(fen)
    move, _ = slither.make_baseline(game).choose(state, 0.3, seed=2)
    assert state.move_str(move) == win


def test_slither_baseline_refuses_other_games():
    with pytest.raises(ValueError, match="slither"):
        slither.make_baseline(get_game("snake-pit"))
