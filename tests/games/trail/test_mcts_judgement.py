"""The judgement of the big Taylor boards' MCTS leaves against an independent model.

The terms are counted again on plain coordinates (``trail_model``) by breadth-first searches
of the model's own; the tree must value a fresh leaf by the judgement's share and a playout's
result for the rest, on the boards the judgement was fitted for and on no others.
"""

from __future__ import annotations

import random
from collections import deque

import numpy as np
import pytest
from trail_model import Cell, Model, parse_fen

from slimetrail.core.registry import get_game
from slimetrail.games.trail import mcts_kernel

BOARDS = [
    ("slimetrail", 11, "rastros"),
    ("slimetrail", 11, "taylor"),
    ("slimetrail", 9, "taylor"),
    ("slimetrail-hex", 10, "rastros"),
]
FAR = 30


def steps_from(model: Model, source: Cell, through: set[Cell]) -> dict[Cell, int]:
    """Steps from ``source`` to each cell of ``through`` it reaches through them."""
    found, todo = {source: 0}, deque([source])
    while todo:
        cell = todo.popleft()
        for nxt in model.neighbours(cell):
            if nxt in through and nxt not in found:
                found[nxt] = found[cell] + 1
                todo.append(nxt)
    del found[source]
    return found


def model_terms(model: Model, fen: str, hex_board: bool = False) -> tuple[list[float], int]:
    """The judgement's terms (see ``mcts_kernel.judgement_terms``) for the side to move, and
    the size of the snail's region."""
    blocked, snail, to_move = parse_fen(model, fen)
    # Player 1's goal: a1 on the square boards, the far corner on the hex ones (RULES.md).
    mine, theirs = (0, 0), (model.n - 1, model.n - 1)
    if (to_move == 2) != hex_board:
        mine, theirs = theirs, mine
    cells = {(c, r) for c in range(model.n) for r in range(model.n)}
    walkable = cells - blocked - model.goals - {snail}
    from_snail = steps_from(model, snail, walkable)
    region = set(from_snail)

    def goal_steps(goal: Cell) -> int | None:
        if goal in model.neighbours(snail):
            return 1
        near = [from_snail[c] + 1 for c in model.neighbours(goal) if c in from_snail]
        return min(near) if near else None

    to_mine, to_theirs = goal_steps(mine), goal_steps(theirs)
    from_mine, from_theirs = steps_from(model, mine, region), steps_from(model, theirs, region)
    nearer = sum(
        (from_mine.get(c, 999) < from_theirs.get(c, 999))
        - (from_theirs.get(c, 999) < from_mine.get(c, 999))
        for c in region
    )
    poison = set(model.neighbours(theirs)) | {theirs}
    safe = [c for c in model.neighbours(snail) if c not in blocked and c not in poison]
    terms = [
        float(to_mine is not None),
        float(to_theirs is not None),
        (to_mine or FAR) / 10,
        (to_theirs or FAR) / 10,
        nearer / max(1, len(region)),
        sum(c in region for c in model.neighbours(mine)) / 3,
        sum(c in region for c in model.neighbours(theirs)) / 3,
        float(to_mine is None and to_theirs is None and len(region) % 2 == 1),
        len(safe) / 3,
    ]
    return terms, len(region)


def model_value(model: Model, fen: str) -> tuple[float, int]:
    """The judgement's value in [-1, 1] for the side to move: the terms weighted by the row of
    the first band whose lower bound the region's size reaches; and that band."""
    terms, size = model_terms(model, fen)
    band = next(i for i, low in enumerate(mcts_kernel.JUDGEMENT_BANDS) if size >= low)
    return float(np.clip(mcts_kernel.JUDGEMENT[band] @ (1, *terms), -1, 1)), band


