"""One rule for square-grid cell names in every game that uses them (core/cells.py)."""

from __future__ import annotations

import pytest

from slimetrail.core.cells import cell_name, parse_cell_name
from slimetrail.core.game import InvalidMoveError
from slimetrail.core.registry import get_game


def test_names_round_trip_and_the_rule_is_strict() -> None:
    for n in (1, 7, 19, 26):
        for col in range(n):
            for row in range(n):
                assert parse_cell_name(cell_name(col, row), n) == (col, row)
    assert cell_name(2, 2) == "c3" and cell_name(0, 18) == "a19"
    assert parse_cell_name(" C3 ", 7) == (2, 2)
    for bad in ("a07", "a0", "h1", "a8", "c", "3c", "c-3", "c³", "", "cc3", "c 3"):
        assert parse_cell_name(bad, 7) is None, bad


@pytest.mark.parametrize(
    ("game_id", "options"),
    [
        ("slimetrail", {}),
        ("slimetrail-hex", {}),
        ("slimetrail-square", {}),
        ("slime-moku", {"size": "7"}),
        ("slither", {"size": "7"}),
        ("slither-advanced", {"size": "7"}),
    ],
)
def test_every_square_grid_game_reads_cells_by_the_one_rule(game_id, options) -> None:
    game = get_game(game_id, **options)
    board = game.board
    n = board.n
    for col in range(n):
        for row in range(n):
            name = cell_name(col, row)
            cell = board.parse_cell(name.upper())
            assert cell is not None and board.name(cell) == name
    state = game.new_state()
    for bad in ("a07", "a0", f"a{n + 1}"):
        with pytest.raises(InvalidMoveError, match=repr(bad)):
            state.copy().push_str(bad)
