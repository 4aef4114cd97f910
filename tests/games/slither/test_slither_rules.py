"""The rules of RULES.md section 6 as the engine plays them: spellings, the diagonal rule,
forced pass, Advanced's mobility rule, the pie swap, position strings, clicks and views."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import slither_model as model

from slimetrail.core.game import (
    GameOptionError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    outcome_sentence,
)
from slimetrail.core.registry import GAMES, get_game, parse_game_spec
from slimetrail.games.slither.game import SlitherState


def play(text: str, game_id: str = "slither", **options: str):
    state = get_game(game_id, **options).new_state()
    for word in text.split():
        state.push_str(word)
    return state


def snapshot(state) -> tuple:
    return state.fen(), state.key(), state.move_stack, state.legal_moves(), state.outcome()


# -- the games and their options -------------------------------------------------------------


def test_both_games_are_registered_with_their_declarations():
    for game_id in ("slither", "slither-advanced"):
        cls = GAMES[game_id]
        assert cls.player_names == ("Black", "White")
        assert cls.player_colours == ("black", "white")
        assert cls.turn.max_clicks == 3 and cls.turn.repeats
        assert set(cls.turn.actions) == {"swap", "pass"}
        specs = {spec.name: spec for spec in cls.option_specs}
        assert specs["size"].default == 9 and specs["size"].allowed()[0] == 4
        assert specs["size"].allowed()[-1] == 19
        assert specs["pie"].default is True and specs["pie"].texts() == ("on", "off")
    assert get_game("slither", pie="off").options == {"size": 9, "pie": False}
    assert parse_game_spec("slither-advanced size=13 pie=off").spec == (
        "slither-advanced size=13 pie=off"
    )


@pytest.mark.parametrize("options", [{"size": "3"}, {"size": "20"}, {"pie": "maybe"}, {"x": 1}])
def test_bad_options_are_refused_by_name(options):
    with pytest.raises(GameOptionError, match=next(iter(options))):
        get_game("slither", **options)


def test_describe_board_is_a_square_grid_with_rank_one_at_the_bottom():
    board = get_game("slither").describe_board()
    assert board["shape"] == "square"
    cells = {cell["name"]: (cell["x"], cell["y"]) for cell in board["cells"]}
    assert len(cells) == 81
    assert cells["a1"] == (0, 8) and cells["i9"] == (8, 0) and cells["b1"] == (1, 8)


# -- spellings ------------------------------------------------------------------------------


def test_every_spelling_of_a_board_is_one_move():
    state = play("c3 d4", size="5")
    # a step whose placement lands back on the vacated cell is the placement alone
    assert state.parse_move("c3-b3/c3") == state.parse_move("b3") == state.parse_move(" B3 ")
    assert state.move_str(state.parse_move("c3-b3/c3")) == "b3"
    # c3-c2/b2 and c3-b2/c2 leave the same board: canonical has the step end first (b2)
    assert state.parse_move("c3-c2/b2") == state.parse_move("c3-b2/c2")
    assert state.move_str(state.parse_move("c3-c2/b2")) == "c3-b2/c2"
    # a placement away from the stone's reach has one spelling only
    assert state.move_str(state.parse_move("c3-c4/a1")) == "c3-c4/a1"
    opening = play("c3", size="5")
    assert opening.parse_move(" SWAP ") == opening.parse_move("swap") == "swap"


def test_push_takes_any_spelling_and_stores_the_canonical_move():
    state = play("c3 d4", size="5")
    source, target, placed = (state.game.board.parse_cell(c) for c in ("c3", "c2", "b2"))
    canonical = state.parse_move("c3-b2/c2")
    state.push((source, target, placed))
    assert state.move_stack[-1] == canonical
    assert state.move_str(state.move_stack[-1]) == "c3-b2/c2"


@pytest.mark.parametrize("text", ["", "k1", "a0", "a6", "c3-", "c3-c4", "c3/c4", "c3-c4/", "hi"])
def test_text_that_is_no_move_is_an_invalid_move_error(text):
    state = play("c3", size="5")
    before = snapshot(state)
    with pytest.raises(InvalidMoveError, match="not a Slither move"):
        state.parse_move(text)
    assert snapshot(state) == before


@pytest.mark.parametrize(
    ("moves", "text", "why"),
    [
        ("c3 d4", "c3", "c3 is occupied"),
        ("c3 d4", "d4-d5/a1", "d4 holds a White stone"),
        ("c3 d4", "a1-a2/b5", "a1 holds no stone"),
        ("c3 d4", "c3-e5/a1", "e5 is not one king step from c3"),
        ("c3 d4", "c3-c3/a1", "c3 is not one king step from c3"),
        ("c3 d4", "c3-d4/a1", "d4 is occupied"),
        ("c3 d4", "c3-c4/c4", "c4 is occupied after the step"),
        ("c3 d4", "b2", "b2 and c3 would be diagonal neighbours with no Black stone on c2 or b3"),
        ("c3 d4", "pass", "only a player with no legal turn may pass"),
        ("c3 d4", "swap", "only White's answer to Black's first turn"),
        ("c3", "pass", "only a player with no legal turn may pass"),
    ],
)
def test_illegal_moves_say_why_and_change_nothing(moves, text, why):
    state = play(moves, size="5")
    before = snapshot(state)
    with pytest.raises(IllegalMoveError, match=why):
        state.parse_move(text)
    assert snapshot(state) == before


def test_swap_without_the_pie_and_moves_after_the_end():
    state = play("c3", size="5", pie="off")
    with pytest.raises(IllegalMoveError, match="pie=off"):
        state.push_str("swap")
    finished = get_game("slither", size="4").state_from_fen("o3/1x2/1xo1/1x2 b - 5")
    finished.push_str("b4")
    assert finished.is_over()
    with pytest.raises(IllegalMoveError, match="game is over"):
        finished.push_str("a1")
    assert finished.legal_moves() == [] and finished.next_clicks() == {}


@pytest.mark.parametrize("move", [(), (1, 2), ("c3",), (True,), (1000,), (0, 0, 5), "resign", 7])
def test_push_of_a_malformed_value_is_refused(move):
    state = play("c3", size="5")
    before = snapshot(state)
    with pytest.raises(IllegalMoveError):
        state.push(move)
    assert snapshot(state) == before


# -- the diagonal rule -----------------------------------------------------------------------


def test_the_diagonal_rule_forbids_a_lone_diagonal_and_allows_a_supported_one():
    state = play("c3 e5", size="5")
    assert "d4" not in state.legal_move_strs()  # c3 and d4 share no Black neighbour
    with pytest.raises(IllegalMoveError, match="c3 and d4 would be diagonal neighbours"):
        state.parse_move("d4")
    state.push_str("c4")
    state.push_str("a1")
    assert "d5" not in state.legal_move_strs()  # c4 and d5: c5 and d4 are empty
    assert "d3" in state.legal_move_strs()  # d3 and c4 share c3, a Black stone


def test_a_step_may_break_the_rule_if_the_placement_mends_it():
    # Black c3 d4 c4: stepping c4 away leaves c3 and d4 bare; the placement must mend it.
    state = get_game("slither", size="5").state_from_fen("5/2xx1/2x2/5/o4 b - 6")
    legal = set(state.legal_move_strs())
    # c4 to b5 leaves c3-d4 bare: only d3 mends it (c4 again is the placement b5 alone,
    # itself illegal: b5 and c4 share no Black neighbour); d3 is one step from c4 too, so
    # the canonical spelling steps to d3, the cell first rank by rank
    assert {m for m in legal if m.startswith("c4-") and "b5" in m} == {"c4-d3/b5"}
    assert "b5" not in legal
    with pytest.raises(IllegalMoveError, match="c3 and d4 would be diagonal neighbours"):
        state.parse_move("c4-b5/a5")


def test_a_position_breaking_the_rule_cannot_arise():
    # every turn ends with the mover's stones keeping the rule, and no turn touches the
    # other colour's stones, so a bare diagonal of either colour is an impossible position
    game = get_game("slither", size="4")
    with pytest.raises(InvalidPositionError, match="White stones b1 and a2 break the diagonal"):
        game.state_from_fen("4/4/o3/1o2 b - 4")


# -- forced pass -----------------------------------------------------------------------------


def test_a_player_with_no_legal_turn_must_pass():
    # No position reached in play was found without a turn (a search of small boards), so
    # the position is built directly: Black b2 and a3 stand diagonally with White on both
    # shared cells, and White walls them in; no placement mends them and none can step.
    game = get_game("slither", size="4")
    board = game.board
    black = sum(1 << (board.parse_cell(c) or 0) for c in ("b2", "a3"))
    walls = ("a1", "b1", "c1", "a2", "c2", "b3", "c3", "a4", "b4")
    white = sum(1 << (board.parse_cell(c) or 0) for c in walls)
    state = SlitherState(game, black, white, 0, False, 14)
    assert state.outcome() is None
    assert state.legal_moves() == ["pass"]
    assert state.next_clicks() == {"pass": "pass"}
    state.push_str("pass")
    assert state.to_move == 2 and state.outcome() is None
    assert "pass" not in state.legal_move_strs()


# -- Advanced Slither's mobility rule --------------------------------------------------------


def test_advanced_steps_only_stones_in_a_group_with_both_colours():
    fen = "5/5/1x3/5/3o1 b - 2"  # Black b3 alone; White d1 far away
    plain = get_game("slither", size="5").state_from_fen(fen)
    advanced = get_game("slither-advanced", size="5").state_from_fen(fen)
    assert any("-" in m for m in plain.legal_move_strs())
    assert not any("-" in m for m in advanced.legal_move_strs())
    with pytest.raises(IllegalMoveError, match="group of b3 holds no White stone"):
        advanced.parse_move("b3-b4/e5")
    assert advanced.next_clicks().get("b3", "absent") == "absent"
    # diagonal contact is no group; orthogonal contact is, and so is a chain of own stones
    diagonal = get_game("slither-advanced", size="5").state_from_fen("5/5/1x3/2o2/5 b - 2")
    assert not any("-" in m for m in diagonal.legal_move_strs())
    chain = get_game("slither-advanced", size="5").state_from_fen("5/5/xx3/2o2/5 b - 4")
    assert not any(m.startswith(("a3-", "b3-")) for m in chain.legal_move_strs())
    touching = get_game("slither-advanced", size="5").state_from_fen("5/5/xx3/1o3/5 b - 4")
    sources = {m.split("-")[0] for m in touching.legal_move_strs() if "-" in m}
    assert sources == {"a3", "b3"}  # a3 is in b3's group, which holds White b2


# -- the pie swap ----------------------------------------------------------------------------


def test_swap_exchanges_colours_and_goals_not_the_stones():
    state = play("e5", size="9")
    assert state.legal_moves()[0] == "swap" and state.to_move == 2
    state.push_str("swap")
    assert state.colours() == ("white", "black")
    assert state.to_move == 1  # White's colour's turn, played by the first player
    assert state.view()["marks"]["e5"] == ["stone-2"]  # the Black stone is now player 2's
    assert state.view()["connect"] == {"2": "bottom-top", "1": "left-right"}
    assert "swap" not in state.legal_move_strs()
    state.push_str("a1")
    assert state.to_move == 2 and state.view()["marks"]["a1"] == ["stone-1"]
    state.pop()
    state.pop()
    assert state.colours() == ("black", "white") and state.to_move == 2


def test_after_a_swap_the_black_player_wins_bottom_to_top():
    game = get_game("slither", size="4")
    # Player 2 wears Black after the swap and has b1 b2 b3; b4 completes the column.
    state = game.state_from_fen("o3/1x2/1xo1/1x2 b s 6")
    assert state.to_move == 2
    state.push_str("b4")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 2
    assert outcome.reason == "bottom-top"
    # The sentence names the player who wears Black now.
    names = [state.player_name(p) for p in (1, 2)]
    assert outcome_sentence(game, outcome, names).endswith("connected bottom and top.")
    marks = state.view()["marks"]
    assert all("win" in marks[c] for c in ("b1", "b2", "b3", "b4"))
    assert "win" not in marks["c2"]
    # White connects left to right: in the unswapped game that is player 2
    white = game.state_from_fen("4/4/xxx1/ooo1 w - 6")
    white.push_str("d1")
    assert white.outcome().winner == 2  # type: ignore[union-attr]


def test_only_the_movers_connection_counts():
    game = get_game("slither", size="4")
    with pytest.raises(InvalidPositionError, match="to move, is connected already"):
        game.state_from_fen("1x2/1x2/1x2/1x2 b - 8")
    over = game.state_from_fen("1x2/1x2/1x2/1xo1 w - 8")
    assert over.outcome().winner == 1 and over.legal_moves() == []  # type: ignore[union-attr]


# -- position strings and keys --------------------------------------------------------------


def test_fen_captures_swap_turns_and_side():
    state = play("c3", size="5")
    assert state.fen() == "5/5/2x2/5/5 w - 1"
    state.push_str("swap")
    assert state.fen() == "5/5/2x2/5/5 w s 2"
    for text in ("5/5/2x2/5/5 w - 1", "5/5/2x2/5/5 w s 2", "5/5/2x2/5/5 w - 3"):
        again = get_game("slither", size="5").state_from_fen(text)
        assert again.fen() == text
    assert get_game("slither", size="5").state_from_fen("5/5/2x2/5/5 w - 1").legal_moves()[0] == (
        "swap"
    )
    assert (
        "swap"
        not in get_game("slither", size="5").state_from_fen("5/5/2x2/5/5 w - 3").legal_move_strs()
    )


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("5/5/5/5/5 b -", "expected"),
        ("5/5/5/5/5 x - 0", "expected"),
        ("5/5/5/5/5 b ? 0", "expected"),
        ("5/5/5/5/5 b - -1", "expected"),
        ("5/5/5/5 b - 0", "4 rows"),
        ("5/5/5/5/4 b - 0", "row 1 has 4 cells"),
        ("5/5/5/5/6 b - 0", "bad run"),
        ("5/5/5/5/05 b - 0", "bad run"),
        ("5/5/5/5/q4 b - 0", "unexpected 'q'"),
        ("5/5/5/5/5 w - 0", "Black makes the first turn"),
        ("5/5/5/5/5 b s 1", "no swap before the second turn"),
        ("5/5/5/1x3/x4 w - 2", "Black stones a1 and b2 break the diagonal rule"),
    ],
)
def test_bad_position_strings_are_refused_clearly(fen, why):
    with pytest.raises(InvalidPositionError, match=why):
        get_game("slither", size="5").state_from_fen(fen)


def test_swapped_positions_need_the_pie():
    with pytest.raises(InvalidPositionError, match="pie=off"):
        get_game("slither", size="5", pie="off").state_from_fen("5/5/2x2/5/5 w s 2")


def test_push_pop_and_keys():
    state = play("c3 b3 d3", size="5")
    before = snapshot(state)
    for move in state.legal_moves():
        state.push(move)
        again = state.game.state_from_fen(state.fen())
        assert again == state and again.key() == state.key()
        assert state.pop() == move
        assert snapshot(state) == before
    # transpositions share a key; a different side to move or swap flag does not
    one = play("a1 e5 e1", size="5")
    other = play("e1 e5 a1", size="5")
    assert one.key() == other.key() and one.fen() == other.fen()
    keys = {play(m, size="5").key() for m in ("", "c3", "c3 swap", "c3 a1", "a1 c3")}
    assert len(keys) == 5
    copy = state.copy()
    copy.push_str("a1")
    assert snapshot(state) == before


def test_keys_are_the_same_in_every_run():
    code = (
        "from slimetrail.core.registry import get_game\n"
        "s = get_game('slither', size=7).new_state()\n"
        "[s.push_str(m) for m in 'd4 swap c4 d4-e3/d5'.split()]\n"
        "print(s.key())"
    )
    runs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        runs.add(out.stdout.strip())
    state = play("d4 swap c4 d4-e3/d5", size="7")
    assert runs == {str(state.key())}


# -- clicks ----------------------------------------------------------------------------------


def walk_clicks(state, prefix=()) -> dict[tuple[str, ...], str]:
    """Every complete click sequence -> the move it makes."""
    out = {}
    for click, move in state.next_clicks(prefix).items():
        path = (*prefix, click)
        if move is None:
            out.update(walk_clicks(state, path))
        else:
            out[path] = move
    return out


@pytest.mark.parametrize(
    ("game_id", "moves"),
    [
        ("slither", "c3"),
        ("slither", "c3 b3 d3 b3-c2/b4"),
        ("slither-advanced", "c3 b3 d3 b3-c2/b4"),
        ("slither-advanced", "c3 swap b3"),
    ],
)
def test_clicks_reach_every_legal_move_and_nothing_else(game_id, moves):
    state = play(moves, game_id, size="5")
    paths = walk_clicks(state)
    assert set(paths.values()) == set(state.legal_move_strs())
    for move in state.legal_moves():
        assert paths[tuple(state.click_path(move))] == state.move_str(move)
    for path in paths:
        for cut in range(1, len(path)):
            assert path[:cut] not in paths  # no complete sequence starts another
    for path, move in paths.items():  # every clicked spelling means its canonical move
        if len(path) == 3:
            assert state.move_str(state.parse_move(f"{path[0]}-{path[1]}/{path[2]}")) == move


def test_clicks_refuse_a_prefix_no_move_starts_with():
    state = play("c3 d4", size="5")
    for prefix in (["d4"], ["c3", "e5"], ["c3", "c4", "d4"], ["swap"], ["zz"], ["a1", "a2"]):
        with pytest.raises(IllegalMoveError, match="no legal move starts with"):
            state.next_clicks(prefix)


def test_clicks_on_19x19_answer_without_listing_every_turn():
    state = play("j10 k10 j11 k11 j9 k9 j12 k12 j8 k8 i10 l10", size="19")
    assert state.perft(1) == len(state.legal_moves()) == len(set(state.legal_moves()))
    first = state.next_clicks()
    stones = [click for click, move in first.items() if move is None]
    assert set(stones) == {"j10", "j11", "j9", "j12", "j8", "i10"}
    steps = state.next_clicks(["j12"])
    assert "j13" in steps
    placed = state.next_clicks(["j12", "j13"])
    assert placed["j12"] == "j13"  # back on the vacated cell: the placement alone
    assert set(placed.values()) <= set(state.legal_move_strs())


def test_the_19x19_move_list_matches_the_model_once():
    moves = "j10 k10 j11 k11 j9 k9"
    state = play(moves, size="19")
    pos = model.play(model.start(19), moves)
    assert sorted(state.legal_move_strs()) == sorted(model.moves(pos))


# -- views and text ----------------------------------------------------------------------------


def test_view_marks_stones_by_player_and_the_last_move():
    state = play("c3 d4 c3-c2/b2", size="5")
    view = state.view()
    assert view["marks"] == {"c2": ["stone-1"], "b2": ["stone-1"], "d4": ["stone-2"]}
    assert view["last"] == ["c3", "b2", "c2"]
    state.push_str("a1")
    assert state.view()["last"] == ["a1"]


def test_text_board_is_a_grid_with_files_and_ranks():
    text = play("c3 d4", size="5").text_board()
    lines = text.splitlines()
    assert lines[0].split() == list("abcde") and lines[6].split() == list("abcde")
    assert lines[2].split() == ["4", ".", ".", ".", "O", ".", "4"]
    assert lines[3].split() == ["3", ".", ".", "X", ".", ".", "3"]
    assert "player 1" in lines[-1]


def test_evaluation_favours_the_nearer_connection():
    game = get_game("slither", size="5")
    near = game.state_from_fen("2x2/2x2/2x2/2x2/oo3 b - 8")  # Black needs c1 only
    assert 0.3 < near.evaluate() <= 1
    white = game.state_from_fen("2x2/2x2/2x2/2x2/oo3 w - 8")  # the same race, White to move
    assert -1 <= white.evaluate() < -0.1
    assert play("", size="5").evaluate() == 0
