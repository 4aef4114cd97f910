"""Coordinates on the board's edges and declared edges, in the one renderer (issue 24, items
5 and 6): where the labels go on square and hex boards, the hidden names of an interactive
board, boards whose names give no rows, and edge declarations that cannot be drawn."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, ClassVar

import pytest

from slimetrail.core.registry import get_game
from slimetrail.games.slither.game import SlitherGame
from slimetrail.render import board_svg, state_svg

SVG = "{http://www.w3.org/2000/svg}"


def texts(svg: str, layer: str) -> dict[str, tuple[float, float]]:
    root = ET.fromstring(svg)
    (found,) = [g for g in root.iter(f"{SVG}g") if layer in g.attrib.get("class", "").split()]
    return {t.text: (float(t.attrib["x"]), float(t.attrib["y"])) for t in found.iter(f"{SVG}text")}


def test_a_square_board_has_letters_below_and_numbers_on_the_left_as_chess_boards() -> None:
    labels = texts(state_svg(get_game("slimetrail").new_state()), "coords")
    assert set(labels) == set("abcdefg1234567")
    for column, letter in enumerate("abcdefg"):
        assert labels[letter][0] == pytest.approx(column) and labels[letter][1] > 6.5
    for row in range(1, 8):
        x, y = labels[str(row)]
        assert x < -0.5 and y == pytest.approx(7 - row)  # row 1 at the bottom (y = 6)


def test_a_hex_board_names_each_row_beyond_its_first_cell() -> None:
    game = get_game("snake-pit")
    centres = {cell["name"]: (cell["x"], cell["y"]) for cell in game.describe_board()["cells"]}
    labels = texts(state_svg(game.new_state()), "coords")
    assert set(labels) == {*"abcdefghijklm", *map(str, range(1, 14))}
    # Row "a" (a1 ... a8) and row "1" (a1 ... h1): each label lies on its row's line, beyond
    # its end cell, off the board.
    for text, first, second in (("a", "a1", "a2"), ("1", "a1", "b1")):
        (x0, y0), (x1, y1), (lx, ly) = centres[first], centres[second], labels[text]
        assert (lx - x0) * (y1 - y0) == pytest.approx((ly - y0) * (x1 - x0), abs=1e-3)
        assert (lx - x0) * (x1 - x0) + (ly - y0) * (y1 - y0) < 0
    for x, y in labels.values():
        assert min((x - cx) ** 2 + (y - cy) ** 2 for cx, cy in centres.values()) > 0.75**2


def test_only_an_interactive_board_carries_hidden_names_of_every_cell() -> None:
    state = get_game("slime-moku").new_state()
    names = texts(state_svg(state, interactive=True), "names")
    assert len(names) == 225
    root = ET.fromstring(state_svg(state, interactive=True))
    hidden = {t.attrib["visibility"] for t in root.iter(f"{SVG}text") if "data-name" in t.attrib}
    assert hidden == {"hidden"}
    assert 'class="names"' not in state_svg(state)  # a diagram: the edges carry the names
    assert 'class="names"' not in state_svg(state, interactive=True, coordinates=False)


class OddNames(SlitherGame):
    """Slither whose cells have names that are not a letter and a number."""

    id = "test-odd-names"

    def describe_board(self) -> dict[str, Any]:
        board = super().describe_board()
        cells = [{**cell, "name": f"cell-{cell['name']}"} for cell in board["cells"]]
        return {**board, "cells": cells}


def test_names_that_give_no_rows_are_written_in_every_cell() -> None:
    game = OddNames(size=4)
    view = {"marks": {}, "path": [], "last": []}
    labels = texts(board_svg(game, view, colours=game.player_colours), "coords")
    assert sorted(labels) == sorted(cell["name"] for cell in game.describe_board()["cells"])


class BadEdges(SlitherGame):
    id = "test-bad-edges"
    edges: ClassVar[dict[str, str]] = {}
    shape = "square"

    def describe_board(self) -> dict[str, Any]:
        return {**super().describe_board(), "shape": self.shape, "edges": self.edges}


@pytest.mark.parametrize(
    ("edges", "shape", "error"),
    [
        ({"north": "black"}, "square", "edge side 'north' is not one of top, bottom"),
        ({"top": "grey"}, "square", "unknown colour 'grey'"),
        ({"top": "black"}, "hex", "edges can be declared on square boards only"),
    ],
)
def test_edges_that_cannot_be_drawn_are_refused_naming_what_is_wrong(
    edges: dict[str, str], shape: str, error: str
) -> None:
    # An id of its own: layouts are cached by game, and a game is known by its id and options.
    declared = "-".join(f"{side}-{name}" for side, name in edges.items())
    game_id = f"test-bad-edges-{shape}-{declared}"
    game = type("Declared", (BadEdges,), {"id": game_id, "edges": edges, "shape": shape})(size=4)
    with pytest.raises(ValueError, match=error):
        board_svg(game, {"marks": {}}, colours=game.player_colours)


def test_a_turned_board_keeps_each_colour_on_its_own_sides() -> None:
    state = get_game("slither", size=5).new_state()
    for flipped in (False, True):
        root = ET.fromstring(state_svg(state, flipped=flipped))
        bars = [r for r in root.iter(f"{SVG}rect") if r.attrib.get("class") == "edge"]
        across = {r.attrib["fill"] for r in bars if float(r.attrib["width"]) > 1}
        down = {r.attrib["fill"] for r in bars if float(r.attrib["height"]) > 1}
        assert (across, down) == ({"#000000"}, {"#FFFFFF"})
