"""Is the top level perfect on 7x7?  Level 6 against an independent alpha-beta opponent.

The opponent is ``bench/opponent.c`` (iterative-deepening alpha-beta with a transposition
table and a distance evaluation, its own move generation; nothing shared with Slimetrail's
solver or search), compiled here with gcc into a temporary directory.  Both sides get the
same wall time a move.  One game from every start square of 7x7 under each rule set, our
side alternating from one start to the next (and the other way round under the other rule
set); the proven value of each start comes from the play book's record, or for a start
the books do not cover from the table in docs/solved.md (marked "(docs)").  Prints the table
and whether every game from a start won for our side was won.

    python bench/perfect.py                     # every start, both rule sets, 1 s a move
    python bench/perfect.py --rules rastros --starts e5 d4 --seconds 1
    python bench/perfect.py --swap               # our side the other way round
    python bench/perfect.py --winner             # our side: the one the start is won for
    python bench/perfect.py --loser              # our side lost: are the mistakes punished?
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from slimetrail import get_game
from slimetrail.ai import choose_move
from slimetrail.games.trail.solver import warm_up
from slimetrail.games.trail.solver.book import reload, start_squares, start_values, winning_move

SOURCE = Path(__file__).with_name("opponent.c")
FILES = "abcdefg"
RULES = ("rastros", "taylor")
# docs/solved.md: under both rule sets the first player wins from every start but these.
LOST_STARTS = ("e3", "c5")


def compile_opponent(directory: str) -> str:
    binary = str(Path(directory) / "opponent")
    subprocess.run(["gcc", "-O2", "-o", binary, str(SOURCE)], check=True)
    return binary


def opponent_move(binary: str, state, milliseconds: int) -> int:
    """The opponent's move in ``state`` (a board cell index of ours)."""
    board, n = state.game.board, state.game.size

    def flat(cell: int) -> int:  # the opponent numbers cells row by row, a1 = 0
        col, row = board.coords(cell)
        return row * n + col

    free = sum(1 << flat(cell) for cell in range(board.width * n) if state.free >> cell & 1)
    out = subprocess.run(
        [
            binary,
            str(n),
            state.game.rules,
            str(flat(state.snail)),
            str(state.to_move),
            f"{free:x}",
            str(milliseconds),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    cell = int(out[0])
    return board.index(cell % n, cell // n)


def every_start() -> list[str]:
    """Every square but the goals: the Portuguese e5 first, then from the centre outwards,
    each followed by its mirror image in the a1 diagonal."""
    order = ["e5"] + [s for s in start_squares(get_game("slimetrail")) if s != "e5"]
    starts = []
    for square in order:
        mirror = f"{FILES[int(square[1]) - 1]}{FILES.index(square[0]) + 1}"
        starts += [square] if mirror == square else [square, mirror]
    return starts


def play(binary: str, rules: str, start: str, ours: int, seconds: float) -> dict:
    reload()  # a book build may be extending the books meanwhile
    game = get_game("slimetrail", rules=rules, start=start)
    state = game.new_state()
    booked = thought = 0
    slowest = 0.0
    while not state.is_over():
        if state.to_move == ours:
            booked += winning_move(state) is not None
            began = time.perf_counter()
            move = choose_move(state, 6, time_limit=seconds)
            spent = time.perf_counter() - began
            slowest = max(slowest, spent)
            thought += 1
        else:
            move = opponent_move(binary, state, int(seconds * 1000))
        state.push(move)
    winner = state.outcome().winner
    return {
        "moves": " ".join(state.move_str(m) for m in state.move_stack),
        "won": winner == ours,
        "plies": len(state.move_stack),
        "booked": f"{booked}/{thought}",
        "slowest": slowest,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", nargs="*", default=["rastros", "taylor"], choices=RULES)
    parser.add_argument("--starts", nargs="*", help="default: every square but the goals")
    parser.add_argument("--seconds", type=float, default=1.0, help="a move, both sides")
    parser.add_argument("--swap", action="store_true", help="our side the other way round")
    parser.add_argument(
        "--winner", action="store_true", help="our side: the one each start is won for"
    )
    parser.add_argument(
        "--loser", action="store_true", help="our side: the one each start is lost for"
    )
    args = parser.parse_args(argv)
    if args.winner and args.loser:
        parser.error("--winner and --loser exclude each other")
    starts = args.starts or every_start()
    warm_up()
    won_starts = won_games = 0
    lost_starts = punished = 0  # games from a start lost for our side, and those we won
    booked: list[bool] = []  # per game from a won start: won, for the starts the books cover
    print(
        "| start | rules | our side | proven value (first player) | result | plies "
        "| our book moves | slowest move s | moves |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as directory:
        binary = compile_opponent(directory)
        for rules in args.rules:
            # The other side from each start under the other rules (and with --swap).
            flip = (rules == "taylor") != args.swap
            for i, start in enumerate(starts):
                reload()
                value = start_values(get_game("slimetrail", rules=rules)).get(start)
                if value is None:  # a start the books do not cover yet: the proven table
                    value = f"{'loss' if start in LOST_STARTS else 'win'} (docs)"
                ours = 1 + (i + flip) % 2
                if args.winner or args.loser:
                    ours = 1 if value.startswith("win") == args.winner else 2
                game = play(binary, rules, start, ours, args.seconds)
                ours_wins = value.startswith("win") == (ours == 1)
                if ours_wins:
                    won_starts += 1
                    won_games += game["won"]
                    if not value.endswith("(docs)"):
                        booked.append(game["won"])
                else:
                    lost_starts += 1
                    punished += game["won"]
                print(
                    f"| {start} | {rules} | {ours} | {value} | "
                    f"{'won' if game['won'] else 'lost'} | {game['plies']} | {game['booked']} | "
                    f"{game['slowest']:.2f} | {game['moves']} |",
                    flush=True,
                )
    print(f"\ngames from a start won for our side: {won_starts}, won: {won_games}")
    print(f"of them from starts the play books cover: {len(booked)}, won: {sum(booked)}")
    print(f"every game from a won start won: {'yes' if won_games == won_starts else 'no'}")
    print(f"games from a start lost for our side: {lost_starts}, won all the same: {punished}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
