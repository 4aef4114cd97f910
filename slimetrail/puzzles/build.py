"""Building the puzzle set: positions from real-looking games where the side to move has
exactly one winning move, solved to the end (``slimetrail puzzles build``).

Games come two ways: the computer's levels playing each other (each side a random level
below the top, which plays the solver), and the solver's own lines with noise (the proven
best move, or with probability ``NOISE`` a random one).  Every position from ``MIN_PLY`` on
is solved; one is kept when the mover wins and exactly one move wins, and its key up to the
board's symmetries (:mod:`slimetrail.puzzles.symmetry`) is new.

The solution is a tree, solved to the end: at each of the solver's turns every winning move
is accepted (the first, unique by selection, and at later turns any winning move: ``branches``
in the data counts the turns with more than one), each answered by the defender's longest
resistance (with a solver that proves game lengths; else the reply leaving the fewest winning
answers); every losing move of the solver's turns has its refutation (a winning answer of
the opponent, or its draw).  Trees over ``MAX_NODES`` of the solver's turns (dropped as soon as
the winning moves still to follow tell so: :class:`Budget`) or whose solves take over
``TREE_TIME`` are dropped: no puzzle is shipped unproven.

The rating grows with the proof's depth, the number of wrong moves and how many of them
tempt the computer's low levels.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import multiprocessing
import random
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slimetrail.ai.levels import ladder_for, play
from slimetrail.ai.limits import Limit
from slimetrail.core.game import ExactSolver, Game, GameError, SolveResult, SolveTimeout, State
from slimetrail.core.registry import get_game
from slimetrail.puzzles.symmetry import position_key

MIN_PLY = 4  # no puzzle in the first plies (the books' openings)
NOISE = 0.3
MAX_NODES = 24  # the solver's turns in one solution tree
MIN_LINE = 3  # plies of the main line: a single move into the goal is no puzzle
# Wrong moves a puzzle offers at least: a forced move is no puzzle, nor a draw to save by
# choosing between two moves (a coin toss: the draw's other moves all lose).
MIN_WRONG = {"win": 1, "draw": 2}
SOLVE_TIME = 1.0  # seconds for one position (slower ones are skipped)
TREE_TIME = 20.0  # seconds for the solves of one solution tree (slower ones are dropped)
LINE_TIME = 0.2  # seconds for the solver's move of a line (else a random move)
LEVEL_TIME = 0.2  # seconds for a level's move
PLAY_LEVELS = 4  # the levels that play the games (the higher ones cost more than the solves)
TEMPTING_LEVELS = 3  # the levels asked how tempting the wrong moves are
PER_GAME = 2  # puzzles kept from one played game, for variety
BATCH = 20  # puzzles written to the file at a time

# The boards of each game's set: options as ``get_game`` takes them.
SETS: dict[str, list[dict[str, str]]] = {
    "slimetrail": [
        # the centre unnamed: named, it would be another game to the opening book
        {"rules": rules} | ({"start": start} if start else {})
        for rules in ("rastros", "taylor")
        for start in ("", "c3", "c4", "d3", "b3", "c5", "e3")
    ],
    "slimetrail-square": [{}],
    "slimetrail-hex": [{"size": "8"}],
    "slither": [{"size": "4"}, {"size": "5"}],
    "slither-advanced": [{"size": "4"}, {"size": "5"}],
    "slime-moku": [{"size": "5", "k": "4"}, {"size": "6", "k": "4"}],
}


class TooBig(Exception):
    """The solution tree outgrew :data:`MAX_NODES`."""


@dataclass
class Prover:
    """The game's exact solver, with game lengths where it proves them."""

    solver: ExactSolver
    distance: bool

    @classmethod
    def for_game(cls, game: Game) -> Prover:
        solver = game.exact_solver()
        if solver is None or not solver.can_solve(game):
            raise GameError(f"{game.spec}: no exact solver for puzzles")
        state = game.new_state()
        try:
            solver.solve(state, distance=True, time_limit=0.001)
        except GameError:
            return cls(solver, False)
        except SolveTimeout:
            pass
        return cls(solver, True)

    def solve(
        self, state: State, time_limit: float | None = SOLVE_TIME, lengths: bool = False
    ) -> SolveResult:
        """The values of ``state`` and its moves; with ``lengths``, the game lengths too
        where the solver proves them (a slower search)."""
        distance = lengths and self.distance
        return self.solver.solve(state, distance=distance, time_limit=time_limit)


