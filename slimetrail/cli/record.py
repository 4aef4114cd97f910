"""``slimetrail record``: check game records and convert them between PGN and JSON."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "record",
        help="check or convert game records (PGN-like text or JSON)",
        description="Game records: validate them by replaying, or convert between formats.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check", help="replay every game of the files; one line per game, exit 1 on an error"
    )
    check.add_argument("files", nargs="+", metavar="FILE")
    convert = actions.add_parser("convert", help="print the records of FILE in another format")
    convert.add_argument("file", metavar="FILE")
    convert.add_argument("--to", required=True, choices=("json", "pgn"), help="output format")
    parser.set_defaults(func=run)


def _read(path: str) -> str:
    from slimetrail.core.records import RecordError

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def run(args: argparse.Namespace) -> int:
    from slimetrail.core.records import RecordError, parse_records

    if args.action == "convert":
        try:
            records = parse_records(_read(args.file))
        except RecordError as exc:
            raise RecordError(f"{args.file}: {exc}") from None
        if args.to == "pgn":
            sys.stdout.write("\n".join(record.to_pgn() for record in records))
        elif len(records) == 1:
            sys.stdout.write(records[0].to_json())
        else:
            # Several records become a JSON list of the single-record objects.
            parts = [record.to_json().rstrip("\n") for record in records]
            sys.stdout.write("[\n" + ",\n".join(parts) + "\n]\n")
        return 0
    failed = False
    for path in args.files:
        try:
            records = parse_records(_read(path))
        except RecordError as exc:
            print(f"{path}: error: {exc}", file=sys.stderr)
            failed = True
            continue
        for number, record in enumerate(records, 1):
            players = " - ".join(
                record.tags.get(f"Player{p}", "?") for p in range(1, record.game.num_players + 1)
            )
            print(
                f"{path} #{number}: {record.game.spec}, {players}, "
                f"{len(record.moves)} moves, {record.result}"
            )
        if not records:
            print(f"{path}: error: no record found", file=sys.stderr)
            failed = True
    return 1 if failed else 0
