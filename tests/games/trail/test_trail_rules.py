"""The rules of RULES.md sections 1-3 as the engine plays them, and every bad-input path."""

from __future__ import annotations

import random

import pytest
from trail_model import Cell, Model, model_fen, parse_fen

from slimetrail.core.game import (
    GameError,
    GameOptionError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
)
from slimetrail.core.registry import get_game, parse_game_spec

HEX_SAMPLE = "e nw e nw ne nw ne nw nw sw se w sw e se w w se w sw e sw e se e"
HEX_TRAIL = "d4 e5 d5 e6 d6 d7 c7 c8 b8 a8 a7 b7 a6 a5 b6 c6 b5 a4 b4 a3 a2 b3 b2 c3 d3 e4"
SQUARE_SAMPLE = "sw e sw e e ne e n nw w s e sw se sw se w w n w nw nw n nw ne nw s ne e s e sw"


def names(state, cells) -> list[str]:
    return [state.move_str(c) for c in cells]


def snapshot(state) -> tuple:
    return state.fen(), state.key(), list(state.move_stack), state.legal_moves(), state.outcome()


# -- the published sample games ----------------------------------------------------------------


def test_hex_sample_game_replays_the_exact_trail():
    state = get_game("slimetrail-hex", size=8).new_state()
    trail = [state.move_str(state.snail)]
    for text in HEX_SAMPLE.split():
        state.push_str(text)
        trail.append(state.move_str(state.snail))
    assert " ".join(trail) == HEX_TRAIL
    assert names(state, state.move_stack) == HEX_TRAIL.split()[1:]
    assert state.outcome() is None and state.to_move == 2


def test_square_sample_game_replays():
    state = get_game("slimetrail-square").new_state()
    assert state.move_str(state.snail) == "e5"
    for text in SQUARE_SAMPLE.split():
        state.push_str(text)
    assert len(state.move_stack) == 32 and state.outcome() is None
    assert state.move_str(state.snail) == "c6"


def test_misprinted_hex_sample_does_not_replay():
    # The ninth token as printed ("ne" instead of "nw") runs into the trail.
    tokens = HEX_SAMPLE.split()
    tokens[8] = "ne"
    state = get_game("slimetrail-hex", size=8).new_state()
    with pytest.raises(GameError):
        for text in tokens:
            state.push_str(text)


# -- starts and goals --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game_id", "options", "start", "goal1", "goal2"),
    [
        ("slimetrail", {}, "d4", "a1", "g7"),
        ("slimetrail", {"size": 9}, "e5", "a1", "i9"),
        ("slimetrail", {"start": "e5"}, "e5", "a1", "g7"),
        ("slimetrail", {"start": "E5 "}, "e5", "a1", "g7"),
        ("slimetrail-square", {}, "e5", "a1", "h8"),
        ("slimetrail-square", {"size": 5}, "c3", "a1", "e5"),
        ("slimetrail-hex", {}, "e5", "j10", "a1"),
        ("slimetrail-hex", {"size": 8}, "d4", "h8", "a1"),
        ("slimetrail-hex", {"size": 11}, "f6", "k11", "a1"),
    ],
)
def test_default_starts_and_goal_owners(game_id, options, start, goal1, goal2):
    game = get_game(game_id, **options)
    state = game.new_state()
    assert state.move_str(state.snail) == start == game.describe_board()["start"]
    assert names(state, game.goals[1:]) == [goal1, goal2]
    assert game.describe_board()["goals"] == {"1": goal1, "2": goal2}
    assert state.to_move == 1 and state.outcome() is None and state.move_stack == []


def test_default_rules():
    assert get_game("slimetrail").rules == "rastros"
    assert get_game("slimetrail-square").rules == "taylor"
    assert get_game("slimetrail-hex").rules == "taylor"
    assert get_game("slimetrail", size=None, rules=None) == get_game("slimetrail")


GOAL_GAMES = [
    ("slimetrail", 7, "rastros"),
    ("slimetrail", 7, "taylor"),
    ("slimetrail-square", 8, "taylor"),
    ("slimetrail-square", 8, "rastros"),
    ("slimetrail-hex", 10, "taylor"),
    ("slimetrail-hex", 10, "rastros"),
]


