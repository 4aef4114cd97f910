"""Compiles into numba's cache the kernels the suite calls beyond what ``slimetrail compile``
(the games' warm-ups) compiles: the compiled baselines (bench/baselines), the research solvers
(research/), and Snake Pit's kernels in the forms only its tests call them.

``.ci/run`` runs ``python tests/precompile.py`` beside the lint, so that the suite's processes
(one per xdist worker) load these kernels instead of each compiling those it calls first (a
minute of processor time in all).  A kernel missed here is compiled by the first test that
calls it, as without this: no test depends on it.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.baselines import baseline_for, slither, snakepit  # noqa: E402
from research.moku.pnsearch import ProofSearch  # noqa: E402
from research.trail.dfpn import prove  # noqa: E402
from slimetrail.ai import Limit, play  # noqa: E402
from slimetrail.core.registry import get_game  # noqa: E402
from slimetrail.games.moku.solver import FastSearch  # noqa: E402
from slimetrail.games.snakepit import ai as snake_pit_ai  # noqa: E402
from slimetrail.games.snakepit import kernel as snake_pit_kernel  # noqa: E402


def baselines() -> None:
    """Every baseline's search, and the compiled rules its tests call (the same argument
    types as tests/bench/test_baselines_*.py)."""
    games = [
        get_game("slimetrail", size="5"),
        get_game("slime-moku", size="5", k="4"),
        get_game("snake-pit"),
        get_game("slither", size="5"),
    ]
    for game in games:
        state, baseline = game.new_state(), baseline_for(game)
        baseline.choose(state, 0.01, seed=1)
        if hasattr(baseline, "random_game"):
            baseline.perft(state, 1)
            baseline.random_game(state, seed=1)
    rng = np.array([1], np.uint64)
    pit = get_game("snake-pit").new_state()
    snakepit.make_baseline(pit.game).choose_playouts(pit, 10, seed=1)
    st = snakepit.pack_state(pit)
    scratch, steps = np.zeros(snakepit.SCRATCH, np.int64), np.zeros((3, 2), np.int64)
    snakepit.perft(st, 1, scratch, steps)
    snakepit.random_turn(st, rng, scratch, steps)
    snakepit.playout(st, rng, scratch, steps, np.zeros(200, np.int64))
    snakepit.returns(st, np.zeros(3))
    for game_id in ("slither", "slither-advanced"):
        st = slither.pack_state(get_game(game_id, size="5").new_state())
        geo, scratch = slither.geometry(5), np.zeros(slither.scratch_size(25), np.int64)
        advanced = game_id == "slither-advanced"
        slither.perft(st, 1, geo, advanced, scratch)
        slither.random_turn(st, rng, geo, advanced, scratch)
        slither.playout(st, rng, geo, advanced, scratch, np.zeros(100, np.int64))
        slither.returns(st, np.zeros(2))


def research() -> None:
    """The Slime Trail df-pn prover and the Slime-Moku proof-number and fast searches, on
    small boards (tests/research)."""
    state = get_game("slimetrail", size="5").new_state()
    state.push(state.legal_moves()[0])
    prove(state)
    moku = get_game("slime-moku", size=4, k=4).new_state()
    for _ in range(8):
        moku.push(moku.legal_moves()[0])
    mine, theirs = (moku.black, moku.white) if moku.to_move == 1 else (moku.white, moku.black)
    for search in (ProofSearch, FastSearch):
        search(moku.game.board, table_bits=12).value(mine, theirs, moku.empty, moku.slime)


def snake_pit() -> None:
    """The Python max^n search with its playout policy, and the top level once a player is
    out, to the end (tests/games/snake_pit/test_snakepit_ai.py): kernels and argument types
    the warm-up, which plays every level from the start, never reaches -- the longest line
    of a player walled apart among them, so games are played until one has searched it."""
    snake_pit_ai.KERNELS.run()
    game = get_game("snake-pit")
    for seed in range(30):
        state, rng = game.new_state(), random.Random(seed)
        while not state.is_over():
            if len(state.move_stack) == 5 and seed == 0:
                search = snake_pit_ai.SnakeMcts(
                    state, seed=1, width=4, root_width=6, tries=3, turns=2
                )
                search.run(Limit(nodes=20))
            if state.out:
                state.push(play(state, 5, Limit(nodes=40), seed=1).move)
            else:
                state.push(rng.choice(state.legal_moves()))
        if snake_pit_kernel.longest_line.signatures:
            return


if __name__ == "__main__":
    started = time.process_time()
    baselines()
    research()
    snake_pit()
    print(f"tests/precompile.py: {time.process_time() - started:.1f} s of processor time")
