"""The Slime-Moku engine against the independent model (moku_model.py): perft from the start
and from stuck positions, random playouts to the end, move by move."""

from __future__ import annotations

import random

import pytest
from moku_model import Model, from_rows, name

from slimetrail.core.perft import perft_generic
from slimetrail.core.registry import get_game
from slimetrail.games.moku.game import MokuState


def engine(model: Model) -> MokuState:
    state = get_game("slime-moku", size=model.n, k=model.k).state_from_fen(model.fen())
    assert state.fen() == model.fen()
    return state


def model_outcome(model: Model) -> tuple[int, ...] | None:
    winner = model.winner()
    if winner is not None:
        return (1, 2) if winner == "B" else (2, 1)
    return (1, 1) if not model.empty_cells() else None


@pytest.mark.parametrize(
    ("n", "k", "depth"), [(15, 5, 4), (6, 4, 5), (7, 4, 4), (4, 4, 5), (5, 4, 4), (19, 5, 3)]
)
def test_perft_from_the_start_matches_the_model(n: int, k: int, depth: int) -> None:
    state = get_game("slime-moku", size=n, k=k).new_state()
    model = Model.start(n, k)
    assert state.fen() == model.fen()
    for d in range(depth + 1):
        expected = model.perft(d)
        assert state.perft(d) == expected, (n, k, d)
        if d <= 3:
            assert perft_generic(state, d) == expected


def test_perft_of_the_standard_board() -> None:
    # Cross-checked with the model above; pinned so a change shows at once.
    state = get_game("slime-moku").new_state()
    assert [state.perft(d) for d in range(6)] == [1, 8, 56, 368, 2336, 14576]


def stuck_positions(n: int, k: int, seed: int, count: int) -> list[Model]:
    """Positions of random games (no row yet) where the slime has no empty neighbour."""
    rng = random.Random(seed)
    found: list[Model] = []
    while len(found) < count:
        model = Model.start(n, k)
        while not model.over():
            if model.stuck():
                found.append(model.copy())
                break
            model.play(rng.choice(model.legal()))
    return found


@pytest.mark.parametrize(("n", "k", "seed"), [(4, 4, 1), (5, 4, 2), (6, 4, 3), (7, 5, 4)])
def test_perft_from_stuck_positions_matches_the_model(n: int, k: int, seed: int) -> None:
    for model in stuck_positions(n, k, seed, 6):
        state = engine(model)
        assert state.is_stuck()
        empty = {name(c) for c in model.empty_cells()}
        # A stuck slime may be lifted to every empty cell, near or far.
        assert set(state.legal_move_strs()) == empty
        for d in range(4):
            assert state.perft(d) == model.perft(d), (model.fen(), d)
        assert perft_generic(state, 2) == model.perft(2)


LIFT_ONLY = [
    # The slime in a corner walled in by stones: only lifts, to the far empty cells.
    ["@xo.", "ox..", "....", "...."],
    # Walled in mid-board on 5x5.
    [".....", ".xox.", ".o@x.", ".xoo.", "....."],
]


@pytest.mark.parametrize("rows", LIFT_ONLY)
def test_lift_is_the_only_kind_of_move_when_walled_in(rows: list[str]) -> None:
    n = len(rows)
    model = from_rows(n, 4, rows, "B")
    assert model.stuck() and not model.over()
    state = engine(model)
    moves = state.legal_move_strs()
    assert set(moves) == {name(c) for c in model.empty_cells()}
    sc, sr = model.slime
    assert all(max(abs(c - sc), abs(r - sr)) > 1 for c, r in model.empty_cells())
    for d in range(4):
        assert state.perft(d) == model.perft(d)
    # The lift writes the mover's stone on the cell the slime left, as a step does.
    far = moves[-1]
    state.push_str(far)
    model.play(next(c for c in model.empty_cells() if name(c) == far))
    assert state.fen() == model.fen()


NEAR_THE_END = [
    # 4x4 k=4, one empty cell (d1) besides the slime: the last move fills the board.
    (["xoxo", "oxox", "oxo@", "xox."], "B"),
    # Two empty cells, the slime stuck on a1 (both far away).
    (["o.xx", "oxo.", "xoxo", "@oxx"], "W"),
    # Three empty cells on 5x5 k=4, the slime with one empty neighbour.
    (["xoxox", "oxoxo", "ooxox", "xoxox", "x..@."], "W"),
]


@pytest.mark.parametrize(("rows", "to_move"), NEAR_THE_END)
def test_perft_near_the_end_and_the_draw(rows: list[str], to_move: str) -> None:
    n = len(rows)
    model = from_rows(n, 4, rows, to_move)
    assert not model.over()
    state = engine(model)
    empties = len(model.empty_cells())
    for d in range(empties + 2):
        assert state.perft(d) == model.perft(d), (rows, d)
    # Play each line to the end: the outcomes agree with the model.
    for cell in model.legal():
        trial, copy = state.copy(), model.copy()
        trial.push(trial.parse_move(name(cell)))
        copy.play(cell)
        while not copy.over():
            nxt = copy.legal()[0]
            copy.play(nxt)
            trial.push_str(name(nxt))
        outcome = trial.outcome()
        assert outcome is not None and outcome.places == model_outcome(copy)


def test_the_full_board_is_a_draw() -> None:
    model = from_rows(4, 4, NEAR_THE_END[0][0], "B")
    state = engine(model)
    assert state.legal_move_strs() == ["d1"]
    state.push_str("d1")
    outcome = state.outcome()
    assert outcome is not None and outcome.is_draw and outcome.reason == "full"
    assert state.legal_moves() == [] and state.perft(1) == 0
    # The same position read back from its fen is over too.
    again = state.game.state_from_fen(state.fen())
    assert again.outcome() == outcome


@pytest.mark.parametrize(
    ("n", "k", "games"), [(4, 4, 40), (5, 4, 40), (6, 4, 30), (7, 4, 20), (8, 5, 10), (15, 5, 4)]
)
def test_random_playouts_agree_with_the_model_move_by_move(n: int, k: int, games: int) -> None:
    rng = random.Random(n * 100 + k)
    for _ in range(games):
        model = Model.start(n, k)
        state = get_game("slime-moku", size=n, k=k).new_state()
        fens = [state.fen()]
        while True:
            assert state.fen() == model.fen()
            outcome = state.outcome()
            assert (outcome.places if outcome else None) == model_outcome(model)
            assert sorted(state.legal_move_strs()) == sorted(name(c) for c in model.legal())
            assert state.is_stuck() == (not model.over() and model.stuck())
            if outcome is not None:
                break
            cell = rng.choice(model.legal())
            model.play(cell)
            state.push_str(name(cell))
            fens.append(state.fen())
        if model.winner() is not None:
            marked = {c for c, words in state.view()["marks"].items() if "win" in words}
            assert marked == {name(c) for c in model.row_cells(model.winner())}
        # Taking every move back walks the same positions in reverse.
        while state.move_stack:
            assert state.fen() == fens.pop()
            state.pop()
        assert state.fen() == fens.pop() and not fens
