"""The solved atlas: every result the project has proven, from one data file.

``slimetrail/solved.json`` holds one result a line: the game and its options (as text, as
``get_game`` takes them), the start cell shown (``"-"`` where the game has none) and its
mirror image (solved once for both), the value for player 1, the winning first moves, the
game length under best play (``plies``, null where not measured), the nodes and single-core
seconds of the proof, the command that proves it, a note, and ``readme`` (the result is a
row of the README's "Solved" table).  The ``/solved`` page, the README's table
(``python -m slimetrail.atlas --readme``) and docs/solved.md's tables (checked against this
file by ``tests/test_atlas.py``) all come from it.

To add a result: add a line to ``slimetrail/solved.json`` (one JSON object, the fields
above), then run ``python -m slimetrail.atlas --readme`` and paste its table into the
README between the ``solved-table`` markers if the row is marked ``readme``; a new row of a
docs/solved.md table is printed by ``python -m slimetrail.atlas --docs``.
"""

from __future__ import annotations

import argparse
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

from slimetrail.core.game import Game, State
from slimetrail.core.i18n import N_
from slimetrail.core.registry import get_game

DATA = Path(__file__).with_name("solved.json")
VALUES = ("win", "loss", "draw")
# Words of the README's table and the page (one place, for the translators).
README_HEADER = (
    "| game | options | start | value for player 1 | winning first moves | plies | nodes | note |"
)
NOT_MEASURED = "-"
# Every note of the data file, marked for the catalogue so that /solved shows it in the
# reader's language (the README's table keeps the English); a new note goes here too.
NOTES = (
    N_("no five fits"),
    N_("the diagonal steps win; the other six draw"),
    N_(
        "every first move wins: the diagonal steps (c3) and the orthogonal steps (d3), each "
        "proven against every one of White's four distinct replies; nodes are both proofs' "
        "(4.08 G and 7.05 G); checked again by the top level's endgame search (8.30 G nodes)"
    ),
    N_("every one of the 16 first turns wins"),
    N_("the second player wins by swap"),
    N_(
        "every one of the 25 first turns wins: each of White's distinct replies to the nine "
        "kinds (b3 first) proven lost on its own (--split), each proof checked again by the "
        "engine's own rules; nodes are these proofs' (c3 alone, proven before without shared "
        "proofs: 108.1 M)"
    ),
    N_(
        "every first turn but the corners wins: each of White's distinct replies to c3, b3, "
        "c2, a3, b2, c1, a2 and b1 proven lost on its own (--split), and after a1 White's c3 "
        "proven to win; each proof checked again by the engine's own rules; nodes are these "
        "proofs'"
    ),
    N_(
        "no draws: the second player wins, swapping after any first turn but a corner and "
        "answering a corner with c3"
    ),
    N_(
        "d4 proven within the first 484 M nodes (an upper bound); the other first moves not "
        "decided; checked again by the Ray split two plies down (264.3 M nodes)"
    ),
    N_(
        "every reply to d4 proven lost (load 11-20); only d4 tried; checked again by the Ray "
        "split two plies down (125.7 M nodes)"
    ),
)


@dataclass(frozen=True)
class Result:
    game: str
    options: dict[str, str]
    start: str
    value: str
    command: str
    mirror: str | None = None
    winning_moves: list[str] = field(default_factory=list)
    plies: int | None = None
    nodes: int | None = None
    seconds: float | None = None
    note: str | None = None
    readme: bool = False

    def make_game(self) -> Game:
        return get_game(self.game, **self.options)

    def start_state(self) -> State:
        return self.make_game().new_state()

    @property
    def options_text(self) -> str:
        """The options other than the start, as ``name=value`` words."""
        return " ".join(f"{k}={v}" for k, v in self.options.items() if k != "start")

    @property
    def start_text(self) -> str:
        return f"{self.start} (= {self.mirror})" if self.mirror else self.start


def check(row: dict[str, object], line: int) -> Result:
    """A row of the data file as a :class:`Result`; ``ValueError`` naming the line and
    field that is wrong."""
    try:
        result = Result(**row)  # type: ignore[arg-type]
    except TypeError as exc:
        raise ValueError(f"{DATA.name} line {line}: {exc}") from None
    if result.value not in VALUES:
        raise ValueError(f"{DATA.name} line {line}: value {result.value!r} is not win/loss/draw")
    if result.note is not None and result.note not in NOTES:
        raise ValueError(
            f"{DATA.name} line {line}: note {result.note!r} is not in atlas.NOTES "
            "(add it there, for the translators)"
        )
    try:
        result.make_game()
    except Exception as exc:
        raise ValueError(f"{DATA.name} line {line}: {exc}") from None
    return result


@functools.cache
def results() -> tuple[Result, ...]:
    """Every proven result, in the data file's order."""
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    # Line 1 is the opening bracket: row n is on line n + 1.
    return tuple(check(row, n + 2) for n, row in enumerate(rows))


def readme_table() -> str:
    """The README's "Solved" table: the rows marked ``readme``."""
    lines = [README_HEADER, "|---|---|---|---|---|---|---|---|"]
    for r in results():
        if not r.readme:
            continue
        moves = " ".join(r.winning_moves) or NOT_MEASURED
        lines.append(
            f"| {r.game} | {r.options_text} | {r.start} | {r.value} | {moves} | "
            f"{r.plies if r.plies is not None else NOT_MEASURED} | "
            f"{r.nodes if r.nodes is not None else NOT_MEASURED} | {r.note or ''} |"
        )
    return "\n".join(lines) + "\n"


def docs_rows() -> str:
    """The Slime Trail rows in docs/solved.md's table format."""
    lines = []
    for r in results():
        if r.game.startswith("slimetrail"):
            moves = " ".join(r.winning_moves) or "-"
            start = f"{r.start} (= {r.mirror} mirrored)" if r.mirror else r.start
            plies = "" if r.plies is None else str(r.plies)
            lines.append(f"| {start} | {r.value} | {moves} | {plies} | {r.nodes} | {r.seconds} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m slimetrail.atlas", description=__doc__)
    parser.add_argument("--readme", action="store_true", help="print the README's table")
    parser.add_argument("--docs", action="store_true", help="print docs/solved.md's rows")
    args = parser.parse_args(argv)
    print(readme_table() if args.readme or not args.docs else docs_rows(), end="")


if __name__ == "__main__":
    main()
