"""Playing strength: our level against the game's independent compiled baseline (plain UCT).

    python bench/strength.py --game slime-moku --size 15 --k 5 --games 40 --time 1.0
    python bench/strength.py --game slimetrail --size 9 --start e5 --games 40 --parallel 2
    python bench/strength.py --game snake-pit --seats one-top --games 30
    python bench/strength.py --game slimetrail-hex --size 11 --rules rastros --baseline-only
    python bench/strength.py --game slimetrail --size 9 --start e5 --iterations 20000 \
        --playouts 100000

Our side plays ``slimetrail.ai.play`` at ``--level`` (default: the game's top level) with
``Limit(time=T)``; the baseline (``bench/baselines``) searches ``T`` seconds a move.  Any game
option is given by name (``--size 9``) or as ``--option NAME=VALUE``.  Two players: sides
alternate, games 2i and 2i + 1 play the same opening with the sides swapped, the opening
being 0-2 random plies chosen by i, so that the games differ; a draw counts 1/2.  Three
players (snake-pit): ``--seats one-top`` puts our level in one seat and the baseline in the
other two (chance: 1/3 of the wins), ``--seats two-top`` the baseline in one seat against
our level in two (target: the baseline wins at most 10%); the seats rotate over the games.

Each game prints a line (and the moves of a game our level did not win); the summary gives
the score, the baseline's playouts per move and per second, our nodes (and MCTS iterations)
per move, and each side's worst move time as a share of the limit (time honesty).
Fixed budgets, for comparing algorithms on a loaded machine (the big Slime Trail boards
and Slime-Moku): ``--iterations N`` gives our top level N MCTS iterations a move instead of
the clock (``strong.play``, its tables emptied before each game; Slime-Moku's
``tree_play`` without the clock, its root threat passes bounded by their nodes alone),
``--playouts M`` the baseline M playouts; a game is then the same for the same seed whatever
the load and the games before it (on the big Slime Trail boards the exact solve of a region
of at most 64 cells gets the nodes its share of ``--time`` buys on a quiet core; a Slime-Moku
board up to 7x7 keeps its exact solver's share of ``--time``: what it proves is proven either
way, but it may find another winning move).
``--threads N`` gives each of our searches N cores (``Limit.threads``: the top levels of
Slime-Moku and Snake Pit search trees side by side) while the baseline keeps one; run it
with ``--parallel 1``, so that the cores are free.
``--ugi`` asks our top level's moves of a ``slimetrail ugi`` subprocess (``go movetime``), the
engine an outside tool such as cutegames plays: the protocol's player, pipes included.
``--only 2 8 14`` plays only those games of the run (numbered from 1, as printed), the same
games as in the whole run: to check again the games of one opening after a change.
``--baseline-only`` prints the baseline's playouts per move from the start and from a
mid-game position, on the wall clock and per CPU second (the latter less sensitive to a
loaded machine); ``--speed`` the same and our level's nodes (MCTS iterations) in the same
moves, the figures from which a fixed-budget ratio is set.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, cast

if __package__ in (None, ""):
    # Run as a script: make ``bench`` (the repository root) importable.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines import Baseline, FixedBaseline, baseline_for
from slimetrail.ai import Limit, ladder_for, play
from slimetrail.ai.limits import PlayResult
from slimetrail.core.game import Game, GameError, State
from slimetrail.core.registry import GAMES, get_game
from slimetrail.engine.bot import UgiProcess
from slimetrail.games.moku.game import SlimeMokuGame
from slimetrail.games.trail.game import TrailGame
from slimetrail.games.trail.ladder import BIG_BOARD_CELLS, big_board

if TYPE_CHECKING:
    from slimetrail.games.trail.game import TrailState

MAX_OPENING_PLIES = 2
MID_GAME_PLIES = 12  # random plies to the --baseline-only mid-game position


@dataclass(frozen=True)
class Match:
    game: Game
    level: int
    seconds: float
    seats: str  # "one-top" or "two-top"
    seed: int
    iterations: int | None = None  # our MCTS iterations a move, fixed (big trail boards, moku)
    playouts: int | None = None  # the baseline's playouts a move, fixed (trail games, moku)
    threads: int = 1  # cores for each of our searches (Limit.threads); the baseline's: one
    ugi: bool = False  # our moves from a `slimetrail ugi` subprocess (go movetime), as outside


@dataclass
class GameReport:
    number: int
    top_seats: tuple[int, ...]
    opening: list[str]
    baseline_name: str = ""
    result: str = ""
    top_score: float = 0.0  # our mean score over our seats (Outcome.score: 1 win, 1/2 draw)
    top_won: bool = False
    baseline_won: bool = False
    plies: int = 0
    baseline_moves: int = 0
    baseline_playouts: int = 0
    baseline_seconds: float = 0.0
    baseline_worst: float = 0.0
    top_moves: int = 0
    top_nodes: int = 0
    top_iterations: int = 0
    top_with_iterations: int = 0
    top_worst: float = 0.0
    top_reports: list[str] = field(default_factory=list)
    record: list[str] = field(default_factory=list)  # every move, the opening's too


# -- one game -----------------------------------------------------------------------------


def top_seats_of(match: Match, number: int) -> tuple[int, ...]:
    players = match.game.num_players
    seat = number % players + 1
    if match.seats == "two-top":
        return tuple(p for p in range(1, players + 1) if p != seat)
    return (seat,)


def opening_of(state: State, group: int, seed: int) -> list[str]:
    """Push the 0-2 random plies of opening ``group`` (one per rotation of the seats)."""
    rng = random.Random(seed * 1_000_003 + group)
    played = []
    for _ in range(group % (MAX_OPENING_PLIES + 1)):
        moves = state.legal_moves()
        if not moves or state.is_over():
            break
        move = rng.choice(moves)
        played.append(state.move_str(move))
        state.push(move)
    return played


@cache
def warmed_baseline(game: Game) -> Baseline:
    """The process's baseline of ``game``, its kernels and ours compiled (or loaded) before
    any timed move."""
    baseline = baseline_for(game)
    baseline.choose(game.new_state(), 0.01, seed=0)
    type(game).warm_up()
    return baseline


def play_one(match: Match, number: int) -> GameReport:
    game = match.game
    baseline = warmed_baseline(game)
    state = game.new_state()
    top = top_seats_of(match, number)
    report = GameReport(number, top, opening_of(state, number // game.num_players, match.seed))
    report.record = list(report.opening)
    report.baseline_name = baseline.name
    seed = match.seed * 100_000 + number * 1_000
    if match.iterations is not None and big_board(state):
        from slimetrail.games.trail import strong

        strong.forget()  # the game depends on its seed, not on the games before it
    engine = UgiEngineProcess(match) if match.ugi else None
    while not state.is_over():
        seed += 1
        started = time.perf_counter()
        if engine is not None and state.to_move in top:
            result = engine.play(state, report.record)
            move = result.move
            spent = time.perf_counter() - started
            report.top_moves += 1
            report.top_nodes += result.nodes
            report.top_worst = max(report.top_worst, spent / match.seconds)
        elif state.to_move in top:
            result = top_move(match, state, seed)
            move = result.move
            spent = time.perf_counter() - started
            report.top_moves += 1
            report.top_nodes += result.nodes
            if "iterations" in result.info:
                report.top_iterations += result.info["iterations"]
                report.top_with_iterations += 1
            report.top_worst = max(report.top_worst, spent / match.seconds)
        else:
            if match.playouts is None:
                move, playouts = baseline.choose(state, match.seconds, seed)
            else:
                fixed = cast(FixedBaseline, baseline)
                move, playouts = fixed.choose(state, match.seconds, seed, match.playouts)
            spent = time.perf_counter() - started
            report.baseline_moves += 1
            report.baseline_playouts += playouts
            report.baseline_seconds += spent
            report.baseline_worst = max(report.baseline_worst, spent / match.seconds)
        report.record.append(state.move_str(move))
        state.push(move)
    if engine is not None:
        engine.close()
    outcome = state.outcome()
    assert outcome is not None
    report.result = outcome.result_text()
    report.plies = len(state.move_stack)
    report.top_score = sum(outcome.score(p) for p in top) / len(top)
    report.top_won = outcome.winner in top
    report.baseline_won = outcome.winner is not None and outcome.winner not in top
    return report


class UgiEngineProcess:
    """``slimetrail ugi`` in a subprocess at its top level, asked ``go movetime`` for each of
    our moves: what an outside tool (cutegames) measures, pipes and start-up included.  The
    bot's engine driver (:class:`slimetrail.engine.bot.UgiProcess`) speaks to it, strict: an
    engine's error line stops the match."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.loop = asyncio.new_event_loop()
        command = [sys.executable, "-m", "slimetrail", "ugi", "--game", match.game.id]
        self.engine = UgiProcess(command, strict=True)
        texts = match.game.option_texts()
        self.options = {spec.name.title(): texts[spec.name] for spec in match.game.option_specs}
        self.options["Threads"] = str(match.threads)
        self.loop.run_until_complete(self.engine.start())
        # The kernels load here, not in our first move's time.
        self.loop.run_until_complete(self.engine.set_up(match.game.id, self.options))

    def play(self, state: State, record: list[str]) -> PlayResult:
        turn = {"game": self.match.game.id, "options": self.options, "moves": record}
        movetime = round(1000 * self.match.seconds)
        lines = self.loop.run_until_complete(self.engine.search(turn, movetime))
        info = [line.split() for line in lines if line.startswith("info ") and " nodes " in line]
        nodes = int(info[-1][info[-1].index("nodes") + 1]) if info else 0
        return PlayResult(state.parse_move(lines[-1].split()[1]), nodes=nodes)

    def close(self) -> None:
        self.loop.run_until_complete(self.engine.stop())
        self.loop.close()


