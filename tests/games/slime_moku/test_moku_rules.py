"""Slime-Moku rules (RULES.md section 4): setup, options, rows in every direction and at the
edges (no wrap-around), notation and its errors, fen, keys, view, text board, evaluation."""

from __future__ import annotations

import random

import pytest
from moku_model import LINES, Model, forced_loss, forced_win, from_rows, name

from slimetrail.core.game import (
    GameOptionError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    TurnShape,
)
from slimetrail.core.registry import GAMES, get_game, parse_game_spec
from slimetrail.games.moku.game import MokuState, SlimeMokuGame


def game(n: int = 15, k: int = 5) -> SlimeMokuGame:
    found = get_game("slime-moku", size=n, k=k)
    assert isinstance(found, SlimeMokuGame)
    return found


def engine(model: Model) -> MokuState:
    return game(model.n, model.k).state_from_fen(model.fen())


# -- setup and options --------------------------------------------------------------------


def test_declarations() -> None:
    cls = GAMES["slime-moku"]
    assert cls.player_names == ("Black", "White")
    assert cls.player_colours == ("black", "white")
    assert cls.turn == TurnShape()
    specs = {spec.name: spec for spec in cls.option_specs}
    assert specs["size"].default == 15 and specs["size"].allowed() == tuple(range(4, 20))
    assert specs["k"].default == 5 and specs["k"].allowed() == (4, 5)


@pytest.mark.parametrize(
    ("n", "start"),
    [(4, "c3"), (5, "c3"), (6, "d4"), (7, "d4"), (15, "h8"), (18, "j10"), (19, "j10")],
)
def test_the_slime_starts_on_the_centre(n: int, start: str) -> None:
    state = game(n).new_state()
    assert state.view()["marks"] == {start: ["snail", "next"]}
    assert state.to_move == 1 and state.outcome() is None
    assert game(n).describe_board()["start"] == start


@pytest.mark.parametrize("spec", ["size=3", "size=20", "k=3", "k=6", "rows=5"])
def test_bad_options_are_refused(spec: str) -> None:
    with pytest.raises(GameOptionError):
        parse_game_spec(f"slime-moku {spec}")


def test_spec_names_non_default_options() -> None:
    game = parse_game_spec("slime-moku size=7 k=4")
    assert game.options == {"size": 7, "k": 4} and (game.size, game.k) == (7, 4)
    assert game.spec == "slime-moku size=7 k=4"
    assert get_game("slime-moku").spec == "slime-moku"


# -- rows -------------------------------------------------------------------------------


def row_position(n: int, k: int, line: list[tuple[int, int]], gap: int) -> Model:
    """Black to move with k - 1 stones of ``line`` and the slime on its cell ``gap``; as
    many white stones, off the line, placed so that they make no row."""
    model = Model(n, k, slime=line[gap])
    for cell in line:
        if cell != line[gap]:
            model.stones[cell] = "B"
    spare = [(c, r) for r in range(n) for c in range(n) if (c, r) not in line]
    for cell in spare:
        if sum(who == "W" for who in model.stones.values()) == k - 1:
            break
        model.stones[cell] = "W"
        if model.has_row("W"):
            del model.stones[cell]
    return model


def every_line(n: int, k: int) -> list[list[tuple[int, int]]]:
    out = []
    for r in range(n):
        for c in range(n):
            for dc, dr in LINES:
                line = [(c + t * dc, r + t * dr) for t in range(k)]
                if all(0 <= x < n and 0 <= y < n for x, y in line):
                    out.append(line)
    return out


@pytest.mark.parametrize(("n", "k"), [(6, 4), (7, 5), (4, 4)])
def test_a_row_wins_in_every_direction_and_place(n: int, k: int) -> None:
    lines = every_line(n, k)
    assert len(lines) == 2 * n * (n - k + 1) + 2 * (n - k + 1) ** 2
    for number, line in enumerate(lines):
        gap = number % k  # the writing stone at every place of the line in turn
        state = engine(row_position(n, k, line, gap))
        assert state.outcome() is None
        move = state.legal_moves()[0]
        state.push(move)
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == 1 and outcome.reason == "row", line
        marked = {c for c, words in state.view()["marks"].items() if "win" in words}
        assert marked == {name(c) for c in line}


