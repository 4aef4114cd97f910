"""Slither benchmarks: playout speed, the level ladder, strength against plain UCT.

    nice -n 10 python bench/slither.py playouts [--size 9] [--seconds 3]
    nice -n 10 python bench/slither.py ladder [--games 10] [--time 1.0] [--levels 2-5]
    nice -n 10 python bench/slither.py strength [--games 40] [--time 0.25] [--pie on]
    nice -n 10 python bench/slither.py solve [--size 4]
    nice -n 10 python bench/slither.py solved [--size 5] [--games 20] [--time 0.5] [--parallel 2]

``playouts``: random playouts a second from the start and from a middle-game position, by
the compiled kernel (``SlitherState.playout``) and by the generic Python walk of
``State.playout`` (the baseline, measured in the same run), and the iterations the generic
MCTS and the Slither search make in half a second.

``ladder``: each level against the one below, ``--games`` games per pairing, seats
alternating, ``--time`` seconds per move; per level the median and worst time per move.

``strength``: the top level against plain UCT (the platform's generic MCTS, UCT with random
playouts -- the same compiled playout), equal time per move, seats alternating.

``solve``: the exact solver's fast search and the proof-number search
(:mod:`slimetrail.games.slither.proofnumber`) against the plain reference search (the
baseline, in the same run), each with a fresh table, on every first turn of the board in
both games (pie off): nodes and seconds of each, and the ratios.  Both searches are
compiled on a small position first, so the figures are of searching only.

``solved``: the top level against itself on a board the exact solver settled (pie off), in
both games: Black's first turn one proven to win (every turn of plain 4x4 and 5x5 and of
Advanced 4x4; on Advanced 5x5 all but the corners: docs/solved.md), taken in turn, then the
top level on both sides at ``--time`` a move.  Perfect play wins every game for Black.  The
same games with the top level's exact solve turned off are the baseline, in the same run:
Black's wins of each, and the worst move against its limit.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from typing import cast

from slimetrail.ai import MCTS, Limit, play
from slimetrail.core.game import State
from slimetrail.core.registry import get_game
from slimetrail.games.slither.ai import LADDER, SlitherSearch, search_move

MIDDLE = "e5 d5 e6 d6 e4 d4 e3 d3 f3 c3 e7 d7 e8 d8"  # 14 turns on 9x9


def per_second(run, seconds: float) -> float:
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        run()
        done += 1
    return done / (time.perf_counter() - started)


def bench_playouts(args: argparse.Namespace) -> None:
    game = get_game("slither", size=args.size, pie="off")
    positions = {"start": game.new_state()}
    if args.size == 9:
        middle = game.new_state()
        for text in MIDDLE.split():
            middle.push_str(text)
        positions["middle"] = middle
    rng = random.Random(1)
    positions["start"].playout(rng)  # compile (or load) the kernel first
    SlitherSearch(positions["start"]).run(Limit(nodes=10))
    print(f"slither {args.size}x{args.size}, {args.seconds} s per figure")
    print(f"{'position':>9} {'kernel/s':>10} {'python/s':>9} {'ratio':>7}")
    for name, state in positions.items():
        fast = per_second(lambda s=state: s.playout(rng), args.seconds)
        slow = per_second(lambda s=state: State.playout(s, rng), args.seconds)
        print(f"{name:>9} {fast:>10.0f} {slow:>9.1f} {fast / slow:>7.0f}")
    for name, state in positions.items():
        generic = MCTS(state, seed=1).run(Limit(time=0.5)).nodes
        own = SlitherSearch(state, seed=1).run(Limit(time=0.5)).nodes
        print(f"{name:>9}: in 0.5 s generic MCTS {generic} iterations, Slither search {own}")


def warm_up(game) -> None:
    """Compile (or load from numba's cache) the kernel before any move is timed."""
    search_move(game.new_state(), Limit(nodes=50))
    game.new_state().playout(random.Random(0))


def play_game(game, players, seed: int, times) -> int:
    """One game; ``players[p - 1]`` chooses player p's moves. Returns the winner."""
    state = game.new_state()
    while not state.is_over():
        name, choose = players[state.to_move - 1]
        started = time.perf_counter()
        move = choose(state, seed + len(state.move_stack))
        times[name].append(time.perf_counter() - started)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is not None
    return outcome.winner


def level_player(level: int, limit: Limit):
    return lambda state, seed: play(state, level, limit, seed=seed).move


def report_times(times) -> None:
    for name, spent in sorted(times.items()):
        print(
            f"  {name}: median {statistics.median(spent):.3f} s, worst {max(spent):.3f} s "
            f"per move ({len(spent)} moves)"
        )


def bench_ladder(args: argparse.Namespace) -> None:
    game = get_game("slither", size=args.size, pie=args.pie)
    limit = Limit(time=args.time)
    low, _, high = (args.levels or f"2-{LADDER.top}").partition("-")
    warm_up(game)
    print(f"{game.spec}: {args.games} games per pairing, {args.time} s per move")
    print(f"{'pairing':>9} {'wins':>5} {'losses':>6}")
    times: dict[str, list[float]] = defaultdict(list)
    for strong in range(int(low), int(high or low) + 1):
        weak = strong - 1
        wins = 0
        for i in range(args.games):
            seat = 1 + i % 2
            players = [(f"level {weak}", level_player(weak, limit))] * 2
            players[seat - 1] = (f"level {strong}", level_player(strong, limit))
            wins += play_game(game, players, 1000 * strong + i, times) == seat
        print(f"{strong:>4} v {weak:<2} {wins:>5} {args.games - wins:>6}", flush=True)
    report_times(times)


def bench_strength(args: argparse.Namespace) -> None:
    game = get_game("slither", size=args.size, pie=args.pie)
    limit = Limit(time=args.time)

    def top(state: State, seed: int):
        return search_move(state, limit, seed=seed).move

    def uct(state: State, seed: int):
        return MCTS(state, seed=seed).run(limit).move

    warm_up(game)
    print(f"{game.spec}: top level v plain UCT, {args.games} games, {args.time} s per move")
    times: dict[str, list[float]] = defaultdict(list)
    wins = 0
    for i in range(args.games):
        seat = 1 + i % 2
        players = [("plain UCT", uct)] * 2
        players[seat - 1] = ("top level", top)
        won = play_game(game, players, 7919 * i, times) == seat
        wins += won
        print(f"  game {i + 1}: top level player {seat}, {'won' if won else 'lost'}", flush=True)
    print(f"top level won {wins} of {args.games} ({100 * wins / args.games:.0f}%)")
    report_times(times)


def bench_solve(args: argparse.Namespace) -> None:
    from slimetrail.games.slither.game import SlitherState
    from slimetrail.games.slither.proofnumber import ProofSearch
    from slimetrail.games.slither.solver import SlitherSolver

    for game_id in ("slither", "slither-advanced"):
        game = get_game(game_id, size=str(args.size), pie="off")
        warm = get_game(game_id, size="4", pie="off").new_state()
        for text in ("a1", "d1", "a2", "d2"):
            warm.push_str(text)
        figures = {}
        for name in ("reference", "fast"):
            SlitherSolver(reference=name == "reference").solve(warm)  # numba compiles here
            solver = SlitherSolver(reference=name == "reference")
            started = time.perf_counter()
            result = solver.solve(game.new_state())
            figures[name] = (result.nodes, time.perf_counter() - started)
            print(
                f"{game_id} {args.size}x{args.size} {name}: {result.value} for Black, "
                f"{result.nodes} nodes, {figures[name][1]:.2f} s",
                flush=True,
            )
        advanced = game_id == "slither-advanced"
        ProofSearch(4, advanced).mover_wins(cast(SlitherState, warm), 600)  # numba compiles
        search = ProofSearch(args.size, advanced)
        started = time.perf_counter()
        start = game.new_state()
        black_wins = []
        for move in start.legal_moves():
            start.push(move)
            black_wins.append(search.mover_wins(cast(SlitherState, start), 1e9) is False)
            start.pop()
        figures["proof-number"] = (search.nodes, time.perf_counter() - started)
        print(
            f"{game_id} {args.size}x{args.size} proof-number:"
            f" {'win' if any(black_wins) else 'loss'} for Black"
            f" ({sum(black_wins)} of {len(black_wins)} first turns),"
            f" {search.nodes} nodes, {figures['proof-number'][1]:.2f} s",
            flush=True,
        )
        ref_nodes, ref_s = figures["reference"]
        for name in ("fast", "proof-number"):
            nodes, seconds = figures[name]
            print(
                f"  {name} / reference: nodes {nodes / ref_nodes:.3f}, time {seconds / ref_s:.3f}"
            )


def solved_game(job: tuple[str, int, int, float, bool]) -> tuple[bool, float]:
    """One game of ``solved``: whether Black won, and the worst move's share of the limit."""
    from dataclasses import replace

    from slimetrail.games.slither.ai import SearchLevel

    game_id, size, number, seconds, solve = job
    game = get_game(game_id, size=str(size), pie="off")
    type(game).warm_up()
    top = LADDER.levels[LADDER.top]
    assert isinstance(top, SearchLevel)
    level = replace(top, solve=solve)
    state = game.new_state()
    corners = {"a1", f"a{size}", f"{chr(96 + size)}1", f"{chr(96 + size)}{size}"}
    firsts = [
        m
        for m in state.legal_moves()
        if not (game_id == "slither-advanced" and size == 5 and state.move_str(m) in corners)
    ]
    state.push(firsts[number % len(firsts)])
    rng, worst = random.Random(number), 0.0
    while not state.is_over():
        started = time.perf_counter()
        move = level.play(state, Limit(time=seconds), rng).move
        worst = max(worst, (time.perf_counter() - started) / seconds)
        state.push(move)
    outcome = state.outcome()
    assert outcome is not None
    return outcome.winner == 1, worst


def bench_solved(args: argparse.Namespace) -> None:
    import multiprocessing

    for game_id in ("slither", "slither-advanced"):
        won = {}
        for solve in (True, False):
            jobs = [(game_id, args.size, n, args.time, solve) for n in range(args.games)]
            with multiprocessing.Pool(args.parallel) as pool:
                results = pool.map(solved_game, jobs)
            won[solve] = sum(black for black, _ in results)
            worst = max(share for _, share in results)
            name = "top level" if solve else "without the exact solve (baseline)"
            print(
                f"{game_id} {args.size}x{args.size}, {name}: Black won {won[solve]}/{args.games}"
                f" (perfect: all); worst move {worst:.2f}x the limit",
                flush=True,
            )
        print(f"  Black's wins, top level / baseline: {won[True] / max(won[False], 1):.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("playouts", "ladder", "strength", "solve", "solved"))
    parser.add_argument("--size", type=int, help="board size (9; solve: 4)")
    parser.add_argument("--seconds", type=float, default=3.0, help="playouts: per figure")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move")
    parser.add_argument("--levels", help="ladder: stronger levels, e.g. 2-5")
    parser.add_argument("--pie", default="on", choices=("on", "off"))
    parser.add_argument("--parallel", type=int, default=1, help="solved: games at once")
    args = parser.parse_args(argv)
    if args.size is None:
        args.size = 4 if args.what == "solve" else 5 if args.what == "solved" else 9
    benches = {
        "playouts": bench_playouts,
        "ladder": bench_ladder,
        "strength": bench_strength,
        "solve": bench_solve,
        "solved": bench_solved,
    }
    benches[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
