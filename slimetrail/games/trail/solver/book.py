"""Opening books: solved positions near the start of a board, answered without a search.

The first plies of 7x7 Slimetrail take the solver seconds each (the whole board is still in
play), more than the computer's time for a move.  Two kinds of book:

* A full book holds, for every position up to a few plies from the start, the proven value
  and game length after each legal move, as computed by
  :func:`slimetrail.games.trail.solver.solve` with ``distance=True``. :func:`lookup` turns an
  entry back into a :class:`~slimetrail.games.trail.solver.SolveResult`.  Build or extend one
  (resumable: positions already in the file are kept)::

      python -m slimetrail.games.trail.solver.book --game slimetrail --plies 4

* A play book (one per board size and rule set, shared by every start square) holds only a
  winning move, for the positions a perfect player can meet where the solver needs more than
  ``--fast`` seconds: from each start, the winner's book move against every defence, and the
  same from every position a losing first move of the start hands to the other side.
  Positions the solver proves within ``--fast`` seconds are left to it.  Entries are kept in
  one orientation: the reflection in the a1 diagonal keeps both goals, so a position and its
  mirror image share one entry.  :func:`winning_move` answers from it.  Build or extend::

      python -m slimetrail.games.trail.solver.book --play --rules rastros --starts e5 d4

  On the big boards (9x9 and up) the opening is out of the solver's reach, so a play book
  there also holds *searched* entries, kept apart from the proven ones: for a position met
  in the opening, the move of the compiled MCTS-Solver's long searches (``--iterations`` a
  search, one search per ``--seeds``, the root's visits summed), skipping any move the
  solver's kernel proves lost within ``REFUTE_NODES`` nodes.  A book of long searches, not
  of proofs: :func:`book_move` says which kind an entry is.  Positions are added by
  ``bench/opening_book.py`` (the lines the benchmark's baseline plays); the searches are
  reproducible by their seeds, and re-run for every searched entry of a book with::

      python -m slimetrail.games.trail.solver.book --play --size 9 --research
"""

from __future__ import annotations

import argparse
import fcntl
import json
import multiprocessing
import sys
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from slimetrail.core.game import Game, Move, State
from slimetrail.core.registry import get_game, parse_game_spec
from slimetrail.games.trail.game import TrailGame, TrailState

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


# -- play books ------------------------------------------------------------------------

# Seconds of CPU time (the machine may be shared: wall time says less): positions the solver
# proves quicker than this stay out of a play book.
FAST = 0.1


def play_book_path(game: TrailGame) -> Path:
    return BOOK_DIR / f"play-{game.id}-{game.size}-{game.rules}.json"


def _mirror_cell(game: TrailGame, cell: int) -> int:
    col, row = game.board.coords(cell)
    return game.board.index(row, col)


def _book_cell(game: TrailGame, text: str) -> int:
    """The board cell a play book names; a clear error for a damaged book."""
    cell = game.board.parse_cell(text)
    if cell is None:
        raise ValueError(f"the play book of {game.spec} names no cell of its board: {text!r}")
    return cell


def mirror_state(state: TrailState) -> TrailState:
    """The reflection of ``state`` in the a1 diagonal (which keeps both goals)."""
    free = 0
    for cell in range(state.game.board.width * state.game.size):
        if state.free >> cell & 1:
            free |= 1 << _mirror_cell(state.game, cell)
    return TrailState(state.game, free, _mirror_cell(state.game, state.snail), state.to_move)


def canonical(state: TrailState) -> tuple[str, bool]:
    """The key of ``state`` in a play book and whether it is the mirror image's."""
    fen, mirrored = state.fen(), mirror_state(state).fen()
    return (fen, False) if fen <= mirrored else (mirrored, True)


