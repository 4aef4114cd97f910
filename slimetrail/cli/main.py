"""``slimetrail`` entry point: dispatches to one module per subcommand.

Each module in ``COMMANDS`` defines ``register(subparsers)``, which adds its parser and sets
``func`` (taking the parsed args, returning an exit code). Modules keep heavy imports
(numba, FastAPI) inside their functions so that every command starts quickly.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from slimetrail import __version__
from slimetrail.core.game import GameError

COMMANDS = ("play", "ugi", "perft", "solve", "record", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slimetrail",
        description="Slime Trail games: play, analyse, solve, serve.",
    )
    parser.add_argument("--version", action="version", version=f"slimetrail {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"slimetrail.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"slimetrail.cli.{name}":
                raise
            continue  # a subcommand still being built
        module.register(subparsers)
    return parser


def add_game_arguments(parser: argparse.ArgumentParser, default: str = "slimetrail") -> None:
    """The options every game-aware subcommand shares."""
    from slimetrail.core.registry import GAMES

    parser.add_argument("--game", default=default, choices=sorted(GAMES), help="game id")
    parser.add_argument("--size", help="board size (default: the game's own)")
    parser.add_argument("--rules", help="rule set, e.g. rastros or taylor")
    parser.add_argument("--start", help="start cell, e.g. e5 (Portuguese Rastros)")


def game_from_args(args: argparse.Namespace):
    from slimetrail.core.registry import get_game

    return get_game(args.game, size=args.size, rules=args.rules, start=args.start)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except GameError as exc:
        print(f"slimetrail: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
