"""``slimetrail worker``: computer moves and analyses from the shared job queue (PostgreSQL).

Run one or more next to web-only servers (``slimetrail serve --db ... --workers 0``); see
docs/deploy.md.
"""

from __future__ import annotations

import argparse
import sys

from slimetrail.cli.serve import positive


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run computer moves and analyses from the shared job queue",
        description="Play the computer's moves and run analyses queued by the web servers "
        "on one PostgreSQL database (procrastinate).",
    )
    parser.add_argument("--db", required=True, help="PostgreSQL URL: postgresql://user@host/db")
    parser.add_argument(
        "--workers",
        type=positive(int),
        default=2,
        help="processes for computer moves (default 2)",
    )
    parser.add_argument(
        "--analysis-workers",
        type=positive(int),
        default=1,
        help="processes for analyses, apart from the computer's (default 1)",
    )
    parser.add_argument(
        "--move-time",
        type=positive(float),
        default=1.0,
        help="time cap in seconds for one computer move (default 1)",
    )
    parser.add_argument(
        "--stall-seconds",
        type=positive(float),
        default=30.0,
        help="a worker silent this long is taken for dead and its jobs run again (default 30)",
    )
    parser.add_argument("--log-level", default="info", help="log level")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import logging
    import signal

    from slimetrail.cli.main import database_error, require_extra

    require_extra("web", "worker")
    from sqlalchemy.exc import SQLAlchemyError

    from slimetrail.web.live import MatchAnnouncer, is_postgres, new_origin
    from slimetrail.web.storage.tables import make_engine, make_sessionmaker, upgrade

    if not is_postgres(args.db):
        print(f"slimetrail: error: the job queue needs PostgreSQL, not {args.db}", file=sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    try:
        engine = make_engine(args.db)
        upgrade(engine)
    except (SQLAlchemyError, ModuleNotFoundError) as exc:
        return database_error(args.db, exc)
    from slimetrail.web.jobs import Worker
    from slimetrail.web.service.matches import MatchService

    service = MatchService(make_sessionmaker(engine), on_change=MatchAnnouncer(new_origin()))
    worker = Worker(
        service,
        args.db,
        workers=args.workers,
        analysis_workers=args.analysis_workers,
        move_time=args.move_time,
        stall_seconds=args.stall_seconds,
    )

    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, task.cancel)
        await worker.run()

    try:
        asyncio.run(main())
    except asyncio.CancelledError:
        pass
    finally:
        engine.dispose()
    return 0
