"""Decisions of late 15x15 Slime-Moku games, and how often the top level makes them right.

A match of 40 games against the baseline moves by a few results, and most of its late
positions decide nothing (every move has the same value).  ``build`` walks the games a
`bench/strength.py` log kept (the lost and drawn ones: their moves are printed), runs the exact
endgame search for ``--seconds`` (and at most ``--nodes``: a budget of nodes alone labels
the same under any load) on each position where the top level moved with
``--empties`` empty cells, and keeps the decisions: a move proven best and another proven
worse.  ``measure`` replays each kept position's last ``--lead`` plies (the top level's moves
searched at ``--time``, so its kept tree and the endgame search's table carry as in a game,
the other side's as played) and counts its moves there as right (proven best), wrong (proven
worse) or open.  Run it from the repository root::

    python -m research.moku.decisions build match.log --out decisions.json
    python -m research.moku.decisions measure research/moku/decisions-15x15.json --seeds 2

To compare two versions of the top level, run ``measure`` at each (one per core).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from itertools import pairwise
from pathlib import Path
from typing import cast

from slimetrail.core.registry import get_game
from slimetrail.games.moku import ai, endgame, mcts
from slimetrail.games.moku.game import MokuState

GAME_LINE = re.compile(r"game\s+(\d+): top as (Black|White)")


def logged_games(log: Path) -> list[tuple[int, int, list[str]]]:
    """(game number, the top level's player, moves) of each game a log printed moves for."""
    lines = log.read_text().splitlines()
    found = []
    for line, after in pairwise(lines):
        head = GAME_LINE.match(line)
        if head and after.strip().startswith("moves:"):
            player = 1 if head.group(2) == "Black" else 2
            found.append((int(head.group(1)), player, after.split("moves:")[1].split()))
    return found


def new_state() -> MokuState:
    return cast(MokuState, get_game("slime-moku", size=15, k=5).new_state())


def move_bounds(
    state: MokuState, seconds: float, nodes: int = 1 << 62
) -> tuple[dict[str, list[int]], int]:
    """Each move's proven bounds, by the endgame search from an empty table; when it found a
    win (which ends its search) each move left open is searched on its own, from the reply's
    side, for ``seconds`` (and at most ``nodes``) more.  Also the nodes of the first
    search."""
    found = endgame.move_bounds(state, seconds, nodes, table=endgame.new_table(15, 5))
    bounds = {state.move_str(m): list(b) for m, b in found.bounds.items()}
    if found.winning() is not None:
        for move, (low, high) in found.bounds.items():
            if low < high:
                child = state.copy()
                child.push(move)
                if child.is_over():
                    continue
                table = endgame.new_table(15, 5)
                replies = endgame.move_bounds(child, seconds, nodes, table=table)
                # The move's value is minus the best reply's.
                lows = [r_low for r_low, _ in replies.bounds.values()]
                highs = [r_high for _, r_high in replies.bounds.values()]
                bounds[state.move_str(move)] = [max(low, -max(highs)), min(high, -max(lows))]
    return bounds, found.nodes


def build(
    logs: list[Path], seconds: float, empties: tuple[int, int], nodes: int = 1 << 62
) -> list[dict]:
    """The decisions of the logged games (see the module's note); each search for
    ``seconds`` and at most ``nodes`` (a budget of nodes alone labels the same whatever the
    machine's load)."""
    endgame.warm_up()
    kept = []
    for log in logs:
        for number, ours, moves in logged_games(log):
            state = new_state()
            for ply, move in enumerate(moves):
                if state.to_move == ours and empties[0] <= state.empty.bit_count() <= empties[1]:
                    bounds, used = move_bounds(state, seconds, nodes)
                    best = max(low for low, _ in bounds.values())
                    if any(high < best for _, high in bounds.values()):
                        kept.append(
                            {
                                "log": log.name,
                                "game": number,
                                "moves": moves[:ply],
                                "played": move,
                                "bounds": bounds,
                                "nodes": used,
                            }
                        )
                        print(f"{log.name} game {number} ply {ply}: {bounds}", flush=True)
                state.push_str(move)
    return kept


def verdict(bounds: dict[str, list[int]], move: str) -> str:
    """right: proven as good as the best proven; wrong: proven worse; open: neither."""
    best = max(low for low, _ in bounds.values())
    low, high = bounds[move]
    return "right" if low >= best else "wrong" if high < best else "open"


def measure(positions: list[dict], seconds: float, lead: int, seed: int) -> dict[str, int]:
    """The top level's moves on the decisions, counted by :func:`verdict`."""
    mcts.warm_up()
    endgame.warm_up()
    counts = {"right": 0, "wrong": 0, "open": 0}
    for position in positions:
        state = new_state()
        moves = position["moves"]
        ours = len(moves) % 2 + 1
        for ply, move in enumerate(moves):
            if ply >= len(moves) - lead and state.to_move == ours:
                ai.tree_play(state, ai.TREE_SHARE * seconds, seed * 1000 + ply)
            state.push_str(move)
        pick = state.move_str(ai.tree_play(state, ai.TREE_SHARE * seconds, seed).move)
        said = verdict(position["bounds"], pick)
        counts[said] += 1
        print(f"{position['log']} game {position['game']} ply {len(moves)}: {pick} {said}")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="label the decisions of logged games")
    make.add_argument("logs", nargs="+", type=Path)
    make.add_argument("--seconds", type=float, default=4.0)
    make.add_argument(
        "--nodes", type=int, default=1 << 62, help="each search's node budget (with --seconds)"
    )
    make.add_argument("--empties", type=int, nargs=2, default=(31, 46))
    make.add_argument("--out", type=Path, required=True)
    check = commands.add_parser("measure", help="the top level's moves on a set")
    check.add_argument("positions", type=Path)
    check.add_argument("--time", type=float, default=1.0)
    check.add_argument("--lead", type=int, default=8)
    check.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "build":
        kept = build(args.logs, args.seconds, tuple(args.empties), args.nodes)
        args.out.write_text(json.dumps(kept, indent=0) + "\n")
        print(f"{len(kept)} decisions")
        return 0
    positions = json.loads(args.positions.read_text())
    for seed in range(1, args.seeds + 1):
        counts = measure(positions, args.time, args.lead, seed)
        print(f"seed {seed}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
