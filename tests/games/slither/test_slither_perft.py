"""Perft of Slither and Advanced Slither against the independent model (``slither_model.py``),
from the start and after fixed openings (with a swap), with and without the pie; random
playouts compared with the model move by move."""

from __future__ import annotations

import random

import pytest
import slither_model as model

from slimetrail.core.perft import perft, perft_generic
from slimetrail.core.registry import get_game

GAMES = ("slither", "slither-advanced")

# (size, opening, pie, counts by depth for slither, for slither-advanced). Every count is
# recomputed by the model in the test; the numbers pin the table for every perft user.
CASES = [
    (5, "", "on", [1, 25, 625, 70920], [1, 25, 625, 20236]),
    (5, "", "off", [1, 25, 600], [1, 25, 600]),
    (5, "c3 swap b3 c3-c2/c4", "on", [1, 119, 19016], [1, 20, 883]),
    (5, "c3 b3 d3 b3-c2/b4", "on", [1, 133, 21604], [1, 133, 13605]),
    (5, "c3 b3 d3 b3-c2/b4", "off", [1, 133, 21604], [1, 133, 13605]),
    (7, "", "on", [1, 49, 2401], [1, 49, 2401]),
    (7, "", "off", [1, 49, 2352], [1, 49, 2352]),
    (7, "d4 swap", "on", [1, 48, 16972], [1, 48, 3192]),
    (7, "d4 swap c4 d4-e3/d5", "on", [1, 317], [1, 43]),
    (7, "d4 c4 d5 c4-b3/c5", "on", [1, 374], [1, 374]),
    (7, "d4 c4 d5 c4-b3/c5", "off", [1, 374], [1, 374]),
    (9, "", "on", [1, 81, 6561], [1, 81, 6561]),
    (9, "", "off", [1, 81, 6480], [1, 81, 6480]),
    (9, "e5 swap", "on", [1, 80, 51244], [1, 80, 8024]),
    (9, "e5 swap d5 e5-f4/e6", "on", [1, 573], [1, 75]),
    (9, "e5 d5 e6 d5-c4/d6 f5 d6-c5/d7", "on", [1, 748], [1, 71]),
    (9, "e5 d5 e6 d5-c4/d6 f5 d6-c5/d7", "off", [1, 748], [1, 71]),
]


def engine_after(game_id: str, n: int, pie: str, opening: str):
    state = get_game(game_id, size=n, pie=pie).new_state()
    for text in opening.split():
        state.push_str(text)
    return state


def model_after(game_id: str, n: int, pie: str, opening: str) -> model.Pos:
    return model.play(model.start(n, pie == "on", game_id == "slither-advanced"), opening)


def case_id(case) -> str:
    n, opening, pie = case[:3]
    return f"{n}x{n}-pie={pie}-{opening.replace(' ', '_') or 'start'}"


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_perft_matches_the_model(case, game_id):
    n, opening, pie, plain, advanced = case
    want = plain if game_id == "slither" else advanced
    state = engine_after(game_id, n, pie, opening)
    fen = state.fen()
    pos = model_after(game_id, n, pie, opening)
    if n == 5 and len(want) > 3 and game_id == "slither":
        want = want[:3]  # depth 3 of plain Slither: see the slow test below
    got = [perft(state, d) for d in range(len(want))]
    assert got == [model.perft(pos, d) for d in range(len(want))]
    assert got == want
    assert state.fen() == fen  # perft leaves the position as it was


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game_id", "n", "count"),
    [
        ("slither", 5, 70920),
        ("slither", 7, 705416),
        ("slither-advanced", 7, 145532),
        ("slither-advanced", 9, 623948),
    ],
)
def test_perft_depth_three_matches_the_model(game_id, n, count):
    # (plain Slither 9x9 depth 3 is 3615368 for both; the model needs over a minute there)
    state = engine_after(game_id, n, "on", "")
    pos = model.start(n, True, game_id == "slither-advanced")
    assert perft(state, 3) == model.perft(pos, 3) == count


@pytest.mark.parametrize("game_id", GAMES)
def test_fast_perft_agrees_with_the_generic_walk(game_id):
    state = engine_after(game_id, 5, "on", "c3 b3 d3")
    assert perft(state, 2) == perft_generic(state, 2)


def model_moves_of(pos: model.Pos) -> list[str]:
    return sorted(model.moves(pos))


def stones_by_player(state) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {1: set(), 2: set()}
    for cell, marks in state.view()["marks"].items():
        for mark in marks:
            if mark.startswith("stone-"):
                out[int(mark[-1])].add(cell)
    return out


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize(
    ("n", "pie", "seed"), [(4, "on", 1), (5, "on", 2), (5, "off", 3), (6, "on", 4)]
)
def test_random_playouts_follow_the_model(game_id, n, pie, seed):
    rng = random.Random(seed)
    for _ in range(2):
        state = get_game(game_id, size=n, pie=pie).new_state()
        pos = model.start(n, pie == "on", game_id == "slither-advanced")
        while True:
            want = model.moves(pos)
            assert sorted(state.legal_move_strs()) == sorted(want)
            assert state.perft(1) == len(want)
            if not want:
                break
            # every spelling of every turn reads as its board's canonical move
            for spelling, canonical in model.all_spellings(pos).items():
                assert state.move_str(state.parse_move(spelling)) == canonical
            by_player = stones_by_player(state)
            assert by_player[pos.player("B")] == {model.name(c) for c in pos.black}
            assert by_player[pos.player("W")] == {model.name(c) for c in pos.white}
            assert state.to_move == model.to_move_player(pos)
            text = rng.choice(sorted(want))
            state.push_str(text)
            pos = want[text]
            assert get_game(game_id, size=n, pie=pie).state_from_fen(state.fen()) == state
        winner = pos.player(pos.winner)  # type: ignore[arg-type]
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == winner
