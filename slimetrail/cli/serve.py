"""``slimetrail serve``: the web server (FastAPI app under uvicorn)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0-65535)")
    return port


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the web server",
        description="Play in the browser: against the computer, on one device, or by link.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=_port, default=8000, help="port to listen on")
    parser.add_argument(
        "--db",
        help="database URL (default: SQLite file slimetrail.db in $SLIMETRAIL_DATA "
        "or ~/.local/share/slimetrail); e.g. postgresql://user:pass@host/db",
    )
    parser.add_argument(
        "--workers",
        type=_count,
        default=2,
        help="worker processes for computer moves (default 2); 0 with a PostgreSQL --db: "
        "a web-only process, whose computer moves and analyses go to the shared job queue "
        "run by `slimetrail worker`",
    )
    parser.add_argument(
        "--move-time",
        type=positive(float),
        default=1.0,
        help="time cap in seconds for one computer move (default 1)",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one of the server's limits (repeatable), e.g. --limit create_rate=60/minute "
        "--limit in_flight=64; the names and defaults are in slimetrail/web/settings.py",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        metavar="ADDRESSES",
        help="comma-separated addresses of the reverse proxies trusted to name the client in "
        "X-Forwarded-For, which the per-client limits count by (default: $FORWARDED_ALLOW_IPS "
        "or 127.0.0.1; '*' trusts every sender, for a server only a proxy can reach)",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn log level")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.cli.main import database_error, require_extra

    require_extra("web", "serve")
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from slimetrail.web.app import create_app
    from slimetrail.web.settings import Limits

    limits = Limits()
    try:
        for text in args.limit:
            limits = limits.with_text(text)
    except ValueError as exc:
        print(f"slimetrail: error: {exc}", file=sys.stderr)
        return 2
    try:
        app = create_app(args.db, workers=args.workers, move_time=args.move_time, limits=limits)
    except ValueError as exc:
        print(f"slimetrail: error: {exc}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, ModuleNotFoundError) as exc:
        # A malformed URL, a missing driver or a database that cannot be reached.
        return database_error(args.db, exc)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        forwarded_allow_ips=args.forwarded_allow_ips,
        timeout_keep_alive=limits.keep_alive,
    )
    return 0
