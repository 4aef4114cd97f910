"""``slimetrail`` entry point: dispatches to one module per subcommand.

Each module in ``COMMANDS`` defines ``register(subparsers)``, which adds its parser and sets
``func`` (taking the parsed args, returning an exit code). Modules keep heavy imports
(numba, FastAPI) inside their functions so that every command starts quickly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from slimetrail import __version__
from slimetrail.core.game import Game, GameError, GameOptionError, untranslated
from slimetrail.core.i18n import N_

COMMANDS = (
    "play",
    "ugi",
    "perft",
    "solve",
    "record",
    "serve",
    "worker",
    "expire",
    "bot_token",
    "bot",
    "compile",
    "puzzles",
)
# The modules each optional dependency set of pyproject.toml brings (by import name).
EXTRA_MODULES = {
    "web": (
        "fastapi",
        "uvicorn",
        "sqlalchemy",
        "alembic",
        "jinja2",
        "limits",
        "cachetools",
        "websockets",
    ),
    "bot": ("websockets",),
}


class MissingExtraError(Exception):
    """A subcommand needs an optional dependency set that is not installed."""


def require_extra(extra: str, command: str) -> None:
    """Raise :class:`MissingExtraError` naming the extra to install if any of its modules is
    missing."""
    missing = []
    for name in EXTRA_MODULES[extra]:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            missing.append(name)
    if missing:
        raise MissingExtraError(
            f"slimetrail {command} needs the {extra} extra ({', '.join(missing)} not installed): "
            f"pip install 'slimetrail[{extra}]'"
        )


def database_error(url: str | None, exc: Exception) -> int:
    """Say that the database at ``url`` cannot be opened (a malformed URL, a missing driver,
    a server that cannot be reached), with the first line of why; the exit code."""
    detail = str(exc).splitlines()[0]
    print(f"slimetrail: error: cannot open the database {url}: {detail}", file=sys.stderr)
    return 2


def open_database(url: str) -> tuple[Any, Any]:
    """The engine and sessions of the database at ``url``, its schema brought up to date."""
    from slimetrail.web.storage.tables import make_engine, make_sessionmaker, upgrade

    engine = make_engine(url)
    upgrade(engine)
    return engine, make_sessionmaker(engine)


def command_module(argv: Sequence[str]) -> str | None:
    """The module of the subcommand ``argv`` names (its first word that is not an option:
    the top-level options take no value), or None when it names none of them."""
    words = [word for word in argv if not word.startswith("-")]
    name = words[0].replace("-", "_") if words else None
    return name if name in COMMANDS else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. Given the ``argv`` it will parse, only the subcommand that
    ``argv`` names is imported: a solve from the shell does not load the server, the bot
    client or asyncio (the start-up is most of a small solve's time)."""
    parser = argparse.ArgumentParser(
        prog="slimetrail",
        description="Slime Trail games: play, analyse, solve, serve.",
    )
    parser.add_argument("--version", action="version", version=f"slimetrail {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = None if argv is None else command_module(argv)
    for name in COMMANDS if chosen is None else (chosen,):
        # A missing module is an error, never a subcommand silently left out.
        importlib.import_module(f"slimetrail.cli.{name}").register(subparsers)
    return parser


def add_game_arguments(parser: argparse.ArgumentParser, default: str = "slimetrail") -> None:
    """``--game`` and one ``--NAME`` flag per option any registered game declares (with the
    help of its declaration), plus ``--option NAME=VALUE`` for any of them.  Call it after
    the subcommand's own arguments: a game option whose name a subcommand already uses is
    reachable through ``--option`` only."""
    from slimetrail.core.registry import GAMES

    parser.add_argument("--game", default=default, choices=sorted(GAMES), help="game id")
    # Per option name, the games declaring it, grouped by their help text.
    declared: dict[str, dict[str, list[str]]] = {}
    for game_id, cls in GAMES.items():
        for spec in cls.option_specs:
            helps = declared.setdefault(spec.name, {})
            helps.setdefault(spec.help or spec.name, []).append(game_id)
    flags = []
    for name, helps in declared.items():
        help_text = "; ".join(f"{text} [{', '.join(games)}]" for text, games in helps.items())
        try:
            parser.add_argument(
                f"--{name}", dest=f"game_option_{name}", metavar=name.upper(), help=help_text
            )
        except argparse.ArgumentError:
            continue  # the subcommand's own flag of that name wins
        flags.append(name)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option by name (repeatable), e.g. --option size=9",
    )
    parser.set_defaults(game_option_flags=flags)


def game_options_from_args(args: argparse.Namespace) -> dict[str, str]:
    """The game options given on the command line; a malformed ``--option`` is an error."""
    options: dict[str, str] = {}
    for name in args.game_option_flags:
        value = getattr(args, f"game_option_{name}")
        if value is not None:
            options[name] = value
    for text in args.option:
        name, sep, value = text.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise GameOptionError(
                N_("--option %(option)s: expected NAME=VALUE, e.g. size=9"), option=repr(text)
            )
        options[name.strip().lower()] = value.strip()
    return options


def game_from_args(args: argparse.Namespace) -> Game:
    """The chosen game with its options; an option it does not declare is a clear error."""
    from slimetrail.core.registry import get_game

    return get_game(args.game, **game_options_from_args(args))


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    if not hasattr(args, "language"):
        return run_command(args, untranslated)
    # A command a player reads (``slimetrail play``) speaks ``--lang`` or the terminal's
    # language, its errors included.
    from slimetrail.i18n import from_environment, gettext, speaking

    with speaking(args.language or from_environment(os.environ)):
        return run_command(args, gettext)


def run_command(args: argparse.Namespace, gettext: Callable[[str], str]) -> int:
    try:
        return int(args.func(args) or 0)
    except GameError as exc:
        print(f"slimetrail: error: {exc.translated(gettext)}", file=sys.stderr)
        return 2
    except MissingExtraError as exc:
        print(f"slimetrail: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
