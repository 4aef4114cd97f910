"""``slimetrail bot``: connect a UGI engine to a Slimetrail site as a bot (outbound only)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bot",
        help="play on a Slimetrail site with a UGI engine",
        description="Connect a UGI engine to a Slimetrail site as a bot: it is offered as an "
        "opponent while connected and plays every game offered to it. The token comes from "
        "the site's admin (slimetrail bot-token create NAME).",
    )
    parser.add_argument("--url", required=True, help="the site, e.g. https://slimetrail.example")
    parser.add_argument("--token", required=True, help="the bot's token")
    parser.add_argument(
        "--engine",
        required=True,
        help='the engine\'s command line, e.g. "slimetrail ugi" or "./myengine --hash 64"',
    )
    parser.add_argument(
        "--games",
        default="",
        help="comma-separated games to play (default: every game the engine's Game option lists)",
    )
    parser.add_argument(
        "--movetime",
        type=int,
        default=1000,
        help="milliseconds per move in games without a clock (default 1000)",
    )
    parser.add_argument("--verbose", action="store_true", help="log every UGI line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.cli.main import require_extra

    require_extra("bot", "bot")
    from slimetrail.engine.bot import BotError, play

    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(name)s %(message)s",
    )
    games = [game.strip() for game in args.games.split(",") if game.strip()]
    if args.movetime < 1:
        print("slimetrail: error: --movetime must be at least 1 ms", file=sys.stderr)
        return 2
    try:
        asyncio.run(play(args.url, args.token, args.engine, games, args.movetime))
    except BotError as exc:
        print(f"slimetrail: error: {exc}", file=sys.stderr)
        return 2
    return 0