@pytest.mark.parametrize(("game_id", "size", "rules"), BOARDS)
def test_the_judgement_counts_what_the_model_counts(game_id: str, size: int, rules: str) -> None:
    game = get_game(game_id, size=str(size), rules=rules)
    model = Model(game_id, size, rules)
    rng = random.Random(5)
    checked = set()
    for _ in range(12):
        state = game.new_state()
        while state.legal_moves():
            terms = mcts_kernel.judgement_of(state)
            expected, _ = model_terms(model, state.fen(), game.shape == "hex")
            assert terms == pytest.approx(expected), state.fen()
            checked.add((terms[0], terms[1], terms[7]))
            state.push(rng.choice(state.legal_moves()))
    if rules == "rastros":  # both goals in reach, one, none (the region's parity then)
        assert {(1.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)} <= checked
        assert (1.0, 0.0, 0.0) in checked or (0.0, 1.0, 0.0) in checked


def first_visits(state, monkeypatch: pytest.MonkeyPatch, mix: float | None) -> dict[int, float]:
    """Each root child's score after one visit apiece, for the player who stepped into it
    (``mix``: the judgement's share; None: the default)."""
    if mix is not None:
        monkeypatch.setattr(mcts_kernel, "LEAF_MIX", mix)
    count = len(state.legal_moves())
    mcts_kernel.search(state, 1e9, iterations=count, seed=11)
    kids_at, n_kids, move, visits, wins, proven = mcts_kernel.tree()[:6]
    c = mcts_kernel.compiled(state.game)
    kids = range(int(kids_at[0]), int(kids_at[0]) + int(n_kids[0]))
    assert all(visits[j] == 1 and proven[j] == mcts_kernel.UNKNOWN for j in kids)
    return {c.board_of[int(move[j])]: float(wins[j]) for j in kids}


def quiet(game_id: str, size: int, rules: str, plies: int, seed: int):
    """A position after ``plies`` random plies where no step wins, loses or is forced."""
    game = get_game(game_id, size=str(size), rules=rules)
    rng = random.Random(seed)
    while True:
        state = game.new_state()
        for _ in range(plies):
            if state.legal_moves():
                state.push(rng.choice(state.legal_moves()))
        children = []
        for step in state.legal_moves():
            children.append(state.copy())
            children[-1].push(step)
        # Both goals in reach and none next to the snail after any step.
        if len(children) > 3 and all(abs(child.evaluate()) < 0.5 for child in children):
            return state


@pytest.mark.parametrize(("plies", "band"), [(14, 0), (46, 2)])
def test_a_leaf_is_valued_by_the_judgement_and_by_its_playout(monkeypatch, plies, band) -> None:
    share = mcts_kernel.LEAF_MIX
    assert 0 < share < 1
    big = quiet("slimetrail", 11, "taylor", plies, seed=2)
    model = Model("slimetrail", 11, "taylor")
    judged = {}
    for step in big.legal_moves():
        child = big.copy()
        child.push(step)
        value, weighed_by = model_value(model, child.fen())
        assert weighed_by == band
        judged[step] = 0.5 - 0.5 * value  # for the player who stepped into the child
    assert len(set(judged.values())) > 1
    assert first_visits(big, monkeypatch, 1.0) == pytest.approx(judged)
    # The judgement's share, a playout's win, draw or loss the rest (the default on 11x11).
    for mix in (0.3, None):
        weight = share if mix is None else mix
        if mix is None:
            monkeypatch.undo()
        for step, score in first_visits(big, monkeypatch, mix).items():
            playout = (score - weight * judged[step]) / (1 - weight)
            assert min(abs(playout - value) for value in (0.0, 0.5, 1.0)) < 1e-6
    # Fitted on 11x11 Taylor games: elsewhere the playouts alone value the leaves.
    for game_id, size, rules in (("slimetrail", 9, "taylor"), ("slimetrail", 11, "rastros")):
        small = quiet(game_id, size, rules, 10, seed=4)
        assert set(first_visits(small, monkeypatch, None).values()) <= {0.0, 0.5, 1.0}
