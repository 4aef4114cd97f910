"""Snake Pit rules (RULES.md section 5) checked against the independent model and by hand."""

from __future__ import annotations

import itertools
import math
import os
import random
import re
import subprocess
import sys
from collections import Counter

import pytest
from snakepit_model import BOARD, NEIGHBOURS, ROWS, START, Position, from_fen, show, turn_text

from slimetrail.core.game import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    TurnShape,
)
from slimetrail.core.registry import get_game
from slimetrail.games.snakepit.game import SnakePitState

GAME = get_game("snake-pit")
START_FEN = "b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 -"
# Positions met in random games.
# Green to move; c2-d3,j3-j4,l12-l11 leaves Blue and Red both without a full turn.
TWO_OUT_AT_ONCE = (
    "a8,c2,j3,l12/b1,b8,b9,k4,k12,l5,l13 b2,f13,h3,m13/a2,e11,e12,f12,h2,i2,i3,m12 "
    "c7,f10,h1,m6/a6,a7,b7,f11,g1,g12,g13,l6,m7 1 3 -"
)
# Red to move; after d2-e2,e10-e11,g10-g9 Green (snakes b8 and k6 walled in) is out.
GREEN_GOES_OUT = (
    "b8,d4,k6,l12/a8,b1,b9,c2,c3,c4,d3,d5,j3,j4,j5,j6,j10,j11,j12,k4,k5,k11,k12,k13,l5,l13 "
    "a1,h9,i8,j8/a2,b2,e12,f8,f9,f10,f11,f12,g8,h6,i2,i3,i4,i5,i6,i7,j7,k7,k8,k9,l10,l11,m12 "
    "d2,e10,g10,l8/a7,b7,c8,c9,c10,d1,d9,d10,e1,f1,f2,g1,g2,g11,g12,g13,h11,l6,l7,m6,m7 3 3 -"
)
# Red to move, Green out already; e3-e4,h10-i10,l8-l9 leaves Blue no full turn: Red wins.
SECOND_GOES_OUT = (
    "b8,d4,k6,l12/a8,b1,b9,c2,c3,c4,d3,d5,j3,j4,j5,j6,j10,j11,j12,k4,k5,k11,k12,k13,l5,l13 "
    "a1,g6,h8,k10/a2,b2,e12,f8,f9,f10,f11,f12,g8,h6,h7,h9,i2,i3,i4,i5,i6,i7,i8,i9,j7,j8,j9,k7,"
    "k8,k9,l10,l11,m12 d11,e3,h10,l8/a7,b7,c8,c9,c10,d1,d2,d9,d10,e1,e2,e10,e11,f1,f2,g1,g2,g9,"
    "g10,g11,g12,g13,h11,l6,l7,m6,m7 3 3 1"
)


def new() -> SnakePitState:
    return GAME.new_state()  # type: ignore[return-value]


def from_fen_text(fen: str) -> SnakePitState:
    return GAME.state_from_fen(fen)  # type: ignore[return-value]


# -- the game's declarations and board ---------------------------------------------------


def test_declarations() -> None:
    cls = type(GAME)
    assert cls.id == "snake-pit" and cls.num_players == 3
    assert cls.player_names == ("Green", "Blue", "Red")
    assert cls.player_colours == ("green", "blue", "red")
    assert cls.zero_sum is False and cls.option_specs == ()
    assert cls.turn == TurnShape(
        max_clicks=6, repeats=True, step_words=("snake", "snakes"), step_clicks=2
    )
    # The declared clicks per snake agree with every turn's click path, k = 1, 2 and 3.
    state = GAME.new_state()
    for _ in range(3):
        k = state.view()["to_move_steps"]
        assert {len(state.click_path(m)) for m in state.legal_moves()} == {k * 2}
        state.push(state.legal_moves()[0])


def test_board_is_the_rules_table() -> None:
    board = GAME.describe_board()
    assert board["shape"] == "hex"
    names = [cell["name"] for cell in board["cells"]]
    assert len(names) == len(set(names)) == len(BOARD) == 139
    assert set(names) == {show(c) for c in BOARD}
    assert board["rows"] == [[show(c) for c in row] for row in ROWS]
    assert [len(row) for row in ROWS] == [6, 7, 8, 9, 10, 11, 12, 13, 12, 11, 10, 9, 8, 7, 6]
    assert ROWS[7] == [(n, n) for n in range(1, 14)]  # a1 b2 c3 ... m13


