"""Snake Pit's computer players: the ladder, legal answers, the evaluation, wins in one."""

from __future__ import annotations

import random

import numpy as np
import pytest

from slimetrail.ai import Ladder, Limit, analyse, levels_for, play
from slimetrail.core.game import GameError
from slimetrail.games.snakepit import ai, board, kernel
from slimetrail.games.snakepit.ai import KERNELS
from slimetrail.games.snakepit.game import SnakePitGame, SnakePitState


@pytest.fixture(autouse=True, scope="module")
def loaded_kernels() -> None:
    """Loaded before the first move, as a server or the UGI engine does: until then a timed
    move is a random one (see tests/ai/test_time_limits.py)."""
    KERNELS.run()


GAME = SnakePitGame()
FAST = Limit(nodes=40)  # iterations, not the clock, bound the MCTS: deterministic


def random_state(seed: int, plies: int) -> SnakePitState:
    rng = random.Random(seed)
    state = GAME.new_state()
    for _ in range(plies):
        if state.is_over():
            break
        state.push(rng.choice(state.legal_moves()))
    return state


def positions() -> list[SnakePitState]:
    """The start, early and late positions, and one with a player out."""
    found = [GAME.new_state(), random_state(1, 1), random_state(2, 6), random_state(3, 14)]
    rng = random.Random(4)
    state = GAME.new_state()
    while not state.out:
        state.push(rng.choice(state.legal_moves()))
    return [*found, state] if not state.is_over() else found


def test_the_ladder_has_five_levels_with_descriptions() -> None:
    ladder = GAME.ai_ladder()
    assert isinstance(ladder, Ladder) and ladder.top == 5
    described = levels_for(GAME)
    assert sorted(described) == [1, 2, 3, 4, 5]
    assert "best-reply" in described[4] and "max^n" in described[5]


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_every_level_answers_a_legal_turn_and_leaves_the_position(level: int) -> None:
    for state in positions():
        fen, stack = state.fen(), state.move_stack
        result = play(state, level, FAST, seed=3)
        assert result.move in state.legal_moves()
        assert state.fen() == fen and state.move_stack == stack
        again = play(state, level, FAST, seed=3)
        assert again.move == result.move  # deterministic for a seed


@pytest.fixture(scope="module")
def winning_positions() -> list[tuple[SnakePitState, set]]:
    """Positions of random games where the mover has a turn ending the game with them
    first, with those turns (found by the rules: push and look)."""
    found = []
    for seed in range(40):
        rng = random.Random(seed)
        state = GAME.new_state()
        while not state.is_over() and len(found) < 6:
            mover = state.to_move
            wins = set()
            for move in state.legal_moves():
                state.push(move)
                if state.outcome() is not None and state.outcome().winner == mover:
                    wins.add(move)
                state.pop()
            if wins and len(wins) < len(state.legal_moves()):
                found.append((state.copy(), wins))
                break
            state.push(rng.choice(state.legal_moves()))
        if len(found) >= 6:
            break
    assert found, "no random game offered a win in one"
    return found


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_a_win_in_one_is_taken(level: int, winning_positions) -> None:
    for state, wins in winning_positions:
        assert play(state, level, FAST, seed=1).move in wins


def test_turns_left_is_the_longest_schedule_of_three_distinct_snakes() -> None:
    """Against brute force: every turn moves the three snakes with the most room left
    (which is optimal), until fewer than three have any."""

    def schedule(rooms: list[int]) -> int:
        rooms, turns = list(rooms), 0
        while sum(r > 0 for r in rooms) >= 3:
            for j in sorted(range(4), key=lambda j: -rooms[j])[:3]:
                rooms[j] -= 1
            turns += 1
        return turns

    rng = random.Random(0)
    for _ in range(400):
        rooms = [rng.randrange(0, 25) for _ in range(4)]
        assert kernel.turns_left(np.array(rooms, np.int64)) == schedule(rooms)


