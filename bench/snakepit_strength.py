"""Snake Pit's top level against the previous top level and the plain UCT, load-proof.

    nice -n 10 python bench/snakepit_strength.py --games 30 --iterations 4000 --time 0.3

Every pairing puts the player under test in one seat and its opponent in the other two
(chance: a third of the wins), the seats rotating over the three seats; the games of a
rotation share an opening of 0 to ``--opening-turns`` random turns (default 2; 0: every game
from the start).  A random opening turn is a seat's first turn played for it: in the seat
whose first turn it is, the player under test did not choose it, and the summary gives its
wins in those games apart ("own first turn", "random").  The pairings (``--pairings``,
default all):

* ``old-nodes``: the top level against the previous top level (git main's level 5, kept
  here as :data:`PREVIOUS`), each ``--iterations`` MCTS iterations a move -- the same
  budget whatever the machine's load, so the comparison is of the algorithms alone;
* ``old-time``: the same at ``--time`` seconds a move each (both sides suffer the load);
* ``base-time``: the top level against the compiled plain UCT of ``bench/baselines``,
  ``--time`` seconds a move each, and ``prev-base-time`` the previous top level in the same
  place (the baseline run in the same command);
* ``base-nodes``: the top level at ``--iterations`` iterations against the plain UCT at
  ``--ratio`` times as many playouts (the ratio a timed move gives them: their work per
  move at equal time; the budgets' scale then sets how far both search);
* ``two-top-time`` and ``two-top-nodes``: the issue's second test turned round -- the plain
  UCT in one seat against the top level in the other two, so "won" counts the *baseline's*
  wins (the target: at most 10%).

``--set NAME=VALUE`` changes a setting of the top level under test (for tuning).
``--threads N`` gives each of our searches N cores (``Limit.threads``: trees side by side)
while the baseline keeps one; run it with ``--parallel 1``, so that the cores are free.

Each pairing prints its wins with a 95% Wilson interval, the mean place score (1, 0.5, 0;
chance 0.5), the search work a move of each side and, for timed pairings, each side's
worst move as a share of the limit (the time honesty: at most 1.1).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines.snakepit import SnakePitUCT
from slimetrail.ai import Limit
from slimetrail.core.game import Move, State
from slimetrail.core.registry import get_game
from slimetrail.games.snakepit import ai

# Git main's level 5 before this session (session 26's): nodes below the root offer their
# turns by the snakes' exits, no progressive bias, the rollouts list every turn, each node
# expanded on its second visit.
PREVIOUS = ai.CompiledMctsLevel("previous top level", fast=False, judged=1, bias=0.0, expand_at=1)
PAIRINGS = (
    "old-nodes",
    "old-time",
    "base-time",
    "prev-base-time",
    "base-nodes",
    "two-top-time",
    "two-top-nodes",
)

# (state, seed) -> (the move, the search work it took)
Player = Callable[[State, int], tuple[Move, int]]


@cache
def uct() -> SnakePitUCT:
    ai.KERNELS.run()
    return SnakePitUCT()


def level_player(level: ai.CompiledMctsLevel, limit: Limit) -> Player:
    def choose(state: State, seed: int) -> tuple[Move, int]:
        result = level.play(state, limit, random.Random(seed))
        return result.move, result.nodes

    return choose


def top_level(settings: tuple[str, ...]) -> ai.CompiledMctsLevel:
    """The top level, with the ``NAME=VALUE`` settings of ``--set`` (numbers) changed."""
    top = ai.LADDER.levels[ai.LADDER.top]
    assert isinstance(top, ai.CompiledMctsLevel)
    names = {f.name: f.type for f in fields(top)}
    changes: dict[str, float] = {}
    for setting in settings:
        name, _, value = setting.partition("=")
        if name not in names or name == "description":
            raise SystemExit(f"--set {setting}: the top level has no setting {name!r}")
        changes[name] = int(value) if names[name] == "int" else float(value)
    return replace(top, **changes)  # type: ignore[arg-type]


def players(
    pairing: str,
    iterations: int,
    seconds: float,
    settings: tuple[str, ...],
    ratio: float,
    threads: int = 1,
) -> tuple[Player, Player, bool]:
    """(the player under test, its opponent, whether the moves are timed); our levels'
    searches on ``threads`` cores."""
    top = top_level(settings)
    by_nodes = Limit(nodes=iterations, threads=threads)
    by_time = Limit(time=seconds, threads=threads)

    def base_time(state: State, seed: int) -> tuple[Move, int]:
        return uct().choose(state, seconds, seed)

    def base_nodes(state: State, seed: int) -> tuple[Move, int]:
        return uct().choose_playouts(state, round(ratio * iterations), seed)

    return {
        "old-nodes": (level_player(top, by_nodes), level_player(PREVIOUS, by_nodes), False),
        "old-time": (level_player(top, by_time), level_player(PREVIOUS, by_time), True),
        "base-time": (level_player(top, by_time), base_time, True),
        "prev-base-time": (level_player(PREVIOUS, by_time), base_time, True),
        "base-nodes": (level_player(top, by_nodes), base_nodes, False),
        "two-top-time": (base_time, level_player(top, by_time), True),
        "two-top-nodes": (base_nodes, level_player(top, by_nodes), False),
    }[pairing]


@dataclass
class Report:
    won: bool = False
    score: float = 0.0
    own_first_turn: bool = True  # False: the opening's random turns included the tested seat's
    work: dict[str, list[int]] = field(default_factory=lambda: {"test": [], "opp": []})
    worst: dict[str, float] = field(default_factory=lambda: {"test": 0.0, "opp": 0.0})


Job = tuple[str, int, int, int, float, tuple[str, ...], float, int, int]


def play_game(job: Job) -> tuple[str, Report]:
    pairing, number, seed, iterations, seconds, settings, ratio, threads, opening_turns = job
    tested, opponent, timed = players(pairing, iterations, seconds, settings, ratio, threads)
    uct()  # compiled before any timed move
    state = get_game("snake-pit").new_state()
    rng = random.Random(seed * 1_000_003 + number // 3)
    random_turns = number // 3 % (opening_turns + 1)  # the rotation's opening
    for _ in range(random_turns):
        state.push(rng.choice(state.legal_moves()))
    seat = number % 3 + 1
    report = Report(own_first_turn=seat > random_turns)
    move_seed = seed * 100_000 + number * 1_000
    while not state.is_over():
        move_seed += 1
        side = "test" if state.to_move == seat else "opp"
        started = time.perf_counter()
        move, work = (tested if side == "test" else opponent)(state, move_seed)
        if timed:
            report.worst[side] = max(report.worst[side], (time.perf_counter() - started) / seconds)
        report.work[side].append(work)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None
    report.won = outcome.winner == seat
    report.score = outcome.score(seat)
    return pairing, report


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def summary(pairing: str, reports: list[Report], timed: bool) -> str:
    n = len(reports)
    wins = sum(r.won for r in reports)
    low, high = wilson(wins, n)
    score = sum(r.score for r in reports) / n

    def per_move(side: str) -> int:
        work = [w for r in reports for w in r.work[side]]
        return round(sum(work) / max(len(work), 1))

    line = (
        f"{pairing:>15} {n:>5} {wins:>4}/{n:<4} {wins / n:>5.0%} [{low:.0%}, {high:.0%}]"
        f" {score:>6.2f} {per_move('test'):>9} {per_move('opp'):>9}"
    )
    if timed:
        worst = {s: max(r.worst[s] for r in reports) for s in ("test", "opp")}
        line += f" {worst['test']:>6.2f} {worst['opp']:>6.2f}"
    own = [r.won for r in reports if r.own_first_turn]
    played_for = [r.won for r in reports if not r.own_first_turn]
    if played_for:
        line += (
            f"  (own first turn {sum(own)}/{len(own)}, random {sum(played_for)}/{len(played_for)})"
        )
    return line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="per pairing (rounded up to 3s)")
    parser.add_argument("--iterations", type=int, default=4000, help="budget of *-nodes")
    parser.add_argument(
        "--ratio", type=float, default=1.0, help="baseline playouts per our iteration (*-nodes)"
    )
    parser.add_argument("--time", type=float, default=0.3, help="seconds a move of *-time")
    parser.add_argument("--pairings", default=",".join(PAIRINGS), help="comma-separated")
    parser.add_argument("--parallel", type=int, default=1, help="games at once (processes)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--opening-turns",
        type=int,
        default=2,
        help="random turns at most before a rotation's games (0: from the start)",
    )
    parser.add_argument(
        "--set", action="append", default=[], help="NAME=VALUE: a top-level setting changed"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="cores for each of our searches (the baseline uses one): with --parallel 1",
    )
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    if args.opening_turns < 0:
        parser.error("--opening-turns must be at least 0")
    chosen = [p.strip() for p in args.pairings.split(",")]
    unknown = [p for p in chosen if p not in PAIRINGS]
    if unknown:
        parser.error(f"unknown pairing {unknown[0]!r}: choose from {', '.join(PAIRINGS)}")
    games = 3 * math.ceil(args.games / 3)
    print(
        f"snake-pit: {games} games a pairing, one tested seat against two, seats rotated,"
        f" openings of 0-{args.opening_turns} random turns;"
        f" {args.iterations} iterations or {args.time} s a move; top level changed: "
        f"{', '.join(args.set) or 'no'}; baseline playouts {args.ratio}x our iterations"
        f" (*-nodes); our searches on {args.threads} core(s), the baseline's on one;"
        f" load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    print(
        f"{'pairing':>15} {'games':>5} {'won':>9} {'rate':>5} {'95% CI':>11} {'score':>6}"
        f" {'work/mv':>9} {'opp work':>9} {'worst':>6} {'opp w.':>6}"
    )
    top_level(tuple(args.set))  # a bad setting fails before any game
    jobs = [
        (
            p,
            i,
            args.seed,
            args.iterations,
            args.time,
            tuple(args.set),
            args.ratio,
            args.threads,
            args.opening_turns,
        )
        for p in chosen
        for i in range(games)
    ]
    results: dict[str, list[Report]] = {p: [] for p in chosen}
    with multiprocessing.get_context("fork").Pool(args.parallel) as pool:
        for pairing, report in pool.imap(play_game, jobs):
            results[pairing].append(report)
            done = len(results[pairing])
            if done % 6 == 0 and done < games:  # progress, on stderr
                won = sum(r.won for r in results[pairing])
                print(f"  {pairing}: {won} won of {done}", file=sys.stderr, flush=True)
            if done == games:
                timed = pairing.endswith("-time")
                print(summary(pairing, results[pairing], timed), flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