def test_neighbour_counts_corners_edges_interior() -> None:
    # A hexagon with sides 6, 8, 8, 6, 8, 8: 6 corners (3 neighbours), 32 other edge cells
    # (4) and the 101 cells of the inner hexagon with sides 5, 7, 7 (6).
    assert Counter(len(n) for n in NEIGHBOURS.values()) == {3: 6, 4: 32, 6: 101}
    assert {show(c) for c, n in NEIGHBOURS.items() if len(n) == 3} == {
        "a1",
        "a8",
        "f13",
        "m13",
        "m6",
        "h1",
    }


def test_cell_centres_are_one_apart_exactly_for_neighbours_and_look_like_the_table() -> None:
    centres = {c["name"]: (c["x"], c["y"]) for c in GAME.describe_board()["cells"]}
    for a, b in itertools.combinations(BOARD, 2):
        (xa, ya), (xb, yb) = centres[show(a)], centres[show(b)]
        distance = math.hypot(xa - xb, ya - yb)
        assert (abs(distance - 1) < 1e-3) == (b in NEIGHBOURS[a]), (show(a), show(b))
        assert distance > 0.99
    # Rows go down the screen from R1; within a row, left to right as in the table.
    for number, row in enumerate(ROWS):
        for cell in row:
            assert centres[show(cell)][1] == pytest.approx(number * math.sqrt(3) / 2, abs=1e-3)
        xs = [centres[show(c)][0] for c in row]
        assert xs == sorted(xs)
    assert centres["a8"][0] == pytest.approx(centres["a1"][0] + 3.5)


def test_start_cells() -> None:
    state = new()
    assert state.fen() == START_FEN == Position().fen()
    marks = state.view()["marks"]
    for player, cells in START.items():
        assert {name for name, m in marks.items() if m == [f"head-{player}"]} == {
            show(c) for c in cells
        }
    assert len(marks) == 12
    assert state.to_move == 1 and state.outcome() is None


# -- random games against the model ------------------------------------------------------


def play_against_model(seed: int) -> tuple[SnakePitState, Position]:
    """A random game to its end, engine and model compared after every turn."""
    rng = random.Random(seed)
    state, model = new(), Position()
    fens = [state.fen()]
    while True:
        moves = state.legal_move_strs()
        assert len(moves) == len(set(moves))
        assert sorted(moves) == sorted(turn_text(t) for t in model.turns())
        assert state.fen() == model.fen()
        assert state.view()["to_move_steps"] == model.k
        assert state.view()["out"] == list(model.out)
        places = model.places()
        outcome = state.outcome()
        if places is not None:
            assert outcome is not None and outcome.places == places and moves == []
            assert outcome.result_text() == "-".join("1" if p == 1 else "0" for p in places)
            break
        assert outcome is None and state.to_move == model.mover
        text = rng.choice(moves)
        turn = next(t for t in model.turns() if turn_text(t) == text)
        state.push(state.parse_move(text))
        model = model.after(turn)
        fens.append(state.fen())
    # push/pop walk back through the very same positions.
    while state.move_stack:
        assert state.fen() == fens.pop()
        state.pop()
    assert state.fen() == fens.pop() == START_FEN
    return state, model


@pytest.mark.parametrize("seed", range(12))
def test_random_playouts_match_the_model(seed: int) -> None:
    play_against_model(seed)


def test_random_playouts_cover_every_way_of_going_out() -> None:
    """Over many random games (the engine alone; the model checks the twelve above): one player
    out and the game going on, the second player going out, two going out after one turn."""
    seen: Counter[tuple[int, int]] = Counter()
    for seed in range(60):
        rng = random.Random(1000 + seed)
        state = new()
        while not state.is_over():
            before = len(state.out)
            state.push(rng.choice(state.legal_moves()))
            if len(state.out) > before:
                seen[before, len(state.out) - before] += 1
        places = state.outcome().places  # type: ignore[union-attr]
        first, last = state.out
        assert places[first - 1] == 3 and places[last - 1] == 2
    assert seen[0, 1] and seen[1, 1] and seen[0, 2]


