"""The compiled evaluation and search of the big Slime Trail boards against references.

The evaluation must equal :func:`slimetrail.games.trail.eval.evaluate` exactly; the legal
steps must be the game's own; the search's score at a fixed depth must equal a plain
minimax written here over the public State API with the reference evaluation.
"""

from __future__ import annotations

import random

import pytest

from slimetrail.ai.search import EVAL_SCALE, MATE
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game
from slimetrail.games.trail import search_kernel
from slimetrail.games.trail.eval import evaluate
from slimetrail.games.trail.search_kernel import KNOWN_WIN

PAIRS = [("slimetrail", size, rules) for size in ("9", "11") for rules in ("rastros", "taylor")] + [
    ("slimetrail-hex", size, rules) for size in ("10", "11") for rules in ("rastros", "taylor")
]


def random_positions(game, count: int, seed: int):
    """Positions with a legal move from random games (every ply of each game)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_state()
        while state.legal_moves() and len(found) < count:
            found.append(state.copy())
            state.push(rng.choice(state.legal_moves()))
    return found


@pytest.mark.parametrize(("game_id", "size", "rules"), PAIRS)
def test_compiled_evaluation_equals_the_reference(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    positions = random_positions(game, 400, seed=hash((size, rules, game_id)) % 1000)
    # Hand-made corners of the evaluation: next to either goal, and a walled-in snail.
    positions += [game.state_from_fen(fen) for fen in corner_fens(game.size)]
    for state in positions:
        assert search_kernel.evaluate(state) == evaluate(state), state.fen()


def corner_fens(n: int) -> list[str]:
    """The snail next to the bottom-left corner (a1), or walled in by slime in the middle."""
    near_a1 = "/".join([str(n)] * (n - 2) + ["1o" + (str(n - 2) if n > 2 else ""), str(n)])
    walled = [str(n)] * n
    mid = n // 2
    walled[mid - 1] = f"{mid - 1}xxx{n - mid - 2}"
    walled[mid] = f"{mid - 1}xox{n - mid - 2}"
    walled[mid + 1] = f"{mid - 1}xxx{n - mid - 2}"
    return [f"{near_a1} 1", f"{near_a1} 2", f"{'/'.join(walled)} 1", f"{'/'.join(walled)} 2"]


@pytest.mark.parametrize(("game_id", "size", "rules"), PAIRS)
def test_compiled_legal_steps_are_the_games(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    c = search_kernel.compiled(game)
    for state in random_positions(game, 300, seed=5):
        lo, hi = c.words(state.free)
        st_lo, st_hi = search_kernel.legal_steps(
            lo, hi, c.dense[state.snail], c.nbr, c.goals, c.taylor
        )
        dense = int(st_lo) | int(st_hi) << 64
        steps = sorted(c.board_of[k] for k in range(len(c.board_of)) if dense >> k & 1)
        assert steps == sorted(state.legal_moves()), state.fen()


def goals_in_reach(state) -> set[int]:
    """The goal corners a walk from the snail through free non-goal cells can enter."""
    game, neighbours = state.game, state.game.board.neighbours
    goals = {game.goals[1], game.goals[2]}
    seen, todo, found = {state.snail}, [state.snail], set()
    while todo:
        cell = todo.pop()
        for other in range(len(neighbours)):
            if neighbours[cell] >> other & 1 and state.free >> other & 1 and other not in seen:
                seen.add(other)
                if other in goals:
                    found.add(other)
                else:
                    todo.append(other)
    return found


def minimax(state, depth: int, ply: int) -> int:
    """Plain depth-limited negamax with the kernel's conventions: a step into the mover's
    own goal scores MATE - ply - 1 wherever it is seen, a step into the other goal loses;
    under Taylor's rules the owner of the only goal left in reach has a known win."""
    game = state.game
    me = state.to_move
    moves = state.legal_moves()
    if not moves:
        return 0 if game.rules == "taylor" else -(MATE - ply)
    if game.goals[me] in moves:
        return MATE - ply - 1
    if game.rules == "taylor":
        reach = goals_in_reach(state)
        if (game.goals[me] in reach) != (game.goals[3 - me] in reach):
            return KNOWN_WIN if game.goals[me] in reach else -KNOWN_WIN
    if depth == 0:
        return round(evaluate(state) * EVAL_SCALE)
    best = -(MATE + 1)
    for move in moves:
        if move == game.goals[3 - me]:
            score = -(MATE - ply - 1)
        else:
            state.push(move)
            score = -minimax(state, depth - 1, ply + 1)
            state.pop()
        best = max(best, score)
    return best


@pytest.mark.parametrize(("game_id", "size", "rules"), PAIRS[::3] + PAIRS[1::6])
def test_compiled_search_scores_equal_plain_minimax(game_id, size, rules):
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(11)
    positions = random_positions(game, 600, seed=9)
    for state in rng.sample(positions, 25):
        for depth in (1, 2, 3):
            search_kernel.clear_table()
            found = search_kernel.search(state, 60.0, max_depth=depth)
            expected = minimax(state.copy(), depth, 0)
            assert found.score == expected, (state.fen(), depth)
            assert found.move in state.legal_moves()
            state.push(found.move)  # the move reported is one of those with the best score
            if state.outcome() is None:
                assert -minimax(state, depth - 1, 1) == expected
            state.pop()


def test_search_takes_a_win_in_one_and_never_steps_next_to_the_other_goal():
    game = get_game("slimetrail", size="9")
    # Snail on b2 (player 1 to move): a1 wins at once.
    state = game.state_from_fen("9/9/9/9/9/9/9/1o7/9 1")
    found = search_kernel.search(state, 5.0)
    assert state.move_str(found.move) == "a1" and found.score == MATE - 1
    # Snail on h7, player 1 to move: any step next to i9 (h8, i8) lets player 2 in.
    state = game.state_from_fen("9/9/7o1/9/9/9/9/9/9 1")
    found = search_kernel.search(state, 0.3)
    assert state.move_str(found.move) not in ("h8", "i8")


def test_boards_beyond_128_cells_are_refused():
    with pytest.raises(GameError, match="128 cells"):
        search_kernel.compiled(get_game("slimetrail", size="13"))