def test_snake_rooms_share_the_board_out_and_walled_snakes_have_none() -> None:
    # Green's b9 and b1 walled in by Blue's trail (as in the kernel tests).
    fen = "b1,b9,l5,l13/- a2,e12,i2,m12/a1,a8,b2,b8,c1,c2,c9,c10 a7,g13,g1,m7/f7 2 3 -"
    state = GAME.state_from_fen(fen)
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    rooms = np.zeros((4, 4), np.int64)
    kernel.snake_rooms(heads, empty, ai.alive(state), kernel.NBR, rooms)
    assert rooms[1, 0] == rooms[1, 1] == 0  # b1 and b9 (sorted first) have no room
    assert rooms[1:].sum() <= bin(state.empty).count("1")
    assert kernel.turns_left(rooms[1]) == 0  # two snakes walled in: Green cannot go on
    values = np.zeros(4)
    kernel.evaluate(heads, empty, ai.alive(state), kernel.NBR, values)
    assert values[1] < values[2] and values[1] < values[3]


def test_greedy_and_best_reply_prefer_turns_that_keep_room() -> None:
    """At the start Green's a good turn never walks a snake into a corner pocket: the chosen
    turn scores at least as well as the median turn, for both searches."""
    state = random_state(5, 3)
    moves, scores = ai.turn_scores(state)
    assert len(moves) == len(state.legal_moves())
    median = float(np.median(scores))
    for level in (3, 4):
        chosen = play(state, level, FAST, seed=2).move
        assert scores[moves.index(chosen)] >= median
    assert ai.best_turns(state, 5)[0] == moves[int(np.argmax(scores))]


def test_mcts_analysis_needs_a_bound_and_reports_iterations() -> None:
    state = random_state(6, 4)
    result = analyse(state, Limit(nodes=30))
    assert result.move in state.legal_moves() and result.info["iterations"] == 30
    with pytest.raises(GameError):
        ai.analyse(state, Limit(depth=2), None, None)


def test_mcts_playout_policy_is_set_only_on_the_search_copy() -> None:
    state = random_state(7, 5)
    search = ai.SnakeMcts(state, seed=1, width=4, root_width=6, tries=3, turns=2)
    assert search.pit.playout_tries == 3 and state.playout_tries == 1
    assert len(search.root.untried) == 6
    search.run(Limit(nodes=20))
    assert all(len(child.untried or ()) <= 4 for child in search.root.children)


def test_warm_up_plays_every_level_and_changes_nothing_shared() -> None:
    before = GAME.new_state().fen()
    ai.warm_up()
    assert GAME.new_state().fen() == before and GAME.new_state().playout_tries == 1


def hand_made_endgame() -> SnakePitState:
    """Red is out; Green (to move) and Blue are walled apart.  Green's snakes c3 and f3 have
    corridors of six cells, i5 a fork: i4 leads into a pocket of two cells, i6 into a
    corridor of five (one exit each way, so the snakes' exits cannot tell them apart); l12
    is walled in.  Blue's three free snakes have two cells each.  After i6 Green outlasts
    Blue; after i4 Green has two free snakes on its third turn and is out first."""
    cells = "c4 c5 c6 c7 c8 c9 f4 f5 f6 f7 f8 f9 i4 i3 i6 i7 i8 i9 i10 k6 k7 m9 m10 a2 a3"
    snakes = {1: "c3 f3 i5 l12", 2: "k5 m8 a1 e12", 3: "g13 a7 m6 g1"}
    used = {board.parse_cell(c) for c in " ".join([cells, *snakes.values()]).split()}
    walls = ",".join(board.name(c) for c in board.CELLS if c not in used)
    green, blue, red = (snakes[p].replace(" ", ",") for p in (1, 2, 3))
    return GAME.state_from_fen(f"{green}/{walls} {blue}/- {red}/- 1 3 3")


def test_the_top_level_keeps_out_of_a_dead_end_and_wins_the_endgame() -> None:
    state = hand_made_endgame()
    trap, safe = (state.parse_move(f"c3-c4,f3-f4,i5-{cell}") for cell in ("i4", "i6"))
    assert sorted(state.legal_moves()) == sorted([trap, safe])
    after = state.copy()
    after.push(trap)  # the trap really loses: whatever Blue does, Green is out first
    for _ in range(3):
        after.push(after.legal_moves()[0])
    assert after.is_over() and after.outcome().winner == 2
    for seed in range(3):
        assert play(state, 5, FAST, seed=seed).move == safe
    while not state.is_over():  # and the top level, on both sides, brings the win home
        state.push(play(state, 5, FAST, seed=1).move)
    assert state.outcome().winner == 1