@pytest.mark.parametrize(("game_id", "n", "rules"), GOAL_GAMES)
@pytest.mark.parametrize("mover", [1, 2])
def test_entering_a_goal_wins_for_its_owner_whoever_moves(game_id, n, rules, mover):
    game = get_game(game_id, size=n, rules=rules)
    model = Model(game_id, n, rules)
    for owner in (1, 2):
        goal = game.goals[owner]
        col, row = game.board.coords(goal)
        beside: Cell = (1, 1) if (col, row) == (0, 0) else (n - 2, n - 2)
        state = game.state_from_fen(model_fen(model, set(), beside, mover))
        assert goal in state.legal_moves()
        state.push(goal)
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == owner and outcome.reason == "goal"
        assert state.legal_moves() == []
        # The game is over: nothing more can be played, and the state stays as it is.
        before = snapshot(state)
        with pytest.raises(IllegalMoveError, match="the game is over"):
            state.parse_move(model.name(beside))
        with pytest.raises(IllegalMoveError):
            state.push(game.board.index(*beside))
        assert snapshot(state) == before


@pytest.mark.parametrize(
    ("game_id", "moves", "winner"),
    [
        ("slimetrail", "d4 e5", 2),  # player 2 enters its own corner
        ("slimetrail", "b3 b2 a1", 1),  # player 1 enters its own corner
        ("slimetrail", "b2 a1", 1),  # player 2 walks into player 1's corner and loses
        ("slimetrail", "d4 d5 e5", 2),  # player 1 walks into player 2's corner and loses
        ("slimetrail-hex", "a1", 2),  # hex 4x4 from b2: Green enters Red's corner a1
        ("slimetrail-hex", "c3 d4", 1),  # Red enters Green's corner d4
    ],
)
def test_moving_into_a_corner_ends_the_game_at_once(game_id, moves, winner):
    state = get_game(game_id, size=5 if game_id == "slimetrail" else 4).new_state()
    for text in moves.split():
        state.push_str(text)
    assert state.outcome().winner == winner and state.legal_moves() == []


# -- stuck ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["slimetrail", "slimetrail-square", "slimetrail-hex"])
@pytest.mark.parametrize("to_move", [1, 2])
def test_stuck_loses_under_rastros_and_draws_under_taylor(game_id, to_move):
    model = Model(game_id, 5, "rastros")
    centre = (2, 2)
    walls = set(model.neighbours(centre))
    fen = model_fen(model, walls, centre, to_move)
    lost = get_game(game_id, size=5, rules="rastros").state_from_fen(fen)
    assert lost.legal_moves() == []
    outcome = lost.outcome()
    assert (outcome.winner, outcome.reason) == (3 - to_move, "stuck")
    drawn = get_game(game_id, size=5, rules="taylor").state_from_fen(fen)
    assert drawn.legal_moves() == []
    outcome = drawn.outcome()
    assert (outcome.winner, outcome.reason, outcome.is_draw) == (None, "stuck", True)


def test_walled_in_neighbour_is_legal_only_under_rastros():
    # b3 may step into a3, whose other neighbours are all slimed: a dead end.
    fen = "5/xx3/1o3/xx3/5 1"
    rastros = get_game("slimetrail", size=5).state_from_fen(fen)
    taylor = get_game("slimetrail", size=5, rules="taylor").state_from_fen(fen)
    assert sorted(rastros.legal_move_strs()) == ["a3", "c2", "c3", "c4"]
    assert sorted(taylor.legal_move_strs()) == ["c2", "c3", "c4"]
    before = snapshot(taylor)
    with pytest.raises(IllegalMoveError, match=r"a3: no goal corner could be reached.*Taylor"):
        taylor.parse_move("a3")
    with pytest.raises(IllegalMoveError, match="a3 is not a legal move here"):
        taylor.push(taylor.game.board.parse_cell("a3"))
    assert snapshot(taylor) == before
    rastros.push_str("a3")  # ... and then player 2 is stuck and loses
    assert rastros.outcome().winner == 1


def test_one_reachable_goal_is_enough():
    # Row 4 is slimed: e5 is cut off from everything below, a1 is still reachable.
    state = get_game("slimetrail", size=5, rules="taylor").state_from_fen("5/xxxxx/2o2/5/5 1")
    assert sorted(state.legal_move_strs()) == ["b2", "b3", "c2", "d2", "d3"]
    # Only the opponent's corner reachable: still legal.
    state = get_game("slimetrail", size=5, rules="taylor").state_from_fen("5/5/2o2/xxxxx/5 2")
    assert sorted(state.legal_move_strs()) == ["b3", "b4", "c4", "d3", "d4"]