def _after(state: State, move: Any, work: Callable[[State], Any]) -> Any:
    state.push(move)
    try:
        return work(state)
    finally:
        state.pop()


def good_moves(result: SolveResult, goal: str) -> list[Any]:
    """The moves that reach a puzzle's goal: the winning ones, or for "draw" those that hold it."""
    return result.winning_moves if goal == "win" else result.drawing_moves


def defence(prover: Prover, state: State, result: SolveResult, goal: str = "win") -> Any:
    """The defender's reply: in a lost position the longest resistance; in a drawn one (a
    draw-saving puzzle) a move that holds the draw, leaving the fewest that hold it in turn."""
    moves = result.drawing_moves or list(result.move_values)
    if prover.distance:
        return max(moves, key=lambda m: result.move_plies.get(m, 0))

    def answers(s: State) -> int:
        return 0 if s.is_over() else len(good_moves(prover.solve(s), goal))

    return min(moves, key=lambda m: _after(state, m, answers))


def refutation(prover: Prover, state: State, time_limit: float | None = None) -> str | None:
    """The opponent's answer to a losing move (``state`` is after it): a winning move, else
    a move that holds the draw; ``None`` when the move ended the game."""
    if state.is_over():
        return None
    result = prover.solve(state, time_limit)
    best = result.winning_moves or result.drawing_moves or list(result.move_values)
    return state.move_str(best[0])


class Budget:
    """What one solution tree may still cost: its solver's turns, counting those already
    known to come (every winning move that does not end the game within its reply needs a
    turn of its own), so a tree too big is dropped before it is solved; and a deadline for
    its solves (a tree whose proof is slow is dropped, never shipped unproven)."""

    def __init__(self, seconds: float | None) -> None:
        self.turns = 0
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def book(self, turns: int = 1) -> None:
        self.turns += turns
        if self.turns > MAX_NODES:
            raise TooBig

    def left(self) -> float | None:
        """Seconds left for the next solve (raises :class:`SolveTimeout` past the deadline)."""
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise SolveTimeout("the solution tree's time is up")
        return left


def solution(
    prover: Prover, state: State, budget: Budget, first: bool = True, goal: str = "win"
) -> dict:
    """The tree of the solver's turn at ``state``: ``{"win": {move: [reply, tree]},
    "refute": {move: reply}}`` (``reply`` null where the move ends the game, ``tree``
    null where the game is over after the reply).  The turn was booked in ``budget``.
    ``goal`` "draw": "win" holds the moves that save the draw, "refute" the losing ones."""
    result = prover.solve(state, budget.left(), lengths=True)
    if result.value != goal or (first and len(good_moves(result, goal)) != 1):
        raise ValueError(f"not a position with one move that reaches the goal ({goal})")
    if first and result.plies is not None and result.plies < MIN_LINE:
        raise ValueError("a move that wins at once is no puzzle")
    wins = good_moves(result, goal)  # the fastest first: the main line
    # Moves that win in 3 plies or more need a turn of their own after the reply.
    budget.book(sum(result.move_plies.get(m, 0) >= 3 for m in wins))
    tree: dict[str, dict] = {"win": {}, "refute": {}}
    for move in wins + [m for m in state.legal_moves() if m not in wins]:
        text = state.move_str(move)
        state.push(move)
        try:
            if move not in wins:
                tree["refute"][text] = refutation(prover, state, budget.left())
            elif state.is_over():
                tree["win"][text] = [None, None]
            else:
                answer = prover.solve(state, budget.left(), lengths=True)
                reply = defence(prover, state, answer, goal)
                reply_text = state.move_str(reply)
                state.push(reply)
                try:
                    # a forced reply may walk into the solver's goal: no turn follows
                    after = None
                    if not state.is_over():
                        if result.move_plies.get(move, 0) < 3:
                            budget.book()  # not booked above (no lengths from this solver)
                        after = solution(prover, state, budget, False, goal)
                    tree["win"][text] = [reply_text, after]
                finally:
                    state.pop()
        finally:
            state.pop()
    return tree


def main_line(tree: dict) -> list[str]:
    """The first winning move of every turn and its reply, to the end."""
    line: list[str] = []
    while tree is not None:
        move, (reply, tree) = next(iter(tree["win"].items()))
        line.append(move)
        if reply is not None:
            line.append(reply)
    return line


def branches(tree: dict | None) -> int:
    """The solver's turns of the tree with more than one winning move."""
    if tree is None:
        return 0
    return (len(tree["win"]) > 1) + sum(branches(sub) for _, sub in tree["win"].values())