def test_a_player_who_is_out_is_skipped_and_stays_as_obstacles() -> None:
    state = from_fen_text(GREEN_GOES_OUT)
    green = state.heads[1]
    state.push_str("d2-e2,e10-e11,g10-g9")
    assert state.out == [1] and state.to_move == 2 and state.outcome() is None
    assert state.heads[1] == green  # the snakes stay where they were
    assert "out: Green" in state.text_board()
    blue = state.legal_moves()[0]
    state.push(blue)
    assert state.to_move == 3
    state.push(state.legal_moves()[0])
    assert state.to_move == 2  # Green is skipped
    state.pop()
    state.pop()
    state.pop()
    assert state.fen() == GREEN_GOES_OUT and state.out == []


def test_second_player_going_out_ends_the_game_at_once() -> None:
    state = from_fen_text(SECOND_GOES_OUT)
    assert state.out == [1] and state.to_move == 3
    state.push_str("e3-e4, h10-i10, l8-l9")
    outcome = state.outcome()
    # Red is the last left; Blue went out last (second place), Green first (third).
    assert outcome == Outcome.ranking([3, 2, 1], reason=outcome.reason)  # type: ignore[union-attr]
    assert outcome.places == (3, 2, 1) and outcome.result_text() == "0-0-1"  # type: ignore[union-attr]
    assert state.to_move == 0 and state.legal_moves() == [] and state.is_over()
    assert state.fen().split()[3:] == ["-", "3", "1,2"]
    assert state.text_board().splitlines()[-1] == "Red wins; then Blue, Green"
    with pytest.raises(IllegalMoveError, match="over"):
        state.parse_move("a1-b1")
    assert from_fen(state.fen()).places() == outcome.places  # type: ignore[union-attr]
    state.pop()
    assert state.fen() == SECOND_GOES_OUT and state.outcome() is None


def test_two_players_going_out_after_one_turn() -> None:
    state = from_fen_text(TWO_OUT_AT_ONCE)
    model = from_fen(TWO_OUT_AT_ONCE)
    state.push_str("l12-l11,j3-j4,c2-d3")
    # Blue's turn comes first, so Blue goes out first: Green, Red, Blue.
    assert state.out == [2, 3]
    assert state.outcome().places == (1, 3, 2)  # type: ignore[union-attr]
    turn = next(t for t in model.turns() if turn_text(t) == "c2-d3,j3-j4,l12-l11")
    assert model.after(turn).places() == (1, 3, 2)
    state.pop()
    assert state.fen() == TWO_OUT_AT_ONCE
    # Every turn of Green here agrees with the model on who goes out.
    for move in state.legal_moves():
        state.push(move)
        after = model.after(next(t for t in model.turns() if turn_text(t) == state.move_str(move)))
        assert state.fen() == after.fen() and state.out == list(after.out)
        state.pop()


# -- notation ---------------------------------------------------------------------------


def test_move_text_is_sorted_by_the_cell_left_letter_then_number() -> None:
    state = new()
    state.push_str("b9-b8")
    state.push_str("a2-a3,e12-e11")
    moves = state.legal_move_strs()
    assert "a7-b7,g1-h2,m7-l6" in moves
    assert "a7-a6,g1-h2,g13-f12" in moves  # g1 before g13: number compared as a number
    assert "a7-a6,g13-f12,g1-h2" not in moves
    for text in moves:
        starts = [step.split("-")[0] for step in text.split(",")]
        keys = [("abcdefghijklm".index(s[0]), int(s[1:])) for s in starts]
        assert keys == sorted(keys)


