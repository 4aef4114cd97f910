"""Game records: export, import, round trips, the sample games and every malformed record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slimetrail.cli.main import main
from slimetrail.core.game import GameError
from slimetrail.core.records import (
    Record,
    RecordError,
    parse_json,
    parse_json_many,
    parse_pgn,
    parse_pgn_many,
    parse_record,
    parse_records,
)
from slimetrail.core.registry import get_game

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "records"
HEX_TRAIL = "d4 e5 d5 e6 d6 d7 c7 c8 b8 a8 a7 b7 a6 a5 b6 c6 b5 a4 b4 a3 a2 b3 b2 c3 d3 e4"
SQUARE_DIRECTIONS = "sw e sw e e ne e n nw w s e sw se sw se w w n w nw nw n nw ne nw s ne e s e sw"

GAMES = [
    ("slimetrail", {}),
    ("slimetrail", {"size": 5, "rules": "taylor"}),
    ("slimetrail", {"start": "e5"}),
    ("slimetrail-hex", {}),
    ("slimetrail-hex", {"size": 4, "rules": "rastros"}),
    ("slimetrail-square", {}),
    ("slimetrail-square", {"size": 5, "rules": "rastros"}),
]


def played(game_id: str, moves: str, **options) -> object:
    state = get_game(game_id, **options).new_state()
    for text in moves.split():
        state.push_str(text)
    return state


# -- the published sample games --------------------------------------------------------------


def test_hex_sample_record_replays_the_published_trail():
    record = parse_pgn((EXAMPLES / "slime-trail-hex-8x8-sample.pgn").read_text())
    assert record.game == get_game("slimetrail-hex", size=8)
    assert record.moves == HEX_TRAIL.split()[1:]
    state = record.replay()
    assert [state.move_str(m) for m in state.move_stack] == HEX_TRAIL.split()[1:]
    assert record.result == "*" and state.outcome() is None
    assert "misprints" in record.tags["Note"]


def test_square_sample_record_replays():
    record = parse_pgn((EXAMPLES / "square-slime-trail-8x8-sample.pgn").read_text())
    want = played("slimetrail-square", SQUARE_DIRECTIONS)
    assert record.game == get_game("slimetrail-square", size=8)
    assert record.replay().fen() == want.fen()
    assert record.moves == [want.move_str(m) for m in want.move_stack]


@pytest.mark.parametrize(
    "name, game, result, places",
    [
        ("slither-5x5-sample", get_game("slither", size=5), "0-1", None),
        ("snake-pit-sample", get_game("snake-pit"), "0-0-1", (3, 2, 1)),
    ],
)
def test_sample_records_of_other_games_replay_to_their_result(name, game, result, places):
    record = parse_pgn((EXAMPLES / f"{name}.pgn").read_text())
    assert record.game == game and record.result == result
    outcome = record.replay().outcome()
    assert outcome is not None and outcome.result_text() == result
    if places is not None:
        assert outcome.places == places and record.places == places
    if game.id == "slither":  # the sample shows a swap and a step turn
        assert record.moves[1] == "swap" and any("-" in move for move in record.moves)


@pytest.mark.parametrize(
    "name",
    [
        "slime-trail-hex-8x8-sample",
        "square-slime-trail-8x8-sample",
        "slither-5x5-sample",
        "snake-pit-sample",
    ],
)
def test_sample_json_twins_match_their_pgn(name):
    from_pgn = parse_pgn((EXAMPLES / f"{name}.pgn").read_text())
    from_json = parse_json((EXAMPLES / f"{name}.json").read_text())
    assert from_json == from_pgn
    assert (EXAMPLES / f"{name}.json").read_text() == from_pgn.to_json()


# -- export ------------------------------------------------------------------------------------


def test_from_state_fills_result_and_tags():
    state = played("slimetrail", "b3 b2 a1", size=5)
    before = (state.fen(), list(state.move_stack))
    record = Record.from_state(state, Player1="Ana", Player2="Rui", Round="3")
    assert (state.fen(), list(state.move_stack)) == before
    assert record.moves == ["b3", "b2", "a1"] and record.result == "1-0"
    assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", record.tags["Date"])
    text = record.to_pgn()
    head, moves = text.split("\n\n")
    assert head.splitlines() == [
        '[Game "slimetrail"]',
        '[Size "5"]',
        '[Rules "rastros"]',
        f'[Date "{record.tags["Date"]}"]',
        '[Round "3"]',
        '[Player1 "Ana"]',
        '[Player2 "Rui"]',
        '[Result "1-0"]',
    ]
    assert moves == "1. b3 b2 2. a1 1-0\n"


def test_results_of_every_ending():
    # Player 2 enters player 1's corner: player 1 wins (1-0); player 1 enters g7: 0-1 ...
    assert Record.from_state(played("slimetrail", "b3 b2", size=5)).result == "*"
    assert Record.from_state(played("slimetrail", "b3 b2 a1", size=5)).result == "1-0"
    assert Record.from_state(played("slimetrail", "d4 e5", size=5)).result == "0-1"
    # From a set-up position: d3 is walled in, so under Taylor's rule the snail is stuck at
    # once (a draw); under rastros it may go there and then player 2 is stuck and loses.
    fen = "5/xxxxx/xxo1x/xxxxx/5 1"
    stuck = get_game("slimetrail", size=5, rules="taylor").state_from_fen(fen)
    record = Record.from_state(stuck)
    assert record.result == "1/2-1/2" and record.tags["FEN"] == fen and record.moves == []
    assert parse_pgn(record.to_pgn()) == record
    state = get_game("slimetrail", size=5).state_from_fen(fen)
    state.push_str("d3")
    record = Record.from_state(state)
    assert (record.result, record.moves) == ("1-0", ["d3"])
    assert parse_json(record.to_json()) == record


def test_start_option_and_setup_position_are_written():
    state = played("slimetrail", "d4", start="e5")
    assert '[Start "e5"]' in Record.from_state(state).to_pgn()
    assert "Start" not in Record.from_state(played("slimetrail", "c3")).to_pgn()
    game = get_game("slimetrail-hex", size=8)
    start = game.new_state()
    start.push_str("e5")
    state = game.state_from_fen(start.fen())  # player 2 to move, no history
    state.push_str("d5")
    state.push_str("e6")
    record = Record.from_state(state)
    text = record.to_pgn()
    assert f'[FEN "{start.fen()}"]' in text
    assert text.endswith("1... d5 2. e6 *\n")
    assert parse_pgn(text) == record


def test_long_games_wrap_and_extra_tags_survive():
    state = get_game("slimetrail-square", size=15, rules="rastros").new_state()
    for text in ["s"] * 6 + ["e"] * 6 + ["n"] * 12 + ["w"] * 12:
        state.push_str(text)
    record = Record.from_state(state, Annotator='Zé "quoted" \\ slash', Custom_1="x")
    text = record.to_pgn()
    assert all(len(line) <= 79 for line in text.splitlines() if not line.startswith("["))
    back = parse_pgn(text)
    assert back == record and back.tags["Annotator"] == 'Zé "quoted" \\ slash'
    assert parse_json(record.to_json()) == record


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        ({"Result": "1-0"}, "tag Result is written from the game"),
        ({"Size": "9"}, "tag Size is written from the game"),
        ({"FEN": "x"}, "tag FEN is written from the game"),
    ],
)
def test_from_state_rejects_tags_it_writes_itself(tags, message):
    with pytest.raises(RecordError, match=message):
        Record.from_state(get_game("slimetrail").new_state(), **tags)


def test_to_pgn_rejects_unwritable_tags():
    record = Record.from_state(get_game("slimetrail").new_state(), Event="two\nlines")
    with pytest.raises(RecordError, match="Event: the value must fit on one line"):
        record.to_pgn()
    record = Record(get_game("slimetrail"), {"bad name": "x"})
    with pytest.raises(RecordError, match="tag name 'bad name'"):
        record.to_pgn()


# -- round trips -------------------------------------------------------------------------------


@st.composite
def finished_or_not(draw):
    game_id, options = draw(st.sampled_from(GAMES))
    game = get_game(game_id, **options)
    state = game.new_state()
    # Sometimes the record starts from a set-up position: the one after a few moves.
    setup = draw(st.integers(0, 8)) if draw(st.booleans()) else 0
    for ply in range(setup + draw(st.integers(0, 60))):
        moves = state.legal_moves()
        if not moves:
            break
        state.push(moves[draw(st.integers(0, len(moves) - 1))])
        if ply + 1 == setup:
            state = game.state_from_fen(state.fen())
    return state


@settings(max_examples=60, deadline=None)
@given(finished_or_not())
def test_pgn_round_trip(state):
    record = Record.from_state(state, Player1="A", Player2="B")
    back = parse_pgn(record.to_pgn())
    assert back == record
    assert back.moves == [state.copy().move_str(m) for m in state.move_stack]
    assert back.replay().fen() == state.fen()
    assert ("FEN" in back.tags) == (back.start_state().fen() != state.game.new_state().fen())
    assert back.result == record.result


@settings(max_examples=60, deadline=None)
@given(finished_or_not())
def test_json_round_trip(state):
    record = Record.from_state(state, Event="e")
    back = parse_json(record.to_json())
    assert back == record and back.replay().key() == state.key()
    assert parse_record(record.to_json()) == parse_record(record.to_pgn()) == record


# -- reading PGN ------------------------------------------------------------------------------


def test_comments_escapes_directions_and_glued_numbers():
    text = """% an escape line
