"""A game's warm-up loads every compiled kernel its levels play with: after it, no move of
any level compiles a kernel or loads one from numba's cache (seconds inside a timed move:
the 17 s first moves of the hex 10x10 Taylor strength run, when the warm-up's sample move
from the 9x9 start came out of the opening book and never reached the alpha-beta kernel)."""

from __future__ import annotations

import subprocess
import sys

# Run in a fresh process, so that no earlier test has loaded a kernel; prints each kernel
# whose compiled signatures grew during a move, with the game and the level that moved.
PROBE = """
import random, sys
from numba.core.registry import CPUDispatcher
from slimetrail.ai import Limit, levels_for, play
from slimetrail.core.registry import parse_game_spec

def signatures():
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("slimetrail"):
            for attr, value in list(vars(module).items()):
                if isinstance(value, CPUDispatcher):
                    found[f"{name}.{attr}"] = len(value.signatures)
    return found

for spec in sys.argv[1:]:
    game = parse_game_spec(spec)
    type(game).warm_up()
    rng = random.Random(7)
    for plies in (0, 14, 40):
        state = game.new_state()
        while len(state.move_stack) < plies and not state.is_over():
            state.push(rng.choice(state.legal_moves()))
        if state.is_over():
            continue
        for level in levels_for(game):
            before = signatures()
            play(state, level, Limit(time=0.05), seed=plies)
            grew = [k for k, n in signatures().items() if n > before.get(k, 0)]
            if grew:
                print(f"{spec} ply {plies} level {level}: {' '.join(grew)}")
"""

SPECS = [
    "slimetrail",
    "slimetrail size=9",
    "slimetrail size=11 rules=taylor",
    "slimetrail-hex",
    "slimetrail-hex size=11 rules=rastros",
    "slimetrail-square",
    "slime-moku",
    "slime-moku size=7 k=4",
    "snake-pit",
    "slither",
    "slither-advanced",
]


def test_after_the_warm_up_no_move_of_any_level_loads_a_kernel() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *SPECS], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", f"kernels loaded inside a move:\n{done.stdout}"
