"""Records of every game: N players, places, swap and pass, malformed records refused."""

from __future__ import annotations

import json
import random

import pytest

from slimetrail.cli.main import main
from slimetrail.core.records import Record, RecordError, parse_json, parse_pgn, parse_records
from slimetrail.core.registry import get_game


def random_game(game_id: str, seed: int, plies: int | None = None):
    state = get_game(game_id).new_state()
    rng = random.Random(seed)
    while not state.is_over() and (plies is None or len(state.move_stack) < plies):
        state.push(rng.choice(state.legal_moves()))
    return state


def finished_three(places_wanted=None):
    """A finished toy-three game (optionally one whose places are not all distinct)."""
    for seed in range(200):
        state = random_game("toy-three", seed)
        if places_wanted is None or places_wanted(state.outcome().places):
            return state
    raise AssertionError("no such game")


def test_a_three_player_record_has_every_player_result_and_places():
    state = finished_three(lambda places: len(set(places)) == 3)
    outcome = state.outcome()
    record = Record.from_state(state, Player1="Ana", Player3="Cy", Player2="Bo", Event="Cup")
    assert record.result == outcome.result_text() and record.result.count("-") == 2
    assert record.places == outcome.places
    text = record.to_pgn()
    lines = text.splitlines()
    names = [line.split()[0][1:] for line in lines if line.startswith("[")]
    assert names == ["Game", "Event", "Date", "Player1", "Player2", "Player3", "Result", "Places"]
    assert f'[Places "{" ".join(map(str, outcome.places))}"]' in lines
    assert parse_pgn(text) == record
    assert json.loads(record.to_json())["places"] == list(outcome.places)
    assert parse_json(record.to_json()) == record
    assert record.replay().fen() == state.fen()
    # Move numbers count rounds of three: "N." before player 1's moves only.
    words = []
    for ply, move in enumerate(record.moves):
        words += [f"{ply // 3 + 1}.", move] if ply % 3 == 0 else [move]
    assert text.split("\n\n", 1)[1].split() == [*words, record.result]


def test_toy_pie_records_keep_swap_and_pass():
    state = get_game("toy-pie").new_state()
    for text in ("a1", "swap", "b2", "a1-a2/c3"):
        state.push_str(text)
    record = Record.from_state(state)
    assert record.moves == ["a1", "swap", "b2", "a1-a2/c3"]
    assert record.places is None and record.result == "*"
    assert parse_pgn(record.to_pgn()) == record
    assert parse_json(record.to_json()) == record
    full = get_game("toy-pie").state_from_fen("1122221111222211 1 -")
    full.push_str("pass")
    full.push_str("pass")
    passed = Record.from_state(full)
    assert passed.moves == ["pass", "pass"] and passed.result == "1/2-1/2"
    assert parse_pgn(passed.to_pgn()) == passed


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("game_id", ["toy-three", "toy-pie"])
def test_round_trips_of_random_games(game_id, seed):
    state = random_game(game_id, seed, plies=None if seed % 2 else 5)
    record = Record.from_state(state, Player1="A", Player2="B")
    assert parse_pgn(record.to_pgn()) == record
    assert parse_json(record.to_json()) == record
    assert parse_records(record.to_pgn() + "\n" + record.to_pgn()) == [record, record]


def three_text(places: str | None, result: str | None = None) -> tuple[str, object]:
    state = finished_three(lambda p: len(set(p)) == 3)
    record = Record.from_state(state)
    text = record.to_pgn()
    want = " ".join(map(str, state.outcome().places))
    if places is None:
        text = text.replace(f'[Places "{want}"]\n', "")
    else:
        text = text.replace(f'[Places "{want}"]', f'[Places "{places}"]')
    if result is not None:
        text = text.replace(f'[Result "{record.result}"]', f'[Result "{result}"]')
        text = text.rstrip("\n").rsplit(" ", 1)[0] + f" {result}\n"
    return text, state


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_places_are_filled_in_and_checked():
    text, state = three_text(None)
    assert parse_pgn(text).places == state.outcome().places  # filled in from the moves
    wrong = " ".join(map(str, reversed(state.outcome().places)))
    text, _ = three_text(wrong)
    with pytest.raises(RecordError) as error:
        parse_pgn(text)
    assert f"line {line_of(text, '[Places')}:" in str(error.value)
    assert "the moves end the game with places" in str(error.value)
    for bad, message in [
        ("1 1 2", "is not a ranking"),
        ("1 2", "expected 3 places"),
        ("x y z", "expected 3 places"),
        ("1 \u00b2 3", "expected 3 places"),
    ]:
        text, _ = three_text(bad)
        with pytest.raises(RecordError, match=message) as error:
            parse_pgn(text)
        assert str(error.value).startswith(f"line {line_of(text, '[Places')}:")


def test_places_claimed_for_an_unfinished_game_must_fit_the_result():
    state = random_game("toy-three", 1, plies=4)
    base = Record.from_state(state).to_pgn()

    def with_claim(result: str, places: str) -> str:
        text = base.replace('[Result "*"]', f'[Result "{result}"]\n[Places "{places}"]')
        return text.rstrip("\n").rsplit(" ", 1)[0] + f" {result}\n"

    resigned = parse_pgn(with_claim("0-1-0", "3 1 2"))  # players 1 and 3 resigned
    assert resigned.result == "0-1-0" and resigned.places == (3, 1, 2)
    with pytest.raises(RecordError, match="do not fit the result 1-0-0"):
        parse_pgn(with_claim("1-0-0", "3 1 2"))
    no_result = base.replace('[Result "*"]', '[Result "*"]\n[Places "1 2 3"]')
    with pytest.raises(RecordError, match="Places given for a game without a result") as error:
        parse_pgn(no_result)
    assert str(error.value).startswith(f"line {line_of(no_result, '[Places')}:")


def test_two_player_results_are_refused_in_three_player_records():
    state = random_game("toy-three", 2, plies=3)
    text = Record.from_state(state).to_pgn().replace('[Result "*"]', '[Result "1-0"]')
    text = text.rstrip("\n").removesuffix(" *") + " 1-0\n"
    with pytest.raises(RecordError, match="result '1-0' is not one of") as error:
        parse_pgn(text)
    assert "1-0-0" in str(error.value)


def test_malformed_json_places():
    record = Record.from_state(finished_three())
    data = json.loads(record.to_json())
    for bad, message in [
        ([1, 2], "has 3 players"),
        ("1 2 3", '"places" must be a list'),
        ([1, 1, 2], "is not a ranking"),
        ([1, True, 2], '"places" must be a list'),
    ]:
        data["places"] = bad
        with pytest.raises(RecordError, match=message):
            parse_json(json.dumps(data))


def test_cli_checks_and_converts_toy_records(tmp_path, capsys):
    state = finished_three()
    path = tmp_path / "three.pgn"
    path.write_text(Record.from_state(state, Player1="A", Player2="B", Player3="C").to_pgn())
    assert main(["record", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"toy-three, A - B - C, 12 moves, {state.outcome().result_text()}" in out
    assert main(["record", "convert", str(path), "--to", "json"]) == 0
    converted = json.loads(capsys.readouterr().out)
    assert converted["places"] == list(state.outcome().places)
