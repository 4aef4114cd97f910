"""The shipped puzzle sets and the checking of answers (no HTTP here).

One file a game, ``slimetrail/puzzles/<game>.jsonl.gz``: a puzzle a line (see
:mod:`slimetrail.puzzles.build` for how they are made), with its ``id``, ``game``,
``options``, the ``moves`` from the start to its position, ``to_move``, ``rating``, the main
``line`` of its solution, and the solution ``tree``: at each of the solver's turns ``win``
(every winning move, with the defender's reply and the next turn's tree; the reply is null
where the move ends the game, the tree where the reply does) and ``refute`` (every other
move, with the opponent's answer).  A draw-saving puzzle has ``"goal": "draw"``: its
``win`` moves are those that hold the draw, every other loses (no ``goal``: "win").
"""

from __future__ import annotations

import functools
import gzip
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slimetrail.core.game import GameError, State
from slimetrail.core.i18n import N_
from slimetrail.core.registry import get_game

HERE = Path(__file__).parent
SUFFIX = ".jsonl.gz"
# Puzzles offered around the player's rating: within this many points, else the nearest.
RATING_WINDOW = 200
MAX_ANSWER_MOVES = 200


class PuzzleError(GameError):
    """A request about puzzles names something that is not there (the message says what);
    raised, like a game's errors, with a catalogued template and its values."""


class UnknownPuzzle(PuzzleError):
    """No puzzle has this id (or no set this game)."""


def set_path(game_id: str) -> Path:
    return HERE / f"{game_id}{SUFFIX}"


def games() -> list[str]:
    """The games with a shipped puzzle set."""
    return sorted(path.name.removesuffix(SUFFIX) for path in HERE.glob(f"*{SUFFIX}"))


@functools.cache
def puzzles(game_id: str) -> tuple[dict[str, Any], ...]:
    """A game's puzzles, easiest first."""
    path = set_path(game_id)
    if game_id not in games():
        raise UnknownPuzzle(
            N_("no puzzles for game %(game)r (there are: %(games)s)"),
            game=game_id,
            games=", ".join(games()),
        )
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return tuple(sorted(rows, key=lambda p: (p["rating"], p["id"])))


@functools.cache
def by_id() -> dict[str, dict[str, Any]]:
    return {p["id"]: p for game in games() for p in puzzles(game)}


def find(puzzle_id: str) -> dict[str, Any]:
    puzzle = by_id().get(puzzle_id)
    if puzzle is None:
        raise UnknownPuzzle(N_("no puzzle has the id %(id)r"), id=puzzle_id[:40])
    return puzzle


def pick(game_id: str, rating: int, rng: random.Random, skip: frozenset[str]) -> dict[str, Any]:
    """A puzzle of the game near ``rating``, not one of ``skip`` while others are left."""
    pool = [p for p in puzzles(game_id) if p["id"] not in skip] or list(puzzles(game_id))
    near = [p for p in pool if abs(p["rating"] - rating) <= RATING_WINDOW]
    if not near:
        closest = min(abs(p["rating"] - rating) for p in pool)
        near = [p for p in pool if abs(p["rating"] - rating) == closest]
    return rng.choice(near)


def public(puzzle: dict[str, Any]) -> dict[str, Any]:
    """What a player is shown of a puzzle (not its solution), with its ``goal``: "win", or
    "draw" where the one move to find saves the draw."""
    shown = {key: puzzle[key] for key in ("id", "game", "options", "moves", "to_move", "rating")}
    return shown | {"goal": puzzle.get("goal", "win")}


def position(puzzle: dict[str, Any], line: Sequence[str] = ()) -> State:
    """The puzzle's position, after ``line`` (checked legal) if given."""
    state = get_game(puzzle["game"], **puzzle["options"]).new_state()
    for text in [*puzzle["moves"], *line]:
        state.push(state.parse_move(text))
    return state