def test_parsing_accepts_every_order_and_spaces() -> None:
    state = new()
    state.push_str("b9-b8")
    state.push_str("a2-a3,e12-e11")
    rng = random.Random(5)
    for text in rng.sample(state.legal_move_strs(), 20):
        move = state.parse_move(text)
        for order in itertools.permutations(text.split(",")):
            for joint in (",", ", ", " ,  "):
                assert state.parse_move(joint.join(order)) == move
        assert state.parse_move(text.upper()) == move
        assert state.move_str(move) == text


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("a2-a3", IllegalMoveError, "Blue must move 2 snakes this turn, not 1"),
        ("a2-a3,e12-e11,i2-i3", IllegalMoveError, "not 3"),
        ("a2-a3,b8-b7", IllegalMoveError, "b8 is a Green snake, not Blue's"),
        ("a2-a3,b9-b8", IllegalMoveError, "b9 is a blocked cell, not a snake"),
        ("a2-a3,c5-c6", IllegalMoveError, "there is no snake on c5"),
        ("a2-a3,a2-b3", IllegalMoveError, "the snake on a2 steps twice"),
        ("a2-a4,e12-e11", IllegalMoveError, "a4 is not next to a2"),
        ("a2-a3,e12-d11,i2-h1", IllegalMoveError, "not 3"),
        ("a2", InvalidMoveError, "'a2' in 'a2' is not a step 'from-to'"),
        ("a2-a3;e12-e11", InvalidMoveError, "is not a step"),
        ("a2-a3,e12-e11!", InvalidMoveError, "'e11!' in 'e12-e11!' is not a cell"),
        ("a2-a3,,e12-e11", InvalidMoveError, "is not a step"),
        ("a2-n3,e12-e11", InvalidMoveError, "'n3' in 'a2-n3' is not a cell of the Snake Pit"),
        ("a2-a9,e12-e11", InvalidMoveError, "'a9'"),
    ],
)
def test_illegal_and_invalid_moves_say_why_and_change_nothing(
    text: str, error: type[Exception], message: str
) -> None:
    state = new()
    state.push_str("b9-b8")
    before = state.fen()
    assert state.parse_move("a2-a3,e12-d11")  # the control: a legal turn here
    with pytest.raises(error, match=message):
        state.parse_move(text)
    assert state.fen() == before


def test_steps_into_the_same_cell_and_into_cells_being_left() -> None:
    # Blue's snakes on a2 and a3 share the empty neighbour b3.
    state = from_fen_text("b2,b9,l5,l13/b8 a2,a3,i2,m12/- a7,g1,g13,m7/- 2 2 -")
    with pytest.raises(IllegalMoveError, match="two snakes step to b3"):
        state.parse_move("a2-b3,a3-b3")
    # a3 is being left in the same turn, but was not empty when the turn began.
    with pytest.raises(IllegalMoveError, match="a3 is not empty \\(a snake\\)"):
        state.parse_move("a3-a4,a2-a3")
    with pytest.raises(IllegalMoveError, match="b2 is not empty \\(a snake\\)"):
        state.parse_move("a2-b2,a3-a4")
    blocked = from_fen_text("b2,b9,l5,l13/b8 a2,a3,i2,m12/a4 a7,g1,g13,m6/m7 2 3 -")
    with pytest.raises(IllegalMoveError, match="a4 is not empty \\(blocked\\)"):
        blocked.parse_move("a3-a4,a2-b3,i2-i3")
    assert blocked.parse_move("a3-b4,a2-b3,i2-i3")


def test_push_rejects_what_is_not_a_legal_move() -> None:
    state = new()
    for bad in (None, "b9-b8", ((1, 2),), (("b9", "b8"),), ((True, 2),), ()):
        with pytest.raises(IllegalMoveError):
            state.push(bad)
    state.push(state.legal_moves()[0])
    one_step = state.legal_moves()[0][:1]
    with pytest.raises(IllegalMoveError, match="is not a legal move here: Blue must move 2"):
        state.push(one_step)
    assert len(state.move_stack) == 1


# -- positions --------------------------------------------------------------------------


def test_fen_round_trips_and_keys_through_random_games() -> None:
    rng = random.Random(9)
    for _ in range(4):
        state = new()
        while not state.is_over():
            again = GAME.state_from_fen(state.fen())
            assert again == state and again.key() == state.key()
            assert again.legal_moves() == state.legal_moves()
            assert again.outcome() == state.outcome()
            copy = state.copy()
            state.push(rng.choice(state.legal_moves()))
            assert copy.fen() != state.fen() and copy.key() != state.key()
        again = GAME.state_from_fen(state.fen())
        assert again.outcome() == state.outcome() and again.key() == state.key()


def test_equal_positions_have_equal_keys_whichever_snake_went_where() -> None:
    # Blue's snakes on b3 and c4 share the empty neighbours c3 and b4.
    fen = "b1,b9,l5,l13/b8 b3,c4,i2,m12/- a7,g1,g13,m7/- 2 2 -"
    one, two = from_fen_text(fen), from_fen_text(fen)
    one.push_str("b3-c3,c4-b4")
    two.push_str("b3-b4,c4-c3")
    assert one.fen() == two.fen() and one.key() == two.key()
    assert one.move_stack != two.move_stack