def top_move(match: Match, state: State, seed: int) -> PlayResult:
    if match.iterations is not None and isinstance(match.game, SlimeMokuGame):
        from slimetrail.games.moku.ai import tree_play

        return tree_play(
            state, match.seconds, seed, match.iterations, clock=False, threads=match.threads
        )
    if match.iterations is not None and big_board(state):
        from slimetrail.games.trail import strong

        trail = cast("TrailState", state)
        return strong.play(trail, match.seconds, seed, iterations=match.iterations)
    return play(state, match.level, Limit(time=match.seconds, threads=match.threads), seed=seed)


def play_numbered(args: tuple[Match, int]) -> GameReport:
    return play_one(*args)


# -- the match ----------------------------------------------------------------------------


def game_line(match: Match, report: GameReport) -> str:
    game = match.game
    seats = "+".join(game.player_names[p - 1] for p in report.top_seats)
    opening = " ".join(report.opening) or "-"
    mean_playouts = report.baseline_playouts / max(report.baseline_moves, 1)
    line = (
        f"game {report.number + 1:3d}: top as {seats:<11} opening {opening:<8} "
        f"result {report.result:<9} top score {report.top_score:.2f}  {report.plies:3d} plies  "
        f"baseline {mean_playouts:,.0f} playouts/move  worst time top "
        f"{report.top_worst:.2f}x baseline {report.baseline_worst:.2f}x"
    )
    if not report.top_won:
        # The record of a game not won, for replaying where it was lost.
        line += "\n    moves: " + " ".join(report.record)
    return line