def test_rows_on_the_edges_of_the_standard_board() -> None:
    n, k = 15, 5
    edge = [
        line
        for line in every_line(n, k)
        if any(c in (0, n - 1) or r in (0, n - 1) for c, r in line)
    ]
    directions = set()
    for line in edge:
        model = row_position(n, k, line, k - 1)
        state = engine(model)
        state.push(state.legal_moves()[-1])
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == 1, line
        directions.add((line[1][0] - line[0][0], line[1][1] - line[0][1]))
    assert directions == set(LINES)


def wrapped_lines(n: int, k: int) -> list[list[tuple[int, int]]]:
    """k cells that are evenly spaced in a row-major numbering of width n or n + 1 (as a board
    without edge masks would see them) but not a line of the board: they wrap around an edge."""
    real = {tuple(sorted(line)) for line in every_line(n, k)}
    out = []
    for width in (n, n + 1):
        for stride in (1, width - 1, width, width + 1):
            for start in range(width * n):
                cells = [
                    ((start + t * stride) % width, (start + t * stride) // width) for t in range(k)
                ]
                if all(c < n and r < n for c, r in cells) and tuple(sorted(cells)) not in real:
                    out.append(cells)
    return out


@pytest.mark.parametrize(("n", "k"), [(6, 4), (7, 5), (15, 5)])
def test_no_row_wraps_around_the_board_edge(n: int, k: int) -> None:
    lines = wrapped_lines(n, k)
    assert lines
    tested = 0
    for line in lines:
        model = row_position(n, k, line, k - 1)
        state = engine(model)
        move = state.legal_moves()[0]
        state.push(move)
        model.play(move_cell(model, state.move_str(move)))
        assert state.outcome() is None and model.winner() is None, line
        tested += 1
    assert tested == len(lines)


def move_cell(model: Model, text: str) -> tuple[int, int]:
    return next(cell for cell in model.legal() if name(cell) == text)


def test_more_than_k_in_a_row_wins() -> None:
    # Black x x . x x on the bottom row: the slime on the gap joins them into five (k=4).
    model = from_rows(6, 4, ["o.o.o.", "......", "......", "......", "o.....", "xx@xx."], "B")
    state = engine(model)
    state.push_str("c2")
    assert state.outcome() is not None and state.outcome().winner == 1
    marked = {c for c, words in state.view()["marks"].items() if "win" in words}
    assert marked == {"a1", "b1", "c1", "d1", "e1"}


def test_only_the_mover_can_complete_a_row() -> None:
    # White has three in a row and the slime on its end, but Black moves: Black's stone fills
    # it (k=4), and the game goes on.
    model = from_rows(6, 4, ["......", "x.x...", "......", "......", "......", "ooo@.x"], "B")
    state = engine(model)
    state.push_str("e1")
    assert state.outcome() is None
    assert state.view()["marks"]["d1"] == ["stone-1"]


# -- notation ---------------------------------------------------------------------------


def test_moves_are_destinations_and_compass_words() -> None:
    state = game().new_state()
    assert state.legal_move_strs() == ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"]
    for word, cell in [
        ("n", "h9"), ("ne", "i9"), ("e", "i8"), ("se", "i7"),
        ("s", "h7"), ("sw", "g7"), ("w", "g8"), ("nw", "g9"),
    ]:  # fmt: skip
        assert state.move_str(state.parse_move(word)) == cell
        assert state.parse_move(f" {cell.upper()} ") == state.parse_move(word)
    state.push_str("n")
    assert state.view()["marks"]["h8"] == ["stone-1"]
    assert state.view()["last"] == ["h8", "h9"]


def errors(state: MokuState, text: str) -> str:
    before = state.fen()
    with pytest.raises((IllegalMoveError, InvalidMoveError)) as info:
        state.parse_move(text)
    assert state.fen() == before
    return str(info.value)


def test_parse_errors_say_what_is_wrong() -> None:
    state = game().new_state()
    assert "h10 is not next to the slime on h8 and the slime is not stuck" in errors(state, "h10")
    assert "already there" in errors(state, "h8")
    with pytest.raises(InvalidMoveError, match="neither a cell of the 15x15 board"):
        state.parse_move("p1")
    for bad in ("", "h0", "h", "up", "h8h"):
        with pytest.raises(InvalidMoveError):
            state.parse_move(bad)
    state.push_str("h9")
    assert "h8 holds a black stone" in errors(state, "s")
    state.push_str("h10")
    assert "h9 holds a white stone" in errors(state, "h9")
    edge = game(4, 4).state_from_fen("2@1/4/4/4 1")
    assert "leaves the board" in errors(edge, "n")


def test_a_stuck_slime_is_lifted_anywhere() -> None:
    model = from_rows(4, 4, ["@xo.", "ox..", "....", "...."], "B")
    state = engine(model)
    assert state.is_stuck() and state.view()["stuck"] is True
    assert state.move_str(state.parse_move("d1")) == "d1"
    # Compass words name the (occupied) neighbours: no lift by direction.
    assert "holds a black stone" in errors(state, "e")
    assert "leaves the board" in errors(state, "n")
    state.push_str("d1")
    assert state.view()["last"] == ["a4", "d1"]
    assert state.view()["marks"]["a4"] == ["stone-1"]
    assert "stuck" not in state.view()


def test_push_refuses_non_moves_and_changes_nothing() -> None:
    state = game().new_state()
    before = (state.fen(), state.key())
    board = state.game.board
    for bad in (True, -1, 10**6, "h9", None, board.index(7, 9), board.index(15, 0)):
        with pytest.raises(IllegalMoveError):
            state.push(bad)
    assert (state.fen(), state.key()) == before and state.move_stack == []
    with pytest.raises(IndexError):
        state.pop()


def test_no_move_after_the_end() -> None:
    model = from_rows(4, 4, ["@...", "x..o", "x..o", "x..o"], "B")
    state = engine(model)
    state.push_str("b4")
    assert state.outcome() is not None and state.outcome().winner == 1
    assert state.legal_moves() == [] and state.view()["marks"]["b4"] == ["snail"]
    assert "the game is over" in errors(state, "c4")
    with pytest.raises(IllegalMoveError):
        state.push(state.game.board.index(2, 3))


# -- positions --------------------------------------------------------------------------


def test_fen_round_trips_and_stable_keys() -> None:
    rng = random.Random(5)
    for n, k in [(15, 5), (6, 4), (9, 5)]:
        state = game(n, k).new_state()
        keys = {state.key()}
        while not state.is_over():
            state.push(rng.choice(state.legal_moves()))
            again = state.game.state_from_fen(state.fen())
            assert again == state and again.key() == state.key()
            assert again.outcome() == state.outcome()
            assert again.legal_moves() == state.legal_moves()
            assert state.copy().key() == state.key()
            keys.add(state.key())
        assert len(keys) == len(state.move_stack) + 1
    # The same position has the same key in every run (a fixed seed), whatever the path.
    a = game().new_state()
    for text in ("h9", "h10", "i10"):
        a.push_str(text)
    b = game().state_from_fen(a.fen())
    assert a.key() == b.key()
    assert game().new_state().key() == game().new_state().key()


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("4/4/2@1/4", "expected"),
        ("4/4/2@1/4 3", "expected"),
        ("4/4/2@1 1", "3 rows"),
        ("4/4/2@2/4 1", "bad run"),
        ("4/4/2@/4 1", "has 3 cells"),
        ("4/4/2@1/3z 1", "unexpected 'z'"),
        ("4/4/4/4 1", "exactly one slime"),
        ("@3/4/2@1/4 1", "exactly one slime"),
        ("x3/4/2@1/4 1", "cannot have player 1 to move"),
        ("xx2/4/2@1/4 2", "cannot have player 2 to move"),
        ("4/4/2@1/o3 1", "cannot have player 1 to move"),
        ("xxxx/oooo/2@1/4 1", "already has 4 in a row"),
        ("0x3/4/2@1/4 1", "bad run"),
    ],
)
def test_bad_positions_are_refused(fen: str, why: str) -> None:
    with pytest.raises(InvalidPositionError, match=why):
        game(4, 4).state_from_fen(fen)