def test_key_is_the_same_in_another_process() -> None:
    code = (
        "from slimetrail.core.registry import get_game; s = get_game('snake-pit').new_state(); "
        "s.push_str('b9-b8'); print(s.key())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    state = new()
    state.push_str("b9-b8")
    assert int(out.stdout) == state.key()
    assert new().key() != state.key()


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1", "six fields"),
        ("b1,b9,l5/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 -", "Green has 3 snakes, not 4"),
        ("b1,b9,l5,l13 a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 -", "expected '<snakes>/<trail>'"),
        ("b1,b9,l5,z13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 -", "'z13' is not a cell"),
        ("b1,b9,l5,a9/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 -", "'a9' is not a cell"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,b1/- 1 1 -", "b1 is listed twice"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 4 1 -", "player to move '4'"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 4 -", "snakes to move '4'"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 2,2", "bad list of players out"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 2 -", "0 blocked cells"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 3 -", "0 blocked cells"),
        ("b1,b9,l5,l13/b8 a2,e12,i2,m12/a3 a7,g1,g13,m7/a6,b7 1 3 -", "4 blocked cells"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- - 1 -", "two players out"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 2,3", "use '-' to move"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 2 1 2", "player 2 is out"),
        ("b1,b9,l5,l13/- a2,e12,i2,m12/- a7,g1,g13,m7/- 1 1 3", "Red is out but has a turn"),
    ],
)
def test_bad_positions_are_refused_naming_the_problem(fen: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        GAME.state_from_fen(fen)


def test_a_player_to_move_without_a_full_turn_is_refused() -> None:
    # Green to move after Red's d2-e2,e10-e11,g10-g9: Green has no full turn, so is out.
    state = from_fen_text(GREEN_GOES_OUT)
    state.push_str("d2-e2,e10-e11,g10-g9")
    fields = state.fen().split()
    with pytest.raises(InvalidPositionError, match="Green has no full turn of 3 steps"):
        GAME.state_from_fen(" ".join([*fields[:3], "1", "3", "-"]))


# -- clicks, view, text board -------------------------------------------------------------


def complete_click_paths(state: SnakePitState, prefix: tuple[str, ...] = ()) -> dict:
    """Every complete click sequence reachable through next_clicks, with its move text."""
    found = {}
    for click, done in state.next_clicks(prefix).items():
        path = (*prefix, click)
        if done is None:
            found.update(complete_click_paths(state, path))
        else:
            found[path] = done
    return found


@pytest.mark.parametrize("plies", [0, 1, 2, 5])
def test_next_clicks_offer_every_move_in_every_order_and_nothing_else(plies: int) -> None:
    state, rng = new(), random.Random(plies)
    for _ in range(plies):
        state.push(rng.choice(state.legal_moves()))
    paths = complete_click_paths(state)
    moves = set(state.legal_move_strs())
    assert set(paths.values()) == moves
    k = state.k
    assert {len(p) for p in paths} == {2 * k}
    assert len(paths) == len(moves) * math.factorial(k)  # every order of the snakes
    for path, text in paths.items():
        steps = {f"{path[i]}-{path[i + 1]}" for i in range(0, len(path), 2)}
        assert steps == set(text.split(","))
    for move in state.legal_moves():
        assert paths[tuple(state.click_path(move))] == state.move_str(move)


def test_next_clicks_refuse_bad_prefixes_and_never_offer_a_dead_end() -> None:
    state = from_fen_text("b2,b9,l5,l13/b8 a2,a3,i2,m12/- a7,g1,g13,m7/- 2 2 -")
    with pytest.raises(IllegalMoveError, match="not one of Blue's snakes"):
        state.next_clicks(["b2"])
    with pytest.raises(IllegalMoveError, match="not next to the snake on a2"):
        state.next_clicks(["a2", "c3"])
    with pytest.raises(IllegalMoveError, match="moved already"):
        state.next_clicks(["a2", "b3", "a2"])
    with pytest.raises(IllegalMoveError, match="takes 4 clicks"):
        state.next_clicks(["a2", "b3", "a3", "a4", "i2"])
    with pytest.raises(IllegalMoveError, match="not a cell"):
        state.next_clicks(["zz"])
    assert state.next_clicks(["a2", "b3"])["a3"] is None
    assert state.next_clicks(["a2", "b3", "a3"]) == {"a4": "a2-b3,a3-a4", "b4": "a2-b3,a3-b4"}
    # Green's snakes on a1 and b1 can each step only to b2 (a2, c1, c2 are blocked): once
    # one of them has taken b2 the other is not offered, as it could not complete the turn.
    shared = from_fen_text("a1,b1,l5,l13/c1,c2 a3,e12,i2,m12/a2 a7,g1,g13,m7/- 1 3 -")
    assert set(shared.next_clicks()) == {"a1", "b1", "l5", "l13"}
    assert shared.next_clicks(["a1"]) == {"b2": None}
    assert set(shared.next_clicks(["a1", "b2"])) == {"l5", "l13"}
    assert set(shared.next_clicks(["l5", "l6", "a1", "b2"])) == {"l13"}
    with pytest.raises(IllegalMoveError, match="b1 after a1 b2: that snake cannot move"):
        shared.next_clicks(["a1", "b2", "b1"])
    paths = complete_click_paths(shared)
    assert set(paths.values()) == set(shared.legal_move_strs())


def test_view_marks_heads_trails_last_and_extras() -> None:
    state = new()
    state.push_str("b9-b8")
    state.push_str("a2-a3,e12-e11")
    view = state.view()
    assert view["marks"]["b9"] == ["trail-1"] and view["marks"]["b8"] == ["head-1"]
    assert view["marks"]["a2"] == ["trail-2"] and view["marks"]["a3"] == ["head-2"]
    assert view["marks"]["a7"] == ["head-3"]
    assert sorted(view["last"]) == ["a3", "e11"]
    assert view["to_move_steps"] == 3 and view["out"] == []
    assert new().view()["last"] == []


def test_text_board_draws_the_table_with_a_symbol_per_player() -> None:
    state = new()
    state.push_str("b9-b8")
    lines = state.text_board().splitlines()
    assert len(lines) == 16
    assert lines[0].split() == ["a8", ".", "g", ".", ".", "B", ".", "f13"]
    assert lines[1].split() == ["a7", "R", "G", ".", ".", ".", ".", "R", "g13"]
    assert lines[7].split()[0] == "a1" and lines[7].split()[-1] == "m13"
    assert lines[-1] == "Blue to move 2 snakes"
    # Neighbouring cells of adjacent rows sit one text column apart (the hex offset).
    assert lines[0].index("g") - lines[1].index("G") == 1


def test_mobility_counts_free_neighbours_per_player() -> None:
    state = new()
    assert state.mobility() == tuple(sum(len(NEIGHBOURS[s]) for s in START[p]) for p in (1, 2, 3))
    out = from_fen_text(SECOND_GOES_OUT)
    assert out.mobility()[0] == 0


# -- the rules page -----------------------------------------------------------------------


def rules_page() -> str:
    from importlib.resources import files

    return (files("slimetrail.games.snakepit") / "rules" / "snake-pit.html").read_text("utf-8")


def test_rules_page_diagrams_are_legal_and_say_what_the_engine_does() -> None:
    page = rules_page()
    calls = re.findall(r"\{\{ diagram\((.*?)\) \}\}", page, re.S)
    assert len(calls) == 3 and all('"snake-pit"' in call for call in calls)
    (moves,) = re.findall(r'moves="([^"]*)"', page)
    state, model = new(), Position()
    for text in moves.split():
        turn = next(t for t in model.turns() if turn_text(t) == text)
        model = model.after(turn)
        state.push_str(text)
    assert state.fen() == model.fen()
    blocked = {name for name, marks in state.view()["marks"].items() if marks[0].startswith("t")}
    assert blocked == {"b9", "a2", "e12", "a7", "g1", "m7"}
    (fen,) = re.findall(r'fen="([^"]*)"', page)
    gone = from_fen_text(GREEN_GOES_OUT)
    gone.push_str("d2-e2,e10-e11,g10-g9")
    assert fen == gone.fen() and gone.out == [1] and gone.to_move == 2
    assert from_fen(fen).fen() == fen


def test_rules_page_states_the_rules() -> None:
    page = rules_page()
    assert '<h1>{{ _("Snake Pit") }}</h1>' in page and "Choices this site makes" in page
    (table,) = re.findall(r"<pre>(.*?)</pre>", page, re.S)
    assert [line.split()[1:] for line in table.strip().splitlines()] == [
        [show(c) for c in row] for row in ROWS
    ]
    for text in ("a7-b7,g1-h2,m7-l6", "<code>a7</code> comes before <code>a10</code>", "1-0-0"):
        assert text in page
    for cells in START.values():
        for cell in cells:
            assert f"<code>{show(cell)}</code>" in page