def summary(match: Match, reports: list[GameReport]) -> list[str]:
    games = len(reports)
    moves = sum(r.baseline_moves for r in reports)
    playouts = sum(r.baseline_playouts for r in reports)
    seconds = sum(r.baseline_seconds for r in reports)
    top_moves = sum(r.top_moves for r in reports)
    lines = []
    if match.game.num_players == 2:
        wins = sum(r.top_score == 1.0 for r in reports)
        draws = sum(r.top_score == 0.5 for r in reports)
        points = sum(r.top_score for r in reports)
        lines.append(
            f"level {match.level} vs baseline: +{wins} ={draws} -{games - wins - draws}, "
            f"score {points:g}/{games} = {100 * points / games:.1f}%"
        )
    elif match.seats == "one-top":
        won = sum(r.top_won for r in reports)
        mean = sum(r.top_score for r in reports) / games
        lines.append(
            f"level {match.level} in one seat vs two baseline seats: won {won}/{games} = "
            f"{100 * won / games:.1f}% (chance 33.3%), mean score {mean:.3f}"
        )
    else:
        won = sum(r.baseline_won for r in reports)
        lines.append(
            f"baseline in one seat vs level {match.level} in two: baseline won {won}/{games}"
            f" = {100 * won / games:.1f}% (target <= 10%)"
        )
    lines.append(
        f"baseline ({reports[0].baseline_name}): {playouts / max(moves, 1):,.0f} playouts/move,"
        f" {playouts / max(seconds, 1e-9):,.0f} playouts/s over {moves} moves"
    )
    with_iterations = sum(r.top_with_iterations for r in reports)
    ours = f"level {match.level}: {sum(r.top_nodes for r in reports) / max(top_moves, 1):,.0f}"
    ours += f" nodes/move over {top_moves} moves"
    if with_iterations:
        iterations = sum(r.top_iterations for r in reports) / with_iterations
        ours += f", {iterations:,.0f} MCTS iterations/move on {with_iterations} moves"
    lines.append(ours)
    lines.append(
        f"worst move time / limit {match.seconds:g}s: level {match.level} "
        f"{max(r.top_worst for r in reports):.3f}, "
        f"baseline {max(r.baseline_worst for r in reports):.3f}"
    )
    return lines