; a comment line
[Game "slimetrail"]
[Size "5"] ; comment after a tag is part of the tag line? no: it is malformed
"""
    with pytest.raises(RecordError, match="line 4: malformed tag line"):
        parse_pgn(text)
    text = """% escape line
; comment line
[Game "slimetrail"]
[Size "5"]

{a comment
spanning lines} 1.sw {inline} w ; rest of line
2. s $1 1-0
"""
    record = parse_pgn(text)
    assert record.moves == ["b2", "a2", "a1"] and record.result == "1-0"
    assert record.tags == {}


def test_several_records_in_one_text():
    one = Record.from_state(played("slimetrail", "b3 b2 a1", size=5), Event="one").to_pgn()
    two = Record.from_state(played("slimetrail-hex", "e nw"), Event="two").to_pgn()
    records = parse_pgn_many(one + "\n" + two)
    assert [r.tags["Event"] for r in records] == ["one", "two"]
    assert records[1].moves == ["f6", "e6"]
    assert parse_records(one + two) == records
    with pytest.raises(RecordError, match="2 records found where one was expected"):
        parse_pgn(one + two)
    as_json = "[" + ",".join(r.to_json() for r in records) + "]"
    assert parse_json_many(as_json) == records == parse_records(as_json)


def test_missing_result_is_taken_from_the_moves():
    assert parse_pgn('[Game "slimetrail"]\n[Size "5"]\n1. b3 b2 2. a1').result == "1-0"
    assert parse_pgn('[Game "slimetrail"]\n1. c3 b2').result == "*"


def test_resignation_and_agreement_are_allowed_in_unfinished_games():
    assert parse_pgn('[Game "slimetrail"]\n1. c3 b2 0-1').result == "0-1"
    assert parse_pgn('[Game "slimetrail"]\n1. c3 b2 1/2-1/2').result == "1/2-1/2"


MALFORMED_PGN = [
    ('[Game "chess"]\n1. e4', "line 1: unknown game 'chess'"),
    ('[Game "slimetrail"]\n[Size "4"]\n1. c3', "line 2: slimetrail: option size='4'"),
    ('[Game "slimetrail"]\n[Rules "magic"]\n1. c3', "line 2: slimetrail: option rules='magic'"),
    ('[Game "slimetrail"]\n[Start "z9"]\n', "line 2: slimetrail: start='z9' is not a cell"),
    ('[Game "slimetrail"]\n[Size 7]\n', "line 2: malformed tag line '[Size 7]'"),
    ('[Game "slimetrail"\n', "line 1: malformed tag line"),
    ('[Game "slimetrail"]\n[Event "a"]\n[Event "b"]\n', "line 3: tag Event given twice"),
    ("1. c3 c4", 'line 1: no [Game "..."] tag'),
    ('[Game "slimetrail"]\n\n2. c3', "line 3, move 1: move number 2. where 1. was expected"),
    ('[Game "slimetrail"]\n1. c3 2. c4', "line 2, move 2: move number 2. where 1... was"),
    ('[Game "slimetrail"]\n1... c3', "line 2, move 1: move number 1... where 1. was"),
    ('[Game "slimetrail"]\n1. c3\n2. c2', "line 3, move 2: move number 2. where 1... was"),
    ('[Game "slimetrail"]\n1. c3 zz', "line 2, move 2 (zz): 'zz' is neither a cell"),
    ('[Game "slimetrail"]\n1. c3 a1', "line 2, move 2 (a1): a1 is not next to the snail on c3"),
    ('[Game "slimetrail"]\n1. c3 d4', "line 2, move 2 (d4): d4 is slimed"),
    ('[Game "slimetrail"]\n[Size "5"]\n1. b3 b2 2. a1 b1', "move 4 (b1): the game is already"),
    ('[Game "slimetrail"]\n[Size "5"]\n1. b3 b2 2. a1 3. b1', "move 4: the game is already"),
    (
        '[Game "slimetrail"]\n[Size "5"]\n[Result "0-1"]\n1. b3 b2 2. a1',
        "line 3, move 3 (a1): the moves end the game 1-0 (goal), but the record says 0-1",
    ),
    (
        '[Game "slimetrail"]\n[Size "5"]\n1. b3 b2 2. a1 *',
        "line 3, move 3 (a1): the moves end the game 1-0 (goal), but the record says *",
    ),
    (
        '[Game "slimetrail"]\n[Result "1-0"]\n1. c3 0-1',
        "line 3: result 0-1 differs from the Result tag 1-0 (line 2)",
    ),
    ('[Game "slimetrail"]\n[Result "2-0"]\n1. c3', "line 2: result '2-0' is not one of"),
    ('[Game "slimetrail"]\n[FEN "7/7 1"]\n1. c3', "line 2: position '7/7 1': 2 rows"),
    ('[Game "slimetrail"]\n1. c3 {open', "line 2: comment '{' is never closed"),
    ('[Game "slimetrail"]\n1. c3 } c4', "line 2: unexpected '}'"),
    ('[Game "slimetrail"]\n1. c3 [Event "x"]', "line 2: unexpected '['"),
    ("; nothing here\n", "no record found"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED_PGN)
def test_malformed_pgn(text, message):
    with pytest.raises(RecordError) as info:
        parse_pgn(text)
    assert str(info.value).startswith(message) or message in str(info.value)
    assert isinstance(info.value, GameError)


def test_the_documented_error_message():
    text = "\n".join(
        [
            '[Game "slimetrail"]',
            '[Size "7"]',
            '[Rules "rastros"]',
            '[Player1 "a"]',
            '[Player2 "b"]',
            "",
            "1. c3 c4 2. c5 d5 3. e5 e4 4. e3 e2 5. d2 c2 6. b3 c3",
        ]
    )
    with pytest.raises(RecordError) as info:
        parse_pgn(text)
    assert str(info.value) == "line 7, move 12 (c3): c3 is slimed"
    assert (info.value.line, info.value.move_number, info.value.move) == (7, 12, "c3")


# -- reading JSON -----------------------------------------------------------------------------


def good_json(**changes) -> str:
    data = {
        "game": "slimetrail",
        "options": {"size": "5"},
        "tags": {"Event": "x"},
        "moves": ["b3", "b2", "a1"],
        "result": "1-0",
    }
    data.update(changes)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def test_json_accepts_directions_and_minimal_objects():
    record = parse_json(good_json(moves=["sw", "w", "n"], result=...))
    assert record.moves == ["b2", "a2", "a3"] and record.result == "*"
    minimal = parse_json('{"game": "slimetrail-hex"}')
    assert minimal.moves == [] and minimal.result == "*" and minimal.tags == {}
    assert parse_json(good_json(options={"size": 5})).game.size == 5


MALFORMED_JSON = [
    ("{", "line 1: not valid JSON"),
    ("[1]", "record 1: a JSON record must be an object"),
    ('"text"', "a JSON record must be an object"),
    (good_json(extra=1), "unknown key 'extra'"),
    (good_json(game=...), '"game" must be the id of a game'),
    (good_json(game="go"), "unknown game 'go'"),
    (good_json(options={"colour": "red"}), "slimetrail: unknown option 'colour'"),
    (good_json(options={"size": "6"}), "option size='6' is not one of"),
    (good_json(options=["size"]), '"options" must map option names'),
    (good_json(tags={"Event": 3}), '"tags" must map tag names to text'),
    (good_json(tags={"bad name": "x"}), "tag name 'bad name'"),
    (good_json(tags={"Result": "1-0"}), "tag Result is written from the game"),
    (good_json(moves="c3 b2"), '"moves" must be a list'),
    (good_json(moves=["b3", 7]), "move 2: 7 is not move text"),
    (good_json(moves=["b3", "b3"]), "move 2 (b3): b3: the snail is already there"),
    (good_json(result=1), '"result" must be text'),
    (good_json(result="0-1"), "move 3 (a1): the moves end the game 1-0 (goal), but the record"),
    (good_json(tags={"FEN": "bad"}), "FEN tag: position 'bad'"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED_JSON)
def test_malformed_json(text, message):
    with pytest.raises(RecordError, match=re.escape(message)):
        parse_json_many(text) if text.startswith("[") else parse_json(text)


def test_replay_checks_hand_built_records():
    game = get_game("slimetrail", size=5)
    assert (
        Record(game, {}, ["b3", "b2"]).replay().fen() == played("slimetrail", "b3 b2", size=5).fen()
    )
    with pytest.raises(RecordError, match=r"^move 2 \(b3\): b3: the snail is already there"):
        Record(game, {}, ["b3", "b3"]).replay()
    with pytest.raises(RecordError, match="the moves end the game 1-0"):
        Record(game, {}, ["b3", "b2", "a1"], "0-1").replay()


# -- the command -------------------------------------------------------------------------------


def test_cli_check(tmp_path, capsys):
    files = sorted(str(p) for p in EXAMPLES.iterdir())
    assert main(["record", "check", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(files) == 8
    assert "slimetrail-hex size=8, Green - Red, 25 moves, *" in out[0]
    assert "snake-pit, Green - Blue - Red, 28 moves, 0-0-1" in out[4]
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Game "slimetrail"]\n1. c3 d4\n')
    assert main(["record", "check", files[0], str(bad)]) == 1
    captured = capsys.readouterr()
    assert "25 moves" in captured.out
    assert f"{bad}: error: line 2, move 2 (d4): d4 is slimed" in captured.err
    assert main(["record", "check", str(tmp_path / "missing.pgn")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_cli_convert(tmp_path, capsys):
    pgn = EXAMPLES / "square-slime-trail-8x8-sample.pgn"
    assert main(["record", "convert", str(pgn), "--to", "json"]) == 0
    as_json = capsys.readouterr().out
    assert parse_json(as_json) == parse_pgn(pgn.read_text())
    path = tmp_path / "game.json"
    path.write_text(as_json)
    assert main(["record", "convert", str(path), "--to", "pgn"]) == 0
    assert parse_pgn(capsys.readouterr().out) == parse_json(as_json)
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "nope"}')
    assert main(["record", "convert", str(bad), "--to", "pgn"]) == 2
    assert f"{bad}: unknown game 'nope'" in capsys.readouterr().err


def test_byte_order_mark_and_windows_line_ends():
    record = Record.from_state(played("slimetrail", "c3 b2"), Event="e")
    pgn = "\ufeff" + record.to_pgn().replace("\n", "\r\n")
    assert parse_pgn(pgn) == parse_record(pgn) == parse_records(pgn)[0] == record
    as_json = "\ufeff" + record.to_json()
    assert parse_json(as_json) == parse_record(as_json) == parse_records(as_json)[0] == record


VALID_RECORD = Record.from_state(played("slimetrail", "c3 b2 b1"), Event="fuzz")
VALID = VALID_RECORD.to_pgn()
VALID_JSON = VALID_RECORD.to_json()


@given(
    st.one_of(
        st.text(max_size=200),
        st.text(alphabet='[]{}";%.01234 \nabcgoxGameSizeResult/-*', max_size=200),
        st.tuples(st.integers(0, len(VALID)), st.integers(0, 12), st.text(max_size=6)).map(
            lambda t: VALID[: t[0]] + t[2] + VALID[t[0] + t[1] :]
        ),
        st.tuples(st.integers(0, len(VALID_JSON)), st.integers(0, 12), st.text(max_size=6)).map(
            lambda t: VALID_JSON[: t[0]] + t[2] + VALID_JSON[t[0] + t[1] :]
        ),
    )
)
def test_any_text_either_parses_or_gives_a_record_error(text):
    for parse in (parse_records, parse_record, parse_pgn_many, parse_json_many):
        try:
            records = parse(text)
        except RecordError as exc:
            assert str(exc)
        else:
            for record in records if isinstance(records, list) else [records]:
                assert parse_pgn(record.to_pgn()) == record
