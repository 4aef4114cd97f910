"""Opening books: solved positions near the start of a board, answered without a search.

The first plies of 7x7 Slimetrail take the solver seconds each (the whole board is still in
play), more than the computer's time for a move. A book holds, for every position up to a few
plies from the start, the proven value and game length after each legal move, as computed by
:func:`slimetrail.games.trail.solver.solve` with ``distance=True``. :func:`lookup` turns an
entry back into a :class:`~slimetrail.games.trail.solver.SolveResult`.

Build or extend one (resumable: positions already in the file are kept)::

    python -m slimetrail.games.trail.solver.book --game slimetrail --plies 4
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slimetrail.core.game import Game, State
from slimetrail.core.registry import get_game

if TYPE_CHECKING:
    from slimetrail.games.trail.solver import SolveResult

BOOK_DIR = Path(__file__).with_name("books")


def book_path(game: Game) -> Path:
    return BOOK_DIR / f"{game.spec.replace(' ', '_').replace('=', '-')}.json"


@cache
def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["positions"]


def lookup(state: State) -> SolveResult | None:
    """The book's solution of ``state`` (with distances), or ``None`` if it has none."""
    from slimetrail.games.trail.solver import SolveResult

    entry = _load(book_path(state.game)).get(state.fen())
    if entry is None:
        return None
    # In the order of the legal moves, as a search reports them.
    moves = {move: tuple(entry[state.move_str(move)]) for move in state.legal_moves()}
    values = {move: value for move, (value, _) in moves.items()}
    best = "win" if "win" in values.values() else "draw" if "draw" in values.values() else "loss"
    # The mover's best: the fastest win, else the slowest loss (draws are never in a book:
    # they happen only on finished positions).
    lengths = [plies for value, plies in moves.values() if value == best]
    return SolveResult(
        value=best,
        to_move=state.to_move,
        winning_moves=[m for m, v in values.items() if v == "win"],
        drawing_moves=[m for m, v in values.items() if v == "draw"],
        move_values=values,
        plies=min(lengths) if best == "win" else max(lengths),
        move_plies={move: plies for move, (_, plies) in moves.items()},
    )


def positions(game: Game, plies: int) -> list[State]:
    """Every distinct unfinished position up to ``plies`` plies from the start, nearest first."""
    seen: dict[str, State] = {}
    layer = [game.new_state()]
    for depth in range(plies + 1):
        following = []
        for state in layer:
            fen = state.fen()
            if fen in seen or state.is_over():
                continue
            seen[fen] = state
            if depth < plies:
                for move in state.legal_moves():
                    child = state.copy()
                    child.push(move)
                    following.append(child)
        layer = following
    return list(seen.values())


def build(game: Game, plies: int, path: Path) -> int:
    """Solve the positions missing from the book at ``path``; returns how many were added."""
    from slimetrail.games.trail.solver import solve

    book = json.loads(path.read_text(encoding="utf-8"))["positions"] if path.exists() else {}
    added = 0
    for state in positions(game, plies):
        fen = state.fen()
        if fen in book:
            continue
        start = time.monotonic()
        result = solve(state, distance=True)
        book[fen] = {
            state.move_str(move): [value, result.move_plies[move]]
            for move, value in result.move_values.items()
        }
        added += 1
        # Written after every position, so an interrupted build resumes where it stopped.
        path.parent.mkdir(parents=True, exist_ok=True)
        document = {"game": game.spec, "plies": plies, "positions": book}
        path.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(
            f"{len(book):4d} {fen}: {result.value} in {result.plies} plies, "
            f"{time.monotonic() - start:.1f} s",
            flush=True,
        )
    _load.cache_clear()
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="slimetrail")
    parser.add_argument("--size")
    parser.add_argument("--rules")
    parser.add_argument("--start")
    parser.add_argument("--plies", type=int, default=3, help="plies from the start to cover")
    args = parser.parse_args(argv)
    game = get_game(args.game, size=args.size, rules=args.rules, start=args.start)
    added = build(game, args.plies, book_path(game))
    print(f"{added} positions added to {book_path(game)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