def run_match(
    match: Match, games: int, parallel: int, only: list[int] | None = None
) -> list[GameReport]:
    game = match.game
    print(
        f"{game.spec}: level {match.level} (top {ladder_for(game).top}) vs the compiled "
        f"baseline, {match.seconds:g}s a move, {games} games, seats {match.seats}; the first "
        f"0-{MAX_OPENING_PLIES} plies random by game group (seeded {match.seed}), the same "
        f"opening for each rotation of the seats; our searches on {match.threads} core(s), "
        f"the baseline's on one{'; ours through UGI' if match.ugi else ''}",
        flush=True,
    )
    jobs = [(match, number) for number in range(games) if not only or number + 1 in only]
    reports = []
    if parallel > 1:
        # Spawned workers: each compiles nothing twice (numba's cache) and shares no state.
        with multiprocessing.get_context("spawn").Pool(parallel) as pool:
            for report in pool.imap_unordered(play_numbered, jobs):
                print(game_line(match, report), flush=True)
                reports.append(report)
    else:
        for job in jobs:
            report = play_numbered(job)
            print(game_line(match, report), flush=True)
            reports.append(report)
    reports.sort(key=lambda r: r.number)
    for line in summary(match, reports):
        print(line)
    return reports


def speed(game: Game, seconds: float, seed: int, level: int | None) -> None:
    """The baseline's playouts in one move of ``seconds`` from the start and a mid-game
    position, on the wall clock and per CPU second; with ``level``, that level's nodes (and
    MCTS iterations) in a move of the same positions."""
    baseline = warmed_baseline(game)
    start = game.new_state()
    rng = random.Random(seed)
    while True:
        middle = game.new_state()
        for _ in range(MID_GAME_PLIES):
            if middle.is_over():
                break
            middle.push(rng.choice(middle.legal_moves()))
        if not middle.is_over():
            break
    for label, state in (("start", start), (f"after {MID_GAME_PLIES} random plies", middle)):
        wall, cpu = time.perf_counter(), time.process_time()
        _, playouts = baseline.choose(state, seconds, seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"{game.spec} {label}: {playouts:,} playouts in a {seconds:g}s move "
            f"({playouts / wall:,.0f}/s wall, {playouts / cpu:,.0f}/s CPU)"
        )
        if level is None:
            continue
        wall, cpu = time.perf_counter(), time.process_time()
        result = play(state, level, Limit(time=seconds), seed=seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        nodes = result.info.get("iterations", result.nodes)
        print(
            f"{game.spec} {label}: level {level} {nodes:,} nodes in {wall:.2f}s "
            f"({nodes / wall:,.0f}/s wall, {nodes / cpu:,.0f}/s CPU)"
        )


# -- the command --------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, Game]:
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--game", default="slimetrail")
    known, _ = first.parse_known_args(argv)
    if known.game not in GAMES:
        raise SystemExit(f"unknown game {known.game!r} (games: {', '.join(GAMES)})")
    specs = GAMES[known.game].option_specs
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options of this game: " + (", ".join(s.name for s in specs) or "none"),
    )
    parser.add_argument("--game", default="slimetrail", help="game id (default slimetrail)")
    for spec in specs:
        parser.add_argument(f"--{spec.name}", help=f"{spec.help} (default {spec.default})")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option"
    )
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move, each side")
    parser.add_argument("--level", type=int, help="our level (default: the game's top level)")
    parser.add_argument("--seats", choices=("one-top", "two-top"), default="one-top")
    parser.add_argument("--parallel", type=int, default=1, help="games at once (processes)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline-only", action="store_true")
    parser.add_argument("--speed", action="store_true", help="both sides' figures in a move")
    parser.add_argument("--iterations", type=int, help="our MCTS iterations a move, fixed")
    parser.add_argument("--playouts", type=int, help="the baseline's playouts a move, fixed")
    parser.add_argument("--only", type=int, nargs="+", help="play only these games (from 1)")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="cores for each of our searches (the baseline uses one): with --parallel 1",
    )
    parser.add_argument(
        "--ugi",
        action="store_true",
        help="our top level's moves from a `slimetrail ugi` subprocess (go movetime)",
    )
    args = parser.parse_args(argv)
    options = {spec.name: getattr(args, spec.name) for spec in specs}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option {item!r}: expected NAME=VALUE")
        options[name.strip()] = value
    try:
        game = get_game(args.game, **options)
    except GameError as error:
        parser.error(str(error))
    if args.games < 1 or args.time <= 0 or args.parallel < 1 or args.threads < 1:
        parser.error("--games, --parallel and --threads must be at least 1, --time positive")
    moku = isinstance(game, SlimeMokuGame)
    trail = isinstance(game, TrailGame)
    big = isinstance(game, TrailGame) and BIG_BOARD_CELLS[0] <= game.size**2 <= BIG_BOARD_CELLS[1]
    if args.iterations is not None and not (big or moku):
        parser.error(
            "--iterations: only on the big Slime Trail boards (65 to 128 cells) and Slime-Moku"
        )
    if args.playouts is not None and not (trail or moku):
        parser.error(f"--playouts: only for the Slime Trail games and Slime-Moku, not {game.id}")
    if args.iterations is not None and args.level is not None:
        parser.error("--iterations: our top level only (drop --level)")
    if args.ugi and (args.iterations is not None or args.level is not None):
        parser.error("--ugi: our top level on the clock only (drop --iterations and --level)")
    if args.ugi and game.num_players != 2:
        parser.error(f"--ugi: UGI speaks two-player games; {game.id} has {game.num_players}")
    if any(n is not None and n < 1 for n in (args.iterations, args.playouts)):
        parser.error("--iterations and --playouts must be at least 1")
    if args.only and not all(1 <= n <= args.games for n in args.only):
        parser.error(f"--only: game numbers from 1 to --games ({args.games})")
    if args.seats == "two-top" and game.num_players < 3:
        parser.error(f"--seats two-top needs a game of three players; {game.id} has two")
    return args, game


def main(argv: list[str] | None = None) -> None:
    args, game = parse_args(argv)
    ladder = ladder_for(game)
    level = ladder.top if args.level is None else args.level
    if level not in ladder.levels:
        raise SystemExit(f"level {level} is not one of 1..{ladder.top} for {game.id}")
    if args.baseline_only or args.speed:
        speed(game, args.time, args.seed, level if args.speed else None)
        return
    match = Match(
        game,
        level,
        args.time,
        args.seats,
        args.seed,
        args.iterations,
        args.playouts,
        args.threads,
        args.ugi,
    )
    run_match(match, args.games, args.parallel, args.only)


if __name__ == "__main__":
    main()
