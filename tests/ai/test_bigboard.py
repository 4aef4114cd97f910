"""The top level on the big Slime Trail boards, and the bench's plain UCT yardstick."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from slimetrail.ai import Limit, play
from slimetrail.core.registry import get_game
from slimetrail.games.trail import search_kernel, strong
from slimetrail.games.trail.game import warm_up_kernels

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_uct():
    # Named "uct" as bench/bigboard.py imports it: numba's cache (one per file) records the
    # module's name and, loading the kernels, finds the functions they call through it.
    if "uct" in sys.modules:
        return sys.modules["uct"]
    spec = importlib.util.spec_from_file_location("uct", BENCH / "uct.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True, scope="module")
def loaded_kernels() -> None:
    """Loaded before the first move, as a server or the UGI engine does: until then the top
    level plays by the interpreted search (see test_time_limits.py)."""
    warm_up_kernels()


def test_the_big_board_player_takes_the_boards_of_65_to_128_cells():
    assert not strong.handles(get_game("slimetrail", size="7").new_state())
    assert not strong.handles(get_game("slimetrail-square").new_state())  # 8x8: books
    assert strong.handles(get_game("slimetrail", size="9").new_state())
    assert strong.handles(get_game("slimetrail-hex", size="11").new_state())
    assert not strong.handles(get_game("slimetrail", size="13").new_state())


def test_top_level_on_9x9_searches_with_the_compiled_kernels():
    state = get_game("slimetrail", size="9").new_state()
    # From the start the 9x9 book of long searches answers, not marked proven.
    opening = play(state, 6, Limit(time=0.3), seed=1)
    assert opening.info["search"] == "opening book (long searches)" and opening.proven is None
    # Off the book's lines nothing is forced: the alpha-beta's look ahead, then the tree search.
    state.push_str("f5")
    state.push_str("g5")
    result = play(state, 6, Limit(time=0.3), seed=1)
    assert result.move in state.legal_moves()
    assert result.info["search"] == "MCTS-Solver" and result.depth >= 3
    assert result.info["iterations"] >= 1 and result.proven is None
    # The lower levels keep the generic search.
    assert "search" not in play(state, 5, Limit(time=0.3), seed=1).info


def test_top_level_wins_at_once_and_plays_a_proven_endgame_to_the_win():
    game = get_game("slimetrail-hex", size="10", rules="rastros")
    # Player 2 (goal a1) to move next to a1.
    state = game.state_from_fen("10/10/10/10/10/10/10/10/10/1o8 2")
    result = play(state, 6, Limit(time=0.5))
    assert state.move_str(result.move) == "a1" and result.proven == "win"
    # A small region: the solver proves it; the top level then wins against every reply
    # of a random opponent.  (The first random position with a region this small that is
    # a win for the side to move.)
    rng = random.Random(3)
    state = game.new_state()
    while True:
        if state.outcome() is not None:
            state = game.new_state()
        elif strong.region_size(state) <= 30 and play(state, 6, Limit(time=2.0)).proven == "win":
            break
        else:
            state.push(rng.choice(state.legal_moves()))
    me = state.to_move
    while state.outcome() is None:
        if state.to_move == me:
            result = play(state, 6, Limit(time=2.0))
            assert result.proven == "win" or len(state.legal_moves()) == 1  # forced: no search
            state.push(result.move)
        else:
            state.push(rng.choice(state.legal_moves()))
    assert state.outcome().winner == me


def test_top_level_plays_the_cut_off_win_the_alpha_beta_sees_under_taylors_rules():
    game = get_game("slimetrail", size="9", rules="taylor")
    rng = random.Random(8)
    found = 0
    while found < 3:
        state = game.new_state()
        while state.outcome() is None and strong.region_size(state) > strong.SOLVE_REGION:
            quick = search_kernel.search(state, 5.0, max_depth=2)
            if quick.score == search_kernel.KNOWN_WIN:  # one step cuts the other goal off
                me = state.to_move
                result = play(state, 6, Limit(time=0.3))
                assert result.proven == "win" and result.info["search"] == "compiled alpha-beta"
                state.push(result.move)
                # Under Taylor's rule every game from here ends in our goal.
                for _ in range(5):
                    played = state.copy()
                    while played.outcome() is None:
                        played.push(rng.choice(played.legal_moves()))
                    assert played.outcome().winner == me, state.fen()
                found += 1
                break
            state.push(rng.choice(state.legal_moves()))


@pytest.mark.parametrize(
    ("game_id", "size", "rules"),
    [("slimetrail", "9", "taylor"), ("slimetrail-hex", "11", "rastros")],
)
def test_uct_yardstick_follows_the_rules(game_id, size, rules):
    uct_module = load_uct()
    game = get_game(game_id, size=size, rules=rules)
    uct = uct_module.UCT(game, seed=2)
    rng = random.Random(4)
    results = {0: 0, 1: 0, 2: 0}
    for _ in range(20):
        state = game.new_state()
        while state.outcome() is None:
            assert sorted(uct.moves(state.free, state.snail)) == sorted(state.legal_moves())
            state.push(rng.choice(state.legal_moves()))
        assert uct.moves(state.free, state.snail) == []
        # From a finished position the playout reports the game's own result.
        outcome = state.outcome()
        winner = uct.rollout(state.free, state.snail, state.to_move)
        assert winner == (outcome.winner or 0)
        results[winner] += 1
    state = game.new_state()
    for _ in range(200):
        results[uct.rollout(state.free, state.snail, 1)] += 1
    assert results[1] and results[2]  # random games from the start go both ways
    move, iterations = uct.choose(state, 0.1)
    assert move in state.legal_moves() and iterations > 10


@pytest.mark.parametrize(
    ("game_id", "options", "seed"),
    [
        ("slimetrail", {"size": "9"}, 193630),
        ("slimetrail-hex", {}, 586963),
        ("slimetrail", {"size": "11", "rules": "taylor"}, 195217),
    ],
)
def test_a_proven_win_is_never_given_back(game_id, options, seed):
    # A random game until the snail's region fits the solver's one-word kernel (64 cells):
    # in each of these the top level proves the win from there (the solver joins the search
    # at 64 cells), and every move it then plays keeps the win against any reply.
    from slimetrail.games.trail import solver

    game = get_game(game_id, **options)
    rng = random.Random(seed)
    state = game.new_state()
    while strong.region_size(state) > strong.SOLVE_REGION:
        state.push(rng.choice(state.legal_moves()))
    assert strong.region_size(state) > 40  # a region the solver does not always settle
    # A move returns once proven; a generous limit keeps the solver's half of it enough on a
    # loaded machine.
    first = play(state, 6, Limit(time=6.0))
    assert first.proven == "win", state.fen()
    me = state.to_move
    move = first.move
    while True:
        state.push(move)
        if state.outcome() is not None:
            break
        # The opponent is lost whatever it does (checked with time to spare).
        assert solver.solve(state, first_win=True, time_limit=60.0, book=False).value == "loss"
        state.push(rng.choice(state.legal_moves()))
        if state.outcome() is not None:
            break
        move = play(state, 6, Limit(time=3.0)).move
    assert state.outcome().winner == me


def test_with_a_fixed_budget_the_exact_solve_counts_nodes_not_seconds():
    # 9x9 Taylor, 62 cells in reach, Green to move: d2 alone wins (a 0.7 M-node proof),
    # which the MCTS-Solver misses at 40,000 iterations.  A game of the fixed-budget
    # benchmark lost it on a loaded machine, where the solve's share of the wall clock was
    # a fraction of that CPU time.  Counted in nodes, the share proves it whatever the load.
    from slimetrail.games.trail import mcts_kernel, solver

    game = get_game("slimetrail", size="9", rules="taylor")
    record = "f5 g6 g5 f6 e6 f7 e7 d8 c7 d7 c6 b6 c5 d6 d5 e4 d4 e3"
    state = game.new_state()
    for cell in record.split(" "):
        state.push_str(cell)
    assert 40 < strong.region_size(state) <= strong.SOLVE_REGION
    strong.forget()
    assert mcts_kernel.first_win(state, 10_000) is None  # too few nodes: nothing proven
    result = strong.play(state, 1.0, seed=1, iterations=40_000)
    assert result.info["search"] == "exact solver (nodes)" and result.proven == "win"
    # The reference solver agrees that the move wins.
    after = state.copy()
    after.push(result.move)
    assert solver.solve(after, first_win=True, book=False).value == "loss"
    assert state.move_str(result.move) == "d2"