@cache
def _load_play(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """A play book's proven and searched entries."""
    if not path.exists():
        return {}, {}
    document = json.loads(path.read_text(encoding="utf-8"))
    return document["positions"], document.get("searched", {})


def start_values(game: TrailGame) -> dict[str, str]:
    """The proven value for the first player of every start square the play book covers
    (wholly: a start is recorded once its build is complete)."""
    path = play_book_path(game)
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8")).get("starts", {})


def reload() -> None:
    """Read the book files again on next use (after a build in another process)."""
    _load.cache_clear()
    _load_play.cache_clear()


def winning_move(state: State) -> Move | None:
    """The play book's winning move for the side to move in ``state``, if it has one."""
    found = book_move(state)
    return found[0] if found is not None and found[1] else None


def book_move(state: State) -> tuple[Move, bool] | None:
    """The play book's move for the side to move in ``state`` and whether it is proven to
    win (else it is the choice of long searches), if the book has the position."""
    if not isinstance(state, TrailState):
        return None
    proven, searched = _load_play(play_book_path(state.game))
    if not (proven or searched):
        return None
    key, mirrored = canonical(state)
    text = proven.get(key)
    won = text is not None
    if text is None:
        text = searched.get(key)
        if text is None:
            return None
    move = _book_cell(state.game, text)
    return (_mirror_cell(state.game, move) if mirrored else move), won


class PlayBookBuilder:
    """Extends the play book of one board size and rule set, start square by start square."""

    def __init__(self, game: TrailGame, fast: float = FAST, log=print) -> None:
        self.game, self.fast, self.log = game, fast, log
        self.path = play_book_path(game)
        document = json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
        self.book: dict[str, str] = document.get("positions", {})
        # The start squares covered, with their value for the first player.
        self.starts: dict[str, str] = document.get("starts", {})
        # Big boards: the searched entries and how they were searched (see the module's doc).
        self.searched: dict[str, str] = document.get("searched", {})
        self.search: dict[str, Any] = document.get("search", {})
        self.done: set[str] = set()  # keys walked in this run (winner and loser nodes)
        self.solves = 0
        self.saved_at = time.monotonic()

    def cover_start(self, start: str) -> None:
        """Cover the game from ``start``: the winner's moves, and the first player's errors."""
        from slimetrail.games.trail.solver import solve

        game = get_game(self.game.id, size=str(self.game.size), rules=self.game.rules, start=start)
        state = cast(TrailState, game.new_state())  # a TrailGame's state
        began = time.monotonic()
        result = solve(state, book=False)
        self.solves += 1
        if result.value == "win":
            self.winner(state, cast(int, result.winning_moves[0]))
        # Every losing first move hands the win to the other side (all of them, if the start
        # is lost for the first player).
        for move in state.legal_moves():
            if result.move_values[move] == "loss":
                state.push(move)
                if not state.is_over():
                    self.winner(state)
                state.pop()
        # Recorded once the start is covered: a start in the record is wholly in the book.
        mirror = state.game.board.name(_mirror_cell(state.game, state.snail))
        self.starts[start] = self.starts[mirror] = result.value
        self.save()
        self.log(
            f"{game.spec}: {result.value} for the first player; {len(self.book)} entries, "
            f"{self.solves} solves, {time.monotonic() - began:.0f} s"
        )

    def winner(self, state: TrailState, move: int | None = None) -> None:
        """Cover ``state``, won by the side to move (``move``: a winning move, if known)."""
        from slimetrail.games.trail.solver import solve

        key, mirrored = canonical(state)
        if key in self.done:
            return
        self.done.add(key)
        if key in self.book:
            cell = _book_cell(self.game, self.book[key])
            move = _mirror_cell(self.game, cell) if mirrored else cell
        elif move is None:
            began = time.process_time()
            result = solve(state, book=False, first_win=True)
            seconds = time.process_time() - began
            self.solves += 1
            if result.value != "win":
                raise AssertionError(f"{state.fen()} should be won for the side to move")
            if seconds < self.fast:
                return  # the solver finds this one in play
            move = cast(int, result.winning_moves[0])  # a Slime Trail move is a cell
        if key not in self.book:
            book_move = _mirror_cell(self.game, move) if mirrored else move
            self.book[key] = self.game.board.name(book_move)
        state.push(move)
        self.loser(state)
        state.pop()
        if time.monotonic() - self.saved_at > 60:
            self.save()

    def loser(self, state: TrailState) -> None:
        """Cover every reply of the side to move in ``state``, lost for it."""
        for move in state.legal_moves():
            state.push(move)
            if not state.is_over():
                self.winner(state)
            state.pop()

    def search_positions(
        self, states: list[TrailState], iterations: int, seeds: list[int], workers: int = 2
    ) -> None:
        """Add a searched entry for each of ``states`` (``--research``: all again) by the
        MCTS-Solver's searches of ``iterations``, one per seed, in ``workers`` processes."""
        self.search = {"iterations": iterations, "seeds": seeds, "refute_nodes": REFUTE_NODES}
        jobs = [
            (self.game.spec, state.fen(), iterations, seed) for state in states for seed in seeds
        ]
        # Spawned workers: each has its own tree (one per process) and nothing shared.
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            found = pool.map(searched_moves, jobs)
        for number, state in enumerate(states):
            self.enter_search(state, found[number * len(seeds) : (number + 1) * len(seeds)])
        self.save()

    def enter_search(self, state: TrailState, found: list[dict[str, MoveStats]]) -> None:
        """Book for ``state`` the searches' move: a proven win as proven, else the most
        visited move (over the searches) that no search and no short solve proves lost."""
        from slimetrail.games.trail import mcts_kernel

        key, mirrored = canonical(state)
        visits: dict[str, int] = {}
        for moves in found:
            for text, (seen, _, verdict) in moves.items():
                if verdict == "win":
                    self.book[key] = self.mirrored_name(text, mirrored)
                    self.searched.pop(key, None)
                    self.log(f"{state.fen()}: {text} proven to win by the search")
                    return
                if verdict == "loss" or visits.get(text) == -1:
                    visits[text] = -1
                else:
                    visits[text] = visits.get(text, 0) + seen
        total = sum(max(0, v) for v in visits.values()) or 1
        for rank, text in enumerate(sorted(visits, key=lambda t: -visits[t])):
            if visits[text] < 0:
                break
            child = state.copy()
            child.push(state.parse_move(text))
            if not child.is_over() and mcts_kernel.prove(child, REFUTE_NODES) == "win":
                self.log(f"{state.fen()}: {text} (rank {rank + 1}) proven lost, skipped")
                continue
            self.searched[key] = self.mirrored_name(text, mirrored)
            self.log(
                f"{state.fen()}: {text} (rank {rank + 1}, {100 * visits[text] / total:.0f}% "
                f"of the visits)"
            )
            return
        self.searched.pop(key, None)  # lost whatever is played: left to the search
        self.log(f"{state.fen()}: every move lost or proven lost, not booked")

    def mirrored_name(self, text: str, mirrored: bool) -> str:
        """The name of move ``text`` in the book's orientation of its position."""
        cell = _book_cell(self.game, text)
        return self.game.board.name(_mirror_cell(self.game, cell) if mirrored else cell)

    def save(self) -> None:
        document: dict[str, Any] = {
            "game": f"{self.game.id} {self.game.size}x{self.game.size} {self.game.rules}",
            "fast": self.fast,
            "starts": self.starts,
            "positions": self.book,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Builders of other start squares may share the file: under the lock, what they
        # saved meanwhile is merged in.
        with open(Path(tempfile.gettempdir()) / f"{self.path.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.path.exists():
                saved = json.loads(self.path.read_text(encoding="utf-8"))
                self.book.update(saved["positions"])
                self.starts.update(saved.get("starts", {}))
                # Searched entries: this run's are the newer; a proven entry replaces one.
                searched = {**saved.get("searched", {}), **self.searched}
                self.searched = {k: v for k, v in searched.items() if k not in self.book}
            if self.searched:
                document["search"] = self.search
                document["searched"] = self.searched
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n", encoding="utf-8")
            tmp.replace(self.path)  # never a half-written book
        self.saved_at = time.monotonic()
        reload()


# A searched move the solver's kernel proves lost within this many nodes (a second or two)
# is never booked.
REFUTE_NODES = 1_000_000
MoveStats = tuple[int, float, str | None]  # visits, playout score, proven value


def searched_moves(job: tuple[str, str, int, int]) -> dict[str, MoveStats]:
    """The root moves of one MCTS-Solver search (game spec, position, iterations, seed),
    by name: a worker's job, the same for the same job whatever ran before it."""
    from slimetrail.games.trail import mcts_kernel
    from slimetrail.games.trail.strong import NO_CLOCK

    spec, fen, iterations, seed = job
    state = cast(TrailState, parse_game_spec(spec).state_from_fen(fen))
    mcts_kernel.forget()
    result = mcts_kernel.search(state, NO_CLOCK, iterations=iterations, seed=seed)
    return {state.move_str(move): stats for move, stats in result.moves.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="slimetrail")
    parser.add_argument("--size")
    parser.add_argument("--rules")
    parser.add_argument("--start")
    parser.add_argument("--plies", type=int, default=3, help="plies from the start to cover")
    parser.add_argument("--play", action="store_true", help="extend the play book instead")
    parser.add_argument("--starts", nargs="*", help="play book: start squares (default: all)")
    parser.add_argument("--fast", type=float, default=FAST, help="play book: see above")
    parser.add_argument(
        "--research",
        action="store_true",
        help="play book: search every searched entry again (with the book's own settings)",
    )
    args = parser.parse_args(argv)
    game = get_game(args.game, size=args.size, rules=args.rules, start=args.start)
    if args.play:
        if not isinstance(game, TrailGame):
            parser.error(f"play books are for the Slime Trail games, not {game.id}")
        builder = PlayBookBuilder(game, args.fast)
        if args.research:
            if not builder.searched:
                parser.error(f"{builder.path} has no searched entries")
            states = [cast(TrailState, game.state_from_fen(key)) for key in builder.searched]
            settings = builder.search
            builder.search_positions(states, settings["iterations"], settings["seeds"])
            print(f"{len(builder.searched)} searched entries in {builder.path}")
            return 0
        for start in args.starts or start_squares(game):
            builder.cover_start(start)
        print(f"{len(builder.book)} entries in {builder.path}")
        return 0
    added = build(game, args.plies, book_path(game))
    print(f"{added} positions added to {book_path(game)}")
    return 0


def start_squares(game: TrailGame) -> list[str]:
    """Every start square but the goals, one of each mirror pair, nearest the centre first."""
    board = game.board
    centre = (game.size - 1) / 2
    cells = [
        cell
        for cell in range(board.width * game.size)
        if board.mask >> cell & 1
        and not game.goal_mask >> cell & 1
        and _mirror_cell(game, cell) >= cell
    ]

    def spread(cell: int) -> float:
        col, row = board.coords(cell)
        return max(abs(col - centre), abs(row - centre)) + abs(col - row) / 100

    return [board.name(cell) for cell in sorted(cells, key=spread)]


if __name__ == "__main__":
    sys.exit(main())