def test_a_finished_position_reads_back_finished() -> None:
    state = game(4, 4).state_from_fen("xxxx/ooo1/2@1/4 2")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 1 and state.legal_moves() == []
    marks = state.view()["marks"]
    assert all("win" in marks[c] for c in ("a4", "b4", "c4", "d4"))
    assert marks["c2"] == ["snail"] and "stuck" not in state.view()


# -- views ------------------------------------------------------------------------------


def test_view_text_board_and_geometry() -> None:
    state = game(4, 4).new_state()
    state.push_str("b2")
    state.push_str("a1")
    view = state.view()
    assert view["marks"] == {"c3": ["stone-1"], "b2": ["stone-2"], "a1": ["snail", "next"]}
    assert view["last"] == ["b2", "a1"] and "stuck" not in view
    assert state.text_board() == "\n".join(
        [
            "     a b c d",
            "  4  . . . .  4",
            "  3  . . X .  3",
            "  2  . O . .  2",
            "  1  @ . . .  1",
            "     a b c d",
        ]
    )
    board = state.game.describe_board()
    assert board["shape"] == "square" and board["k"] == 4
    cells = {cell["name"]: (cell["x"], cell["y"]) for cell in board["cells"]}
    assert len(cells) == 16 and cells["a1"] == (0, 3) and cells["d4"] == (3, 0)
    assert cells["b1"] == (1, 3) and cells["a2"] == (0, 2)  # y grows downwards