def tempting(state: State, tree: dict, seed: int) -> int:
    """How many of the computer's low levels play a losing move."""
    ladder = ladder_for(state.game)
    wrong = 0
    for level in range(1, min(TEMPTING_LEVELS, ladder.top - 1) + 1):
        try:
            move = play(state, level, Limit(time=LEVEL_TIME), seed=seed).move
        except GameError:
            continue
        wrong += state.move_str(move) in tree["refute"]
    return wrong


def rate(line: list[str], wrong_moves: int, tempted: int) -> int:
    """A puzzle's rating: deeper proofs, more wrong moves and tempting ones rate higher."""
    return max(600, min(2800, 700 + 90 * len(line) + 25 * wrong_moves + 150 * tempted))


def puzzle_id(game: Game, moves: list[str]) -> str:
    text = json.dumps([game.id, game.non_default_options(), moves])
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def make_puzzle(
    prover: Prover, state: State, moves: list[str], seed: int, goal: str = "win"
) -> dict | None:
    """The puzzle of ``state`` (after ``moves`` from the start), or None if it is none."""
    budget = Budget(TREE_TIME)
    try:
        budget.book()
        tree = solution(prover, state, budget, goal=goal)
    except (TooBig, ValueError, SolveTimeout):
        return None
    line = main_line(tree)
    if len(line) < MIN_LINE or len(tree["refute"]) < MIN_WRONG[goal]:
        return None
    tempted = tempting(state, tree, seed)
    game = state.game
    return {
        "id": puzzle_id(game, moves),
        **({"goal": goal} if goal != "win" else {}),
        "game": game.id,
        "options": game.non_default_options(),
        "moves": moves,
        "to_move": state.to_move,
        "rating": rate(line, len(tree["refute"]), tempted),
        "line": line,
        "branches": branches(tree),
        "tempting": tempted,
        "tree": tree,
    }


def worth_solving(state: State, result: SolveResult, goal: str = "win") -> bool:
    """Whether a position with one move that reaches the goal may be a puzzle, by what the
    value solve already tells: not when that move ends the game at once (whose proof with game
    lengths can cost more than a whole puzzle) or is the only legal one."""
    if len(result.move_values) < 2:
        return False
    return not _after(state, good_moves(result, goal)[0], lambda s: s.is_over())


def played_games(game: Game, prover: Prover, rng: random.Random) -> Iterator[list[Any]]:
    """Endless games, alternately level against level and the solver's line with noise."""
    top = ladder_for(game).top
    while True:
        state = game.new_state()
        by_solver = rng.random() < 0.5
        levels = {p: rng.randint(1, max(1, min(PLAY_LEVELS, top - 1))) for p in (1, 2)}
        moves: list[Any] = []
        while not state.is_over():
            legal = state.legal_moves()
            move = None
            if by_solver and rng.random() >= NOISE and len(moves) >= MIN_PLY:
                try:
                    result = prover.solve(state, LINE_TIME)
                    ranked = result.winning_moves or result.drawing_moves
                    move = ranked[0] if ranked else defence(prover, state, result)
                except SolveTimeout:
                    pass
            if move is None and (by_solver or rng.random() < 0.1):
                move = rng.choice(legal)
            if move is None:
                move = play(state, levels[state.to_move], Limit(time=LEVEL_TIME)).move
            state.push(move)
            moves.append(move)
        yield moves


def generate(
    game_id: str,
    count: int,
    seed: int,
    seen: set[tuple[object, ...]],
    deadline: float | None = None,
    boards: list[dict[str, str]] | None = None,
    goal: str = "win",
) -> Generator[dict, None, None]:
    """Up to ``count`` new puzzles of ``game_id`` (its boards in turn), none of whose keys is
    in ``seen`` (which is updated); ``goal`` "draw": positions where exactly one move saves
    the draw (every other loses).  Each game is searched from its end backwards, where
    solves are quick, until a solve takes too long or it gave ``PER_GAME`` puzzles."""
    rng = random.Random(seed)
    games = [get_game(game_id, **options) for options in boards or SETS[game_id]]
    # Until the kernels are loaded a timed level's move is a random stand-in (instant), so
    # the games, and how long a set takes to find, would depend on the load.
    type(games[0]).warm_up()
    provers = [Prover.for_game(game) for game in games]
    streams = [played_games(g, p, rng) for g, p in zip(games, provers, strict=True)]
    made = 0
    turn = 0
    while made < count and (deadline is None or time.monotonic() < deadline):
        index = turn % len(games)
        turn += 1
        game, prover = games[index], provers[index]
        moves = next(streams[index])
        state = game.new_state()
        texts: list[str] = []
        for move in moves:
            texts.append(state.move_str(move))
            state.push(move)
        kept = 0
        for _ in range(len(moves) - 1, MIN_PLY - 1, -1):
            state.pop()
            texts.pop()
            if kept >= PER_GAME or made >= count:
                break
            key = position_key(state)
            if key in seen:
                continue
            try:
                result = prover.solve(state)
            except SolveTimeout:
                break
            if result.value != goal or len(good_moves(result, goal)) != 1:
                continue
            if not worth_solving(state, result, goal):
                continue
            seen.add(key)
            puzzle = make_puzzle(prover, state, list(texts), rng.randrange(1 << 30), goal)
            if puzzle is not None:
                made += 1
                kept += 1
                yield puzzle