@dataclass
class Walk:
    """Where a line from the puzzle's position leads (see :func:`follow`)."""

    state: State  # the position after the line
    spelt: list[str]  # the line's moves in the game's spelling
    reply: str | None = None  # after a player's move last: the computer's answer due
    tree: dict | None = None  # the solver's turn after that answer (None: the game is over)
    wrong: bool = False  # the last move loses (``reply`` is its refutation)


def follow(puzzle: dict[str, Any], moves: Sequence[object]) -> Walk:
    """Check a line from the puzzle's position: the player's moves alternate with the
    computer's answers, each of the player's but a last one winning, each answer the one the
    puzzle gave.  The walk ends after the last move: a winning one with its answer due and the
    next turn's tree, a losing one with its refutation."""
    if len(moves) > MAX_ANSWER_MOVES:
        raise PuzzleError(N_("at most %(most)s moves"), most=MAX_ANSWER_MOVES)
    walk = Walk(position(puzzle), [], tree=puzzle["tree"])
    state = walk.state
    for index, text in enumerate(moves):
        if not isinstance(text, str):
            raise PuzzleError(N_("move %(n)s is not a text: %(text)r"), n=index + 1, text=text)
        try:
            move = state.parse_move(text)
        except GameError as exc:
            raise PuzzleError(
                N_("move %(n)s (%(text)r): %(why)s"), n=index + 1, text=text[:20], why=exc
            ) from None
        name = state.move_str(move)
        state.push(move)
        walk.spelt.append(name)
        left = len(moves) - index - 1  # moves after this one
        if index % 2:  # the computer's answer: it must be the one the puzzle gave
            if name != walk.reply:
                raise PuzzleError(
                    N_("move %(n)s (%(move)s) is not the computer's answer %(answer)s"),
                    n=index + 1,
                    move=name,
                    answer=walk.reply,
                )
            walk.reply = None
            continue
        assert walk.tree is not None  # a move after the game's end does not parse
        if name in walk.tree["refute"]:
            if left:
                raise PuzzleError(
                    N_("move %(n)s (%(move)s) loses: the line ends there"), n=index + 1, move=name
                )
            walk.reply, walk.tree, walk.wrong = walk.tree["refute"][name], None, True
            return walk
        walk.reply, walk.tree = walk.tree["win"][name]
        if (walk.reply is None and left) or (walk.tree is None and left > 1):
            raise PuzzleError(
                N_("move %(n)s (%(move)s) won the game: the line ends there"),
                n=index + 1,
                move=name,
            )
    return walk


@dataclass(frozen=True)
class Verdict:
    correct: bool
    reply: str | None  # the computer's next move, or its refutation of a wrong one
    solved: bool  # the last move won the game
    line: list[str]  # the moves checked, in the game's spelling, and the reply if any


def answer(puzzle: dict[str, Any], moves: list[str]) -> Verdict:
    """Check the player's line from the puzzle's position: their moves alternate with the
    computer's replies and end with a move of theirs.  A winning move is answered by the
    next reply (none where it wins the game), a losing one by its refutation."""
    if not moves:
        raise PuzzleError(N_("moves is empty: send the line from the puzzle's position"))
    walk = follow(puzzle, moves)
    if len(moves) % 2 == 0:
        raise PuzzleError(N_("the line ends with the computer's move: send the player's next move"))
    line = walk.spelt + ([walk.reply] if walk.reply else [])
    return Verdict(not walk.wrong, walk.reply, not walk.wrong and walk.tree is None, line)


def position_after(puzzle: dict[str, Any], moves: Sequence[object]) -> State:
    """The position after a line of the puzzle that leaves the player to move (the player's
    winning moves, each with the computer's answer), for the next clicks there."""
    walk = follow(puzzle, moves)
    if len(moves) % 2:
        raise PuzzleError(
            N_("the line ends with the player's move: send it with the computer's answer")
        )
    if walk.state.is_over():
        raise PuzzleError(N_("the puzzle is solved: no move follows"))
    return walk.state
