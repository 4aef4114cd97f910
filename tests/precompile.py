"""Compiles into numba's cache the kernels the suite calls outside the package -- the compiled
baselines (bench/baselines) and the research solvers (research/) -- as ``slimetrail compile``
does the package's.

``.ci/run`` runs ``python tests/precompile.py`` beside the lint, so that the suite's processes
(one per xdist worker) load these kernels instead of each compiling those it calls first (a
minute of processor time in all).  A kernel missed here is compiled by the first test that
calls it, as without this: no test depends on it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.baselines import baseline_for, slither, snakepit  # noqa: E402
from research.moku.pnsearch import ProofSearch  # noqa: E402
from research.trail.dfpn import prove  # noqa: E402
from slimetrail.core.registry import get_game  # noqa: E402
from slimetrail.games.moku.solver import FastSearch  # noqa: E402


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


if __name__ == "__main__":
    started = time.process_time()
    baselines()
    research()
    print(f"tests/precompile.py: {time.process_time() - started:.1f} s of processor time")
