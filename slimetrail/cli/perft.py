"""``slimetrail perft``: count move sequences from a position, split by first move."""

from __future__ import annotations

import argparse

from slimetrail.cli.main import add_game_arguments, game_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "perft",
        help="count legal move sequences (move generator check)",
        description="Print, for each legal first move, how many move sequences of DEPTH plies "
        "start with it, then the total.",
    )
    add_game_arguments(parser)
    parser.add_argument("--fen", help="start from this position instead of the start position")
    parser.add_argument("--depth", type=int, required=True, help="plies to count (>= 0)")
    parser.add_argument("moves", nargs="*", metavar="MOVES", help="moves to play first")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.core.game import GameError
    from slimetrail.core.perft import divide

    if args.depth < 0:
        raise GameError(f"--depth must be >= 0, not {args.depth}")
    game = game_from_args(args)
    state = game.state_from_fen(args.fen) if args.fen else game.new_state()
    for number, text in enumerate(args.moves, 1):
        try:
            state.push_str(text)
        except GameError as exc:
            raise type(exc)(f"move {number} ({text}): {exc}") from None
    if args.depth == 0:
        print("Nodes searched: 1")
        return 0
    counts = divide(state, args.depth)
    for text, count in counts.items():
        print(f"{text}: {count}")
    print()
    print(f"Nodes searched: {sum(counts.values())}")
    return 0
