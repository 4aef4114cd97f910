"""Levels for every game: the Slime Trail ladder, the generic MCTS ladder, a game's own."""

from __future__ import annotations

import gc
import random
import threading
from dataclasses import dataclass

import pytest

from slimetrail.ai import (
    MCTS_LADDER,
    Ladder,
    Limit,
    PlayResult,
    analyse,
    choose_move,
    ladder_for,
    levels_for,
    play,
)
from slimetrail.ai.levels import UntilLoaded
from slimetrail.core.game import GameError, State
from slimetrail.core.loading import KernelLoad
from slimetrail.core.registry import GAMES, get_game
from slimetrail.games.trail.ladder import LEVELS_TABLE, TRAIL_LADDER


def test_every_registered_game_has_levels_one_to_top():
    for game_id in GAMES:
        levels = levels_for(get_game(game_id))
        assert sorted(levels) == list(range(1, max(levels) + 1))
        assert all(isinstance(text, str) and text for text in levels.values())
    for game_id in ("slimetrail", "slimetrail-hex", "slimetrail-square"):
        assert ladder_for(get_game(game_id)) is TRAIL_LADDER
        assert levels_for(get_game(game_id)) == {n: v.description for n, v in LEVELS_TABLE.items()}
        assert TRAIL_LADDER.solved is not None  # the UGI engine's proven moves
    for game_id in ("toy-three", "toy-pie"):
        assert ladder_for(get_game(game_id)) is MCTS_LADDER
        assert MCTS_LADDER.solved is None
        assert "random" in levels_for(get_game(game_id))[1]


# toy-pie's moves are slow to generate: its costly middle levels are left to toy-three.
@pytest.mark.parametrize(
    ("game_id", "levels"), [("toy-three", range(1, 7)), ("toy-pie", (1, 2, 6))]
)
def test_every_mcts_level_plays_legal_moves(game_id, levels):
    state = get_game(game_id).new_state()
    state.push(state.legal_moves()[3])
    fen = state.fen()
    top = max(levels_for(state.game))
    for level in levels:
        # Iteration-bounded levels are deterministic for a seed; the top level uses the time.
        limit = Limit(time=30) if level < top else Limit(time=0.2)
        result = play(state, level, limit, seed=7)
        assert isinstance(result, PlayResult) and result.move in state.legal_moves()
        assert result.info["level"] == level
        if level in (2, 3):
            assert choose_move(state, level, limit, seed=7) == result.move
        assert state.fen() == fen


def test_mcts_levels_grow_in_playouts():
    levels = MCTS_LADDER.levels
    counts = [levels[n].iterations for n in range(2, MCTS_LADDER.top)]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert levels[MCTS_LADDER.top].iterations is None  # the top level uses the time limit
    state = get_game("toy-three").new_state()
    assert play(state, 2, Limit(time=30), seed=1).nodes == counts[0]
    assert play(state, 2, Limit(time=30, nodes=10), seed=1).nodes == 10  # the caller caps


def test_level_one_takes_a_win_in_one():
    # toy-pie: Black (player 1) on a1 b1, White on a2 b2; c1 (or a step then c1) wins.
    state = get_game("toy-pie").state_from_fen("1100220000000000 1 -")
    for seed in range(8):
        move = choose_move(state, 1, seed=seed)
        state.push(move)
        assert state.outcome() is not None and state.outcome().winner == 1
        state.pop()
    chosen = {choose_move(get_game("toy-three").new_state(), 1, seed=s) for s in range(12)}
    assert len(chosen) >= 4  # otherwise random


def test_bad_levels_and_limits_name_the_game():
    state = get_game("toy-three").new_state()
    with pytest.raises(GameError, match=r"level 7 is not one of 1\.\.6 for toy-three"):
        choose_move(state, 7)
    with pytest.raises(GameError, match="limit time must be positive"):
        choose_move(state, 2, Limit(time=-1))
    with pytest.raises(GameError, match="limit nodes must be a whole number"):
        Limit(nodes=2.5)
    with pytest.raises(GameError, match="limit threads must be positive, not 0"):
        Limit(threads=0)
    with pytest.raises(GameError, match=r"limit threads must be a whole number, not 1\.5"):
        Limit(threads=1.5)  # type: ignore[arg-type]
    both = Limit(time=2.0, threads=4).capped(Limit(nodes=10, threads=2))
    assert both == Limit(time=2.0, nodes=10, threads=2) and not Limit(threads=2).bounded


def test_analyse_uses_the_games_search():
    trail = get_game("slimetrail").new_state()
    deep = analyse(trail, Limit(depth=3))
    assert deep.depth == 3 and deep.move in trail.legal_moves() and deep.value is None
    three = get_game("toy-three").new_state()
    seen: list[PlayResult] = []
    result = analyse(three, Limit(nodes=1_500), on_info=seen.append)
    assert result.nodes == 1_500 and 0 <= result.value <= 1
    assert [info.nodes for info in seen] == [1_000, 1_500]
    with pytest.raises(GameError, match="MCTS"):
        analyse(three, Limit(depth=4))


@dataclass(frozen=True)
class Fixed:
    """A player that always plays the ``index``-th legal move."""

    description: str
    index: int

    def play(self, state: State, limit: Limit, rng: random.Random) -> PlayResult:
        return PlayResult(state.legal_moves()[self.index])


def test_a_game_declares_its_own_ladder():
    ladder = Ladder({1: Fixed("first legal move", 0), 2: Fixed("still the first", 0)}, analyse)
    cls = type(get_game("toy-three"))
    own = type("OwnLadderGame", (cls,), {"ai_ladder": lambda self: ladder})()
    assert levels_for(own) == {1: "first legal move", 2: "still the first"}
    state = own.new_state()
    assert choose_move(state, 2) == state.legal_moves()[0]
    with pytest.raises(GameError, match=r"1\.\.2"):
        choose_move(state, 3)
    with pytest.raises(ValueError, match=r"1\.\.n"):
        Ladder({2: Fixed("no level one", 0)}, analyse)


def test_a_level_needing_kernels_has_its_stand_in_play_timed_moves_until_they_load() -> None:
    release = threading.Event()
    kernels = KernelLoad(lambda: release.wait(30), "test kernels")
    level = UntilLoaded(Fixed("the level", 0), kernels, Fixed("stand-in", 1), "stand-in")
    assert level.description == "the level"
    state = get_game("slimetrail").new_state()
    moves = state.legal_moves()
    timed = Limit(time=0.5)
    first = level.play(state, timed, random.Random(0))  # starts the load in the background
    assert first.move == moves[1]
    assert first.info["search"] == "stand-in (compiled kernels still loading)"
    assert level.play(state, timed, random.Random(0)).move == moves[1]  # still loading
    release.set()
    assert kernels.loaded.wait(30)
    after = level.play(state, timed, random.Random(0))
    assert after.move == moves[0] and "search" not in after.info


def test_what_a_kernel_load_brought_in_is_kept_out_of_full_collections() -> None:
    """After a load the heap is frozen out of the garbage collector's view: its full
    collections, over every loaded module, paused searches in mid-move (bench/RESULTS.md)."""
    brought: list[list[int]] = []
    kernels = KernelLoad(lambda: brought.append([1]), "test kernels")
    before = gc.get_freeze_count()
    kernels.run()
    assert gc.get_freeze_count() > before
    # The list the load made is frozen: no generation the collector scans holds it.
    assert not any(o is brought[0] for o in gc.get_objects())