@pytest.mark.parametrize(
    ("game_id", "n"), [("slimetrail", 7), ("slimetrail-square", 8), ("slimetrail-hex", 8)]
)
def test_taylor_forbids_exactly_the_moves_that_cut_off_both_goals(game_id, n):
    model = Model(game_id, n, "taylor")
    rastros = get_game(game_id, size=n, rules="rastros")
    taylor = get_game(game_id, size=n, rules="taylor")
    rng = random.Random(n)
    forbidden_seen = 0
    for _ in range(60):
        state = rastros.new_state()
        while state.outcome() is None and rng.random() > 0.03:
            state.push(rng.choice(state.legal_moves()))
        if state.outcome() is not None:
            state.pop()
        restricted = taylor.state_from_fen(state.fen())
        blocked, snail, _ = parse_fen(model, state.fen())
        for move in state.legal_moves():
            cell = taylor.board.coords(move)
            keeps_a_goal = cell in model.goals or model.goal_reachable(
                cell, blocked | {snail, cell}
            )
            assert (move in restricted.legal_moves()) == keeps_a_goal, (state.fen(), move)
            forbidden_seen += not keeps_a_goal
    assert forbidden_seen > 0


# -- directions ------------------------------------------------------------------------------


def test_square_directions():
    state = get_game("slimetrail").new_state()  # d4
    want = {"n": "d5", "ne": "e5", "e": "e4", "se": "e3", "s": "d3", "sw": "c3", "w": "c4"}
    want["nw"] = "c5"
    for direction, cell in want.items():
        for text in (direction, direction.upper(), f"  {direction} "):
            assert state.move_str(state.parse_move(text)) == cell
    with pytest.raises(InvalidMoveError, match=r"direction \(n ne e se s sw w nw\)"):
        state.parse_move("up")


def test_hex_directions():
    state = get_game("slimetrail-hex").new_state()  # e5
    want = {"e": "f6", "w": "d4", "ne": "e6", "sw": "e4", "se": "f5", "nw": "d5"}
    for direction, cell in want.items():
        assert state.move_str(state.parse_move(direction)) == cell
    assert sorted(state.legal_move_strs()) == sorted(want.values())
    for text in ("n", "s"):
        with pytest.raises(InvalidMoveError, match=r"direction \(e w ne sw se nw\)"):
            state.parse_move(text)


@pytest.mark.parametrize(
    ("game_id", "fen", "direction", "message"),
    [
        ("slimetrail-hex", "4/4/o3/4 1", "w", "'w' from a2 leaves the board"),
        ("slimetrail-hex", "4/4/o3/4 1", "nw", "'nw' from a2 leaves the board"),
        ("slimetrail-hex", "4/4/ox2/4 1", "se", "b2 is slimed"),
        ("slimetrail", "5/5/5/5/3o1 1", "s", "'s' from d1 leaves the board"),
        ("slimetrail", "5/5/5/3x1/3o1 2", "n", "d2 is slimed"),
    ],
)
def test_bad_directions(game_id, fen, direction, message):
    n = len(fen.split("/"))
    state = get_game(game_id, size=n).state_from_fen(fen)
    before = snapshot(state)
    with pytest.raises(IllegalMoveError, match=message):
        state.parse_move(direction)
    with pytest.raises(IllegalMoveError, match=message):
        state.push_str(direction)
    assert snapshot(state) == before


# -- bad input leaves everything as it was -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("", InvalidMoveError, "'' is neither a cell of the 7x7 board nor a direction"),
        ("h1", InvalidMoveError, "'h1' is neither a cell of the 7x7 board"),
        ("c0", InvalidMoveError, "'c0' is neither a cell"),
        ("c", InvalidMoveError, "'c' is neither a cell"),
        ("3c", InvalidMoveError, "'3c' is neither a cell"),
        ("pass", InvalidMoveError, "'pass' is neither a cell"),
        ("c4", IllegalMoveError, "c4 is slimed"),
        ("c3", IllegalMoveError, "c3: the snail is already there"),
        ("a1", IllegalMoveError, "a1 is not next to the snail on c3"),
        ("g7", IllegalMoveError, "g7 is not next to the snail on c3"),
    ],
)
def test_parse_move_errors(text, error, message):
    state = get_game("slimetrail").new_state()
    state.push_str("c4")
    state.push_str("c3")
    before = snapshot(state)
    with pytest.raises(error, match=message):
        state.parse_move(text)
    with pytest.raises(error, match=message):
        state.push_str(text)
    assert snapshot(state) == before


@pytest.mark.parametrize("move", [-1, 10**6, 49, True, None, "c3", 3.0, (1, 2)])
def test_push_rejects_non_moves(move):
    state = get_game("slimetrail").new_state()
    state.push_str("c3")
    before = snapshot(state)
    with pytest.raises(IllegalMoveError, match="is not a legal move here"):
        state.push(move)
    assert snapshot(state) == before


