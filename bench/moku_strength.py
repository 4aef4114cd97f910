"""Slime-Moku playing strength: the ladder of levels, and the top level against plain UCT.

    python bench/moku_strength.py ladder --games 20 [--time 1.0]
    python bench/moku_strength.py uct --games 40 --time 0.3
    python bench/moku_strength.py timing --positions 30 [--time 1.0]

``ladder``: every level plays the one below (``--games`` games, the stronger level Black in
every other game; the first ``--opening`` plies random, seeded by the game number, so that the
games differ), then the median and worst time per move of every level; the weaker level of
each pairing, measured in the same run, is the baseline.  ``uct``: the top level against
plain UCT (:class:`slimetrail.ai.mcts.MCTS` without the MCTS-Solver proofs, random
playouts), both given the same ``--time`` per move; sides alternate.  15x15, k = 5 unless
``--size`` / ``--k`` say otherwise.  ``timing``: every level's median and worst time per move
over ``--positions`` positions of games between the top level and itself (its own moves
with random ones mixed in), against the baseline of one ``evaluate()`` on those positions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable

from slimetrail.ai import Limit, play
from slimetrail.ai.mcts import MCTS
from slimetrail.core.game import Move, Outcome, State
from slimetrail.core.registry import get_game
from slimetrail.games.moku.ai import LEVELS

Chooser = Callable[[State], Move]


def level_player(level: int, limit: Limit, seed: int) -> Chooser:
    return lambda state: play(state, level, limit, seed=seed).move


def uct_player(seconds: float, seed: int) -> Chooser:
    rng = random.Random(seed)

    def choose(state: State) -> Move:
        return MCTS(state, seed=rng.getrandbits(64), solver=False).run(Limit(time=seconds)).move

    return choose


def play_game(
    state: State, players: dict[int, tuple[str, Chooser]], opening: int, seed: int, times
) -> tuple[Outcome, int]:
    """One game from ``state``; returns the outcome and its length in plies."""
    rng = random.Random(seed)
    for _ in range(opening):
        state.push(rng.choice(state.legal_moves()))
    while not state.is_over():
        name, choose = players[state.to_move]
        started = time.perf_counter()
        move = choose(state)
        times[name].append(time.perf_counter() - started)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None
    return outcome, len(state.move_stack)


def match(game, strong: tuple[str, Callable[[int], Chooser]], weak, games: int, opening: int):
    """``games`` games, the strong player Black in the even ones; prints and returns the tally."""
    wins = losses = draws = 0
    times: dict[str, list[float]] = defaultdict(list)
    lengths = []
    for number in range(games):
        strong_seat = 1 if number % 2 == 0 else 2
        players = {
            strong_seat: (strong[0], strong[1](number)),
            3 - strong_seat: (weak[0], weak[1](number)),
        }
        outcome, plies = play_game(game.new_state(), players, opening, 1000 + number, times)
        lengths.append(plies)
        if outcome.winner == strong_seat:
            wins += 1
        elif outcome.winner is None:
            draws += 1
        else:
            losses += 1
    score = (wins + 0.5 * draws) / games
    print(
        f"{strong[0]:>8} vs {weak[0]:<8} {wins:>4} won {losses:>4} lost {draws:>4} drawn "
        f"score {score:6.1%}  median game {statistics.median(lengths):.0f} plies",
        flush=True,
    )
    return times


def report_times(times: dict[str, list[float]]) -> None:
    print(f"\n{'player':>8} {'moves':>6} {'median s':>9} {'max s':>7}")
    for name in sorted(times):
        values = times[name]
        print(f"{name:>8} {len(values):>6} {statistics.median(values):>9.3f} {max(values):>7.3f}")


def timing(game, limit: Limit, count: int) -> None:
    rng = random.Random(11)
    positions = []
    while len(positions) < count:
        state = game.new_state()
        for _ in range(rng.randrange(4, 120)):
            if state.is_over():
                break
            if rng.random() < 0.3:
                state.push(rng.choice(state.legal_moves()))
            else:
                state.push(play(state, 3, limit, seed=rng.randrange(1000)).move)
        if not state.is_over():
            positions.append(state)
    base = []
    for state in positions:
        started = time.perf_counter()
        state.evaluate()
        base.append(time.perf_counter() - started)
    baseline = statistics.median(base)
    print(f"{count} positions; baseline one evaluate(): {baseline * 1e6:.0f} us")
    print(f"{'level':>5} {'median s':>9} {'max s':>7} {'median / evaluate':>18}")
    for level in sorted(LEVELS):
        times = []
        for number, state in enumerate(positions):
            started = time.perf_counter()
            play(state, level, limit, seed=number)
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        print(
            f"{level:>5} {median:>9.3f} {max(times):>7.3f} {median / baseline:>17.0f}x", flush=True
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("ladder", "uct", "timing"))
    parser.add_argument("--positions", type=int, default=30, help="positions (timing)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move")
    parser.add_argument("--opening", type=int, default=2, help="random plies at the start")
    parser.add_argument("--levels", default=None, help="stronger levels, e.g. 2-6")
    parser.add_argument("--size", default="15")
    parser.add_argument("--k", default="5")
    args = parser.parse_args()
    game = get_game("slime-moku", size=args.size, k=args.k)
    limit = Limit(time=args.time)
    top = max(LEVELS)
    all_times: dict[str, list[float]] = defaultdict(list)
    if args.mode == "timing":
        print(f"{game.spec}, time limit {args.time} s per move")
        timing(game, limit, args.positions)
        return
    print(f"{game.spec}, {args.games} games per pairing, {args.time} s per move")
    if args.mode == "ladder":
        low, _, high = (args.levels or f"2-{top}").partition("-")
        for level in range(int(low), int(high or low) + 1):

            def strong(seed: int, level: int = level) -> Chooser:
                return level_player(level, limit, seed)

            def weak(seed: int, level: int = level) -> Chooser:
                return level_player(level - 1, limit, seed)

            times = match(
                game, (f"L{level}", strong), (f"L{level - 1}", weak), args.games, args.opening
            )
            for name, values in times.items():
                all_times[name].extend(values)
    else:

        def top_player(seed: int) -> Chooser:
            return level_player(top, limit, seed)

        def uct(seed: int) -> Chooser:
            return uct_player(args.time, seed)

        all_times = match(game, (f"L{top}", top_player), ("UCT", uct), args.games, args.opening)
    report_times(all_times)


if __name__ == "__main__":
    main()
