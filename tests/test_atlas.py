"""The solved atlas's data file against the docs and the README, and a few of its results
proven again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from slimetrail import atlas

ROOT = Path(__file__).resolve().parents[1]
TRAIL_TABLES = {
    "| slimetrail start ": ("slimetrail", "rastros"),
    "| slimetrail rules=taylor start ": ("slimetrail", "taylor"),
    "| slimetrail-square start ": ("slimetrail-square", None),
    "| slimetrail-hex start ": ("slimetrail-hex", None),
}


def docs_trail_rows() -> set[tuple]:
    """The rows of docs/solved.md's Slime Trail tables as (game, rules, start, mirror, value,
    winning moves, nodes)."""
    rows, table = set(), None
    for line in (ROOT / "docs" / "solved.md").read_text().splitlines():
        header = next((t for prefix, t in TRAIL_TABLES.items() if line.startswith(prefix)), None)
        if header:
            table = header
            continue
        if not line.startswith("|"):
            table = None
        if table is None or line.startswith("|---"):
            continue
        start_text, value, moves, _plies, nodes, _seconds = (
            cell.strip() for cell in line.strip("|").split("|")
        )
        found = re.fullmatch(r"(\w+)(?: \(= (\w+) mirrored\))?(?:, rules=(\w+))?", start_text)
        assert found, line
        start, mirror, rules = found.groups()
        moves_tuple = () if moves == "-" else tuple(moves.split())
        rows.add((table[0], table[1] or rules, start, mirror, value, moves_tuple, int(nodes)))
    return rows


def data_trail_rows() -> set[tuple]:
    return {
        (r.game, r.options["rules"], r.start, r.mirror, r.value, tuple(r.winning_moves), r.nodes)
        for r in atlas.results()
        if r.game.startswith("slimetrail")
    }


def test_every_row_is_a_playable_position_with_legal_winning_moves() -> None:
    results = atlas.results()
    assert len(results) >= 60
    for r in results:
        state = r.start_state()
        legal = set(state.legal_move_strs())
        assert set(r.winning_moves) <= legal, r
        if r.value != "win":
            assert not r.winning_moves, r
        if r.game.startswith("slimetrail"):
            assert state.view()["marks"], r  # a snail on the board
            assert r.start == r.options.get("start", r.start)


def test_the_docs_tables_say_what_the_data_file_says() -> None:
    assert docs_trail_rows() == data_trail_rows()
    moku = {
        (r.options["size"], r.options["k"], r.start, r.value, r.nodes)
        for r in atlas.results()
        if r.game == "slime-moku"
    }
    text = (ROOT / "docs" / "solved.md").read_text()
    rows = re.findall(
        r"^\| (\d)x\d \| (\d) \| (\w+) \| \**(\w+)\**[^|]* \|[^|]*\| ([\d,]+)", text, re.M
    )
    assert len(rows) == len(moku)
    for size, k, start, value, nodes in rows:
        assert (size, k, start, value, int(nodes.replace(",", ""))) in moku


def test_the_readme_table_is_generated_from_the_data_file() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- solved-table: begin -->\n")[1].split("<!-- solved-table: end -->")[0]
    assert block == atlas.readme_table()


@pytest.mark.parametrize(
    "result",
    [r for r in atlas.results() if r.game == "slime-moku" and int(r.options["size"]) <= 5],
    ids=lambda r: r.options_text,
)
def test_small_results_are_proven_again(result: atlas.Result) -> None:
    game = result.make_game()
    solver = game.exact_solver()
    assert solver is not None
    proof = solver.solve(game.new_state())
    assert proof.value == result.value
    assert sorted(game.new_state().move_str(m) for m in proof.winning_moves) == sorted(
        result.winning_moves
    )


def test_a_bad_row_is_refused_naming_its_line_and_field() -> None:
    with pytest.raises(ValueError, match=r"line 9: value 'won' is not win/loss/draw"):
        atlas.check(
            {"game": "slimetrail", "options": {}, "start": "d4", "value": "won", "command": "x"}, 9
        )
    with pytest.raises(ValueError, match=r"line 3: .*unexpected keyword argument 'colour'"):
        atlas.check(
            {
                "game": "slimetrail",
                "options": {},
                "start": "d4",
                "value": "win",
                "command": "x",
                "colour": "red",
            },
            3,
        )
    # A note the translators have not got (atlas.NOTES) would show in English on /solved.
    row = {"game": "slimetrail", "options": {}, "start": "d4", "value": "win", "command": "x"}
    with pytest.raises(ValueError, match=r"line 4: note 'a new note' is not in atlas.NOTES"):
        atlas.check(row | {"note": "a new note"}, 4)
    assert atlas.check(row | {"note": atlas.NOTES[0]}, 4).note == "no five fits"
