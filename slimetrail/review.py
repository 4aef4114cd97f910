"""Game review: a verdict on every move of a game, exact where the game's solver answers in
time, else from the engine's win probability.

:func:`review_moves` replays a game and looks at the position before each move:

* The game's exact solver (if it has one) is asked first, with ``solve_time`` seconds per
  position.  A proven position gives the mover's value before the move, its value after it
  (the value of the move), the winning moves there, and where the solver counts them the
  game's length under best play before and after.  The verdict compares the two values:
  a win turned into a draw or loss "threw away the win" (or, right after the opponent handed
  the win over, "missed a win"), a draw turned into a loss "threw away the draw"; a move that
  keeps the value is "best" (the quickest win, the longest defence) or "good".
* Elsewhere the game's analysis search (its ladder's top level) gives the expected result in
  [0, 1] for the player to move, with ``engine_time`` seconds per position, and a move is an
  inaccuracy, a mistake or a blunder by how much less it leaves the mover than the engine's
  best move would (both positions searched alike).

Games of more than two players (Snake Pit) have per-player values: each position's search
gives the value of its player to move, and a move's drop is measured to the mover's next
turn.  The whole review stops trying the solver once ``total_time`` is spent, and the
engine's time per position shrinks to fit what is left.

Every sentence a player reads is in :data:`VERDICT_TEXT` (English msgids of the web's
catalogue, translated where shown).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from slimetrail.core.game import Game, GameError, Move, SolveResult, SolveTimeout, State
from slimetrail.core.i18n import N_

# Exact verdicts, then the engine's, each with the words a player reads.
VERDICT_TEXT = {
    "best": N_("best"),
    "good": N_("good (keeps the result)"),
    "threw-win": N_("threw away the win"),
    "missed-win": N_("missed a win"),
    "threw-draw": N_("threw away the draw"),
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}
# Drops in the mover's expected result that make an inaccuracy, a mistake, a blunder.
DROPS = (("blunder", 0.3), ("mistake", 0.2), ("inaccuracy", 0.1))
# Verdicts marked as turning points on the move list and the board.
TURNING = frozenset({"threw-win", "missed-win", "threw-draw", "mistake", "blunder"})
# An alpha-beta score of this many points is taken as odds of e to 1 (a logistic curve).
# Wide, because a short search's score swings with the parity of its depth: at 300 the
# first moves of 9x9 and hex games came out as mistakes.
SCORE_SCALE = 600.0
# The least time the engine gets for a position, whatever the game's length.
MIN_ENGINE_TIME = 0.02
VALUE_RESULT = {"win": 1.0, "draw": 0.5, "loss": 0.0}
FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


def win_probability(score: int | None, value: float | None, proven: str | None) -> float | None:
    """The expected result in [0, 1] for the player to move, from a search's answer."""
    if proven is not None:
        return VALUE_RESULT[proven]
    if value is not None:
        return float(value)
    if score is None:
        return None
    return 1.0 / (1.0 + math.exp(-score / SCORE_SCALE))


def exact_verdict(before: str, after: str, handed_over: bool, fastest: bool) -> str:
    """The verdict of a move that took the mover from ``before`` to ``after`` (proven
    values); ``handed_over``: the opponent's last move gave the mover this win;
    ``fastest``: the move is best play by distance (or distances are unknown)."""
    if before == "win" and after != "win":
        return "missed-win" if handed_over else "threw-win"
    if before == "draw" and after == "loss":
        return "threw-draw"
    return "best" if fastest else "good"


def engine_verdict(drop: float | None) -> str | None:
    """The verdict of a drop in the mover's expected result (``None``: no mistake seen)."""
    if drop is None:
        return None
    for verdict, threshold in DROPS:
        if drop >= threshold - 1e-9:
            return verdict
    return None


def _solve(game: Game, state: State, seconds: float) -> SolveResult | None:
    """The exact answer within ``seconds``, or ``None`` (no solver, too big, too slow)."""
    solver = game.exact_solver()
    if solver is None or seconds <= 0 or not solver.can_solve(game):
        return None
    try:
        try:
            return solver.solve(state, distance=True, time_limit=seconds)
        except GameError:  # a solver that proves who wins but not in how many plies
            return solver.solve(state, time_limit=seconds)
    except (SolveTimeout, GameError):
        return None


def _engine(state: State, seconds: float) -> tuple[float | None, Move | None]:
    """The analysis search's expected result for the player to move and its best move
    (``None`` where it has none)."""
    from slimetrail.ai import Limit, analyse

    outcome = state.outcome()
    if outcome is not None:
        return VALUE_RESULT[outcome.for_player(state.to_move)], None
    try:
        result = analyse(state, Limit(time=seconds))
    except GameError:
        return None, None
    return win_probability(result.score, result.value, result.proven), result.move


def _final_values(state: State) -> dict[int, float]:
    """Every player's result in a finished position, as expected results."""
    outcome = state.outcome()
    assert outcome is not None
    return {
        player: VALUE_RESULT[outcome.for_player(player)]
        for player in range(1, state.game.num_players + 1)
    }


