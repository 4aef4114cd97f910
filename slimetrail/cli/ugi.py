"""``slimetrail ugi``: speak the UGI protocol on stdin/stdout (for cutegames and GUIs)."""

from __future__ import annotations

import argparse

from slimetrail.cli.main import add_game_arguments, game_from_args


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "ugi",
        help="run as a UGI engine on stdin/stdout",
        description="Run as a UGI engine (Universal Game Interface, after UCI) on stdin/stdout.",
    )
    add_game_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.engine.ugi import run_stdio

    return run_stdio(game_from_args(args))
