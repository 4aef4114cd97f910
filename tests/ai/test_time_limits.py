"""Every game family's top level keeps to its time limit on a big board.

The limit is 0.3 s and the bound 0.6 s: loose enough for a shared, loaded machine; the
precise worst case (at most 1.1x the limit) is bench/timing.py's to measure.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest

from slimetrail.ai import Limit, levels_for, play
from slimetrail.core.registry import parse_game_spec

LIMIT = 0.3
BOUND = 0.6


def middle_game(spec: str, plies: int, seed: int):
    game = parse_game_spec(spec)
    state = game.new_state()
    rng = random.Random(seed)
    for _ in range(plies):
        moves = state.legal_moves()
        rng.shuffle(moves)
        for move in moves:  # one that leaves the game going, with a choice to make
            state.push(move)
            if not state.is_over() and len(state.legal_moves()) > 1:
                break
            state.pop()
        else:
            break
    return state


@pytest.mark.parametrize(
    "spec",
    [
        "slimetrail size=11 rules=taylor",
        "slimetrail-hex size=11 rules=rastros",
        "slimetrail-hex",
        "slime-moku",
        "snake-pit",
        "slither",
    ],
)
def test_the_top_level_keeps_to_its_time_limit_on_a_big_board(spec):
    game = parse_game_spec(spec)
    type(game).warm_up()  # as the web server and the UGI engine do before the first move
    top = max(levels_for(game))
    for seed, plies in ((1, 4), (2, 12)):
        state = middle_game(spec, plies, seed)
        times = []
        for _ in range(2):  # the faster of two: one move can lose its core to a busy machine
            started = time.perf_counter()
            result = play(state, top, Limit(time=LIMIT), seed=seed)
            times.append(time.perf_counter() - started)
            assert result.move in state.legal_moves()
        assert min(times) < BOUND, f"{spec}: {times} s for a {LIMIT} s move"


@pytest.mark.parametrize(
    ("spec", "plies", "how"),
    [
        # the big boards' compiled player: the interpreted alpha-beta plays meanwhile
        ("slimetrail size=11", 0, "alpha-beta (compiled kernels still loading)"),
        # Slime-Moku's tree: its strongest interpreted level plays meanwhile
        ("slime-moku", 2, "alpha-beta (compiled kernels still loading)"),
        # the solver of the small boards: the books and the search play meanwhile
        ("slimetrail", 8, "None"),
        # games whose every level is compiled: a random move that takes a win in one
        ("slither", 6, "random (compiled kernels still loading)"),
        ("snake-pit", 2, "random (compiled kernels still loading)"),
    ],
)
def test_a_first_move_does_not_wait_for_the_kernels_to_load(spec, plies, how):
    # A fresh process: numba's load of the kernels (seconds of CPU on a loaded machine)
    # is left to a background thread, and the move keeps to its limit.
    state = middle_game(spec, plies, seed=3)
    if spec == "slimetrail":  # a position for the solver: in no book
        from slimetrail.games.trail.solver import book

        assert book.lookup(state) is None and book.winning_move(state) is None
    code = (
        "import sys, time\n"
        "from slimetrail.ai import Limit, levels_for, play\n"
        "from slimetrail.core.registry import parse_game_spec\n"
        "state = parse_game_spec(sys.argv[1]).state_from_fen(sys.argv[2])\n"
        # The ladder first (as the web and the CLI list the levels): for Slither and Snake
        # Pit that imports numba (half a second of CPU), which no move can leave out.
        "top = max(levels_for(state.game))\n"
        "started = time.perf_counter()\n"
        f"result = play(state, top, Limit(time={LIMIT}))\n"
        "print(time.perf_counter() - started, result.info.get('search'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, spec, state.fen()],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout.split(maxsplit=1)
    took, search = float(out[0]), out[1].strip()
    assert took < BOUND, f"{took:.2f} s for a {LIMIT} s first move"
    assert search == how