def test_push_rejects_illegal_cells_and_pop_of_nothing():
    state = get_game("slimetrail").new_state()
    board = state.game.board
    before = snapshot(state)
    for cell in board.cells():
        if cell not in state.legal_moves():
            with pytest.raises(IllegalMoveError, match=f"{board.name(cell)} is not a legal"):
                state.push(cell)
    assert snapshot(state) == before
    with pytest.raises(IndexError, match="no moves"):
        state.pop()


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "expected '<rows separated by /> <1|2>'"),
        ("7/7/7/3o3/7/7/7", "expected '<rows separated by /> <1|2>'"),
        ("7/7/7/3o3/7/7/7 3", "expected '<rows separated by /> <1|2>'"),
        ("7/7/7/3o3/7/7/7 1 extra", "expected '<rows separated by /> <1|2>'"),
        ("7/7/3o3/7/7/7 1", "6 rows, the board has 7"),
        ("7/7/7/3o3/7/7/7/7 1", "8 rows, the board has 7"),
        ("8/7/7/3o3/7/7/7 1", "bad run in row 7"),
        ("0/7/7/3o3/7/7/7 1", "bad run in row 7"),
        ("7/7/7/3o3/7/7/6 1", "row 1 has 6 cells, not 7"),
        ("7/7/7/3o3/7/7/7x 1", "unexpected 'x' in row 1"),
        ("7/7/7/3O3/7/7/7 1", "unexpected 'O' in row 4"),
        ("7/7/7/3*3/7/7/7 1", "unexpected '\\*' in row 4"),
        ("7/7/7/7/7/7/7 1", "needs exactly one snail 'o'"),
        ("7/7/7/3oo2/7/7/7 1", "needs exactly one snail 'o'"),
        ("7/7/7/3o3/7/7/x6 1", "a goal corner is slimed"),
        ("6x/7/7/3o3/7/7/7 1", "a goal corner is slimed"),
    ],
)
def test_state_from_fen_errors(fen, message):
    game = get_game("slimetrail")
    with pytest.raises(InvalidPositionError, match=message):
        game.state_from_fen(fen)


def test_fen_accepts_a_finished_position_and_keeps_the_side_to_move():
    game = get_game("slimetrail")
    state = game.state_from_fen("6o/7/7/7/7/7/7 2")
    assert state.outcome().winner == 2 and state.fen() == "6o/7/7/7/7/7/7 2"
    assert game.state_from_fen("  7/7/7/3o3/7/7/7   2 ").to_move == 2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: get_game("chess"), "unknown game 'chess' \\(games: slimetrail, "),
        (lambda: get_game("slimetrail", colour="red"), "unknown option 'colour' \\(options: size"),
        (lambda: get_game("slimetrail", size=8), "option size='8' is not one of 5, 7, 9"),
        (lambda: get_game("slimetrail", size=17), "option size='17' is not one of"),
        (lambda: get_game("slimetrail", size="seven"), "option size='seven'"),
        (lambda: get_game("slimetrail-hex", size=3), "option size='3' is not one of 4, 5"),
        (lambda: get_game("slimetrail-square", size=16), "option size='16'"),
        (lambda: get_game("slimetrail", rules="chess"), "rules='chess' is not one of rastros"),
        (lambda: get_game("slimetrail", start="z9"), "start='z9' is not a cell of the board"),
        (lambda: get_game("slimetrail", start="h1"), "start='h1' is not a cell of the board"),
        (lambda: get_game("slimetrail", start="a1"), "cannot start on a goal corner"),
        (lambda: get_game("slimetrail-hex", start="j10"), "cannot start on a goal corner"),
        (lambda: parse_game_spec(""), "empty game spec"),
        (lambda: parse_game_spec("slimetrail size"), "'size' is not name=value"),
        (lambda: parse_game_spec("slimetrail size="), "'size=' is not name=value"),
        (lambda: parse_game_spec("slimetrail =7"), "'=7' is not name=value"),
        (lambda: parse_game_spec("go size=9"), "unknown game 'go'"),
        (lambda: parse_game_spec("slimetrail-hex rules=x"), "rules='x' is not one of"),
    ],
)
def test_game_option_errors(call, message):
    with pytest.raises(GameOptionError, match=message):
        call()


def test_game_specs_round_trip():
    for spec in ["slimetrail", "slimetrail size=9 rules=taylor start=e5", "slimetrail-hex size=8"]:
        game = parse_game_spec(spec)
        assert game.spec == spec and parse_game_spec(game.spec) == game
    assert parse_game_spec("slimetrail rules=TAYLOR").rules == "taylor"
    assert parse_game_spec("slimetrail size=7").spec == "slimetrail"
