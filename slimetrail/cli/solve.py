"""``slimetrail solve``: the proven value of a position and every move that keeps it; with
``--batch``, of many positions, one JSON object per line.

A batch line is one position: its moves from the start (or from ``--fen``), separated by
spaces (``c3 c2 b2``), or ``fen FEN`` with the position's FEN, optionally followed by ``;``
and moves from there (``fen 7/7/xxxxxx1/x4x1/xox2x1/xxx2x1/3xxx1 1; e3``).  Empty lines and
lines starting with ``#`` are skipped.  Each position gives one line of output: the keys of
``--json`` and ``line`` (its line number), or, for a line that could not be read or solved,
``{"line", "input", "error"}``; the batch goes on.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from slimetrail.cli.main import add_game_arguments, game_from_args
from slimetrail.core.game import outcome_sentence


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "solve",
        help="solve a position exactly (games with an exact solver)",
        description="Analyse the position after MOVES from the start (or --fen) exactly: its "
        "value for the side to move and every winning (or drawing) move.",
    )
    add_game_arguments(parser)
    parser.add_argument("moves", nargs="*", metavar="MOVES", help="moves from the start")
    parser.add_argument("--fen", help="start from this position instead of the initial one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--distance",
        action="store_true",
        help="also find the game length under best play (winner fastest, loser slowest)",
    )
    parser.add_argument("--time-limit", type=float, metavar="S", help="give up after S seconds")
    parser.add_argument(
        "--no-book", action="store_true", help="search even where the opening book knows"
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="solve the moves in N processes at a time (with --batch: N positions at a time)",
    )
    parser.add_argument(
        "--batch",
        metavar="FILE",
        help="solve the position of each line of FILE (- for standard input): moves, or "
        "'fen FEN' optionally followed by '; MOVES'; one JSON object per line out",
    )
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="save long solves here (also on --time-limit); the same command resumes them",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.core.game import SolveTimeout

    game = game_from_args(args)
    solver = game.exact_solver()
    if solver is None:
        print(
            f"slimetrail: {game.spec} has no exact solver",
            file=sys.stderr,
        )
        return 2
    long_solve = getattr(solver, "solve_long", None)
    if (args.workers or args.checkpoint or args.no_book) and long_solve is None:
        print(
            f"slimetrail: {game.id}'s solver has no --workers, --checkpoint or --no-book",
            file=sys.stderr,
        )
        return 2
    if args.workers is not None and args.workers < 1:
        print("slimetrail: --workers must be at least 1", file=sys.stderr)
        return 2
    if args.batch is not None:
        if args.moves or args.checkpoint:
            print("slimetrail: --batch takes no MOVES and no --checkpoint", file=sys.stderr)
            return 2
        return run_batch(args, game)
    state = game.state_from_fen(args.fen) if args.fen else game.new_state()
    for text in args.moves:
        state.push_str(text)
    if args.checkpoint:  # a long solve: say when it saves
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        if long_solve is not None and (args.workers or args.checkpoint or args.no_book):
            result = long_solve(
                state,
                workers=args.workers,
                distance=args.distance,
                time_limit=args.time_limit,
                checkpoint_dir=args.checkpoint,
                book=not args.no_book,
            )
        else:
            result = solver.solve(state, distance=args.distance, time_limit=args.time_limit)
    except SolveTimeout as exc:
        print(f"slimetrail: unsolved: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result_json(state, result, args.distance)))
        return 0
    player = f"player {result.to_move} ({game.player_names[result.to_move - 1]})"
    print(f"{game.spec}  {state.fen()}")
    if result.over:
        outcome = state.outcome()
        assert outcome is not None
        print(f"The game is over. {outcome_sentence(game, outcome)}")
        return 0
    length = f" in {result.plies} plies" if result.plies is not None else ""
    print(f"{player} to move: {result.value.upper()}{length}")
    for label, moves in (("winning", result.winning_moves), ("drawing", result.drawing_moves)):
        if moves:
            print(f"{label} moves: {' '.join(_describe(state, result, m) for m in moves)}")
    if not result.winning_moves and not result.drawing_moves:
        print(
            f"every move loses: {' '.join(_describe(state, result, m) for m in result.move_values)}"
        )
    if result.nodes == 0 and long_solve is not None:  # only solvers with a book skip --no-book
        print("from the opening book (--no-book searches)")
    else:
        print(f"{result.nodes} nodes in {result.seconds:.2f} s")
    return 0


def result_json(state, result, distance: bool) -> dict:
    """What ``--json`` prints for ``result``, the solve of ``state``."""
    names = [state.move_str(m) for m in result.move_values]
    out = {
        "game": state.game.spec,
        "fen": state.fen(),
        "over": result.over,
        "value": result.value,
        "to_move": result.to_move,
        "winning_moves": [state.move_str(m) for m in result.winning_moves],
        "drawing_moves": [state.move_str(m) for m in result.drawing_moves],
        "move_values": dict(zip(names, result.move_values.values(), strict=True)),
        "nodes": result.nodes,
        "seconds": round(result.seconds, 4),
    }
    if distance:
        out["plies"] = result.plies
        out["move_plies"] = {state.move_str(m): p for m, p in result.move_plies.items()}
    return out


def batch_position(game, line: str, start_fen: str | None):
    """The position a batch line describes (see the module's docstring)."""
    fen, moves = start_fen, line
    if line.startswith("fen "):
        fen, _, moves = line[4:].partition(";")
        fen = fen.strip()
    state = game.state_from_fen(fen) if fen else game.new_state()
    for text in moves.split():
        state.push_str(text)
    return state


def run_batch(args: argparse.Namespace, game) -> int:
    """``--batch``: every line's position solved, one JSON line each, in the input's order;
    1 if any line failed."""
    from collections import deque

    from slimetrail.core.batch import solve_many
    from slimetrail.core.game import GameError

    try:
        source = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        print(f"slimetrail: --batch {args.batch}: {exc.strerror}", file=sys.stderr)
        return 2
    # Every line read, in order: (number, text, its position or None, its error or None).
    # The positions go to the solver as they are read; a line that cannot be read waits
    # here for the results before it, so that the output keeps the input's order.
    read: deque = deque()

    def positions():
        for number, raw in enumerate(source, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                state = batch_position(game, line, args.fen)
            except GameError as exc:
                read.append((number, line, None, exc))
                continue
            read.append((number, line, state, None))
            yield state

    failed = False

    def emit(entry, result) -> None:
        nonlocal failed
        number, line, state, _ = entry
        if isinstance(result, Exception):
            failed = True
            out = {"line": number, "input": line, "error": str(result) or type(result).__name__}
        else:
            out = {"line": number, **result_json(state, result, args.distance)}
        print(json.dumps(out), flush=True)

    try:
        results = solve_many(
            positions(),
            workers=args.workers or 1,
            distance=args.distance,
            time_limit=args.time_limit,
            book=not args.no_book,
        )
        for result in results:
            while read[0][2] is None:  # the unreadable lines before this position
                entry = read.popleft()
                emit(entry, entry[3])
            emit(read.popleft(), result)
        while read:
            entry = read.popleft()
            emit(entry, entry[3])
    finally:
        if source is not sys.stdin:
            source.close()
    return 1 if failed else 0


def _describe(state, result, move) -> str:
    text = state.move_str(move)
    if move in result.move_plies:
        text += f"({result.move_plies[move]})"
    return text
