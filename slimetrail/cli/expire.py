"""``slimetrail expire``: delete abandoned and old matches (the server's retention policy)."""

from __future__ import annotations

import argparse


def _days(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {text}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "expire",
        help="delete abandoned and old matches",
        description="Delete unfinished matches with no move for a while and finished ones "
        "kept long enough (the web server does it every hour too).",
    )
    parser.add_argument("--db", help="database URL (default: as for slimetrail serve)")
    parser.add_argument(
        "--unfinished-days",
        type=_days,
        help="an unfinished match with no move for this long is deleted (default: the "
        "server's unfinished_days)",
    )
    parser.add_argument(
        "--finished-days",
        type=_days,
        help="a finished match is deleted this long after its end (default: the server's "
        "finished_days)",
    )
    parser.add_argument("--dry-run", action="store_true", help="only count them")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.cli.main import database_error, open_database, require_extra

    require_extra("web", "expire")
    from sqlalchemy.exc import SQLAlchemyError

    from slimetrail.web.settings import Limits
    from slimetrail.web.storage.retention import expire_matches
    from slimetrail.web.storage.tables import default_db_url

    defaults = Limits()  # the server's retention unless the command says otherwise
    unfinished = defaults.unfinished_days if args.unfinished_days is None else args.unfinished_days
    finished = defaults.finished_days if args.finished_days is None else args.finished_days

    url = args.db or default_db_url()
    try:
        engine, sessions = open_database(url)
        count = expire_matches(
            sessions,
            unfinished,
            finished,
            dry_run=args.dry_run,
        )
    except (SQLAlchemyError, ModuleNotFoundError) as exc:
        return database_error(url, exc)
    engine.dispose()
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {count} expired match{'es' if count != 1 else ''}")
    return 0
