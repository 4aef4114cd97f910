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


# Snake Pit's top level answers a mover alone in its region by the longest line of turns
# (fastmcts.alone), a kernel no random position above reaches: after the warm-up, a move
# there compiles nothing either (it compiled kernel.longest_line inside the move: 3.6-6.2 s
# moves in the 1 s strength runs once numba's cache was emptied, bench/RESULTS.md).
ALONE_PROBE = """
import random, sys
from numba.core.registry import CPUDispatcher
from slimetrail.ai import Limit, play
from slimetrail.core.registry import get_game
from slimetrail.games.snakepit import kernel
from slimetrail.games.snakepit.fastmcts import alive

game = get_game("snake-pit")
type(game).warm_up()
rng, state = random.Random(9), game.new_state()
while True:  # seed 9 reaches such a position at ply 24
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    if kernel.region_apart(heads, empty, alive(state), state.to_move, kernel.NBR) >= 0:
        break
    state.push(rng.choice(state.legal_moves()))
before = {k: len(v.signatures) for k, v in vars(kernel).items() if isinstance(v, CPUDispatcher)}
play(state, 5, Limit(time=0.5), seed=1)  # asks kernel.longest_line first
print(" ".join(k for k, v in vars(kernel).items()
               if isinstance(v, CPUDispatcher) and len(v.signatures) > before.get(k, 0)))
"""


def test_snake_pits_lone_player_compiles_nothing_after_the_warm_up() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ALONE_PROBE], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"compiled inside a move: {done.stdout}"
