"""The top level plays perfectly where the game is solved: it converts won positions by the
shortest win, defends lost ones longest, punishes the opponent's mistakes at once, and leaves
the search a fair share of the time when the solver cannot answer."""

from __future__ import annotations

import random
from functools import cache

import pytest

from slimetrail.ai import Limit, choose_move
from slimetrail.core.registry import get_game
from slimetrail.games.trail import ladder, solver


@pytest.fixture(autouse=True, scope="module")
def loaded_kernels() -> None:
    """Loaded before the first move, as a server or the UGI engine does: until then the top
    level answers from its books and the search alone (see tests/ai/test_time_limits.py)."""
    from slimetrail.games.trail.game import warm_up_kernels

    warm_up_kernels()


PORTUGUESE = get_game("slimetrail", start="e5")


def exact(state) -> dict[str, tuple[str, int]]:
    """Every move's (value for the mover, plies to the end) by plain minimax over the rules:
    an independent check, written for small positions (a dozen empty cells)."""

    @cache
    def value(fen: str) -> tuple[int, int]:  # (+1 win / -1 loss / 0 draw, plies)
        position = state.game.state_from_fen(fen)
        outcome = position.outcome()
        if outcome is not None:
            result = outcome.for_player(position.to_move)
            return {"win": 1, "draw": 0, "loss": -1}[result], 0
        options = []
        for move in position.legal_moves():
            position.push(move)
            sign, plies = value(position.fen())
            position.pop()
            options.append((-sign, plies + 1))
        # The mover wins fast and loses (or draws) slowly.
        return max(options, key=lambda o: (o[0], -o[1] if o[0] > 0 else o[1]))

    moves = {}
    for move in state.legal_moves():
        state.push(move)
        sign, plies = value(state.fen())
        state.pop()
        moves[state.move_str(move)] = ({1: "loss", 0: "draw", -1: "win"}[sign], plies + 1)
    return moves


def endgames(value: str, count: int, *, distinct: bool = True):
    """Positions of 5x5 boards 12 plies in whose side to move has ``value``, and (with
    ``distinct``) moves of that value with different lengths, so that the choice matters."""
    found = []
    for seed in range(2000):
        rng = random.Random(seed)
        state = get_game("slimetrail", size=5, rules=rng.choice(["rastros", "taylor"])).new_state()
        for _ in range(12):
            if state.is_over():
                break
            state.push(rng.choice(state.legal_moves()))
        if state.is_over() or len(state.legal_moves()) < 2:
            continue
        moves = exact(state)
        values = {v for v, _ in moves.values()}
        if value != ("win" if "win" in values else "draw" if "draw" in values else "loss"):
            continue
        lengths = {plies for v, plies in moves.values() if v == value}
        if distinct and len(lengths) < 2:
            continue
        found.append((state, moves))
        if len(found) == count:
            break
    assert len(found) == count
    return found


def test_a_won_position_is_converted_by_the_shortest_win():
    for state, moves in endgames("win", 6):
        move = state.move_str(choose_move(state, 6, time_limit=10.0))
        shortest = min(plies for v, plies in moves.values() if v == "win")
        assert moves[move] == ("win", shortest), (state.fen(), moves)


def test_a_lost_position_is_defended_longest():
    for state, moves in endgames("loss", 6):
        move = state.move_str(choose_move(state, 6, time_limit=10.0))
        longest = max(plies for _, plies in moves.values())
        assert moves[move] == ("loss", longest), (state.fen(), moves)


def test_the_opponents_mistake_is_punished():
    """From a won position the winner plays a losing move; the other side, lost until then,
    now plays a winning move."""
    punished = 0
    for state, moves in endgames("win", 8, distinct=False):
        for text, (value, _) in moves.items():
            if value != "loss":
                continue
            state.push_str(text)
            if not state.is_over():
                replies = exact(state)
                move = state.move_str(choose_move(state, 6, time_limit=10.0))
                assert replies[move][0] == "win", (state.fen(), replies)
                punished += 1
            state.pop()
    assert punished >= 5


def test_after_e5_d4_c4_the_first_player_keeps_the_win():
    # The winning moves, as an independent engine found them: c3, b4, b5, c5 (b3 loses).
    state = PORTUGUESE.new_state()
    for text in ("d4", "c4"):
        state.push_str(text)
    assert state.move_str(choose_move(state, 6, time_limit=1.0)) in {"c3", "b4", "b5", "c5"}


@pytest.mark.parametrize("mistake", ["f4", "d6"])
def test_a_losing_first_move_from_e5_is_punished(mistake: str):
    state = PORTUGUESE.new_state()
    state.push_str(mistake)
    assert state.move_str(choose_move(state, 6, time_limit=1.0)) in {"e3", "c5"}


def test_the_play_book_answers_the_portuguese_openings():
    """These positions take the solver seconds: the book holds them, so the top level
    answers them at once rather than handing the move to the search."""
    from slimetrail.games.trail.solver.book import winning_move

    for line in ((), ("d4", "c4"), ("f4",), ("d6",)):
        state = PORTUGUESE.new_state()
        for text in line:
            state.push_str(text)
        assert winning_move(state) is not None, line


def test_the_search_keeps_a_fair_share_when_the_solver_runs_out(monkeypatch):
    """The solver gets at most SOLVER_SHARE of the budget; the search gets the rest."""
    given: dict[str, float] = {}
    real_search = ladder.search

    def slow_solve(state, **options):
        given["solver"] = options["time_limit"]
        raise solver.SolveTimeout("out of time")

    def fake_search(state, limit, **options):
        given["search"] = limit.time
        return real_search(state, Limit(depth=1))

    monkeypatch.setattr(solver, "solve", slow_solve)
    monkeypatch.setattr(ladder, "search", fake_search)
    state = get_game("slimetrail").state_from_fen("7/7/7/7/7/7/4o2 2")  # in no book
    choose_move(state, 6, time_limit=2.0)
    assert given["solver"] <= ladder.SOLVER_SHARE * 2.0
    assert given["search"] >= (1 - ladder.SOLVER_SHARE) * 2.0 * 0.9
