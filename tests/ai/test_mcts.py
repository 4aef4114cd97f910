"""The generic Monte-Carlo tree search: any number of players, repeats, skips, solving."""

from __future__ import annotations

import random
import threading

import pytest
from takeaway import TakeAway, winner_with_best_play

from slimetrail.ai import MCTS, Limit, analyse, mcts, play
from slimetrail.core.game import GameError
from slimetrail.core.registry import GAMES as REGISTRY
from slimetrail.core.registry import get_game
from slimetrail.games.slither.ai import SlitherSearch

GAMES = [
    ("toy-three", {}),
    ("toy-pie", {}),
    ("slimetrail", {"size": 5}),
    ("slimetrail-hex", {"size": 5}),
    ("slimetrail-square", {"size": 6}),
]


def random_position(state, plies: int, rng: random.Random):
    for _ in range(plies):
        if state.is_over():
            break
        state.push(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize(("game_id", "options"), GAMES)
def test_always_a_legal_move_and_the_state_unchanged(game_id, options):
    game = get_game(game_id, **options)
    rng = random.Random(5)
    for plies in (0, 1, 2, 5, 9):
        state = random_position(game.new_state(), plies, rng)
        if state.is_over():
            continue
        fen, stack = state.fen(), state.move_stack
        result = mcts(state, Limit(nodes=60), seed=plies)
        assert result.move in state.legal_moves()
        assert result.pv[0] == result.move
        assert 0.0 <= result.value <= 1.0
        assert state.fen() == fen and state.move_stack == stack


def test_the_same_seed_gives_the_same_search():
    state = get_game("toy-three").new_state()
    first = mcts(state, Limit(nodes=300), seed=11)
    again = mcts(state, Limit(nodes=300), seed=11)
    assert (first.move, first.value, first.pv, first.nodes) == (
        again.move,
        again.value,
        again.pv,
        again.nodes,
    )
    assert first.nodes == 300


def test_a_win_in_one_is_taken_even_with_one_iteration():
    state = get_game("slimetrail").new_state()
    for text in ("c3", "b2"):
        state.push_str(text)
    result = mcts(state, Limit(nodes=1), seed=3)
    assert state.move_str(result.move) == "a1"
    assert result.proven == "win" and result.value == 1.0
    # toy-pie: Black (player 1) on a1 b1, White on a2 b2; c1 makes three in a row.
    pie = get_game("toy-pie").state_from_fen("1100220000000000 1 -")
    won = mcts(pie, Limit(nodes=1), seed=0)
    assert won.proven == "win"
    pie.push(won.move)
    assert pie.outcome() is not None and pie.outcome().winner == 1


@pytest.mark.parametrize("after_two", [False, True])
@pytest.mark.parametrize("pile", range(1, 11))
def test_the_solver_proves_two_player_values_when_turns_repeat(pile, after_two):
    state = TakeAway().state_from_fen(f"{pile} 1 {int(after_two)}")
    winner, _ = winner_with_best_play(pile, 1, after_two)
    result = mcts(state, Limit(nodes=20_000), seed=pile)
    assert result.proven == ("win" if winner == 1 else "loss")
    assert result.nodes < 20_000  # proven before the limit
    if winner == 1:
        child = state.copy()
        child.push(result.move)
        if not child.is_over():
            assert winner_with_best_play(child.pile, child.to_move, child.after_two)[0] == 1


def test_players_skipped_in_a_three_player_game():
    # Three players: taking 2 skips the next player, so turns go 1, 3, 1, 2, ...
    game = TakeAway(players=3, pile=9)
    assert mcts(game.state_from_fen("2 2 0"), Limit(nodes=5), seed=1).move == 2  # win in one
    state = game.new_state()
    while not state.is_over():
        result = mcts(state, Limit(nodes=200), seed=len(state.move_stack))
        assert result.move in state.legal_moves()
        state.push(result.move)
    assert state.outcome().num_players == 3


def test_three_player_mcts_beats_random_players():
    # Seats rotated: MCTS in each seat twice against two random players.
    game = get_game("toy-three")
    scores, wins = [], []
    for number in range(6):
        seat = number % 3 + 1
        rng = random.Random(number)
        state = game.new_state()
        while not state.is_over():
            if state.to_move == seat:
                state.push(mcts(state, Limit(nodes=400), seed=number).move)
            else:
                state.push(rng.choice(state.legal_moves()))
        outcome = state.outcome()
        scores.append(outcome.score(seat))
        wins.append(outcome.place(seat) == 1)
    # A fair share is a third of the first places and a score of 0.5.
    assert sum(wins) >= 4, wins
    assert sum(scores) / len(scores) >= 0.75, scores


def test_limits_and_bad_use():
    state = get_game("toy-three").new_state()
    with pytest.raises(GameError, match="time or nodes"):
        mcts(state, Limit(depth=3))
    stop = threading.Event()
    stop.set()
    stopped = MCTS(state, seed=1).run(stop=stop)
    assert stopped.move in state.legal_moves() and stopped.nodes <= 16
    timed = mcts(state, Limit(time=0.05), seed=1)
    assert timed.move in state.legal_moves() and timed.nodes >= 1
    finished = get_game("slimetrail").new_state()
    for text in ("c3", "b2", "a1"):
        finished.push_str(text)
    with pytest.raises(GameError, match="over"):
        MCTS(finished)


def test_a_search_goes_on_from_its_tree():
    search = MCTS(get_game("toy-pie").new_state(), seed=2)
    first = search.run(Limit(nodes=40))
    second = search.run(Limit(nodes=40))
    assert first.nodes == 40 and second.nodes == 80
    assert search.root.visits == 80


def test_a_stopped_root_check_resumes_without_duplicates():
    state = get_game("slimetrail").new_state()
    for text in ("c3", "b2"):  # a1 wins at once for player 1
        state.push_str(text)
    a1 = state.parse_move("a1")
    stop = threading.Event()
    stop.set()
    for seed in range(50):
        search = MCTS(state, seed=seed)
        search.run(stop=stop)  # the root check stops at once; one playout still runs
        if [child.move for child in search.root.children] == [a1]:
            break  # that playout expanded the winning move before the check saw it
    else:
        raise AssertionError("no seed expands a1 first")
    result = search.run(Limit(nodes=5))
    moves = [child.move for child in search.root.children]
    assert len(moves) == len(set(moves))
    assert result.move == a1 and result.proven == "win"


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_every_registered_game_gets_a_legal_computer_move(game_id):
    # The generic players over each game's own interface: a few playouts only, so that
    # slow games stay cheap; the game's own ladder at level 1 as well.
    state = get_game(game_id).new_state()
    state.push(state.legal_moves()[0])
    if state.is_over():
        return
    fen = state.fen()
    assert mcts(state, Limit(nodes=2), seed=1).move in state.legal_moves()
    assert play(state, 1, seed=1).move in state.legal_moves()
    assert state.fen() == fen


def test_the_slither_search_runs_in_the_same_loop():
    """Slither's RAVE search over its kernel is driven by the generic loop: the same limits,
    a second run going on from the tree, reports every ``info_every`` iterations."""
    search = SlitherSearch(get_game("slither", size=5).new_state(), seed=3)
    with pytest.raises(GameError, match="the Slither search needs a time or nodes limit"):
        search.run(Limit(depth=2))
    reports = []
    first = search.run(Limit(nodes=1200), on_info=reports.append)
    second = search.run(Limit(nodes=300))
    assert first.nodes == 1200 and second.nodes == 1500
    assert [report.nodes for report in reports] == [500, 1000, 1200]


def test_an_analysis_nothing_would_end_is_refused():
    """Every game's analysis starts with the same check (``check_analysis_limit``)."""
    stop = threading.Event()
    stop.set()
    moku = get_game("slime-moku", size=7, k=4).new_state()
    with pytest.raises(GameError, match="slime-moku analysis needs a time, nodes or depth"):
        analyse(moku, Limit())
    assert analyse(moku, Limit(depth=1)).move in moku.legal_moves()
    for game_id in ("snake-pit", "slither"):
        state = get_game(game_id).new_state()
        for limit, event in ((Limit(), None), (Limit(depth=2), stop)):
            with pytest.raises(GameError, match="analysed by MCTS: give a time or nodes"):
                analyse(state, limit, stop=event)
        assert analyse(state, Limit(), stop=stop).move in state.legal_moves()