# -- evaluation -------------------------------------------------------------------------


def test_evaluation_is_bounded_and_its_tactical_claims_are_true() -> None:
    rng = random.Random(11)
    claims = {"win": 0, "loss": 0}
    for _ in range(120):
        model = Model.start(6, 4)
        state = game(6, 4).new_state()
        while not model.over():
            value = state.evaluate()
            assert -1.0 <= value <= 1.0
            if value >= 0.97:
                assert forced_win(model, 3), model.fen()
                claims["win"] += 1
            elif value <= -0.98:
                assert forced_loss(model), model.fen()
                claims["loss"] += 1
            cell = rng.choice(model.legal())
            model.play(cell)
            state.push_str(name(cell))
        assert state.evaluate() in (-1.0, 0.0, 1.0)
    assert claims["win"] > 10 and claims["loss"] > 3


def test_evaluation_prefers_the_side_with_more_open_lines() -> None:
    # Black to move in both: an open three of the mover's against one of the opponent's,
    # the other side's stones scattered, the slime far from both (k=5).  The empty board
    # (where the mover's tempo, the stone on the slime's cell, is all) lies between.
    mine = game().state_from_fen("15/15/15/15/15/15/15/7@7/15/15/15/15/2xxx10/15/o1o1o10 1")
    theirs = game().state_from_fen("15/15/15/15/15/15/15/7@7/15/15/15/15/2ooo10/15/x1x1x10 1")
    start = game().new_state().evaluate()
    assert theirs.evaluate() + 0.2 < start < mine.evaluate() - 0.2
    assert start > 0  # the stone the mover writes next
    # The same three next to the slime counts more than far from it.
    near = game().state_from_fen("15/15/15/15/15/15/15/7@7/4xxx8/15/15/15/15/15/o1o1o10 1")
    assert near.evaluate() > mine.evaluate()
    # Mirror images are worth the same.
    flipped = game().state_from_fen("15/15/15/15/15/15/15/7@7/15/15/15/15/10xxx2/15/10o1o1o 1")
    assert flipped.evaluate() == pytest.approx(mine.evaluate())


# -- whether a player can still win (a fallen flag against them is then a draw) --------------


def model_can_win(model: Model, colour: str) -> bool:
    """Some whole line of k cells holds no stone of the other colour."""
    other = "W" if colour == "B" else "B"
    return any(
        all(model.stones.get(cell) != other for cell in line)
        for line in every_line(model.n, model.k)
    )


@pytest.mark.parametrize(("n", "k"), [(4, 4), (5, 4), (6, 5)])
def test_can_win_agrees_with_the_model_on_random_boards(n: int, k: int) -> None:
    rng = random.Random(n * 10 + k)
    seen = {True: 0, False: 0}
    for _ in range(300):
        model = Model.start(n, k)
        cells = [(c, r) for r in range(n) for c in range(n) if (c, r) != model.slime]
        # Stone counts as play makes them: black has as many as white or one more.
        placed = rng.sample(cells, rng.randrange(len(cells)))
        for i, cell in enumerate(placed):
            model.stones[cell] = "BW"[i % 2]
        model.to_move = "BW"[len(placed) % 2]
        # Only positions in which nobody has a row yet: the game would be over otherwise.
        if model.has_row("B") or model.has_row("W") or not model.empty_cells():
            continue
        state = engine(model)
        for player, colour in ((1, "B"), (2, "W")):
            expected = model_can_win(model, colour)
            assert state.can_win(player) is expected, (model.fen(), colour)
            seen[expected] += 1
    assert seen[True] and seen[False]  # both answers were exercised


def test_a_finished_game_can_be_won_only_by_its_winner() -> None:
    # Black's slime step from d1 leaves a black stone there: a1 b1 c1 d1.
    model = from_rows(5, 4, [".....", ".....", ".....", "ooo..", "xxx@."], "B")
    state = engine(model)
    assert state.outcome() is None and state.can_win(1) and state.can_win(2)
    state.push_str("d2")
    assert state.outcome() is not None and state.outcome().winner == 1
    assert state.can_win(1) and not state.can_win(2)
