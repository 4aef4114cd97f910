"""The compiled kernel against the Python rules (themselves checked against the model):
the same legal turns, wins in one found exactly when a legal turn wins, and playouts whose
recorded turns replay legally in the engine to the result the kernel reported."""

from __future__ import annotations

import random
from typing import cast

import numpy as np
import pytest

from slimetrail.core.registry import get_game
from slimetrail.games.slither import kernel
from slimetrail.games.slither.board import get_board
from slimetrail.games.slither.game import SlitherState

GAMES = ("slither", "slither-advanced")


def random_positions(game_id: str, n: int, seed: int, count: int) -> list[SlitherState]:
    """Positions of random games (swaps included), every few plies, ongoing ones only."""
    rng = random.Random(seed)
    found: list[SlitherState] = []
    while len(found) < count:
        state = cast(SlitherState, get_game(game_id, size=n).new_state())
        while not state.is_over() and len(found) < count:
            if rng.random() < 0.4:
                found.append(state.copy())
            state.push(rng.choice(state.legal_moves()))
    return found


def kernel_turns(state: SlitherState) -> list[str]:
    n = state.game.size
    layout = kernel.layout(n)
    grid = layout.grid(*state.stones)
    out = np.empty((8 * n**4 + n * n, 3), dtype=np.int64)
    count = kernel.list_turns(grid, n, state.colour + 1, state.game.advanced, out)
    assert (grid == layout.grid(*state.stones)).all()  # the grid is left as it was
    return [state.move_str(layout.move(*out[i])) for i in range(count)]


def engine_turns(state: SlitherState) -> list[str]:
    return [m for m in state.legal_move_strs() if m not in ("swap", "pass")]


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize(("n", "seed"), [(4, 1), (5, 2), (7, 3), (9, 4)])
def test_kernel_lists_the_engines_turns(game_id, n, seed):
    for state in random_positions(game_id, n, seed, 12):
        turns = kernel_turns(state)
        assert len(turns) == len(set(turns))  # one row per resulting board
        assert sorted(turns) == sorted(engine_turns(state))


def test_steps_are_listed_where_the_engine_lists_them():
    state = get_game("slither", size="5").new_state()
    for text in ("a1", "e5", "b1", "e4", "b2", "d5"):
        state.push_str(text)
    turns = kernel_turns(state)
    assert sorted(turns) == sorted(engine_turns(state))
    assert "a1-a2/c2" in turns and "b2-c1/d1" in turns
    assert "b1-c1/d1" not in turns  # a1 and b2 would stand diagonally, unsupported


def winning_moves(state: SlitherState) -> set[str]:
    mover = state.to_move
    wins = set()
    for move in state.legal_moves():
        state.push(move)
        outcome = state.outcome()
        state.pop()
        if outcome is not None and outcome.winner == mover:
            wins.add(state.move_str(move))
    return wins


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize(("n", "seed"), [(4, 5), (5, 6), (6, 7)])
def test_a_win_in_one_is_found_exactly_when_there_is_one(game_id, n, seed):
    layout = kernel.layout(n)
    seen_win = 0
    for state in random_positions(game_id, n, seed, 40):
        out = np.empty(3, dtype=np.int64)
        grid = layout.grid(*state.stones)
        found = kernel.winning_turn(grid, n, state.colour + 1, state.game.advanced, out)
        wins = winning_moves(state)
        assert found == bool(wins)
        if found:
            seen_win += 1
            assert state.move_str(layout.move(*out)) in wins
    assert seen_win  # the positions include some with a win in one


def test_a_win_that_needs_a_step_is_found():
    # Black a1 a2 b4: a3 alone breaks the diagonal rule with b4, but stepping b4 to a3 or
    # a4 and placing on the other connects the a-file.
    state = get_game("slither", size="4", pie="off").new_state()
    for text in ("a1", "d1", "a2", "d2", "b4", "d3"):
        state.push_str(text)
    assert "a3" not in state.legal_move_strs()
    layout = kernel.layout(4)
    out = np.empty(3, dtype=np.int64)
    grid = layout.grid(*state.stones)
    assert kernel.winning_turn(grid, 4, 1, False, out)
    assert state.move_str(layout.move(*out)) == "b4-a3/a4"
    assert winning_moves(state) == {"b4-a3/a4"}


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize(("n", "seed"), [(4, 8), (5, 9), (7, 10), (9, 11)])
def test_playouts_replay_legally_to_the_reported_winner(game_id, n, seed):
    layout = kernel.layout(n)
    rng = kernel.seed_array(seed)
    for state in random_positions(game_id, n, seed, 6):
        if state.swap_available():
            state.push("swap")  # playouts never swap; a swap leaves White's turn as well
            state.pop()
        grid = layout.grid(*state.stones)
        record = np.empty((4 * n * n, 3), dtype=np.int64)
        winner, played = kernel.playout(grid, n, state.colour + 1, state.game.advanced, rng, record)
        assert winner in (1, 2) and 0 < played <= record.shape[0]
        replay = state.copy()
        for s, t, p in record[:played]:
            assert not replay.is_over()
            if p < 0:
                assert replay.legal_moves() == ["pass"]
                replay.push("pass")
            else:
                replay.push(layout.move(s, t, p))  # raises if the kernel's turn is illegal
        outcome = replay.outcome()
        assert outcome is not None
        assert outcome.winner == replay.player_of(winner - 1)
        # the grid the playout leaves is the engine's final board
        assert (grid == layout.grid(*replay.stones)).all()


@pytest.mark.parametrize("game_id", GAMES)
def test_state_playout_ends_the_game_and_leaves_the_state(game_id):
    rng = random.Random(3)
    for state in random_positions(game_id, 9, 12, 5):
        before = (state.fen(), state.move_stack)
        winners = {state.playout(rng).winner for _ in range(20)}
        assert winners <= {1, 2} and winners
        assert (state.fen(), state.move_stack) == before


def test_playouts_follow_the_seed():
    state = get_game("slither", size="7").new_state()
    one = [state.playout(random.Random(5)).winner for _ in range(3)]
    two = [state.playout(random.Random(5)).winner for _ in range(3)]
    assert one == two
    results = {state.playout(random.Random(seed)).winner for seed in range(20)}
    assert results == {1, 2}


@pytest.mark.parametrize("n", [4, 5, 6, 7])  # up to 6x6 a padded grid fits one word; 7x7 not
def test_the_connection_distance_agrees_with_the_engines_and_the_queues(n):
    # Random stones, legal or not: the distance only reads which cells hold what.
    board = get_board(n)
    layout = kernel.layout(n)
    rng = random.Random(n)
    cells = [layout.from_grid[q] for q in range(len(layout.from_grid)) if layout.from_grid[q] >= 0]
    for _ in range(300):
        fill = rng.random()
        black = white = 0
        for cell in cells:
            if rng.random() < fill:
                if rng.random() < 0.5:
                    black |= 1 << int(cell)
                else:
                    white |= 1 << int(cell)
        grid = layout.grid(black, white)
        for colour, own, other in ((0, black, white), (1, white, black)):
            engine = board.distance(own, other, colour)
            for limit in (0, 2, n * n):
                expected = limit + 1 if engine is None or engine > limit else engine
                assert kernel.distance(grid, n, colour + 1, limit) == expected
                assert kernel.distance_by_queue(grid, n, colour + 1, limit) == expected