def read(path: Path) -> list[dict]:
    """The puzzles of a set file (gzip'd JSON lines)."""
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def append(path: Path, puzzles: list[dict]) -> None:
    """Add puzzles to a set file (a gzip member per batch: a killed build keeps its work)."""
    with gzip.open(path, "at", encoding="utf-8") as handle:
        for puzzle in puzzles:
            handle.write(json.dumps(puzzle, separators=(",", ":")) + "\n")


def worker_seed(seed: int, worker: int) -> int:
    """The seed of one of ``--workers`` processes: the first one's is the build's own, so
    one worker makes what a build without workers does."""
    return seed if worker == 0 else seed * 1000 + worker


def _work(job: tuple[Any, ...], results: multiprocessing.Queue) -> None:
    """A worker process: the puzzles of ``generate(*job)`` onto ``results``, then ``None``."""
    try:
        for puzzle in generate(*job):
            results.put(puzzle)
    finally:
        results.put(None)


def parallel(
    game_id: str,
    count: int,
    seed: int,
    seen: set[tuple[object, ...]],
    deadline: float | None,
    boards: list[dict[str, str]] | None,
    workers: int,
    goal: str = "win",
) -> Generator[dict, None, None]:
    """:func:`generate` in ``workers`` processes with their own seeds; a puzzle one of them
    made already (up to symmetry) is dropped here.  The workers end when this does."""
    results: multiprocessing.Queue = multiprocessing.Queue()
    processes = [
        multiprocessing.Process(
            target=_work,
            args=((game_id, count, worker_seed(seed, w), seen, deadline, boards, goal), results),
            daemon=True,
        )
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    running, made = workers, 0
    try:
        while running and made < count:
            puzzle = results.get()
            if puzzle is None:
                running -= 1
                continue
            key = key_of(puzzle)
            if key not in seen:
                seen.add(key)
                made += 1
                yield puzzle
    finally:
        for process in processes:
            process.terminate()
            process.join()


def build(
    game_id: str,
    count: int,
    seed: int,
    out: Path,
    minutes: float | None = None,
    boards: list[dict[str, str]] | None = None,
    report: Callable[[str], None] = print,
    workers: int = 1,
    goal: str = "win",
) -> int:
    """Add ``count`` new puzzles of ``game_id`` to ``out`` (those already there count as
    seen, so a rerun with another seed extends the set), made by ``workers`` processes;
    returns how many were added."""
    seen = {key_of(p) for p in read(out)}
    deadline = None if minutes is None else time.monotonic() + 60 * minutes
    batch: list[dict] = []
    added = 0
    started = time.monotonic()
    if workers > 1:
        made = parallel(game_id, count, seed, seen, deadline, boards, workers, goal)
    else:
        made = generate(game_id, count, seed, seen, deadline, boards, goal)
    with contextlib.closing(made):  # the workers end with it
        for puzzle in made:
            batch.append(puzzle)
            added += 1
            if len(batch) >= BATCH:
                append(out, batch)
                batch = []
                report(f"{game_id}: {added} puzzles in {time.monotonic() - started:.0f} s")
    if batch:
        append(out, batch)
    report(f"{game_id}: {added} puzzles added to {out} in {time.monotonic() - started:.0f} s")
    return added


def puzzle_state(puzzle: dict) -> State:
    """A puzzle's position."""
    game = get_game(puzzle["game"], **puzzle["options"])
    state = game.new_state()
    for text in puzzle["moves"]:
        state.push(state.parse_move(text))
    return state


def key_of(puzzle: dict) -> tuple[object, ...]:
    return position_key(puzzle_state(puzzle))
