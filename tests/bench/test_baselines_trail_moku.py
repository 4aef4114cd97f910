"""The compiled plain-UCT baselines of the Slime Trail games and Slime-Moku (bench/baselines):
their own move generators and playouts agree with the games' rules, and they play legal,
sensible moves."""

from __future__ import annotations

import random

import pytest
from toygames import ToyThreeGame

from bench.baselines import baseline_for
from slimetrail.core.game import GameError, State
from slimetrail.core.registry import get_game

TRAIL_GAMES = [
    ("slimetrail", {"size": "5"}),
    ("slimetrail", {"size": "7", "rules": "taylor"}),
    ("slimetrail", {"size": "9", "start": "e5"}),
    ("slimetrail-square", {"size": "6"}),
    ("slimetrail-square", {"size": "8", "rules": "rastros"}),
    ("slimetrail-hex", {"size": "5"}),
    ("slimetrail-hex", {"size": "10"}),
    ("slimetrail-hex", {"size": "11", "rules": "rastros"}),
]
MOKU_GAMES = [
    ("slime-moku", {"size": "4", "k": "4"}),
    ("slime-moku", {"size": "5", "k": "4"}),
    ("slime-moku", {"size": "6", "k": "5"}),
    ("slime-moku", {"size": "15", "k": "5"}),
]
GAMES = TRAIL_GAMES + MOKU_GAMES
NAMES = [f"{gid}-{'-'.join(opts.values())}" for gid, opts in GAMES]


def positions(state: State, count: int, seed: int) -> list[State]:
    """The start and ``count`` running positions of random games from it."""
    rng = random.Random(seed)
    found = [state]
    while len(found) <= count:
        game = state.copy()
        for _ in range(rng.randrange(1, 12)):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
        if not game.is_over():
            found.append(game.copy())
    return found


def winner_of(state: State) -> int:
    outcome = state.outcome()
    assert outcome is not None
    return outcome.winner or 0


@pytest.mark.parametrize(("game_id", "options"), GAMES, ids=NAMES)
def test_compiled_perft_equals_the_games_perft(game_id, options):
    game = get_game(game_id, **options)
    baseline = baseline_for(game)
    for number, state in enumerate(positions(game.new_state(), 4, seed=len(NAMES))):
        depth = 3 if number else 4
        for d in range(1, depth + 1):
            assert baseline.perft(state, d) == state.perft(d), (state.fen(), d)


def test_compiled_perft_lifts_a_stuck_slime():
    game = get_game("slime-moku", size="5", k="4")
    baseline = baseline_for(game)
    rng = random.Random(5)
    stuck = []
    while len(stuck) < 3:
        state = game.new_state()
        while not state.is_over() and not state.is_stuck():  # type: ignore[attr-defined]
            state.push(rng.choice(state.legal_moves()))
        if not state.is_over():
            stuck.append(state)
    for state in stuck:
        for depth in (1, 2, 3):
            assert baseline.perft(state, depth) == state.perft(depth), state.fen()


@pytest.mark.parametrize(("game_id", "options"), GAMES, ids=NAMES)
def test_compiled_playouts_replay_through_the_game_to_the_same_end(game_id, options):
    game = get_game(game_id, **options)
    baseline = baseline_for(game)
    for number, start in enumerate(positions(game.new_state(), 5, seed=1)):
        for seed in range(8):
            replay(baseline, start, seed=100 * number + seed)


def replay(baseline, start: State, seed: int) -> str:
    """Play a compiled random game from ``start`` through the game's own State, check that
    it ends there with the same winner, and return how it ended."""
    cells, winner = baseline.random_game(start, seed=seed)
    state = start.copy()
    for cell in cells:
        state.push_str(cell)  # raises if the compiled move is illegal
    assert state.is_over(), (start.fen(), cells)
    assert winner_of(state) == winner, (start.fen(), cells)
    return state.outcome().reason  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("game_id", "options", "endings"),
    [
        ("slimetrail", {"size": "7"}, {"goal", "stuck"}),
        ("slimetrail-hex", {"size": "6", "rules": "rastros"}, {"goal", "stuck"}),
        # Taylor's restriction keeps a goal reachable: the snail is never stuck.
        ("slimetrail-hex", {"size": "6"}, {"goal"}),
        ("slime-moku", {"size": "4", "k": "4"}, {"row", "full"}),
    ],
)
def test_compiled_playouts_meet_every_way_a_game_ends(game_id, options, endings):
    game = get_game(game_id, **options)
    baseline = baseline_for(game)
    seen = {replay(baseline, game.new_state(), seed) for seed in range(300)}
    assert seen == endings


@pytest.mark.parametrize(("game_id", "options"), GAMES, ids=NAMES)
def test_the_chosen_move_is_legal_and_the_state_unchanged(game_id, options):
    game = get_game(game_id, **options)
    baseline = baseline_for(game)
    for state in positions(game.new_state(), 2, seed=3):
        before = state.fen()
        move, playouts = baseline.choose(state, 0.02, seed=7)
        assert move in state.legal_moves()
        assert playouts > 0
        assert state.fen() == before


@pytest.mark.parametrize(
    ("game_id", "options", "fen", "winning"),
    [
        # Player 1 (goal a1) next to the goal, with room to wander elsewhere.
        ("slimetrail", {"size": "5"}, "5/5/5/1o3/5 1", "a1"),
        # Taylor hex 6x6: player 2 owns a1; the snail on b2 can step into it.
        ("slimetrail-hex", {"size": "6"}, "6/6/6/6/1o4/6 2", "a1"),
    ],
)
def test_a_trail_baseline_takes_a_win_in_one(game_id, options, fen, winning):
    game = get_game(game_id, **options)
    state = game.state_from_fen(fen)
    move, _ = baseline_for(game).choose(state, 0.1, seed=1)
    assert state.move_str(move) == winning


def test_the_moku_baseline_does_not_hand_over_a_row():
    # White (o) has three in a row on a2 b2 c2 (k = 4); the slime on d3 may step to d2, where
    # White's next stone would make four: the only move that loses at once.
    game = get_game("slime-moku", size="5", k="4")
    state = game.state_from_fen("5/5/x2@1/ooo2/xx3 1")
    losing = state.parse_move("d2")
    move, _ = baseline_for(game).choose(state, 0.2, seed=1)
    assert move in state.legal_moves() and move != losing


def test_a_game_without_a_baseline_is_refused_by_name():
    with pytest.raises(GameError, match="toy-three"):
        baseline_for(ToyThreeGame())