def review_moves(
    game: Game,
    moves: list[str],
    *,
    solve_time: float = 1.0,
    engine_time: float = 0.2,
    total_time: float = 60.0,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """The review of the game ``moves`` (texts from the start): ``{"plies": [...]}``, one
    entry per move as ``GET /api/matches/{id}/review`` serves it (without the graph), and
    ``"start"``, the expected results known at the start."""
    state = game.new_state()
    players = game.num_players
    deadline = clock() + total_time
    # Per position (before each move, and the last one): the mover, the proof, and the
    # expected result of every player known there.
    movers: list[int] = []
    proofs: list[SolveResult | None] = []
    values: list[dict[int, float]] = []
    # The engine's best move where it was asked, and the time it had.
    bests: list[tuple[Move | None, float]] = []
    texts: list[str] = []
    for index in range(len(moves) + 1):
        if state.is_over():
            values.append(_final_values(state))
            break
        movers.append(state.to_move)
        proof = _solve(game, state, min(solve_time, deadline - clock()))
        proofs.append(proof)
        best: tuple[Move | None, float] = (None, 0.0)
        if proof is not None:
            mine = VALUE_RESULT[proof.value]
        else:
            # The engine's share of what is left (its best moves' positions are searched
            # too, hence half), so that a long game ends in time too.
            share = (deadline - clock()) / (len(moves) + 1 - index) / 2
            seconds = min(engine_time, max(MIN_ENGINE_TIME, share))
            estimate, move = _engine(state, seconds)
            mine = estimate if estimate is not None else math.nan
            best = (move, seconds)
        bests.append(best)
        known = {state.to_move: mine}
        if players == 2 and not math.isnan(mine):
            known[3 - state.to_move] = 1.0 - mine
        values.append(known)
        if index == len(moves):
            break
        move = state.parse_move(moves[index])
        texts.append(state.move_str(move))
        state.push(move)
    start = {str(p): round(v, 4) for p, v in sorted(values[0].items()) if not math.isnan(v)}
    drops = _drops(game, texts, movers, bests, values)
    return {"start": start, "plies": _plies(game, texts, movers, proofs, values, drops)}


def _drops(
    game: Game,
    texts: list[str],
    movers: list[int],
    bests: list[tuple[Move | None, float]],
    values: list[dict[int, float]],
) -> list[float | None]:
    """How much each move lost of its mover's expected result, by the engine.

    For two players, the position after the move against the position after the engine's
    best move, each searched alike for the opponent: a short search's score swings with the
    parity of its depth, so the position before the move (searched for the mover) is no
    yardstick.  For more players, the mover's value before the move against its value at
    its next turn."""
    state = game.new_state()
    drops: list[float | None] = []
    for index, text in enumerate(texts):
        move = state.parse_move(text)
        best, seconds = bests[index]
        after = values[index + 1].get(movers[index])
        if game.num_players != 2 or best is None or after is None or math.isnan(after):
            drops.append(_drop(values, movers, index))
        elif best == move:
            drops.append(0.0)
        else:
            state.push(best)
            theirs, _ = _engine(state, seconds)
            state.pop()
            drops.append(None if theirs is None else (1.0 - theirs) - after)
        state.push(move)
    return drops


def _plies(
    game: Game,
    texts: list[str],
    movers: list[int],
    proofs: list[SolveResult | None],
    values: list[dict[int, float]],
    drops: list[float | None],
) -> list[dict[str, Any]]:
    state = game.new_state()
    plies: list[dict[str, Any]] = []
    handed_over = False
    for index, text in enumerate(texts):
        mover, proof = movers[index], proofs[index]
        move = state.parse_move(text)
        entry: dict[str, Any] = {
            "ply": index + 1,
            "move": text,
            "mover": mover,
            "verdict": None,
            "value_before": None,
            "value_after": None,
            "winning_moves": [],
            "plies_before": None,
            "plies_after": None,
            "proven": False,
            "eval": {
                str(p): round(v, 4)
                for p, v in sorted(values[index + 1].items())
                if not math.isnan(v)
            },
        }
        if proof is not None and move in proof.move_values:
            before, after = proof.value, proof.move_values[move]
            lengths = proof.move_plies
            same = [m for m, v in proof.move_values.items() if v == before]
            if lengths and before == after and same:
                pick = min if before == "win" else max
                fastest = lengths.get(move) == pick(lengths[m] for m in same)
            else:
                fastest = True
            verdict = exact_verdict(before, after, handed_over, fastest)
            entry.update(
                verdict=verdict,
                value_before=before,
                value_after=after,
                winning_moves=[state.move_str(m) for m in proof.winning_moves],
                plies_before=proof.plies,
                plies_after=lengths.get(move),
                proven=True,
            )
            # The next mover was handed a win if this move threw one away (two players).
            handed_over = game.num_players == 2 and after in ("loss", "draw") and before != after
        else:
            handed_over = False
            entry["verdict"] = engine_verdict(drops[index])
        plies.append(entry)
        state.push(move)
    return plies


def _drop(values: list[dict[int, float]], movers: list[int], index: int) -> float | None:
    """How much the mover's expected result fell with move ``index``: from the position
    before it to the next position where it is known (the next one, for two players)."""
    mover = movers[index]
    before = values[index].get(mover)
    if before is None or math.isnan(before):
        return None
    for later in values[index + 1 :]:
        after = later.get(mover)
        if after is not None:
            return None if math.isnan(after) else before - after
    return None


def verdict_comment(entry: dict[str, Any]) -> str | None:
    """The record comment of a reviewed move: its verdict, the winning moves it passed
    over, the length of the game under best play before and after."""
    verdict = entry.get("verdict")
    if verdict is None:
        return None
    words = [VERDICT_TEXT[verdict]]
    if entry["proven"] and verdict in TURNING and entry["winning_moves"]:
        words.append("winning: " + " ".join(entry["winning_moves"]))
    if entry.get("plies_before") is not None and entry.get("plies_after") is not None:
        words.append(f"best play {entry['plies_before']} -> {entry['plies_after']} plies")
    return "; ".join(words)
