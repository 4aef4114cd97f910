"""``slimetrail puzzles build``: make or extend a game's puzzle set (see
:mod:`slimetrail.puzzles.build`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "puzzles",
        help="build the puzzle sets from solved positions",
        description="Puzzles: positions with exactly one winning move, solved to the end.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser(
        "build",
        help="add puzzles of a game to a set file (gzip'd JSON lines; existing ones are kept)",
    )
    build.add_argument("--game", default="slimetrail", help="game id (default slimetrail)")
    build.add_argument("--count", type=int, default=100, help="puzzles to add (default 100)")
    build.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    build.add_argument("--minutes", type=float, help="stop after this many minutes")
    build.add_argument(
        "--board",
        action="append",
        metavar="NAME=VALUE,...",
        help="a board of the set, e.g. rules=taylor,start=c3 (repeatable; default: the "
        "game's shipped boards)",
    )
    build.add_argument(
        "--workers", type=int, default=1, help="processes making puzzles (default 1)"
    )
    build.add_argument("--out", type=Path, help="the set file (default: the shipped one)")
    build.add_argument(
        "--goal",
        choices=("win", "draw"),
        default="win",
        help="win: one move wins (default); draw: one move saves the draw, every other loses",
    )
    parser.set_defaults(func=run)


def parse_board(text: str) -> dict[str, str]:
    board = {}
    for part in filter(None, text.split(",")):
        name, sep, value = part.partition("=")
        if not sep or not name or not value:
            raise ValueError(f"--board {text!r}: expected NAME=VALUE pairs separated by commas")
        board[name.strip()] = value.strip()
    return board


def run(args: argparse.Namespace) -> int:
    from slimetrail.core.game import GameError
    from slimetrail.puzzles import set_path
    from slimetrail.puzzles.build import SETS, build

    if args.game not in SETS:
        print(
            f"error: no puzzle set for game {args.game!r} (one of {', '.join(SETS)})",
            file=sys.stderr,
        )
        return 2
    if args.count < 1:
        print(f"error: --count must be at least 1, not {args.count}", file=sys.stderr)
        return 2
    if args.workers < 1:
        print(f"error: --workers must be at least 1, not {args.workers}", file=sys.stderr)
        return 2
    try:
        boards = [parse_board(text) for text in args.board] if args.board else None
        out = args.out or set_path(args.game)
        build(
            args.game,
            args.count,
            args.seed,
            out,
            args.minutes,
            boards,
            workers=args.workers,
            goal=args.goal,
        )
    except (GameError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
