"""``slimetrail bot-token``: the site admin's bots -- create one (its token shown once),
revoke one, list them."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bot-token",
        help="create, revoke or list the bots allowed on this site",
        description="The bots allowed to connect to this site (slimetrail bot). Tokens are "
        "stored hashed: a new token is shown once.",
    )
    parser.add_argument("--db", help="database URL (default: as for slimetrail serve)")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="a new bot and its token")
    create.add_argument("name", help="the bot's name, shown to players")
    revoke = actions.add_parser("revoke", help="delete a bot: its token no longer works")
    revoke.add_argument("name")
    actions.add_parser("list", help="the bots, their games and whether they are online")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.cli.main import database_error, open_database, require_extra

    require_extra("web", "bot-token")
    from sqlalchemy.exc import SQLAlchemyError

    from slimetrail.web.settings import Limits
    from slimetrail.web.storage.bots import BotNameError, BotRepository, now
    from slimetrail.web.storage.tables import default_db_url

    url = args.db or default_db_url()
    try:
        engine, sessions = open_database(url)
        bots = BotRepository(sessions)
        if args.action == "create":
            token = bots.create(args.name)
            print(f"bot {args.name} created; its token (shown only now): {token}")
        elif args.action == "revoke":
            bots.revoke(args.name)
            print(f"bot {args.name} revoked")
        else:
            window = Limits().bot_online
            for bot in bots.all():
                online = bot.seen is not None and (now() - bot.seen).total_seconds() <= window
                games = ", ".join(bot.games) or "-"
                print(f"{bot.name}\t{'online' if online else 'offline'}\t{games}")
    except BotNameError as exc:
        print(f"slimetrail: error: {exc}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, ModuleNotFoundError) as exc:
        return database_error(url, exc)
    engine.dispose()
    return 0
