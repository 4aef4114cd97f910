"""The one board renderer (``slimetrail.render``): every registered game, every mark, the
palette as the only source of colours, and the pages that draw through it.

A small fake game (registered only while a test needs it) puts any marks on a square or a hex
board, so stones, heads, trails, win and next are tested without depending on the games that
use them.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fastapi.testclient import TestClient

from slimetrail.ai import levels_for
from slimetrail.core.game import (
    Game,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    OptionSpec,
    Outcome,
    State,
)
from slimetrail.core.registry import GAMES, get_game, register
from slimetrail.render import PALETTE, SHAPES, board_svg, fit_size, palette_css, state_svg
from slimetrail.web.diagrams import DiagramError, render_diagram
from slimetrail.web.routes.pages import default_level

SVG = "{http://www.w3.org/2000/svg}"
WEB = Path(__file__).parents[2] / "slimetrail" / "web"
HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?\b")


# -- a fake game: any marks on a 3x3 square or hex board --------------------------------


class MarksGame(Game):
    """Cells a1..c3; a position is its marks, ``a1:stone-1,win b2:head-3 ... / P``."""

    id = "test-marks"
    title = "Marks"
    num_players = 3
    player_names = ("Ann", "Bob", "Cy")
    player_colours = ("black", "white", "blue")
    option_specs = (OptionSpec("shape", "square", ("square", "hex")),)
    # Every mark the platform's games declare, to draw them all on one board.
    marks: ClassVar = {
        name: style
        for game_id in ("slimetrail", "slime-moku", "snake-pit")
        for name, style in GAMES[game_id].marks.items()
    }

    names: ClassVar[list[str]] = [f"{c}{r}" for r in (1, 2, 3) for c in "abc"]

    def new_state(self) -> MarksState:
        return MarksState(self, {}, 1)

    def state_from_fen(self, fen: str) -> MarksState:
        body, _, player = fen.rpartition("/")
        marks: dict[str, list[str]] = {}
        for item in body.split():
            cell, _, words = item.partition(":")
            if cell not in self.names:
                raise InvalidPositionError(f"no cell {cell!r}")
            marks[cell] = words.split(",")
        return MarksState(self, marks, int(player))

    def describe_board(self) -> dict[str, Any]:
        cells = []
        for name in self.names:
            col, row = "abc".index(name[0]), int(name[1]) - 1
            if self.options["shape"] == "square":
                x, y = float(col), float(2 - row)
            else:  # a rhombus of pointy-top hexagons, neighbours one unit apart
                x, y = col + 0.5 * row, -row * math.sqrt(3) / 2
            cells.append({"name": name, "x": x, "y": y})
        return {"shape": self.options["shape"], "cells": cells}


class MarksState(State):
    def __init__(self, game: MarksGame, marks: dict[str, list[str]], to_move: int) -> None:
        self.game = game
        self.marks = marks
        self.first = to_move
        self.stack: list[str] = []

    @property
    def to_move(self) -> int:
        return (self.first - 1 + len(self.stack)) % 3 + 1

    @property
    def move_stack(self) -> list[Move]:
        return list(self.stack)

    def legal_moves(self) -> list[Move]:
        return [n for n in self.game.names if n not in self.marks and n not in self.stack]

    def push(self, move: Move) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"{move!r} is not an empty cell")
        self.stack.append(move)  # type: ignore[arg-type]

    def pop(self) -> Move:
        return self.stack.pop()

    def outcome(self) -> Outcome | None:
        return None if self.legal_moves() else Outcome.draw(3)

    def move_str(self, move: Move) -> str:
        return str(move)

    def parse_move(self, text: str) -> Move:
        if text not in self.legal_moves():
            raise IllegalMoveError(f"{text!r} is not an empty cell")
        return text

    def fen(self) -> str:
        marks = self.view()["marks"]
        return " ".join(f"{c}:{','.join(w)}" for c, w in sorted(marks.items())) + f"/{self.first}"

    def key(self) -> int:
        return hash(self.fen())

    def copy(self) -> MarksState:
        clone = MarksState(self.game, dict(self.marks), self.first)
        clone.stack = list(self.stack)
        return clone

    def view(self) -> dict[str, Any]:
        marks = {cell: list(words) for cell, words in self.marks.items()}
        for i, cell in enumerate(self.stack):
            marks[cell] = [f"stone-{(self.first - 1 + i) % 3 + 1}"]
        return {"marks": marks, "path": [], "last": self.stack[-1:]}

    def text_board(self, gettext=None) -> str:
        return self.fen()


@pytest.fixture
def marks_game() -> Iterator[type[MarksGame]]:
    register(MarksGame)
    yield MarksGame
    GAMES.unregister(MarksGame.id)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # raises on anything that is not well-formed XML


def cells_of(root: ET.Element) -> dict[str, ET.Element]:
    found = {}
    for group in root.iter(f"{SVG}g"):
        if "data-cell" in group.attrib:
            assert group.attrib["data-cell"] not in found
            found[group.attrib["data-cell"]] = group
    return found


def classes(element: ET.Element) -> set[str]:
    return set(element.attrib.get("class", "").split())


def layer(root: ET.Element, name: str) -> ET.Element:
    (found,) = [g for g in root.iter(f"{SVG}g") if name in classes(g)]
    return found


def draw(game: Game, marks: dict[str, list[str]], **options: Any) -> str:
    options.setdefault("colours", game.player_colours)
    return board_svg(game, {"marks": marks, "path": [], "last": []}, **options)


# -- every registered game ---------------------------------------------------------------


@pytest.mark.parametrize("game_id", list(GAMES))
@pytest.mark.parametrize("flipped", [False, True])
def test_every_game_start_position(game_id: str, flipped: bool) -> None:
    game = get_game(game_id)
    state = game.new_state()
    board = game.describe_board()
    svg = board_svg(game, state.view(), colours=state.colours(), label="start", flipped=flipped)
    root = parse(svg)
    cells = cells_of(root)
    assert svg.count("data-cell=") == len(cells) == len(board["cells"])
    assert set(cells) == {cell["name"] for cell in board["cells"]}
    # Each cell's shape is centred on the described centre (turned half a turn if flipped).
    xs = [cell["x"] for cell in board["cells"]]
    ys = [cell["y"] for cell in board["cells"]]
    for cell in board["cells"]:
        (shape,) = [e for e in cells[cell["name"]] if "cell-shape" in classes(e)]
        if shape.tag == f"{SVG}rect":
            centre = (float(shape.attrib["x"]) + 0.5, float(shape.attrib["y"]) + 0.5)
        else:
            points = [tuple(map(float, p.split(","))) for p in shape.attrib["points"].split()]
            assert len(points) == 6
            centre = (sum(p[0] for p in points) / 6, sum(p[1] for p in points) / 6)
        expected = (cell["x"], cell["y"])
        if flipped:
            expected = (min(xs) + max(xs) - cell["x"], min(ys) + max(ys) - cell["y"])
        assert centre == pytest.approx(expected, abs=2e-3)
    # Coordinates along the edges, as on chess and Go boards (issue 24): every letter and
    # every number of the cell names once, each off the board and inside the picture.
    names = [re.fullmatch(r"([a-z]+)(\d+)", name) for name in cells]
    parts = {found[1] for found in names if found} | {found[2] for found in names if found}
    labels = list(layer(root, "coords").iter(f"{SVG}text"))
    assert sorted(t.text for t in labels) == sorted(parts)
    left, top, width, height = map(float, root.attrib["viewBox"].split())
    centres = [(cell["x"], cell["y"]) for cell in board["cells"]]
    if flipped:
        centres = [(min(xs) + max(xs) - x, min(ys) + max(ys) - y) for x, y in centres]
    for label in labels:
        x, y = float(label.attrib["x"]), float(label.attrib["y"])
        assert left < x < left + width and top < y < top + height
        assert min(math.dist((x, y), centre) for centre in centres) > 0.75
    assert root.attrib["role"] == "img" and root.attrib["aria-label"] == "start"
    assert svg == board_svg(
        game, state.view(), colours=state.colours(), label="start", flipped=flipped
    )


def test_coordinates_are_readable_on_the_10x10_hex_board() -> None:
    game = get_game("slimetrail-hex", size="10")
    state = game.new_state()
    for size in (None, 640):
        root = parse(board_svg(game, state.view(), colours=state.colours(), size=size))
        box_width = float(root.attrib["viewBox"].split()[2])
        pixels_per_unit = float(root.attrib["width"]) / box_width
        font = float(layer(root, "coords").attrib["font-size"])
        assert font * pixels_per_unit >= 10
    small = board_svg(game, state.view(), colours=state.colours(), coordinates=False)
    assert 'class="coords"' not in small and "<text" not in small.split('class="tokens"')[0]


def test_size_is_the_width_and_fit_size_fits_a_box() -> None:
    game = get_game("slimetrail-hex")
    state = game.new_state()
    root = parse(board_svg(game, state.view(), colours=state.colours(), size=300))
    assert root.attrib["width"] == "300"
    for coordinates in (True, False):
        width = fit_size(game, 200, 270, coordinates=coordinates)
        drawn = board_svg(
            game, state.view(), colours=state.colours(), size=width, coordinates=coordinates
        )
        root = parse(drawn)
        assert int(root.attrib["width"]) <= 200 and int(root.attrib["height"]) <= 271
        assert int(root.attrib["height"]) >= 269  # the tall hex diamond: limited by the height
    assert int(root.attrib["width"]) >= 160  # the home page's preview, with no coordinates


# -- every mark --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["square", "hex"])
def test_stones_heads_trails_win_and_next(shape: str) -> None:
    game = MarksGame(shape=shape)
    marks = {
        "a1": ["stone-1", "win"],
        "b1": ["stone-2"],
        "c1": ["head-1"],
        "a2": ["head-2"],
        "b2": ["head-3"],
        "c2": ["trail-3"],
        "a3": ["next"],
        "b3": ["slime"],
    }
    root = parse(draw(game, marks))
    cells = cells_of(root)
    for name, words in marks.items():
        assert {f"mark-{w}" for w in words} <= classes(cells[name])
    tokens = layer(root, "tokens")
    stones = {
        e.attrib["class"]: e.attrib["fill"]
        for e in tokens
        if e.tag == f"{SVG}circle" and "stone" in classes(e)
    }
    assert stones == {"stone p1": PALETTE["black"], "stone p2": PALETTE["white"]}
    # Snake heads: one shape per player, in the player's colour, with the player's number.
    heads = [g for g in tokens if g.tag == f"{SVG}g" and "head" in classes(g)]
    assert [g.attrib["class"] for g in heads] == ["head p1", "head p2", "head p3"]
    kinds = []
    for player, head in enumerate(heads, 1):
        outline, number = list(head)
        assert outline.attrib["fill"] == PALETTE[game.player_colours[player - 1]]
        assert number.text == str(player)
        kinds.append((outline.tag, len(outline.attrib.get("points", "").split())))
    assert len(set(kinds)) == 3 and SHAPES[:3] == ("circle", "square", "triangle")
    # A trail cell: tinted and hatched in its player's colour, with the player's shape.
    trail_cell = list(cells["c2"])
    assert trail_cell[0].attrib["fill"] == PALETTE["blue"]
    assert trail_cell[1].tag == f"{SVG}path" and trail_cell[1].attrib["stroke"] == PALETTE["blue"]
    assert [e.attrib["class"] for e in tokens if "trail-shape" in classes(e)] == ["trail-shape p3"]
    slime_cell = list(cells["b3"])
    assert slime_cell[0].attrib["fill"] == PALETTE["slime"]
    assert slime_cell[1].attrib["d"].count("M") >= 3  # hatched with lines, not a pattern id
    assert [e.attrib["class"] for e in tokens if e.attrib.get("class") in ("win-ring", "next-mark")]
    assert len([e for e in tokens if "win-ring" in classes(e)]) == 1
    assert len([e for e in tokens if "next-mark" in classes(e)]) == 1
    assert " id=" not in draw(game, marks)


def test_unknown_marks_and_cells_are_ignored() -> None:
    game = MarksGame()
    plain = draw(game, {"a1": ["stone-1"]})
    assert draw(game, {"a1": ["stone-1", "sparkle", "stone-x", "goal-0"], "z9": ["stone-1"]}) == (
        plain
    )


def test_goal_badge_number_stays_readable_under_a_legal_target() -> None:
    game = get_game("slimetrail", size="5")
    state = game.new_state()
    for move in ("b2",):  # the snail next to player 1's goal a1: a1 is a legal target
        state.push_str(move)
    targets = list(state.next_clicks())
    assert "a1" in targets
    svg = board_svg(game, state.view(), colours=state.colours(), targets=targets)
    root = parse(svg)
    (marker,) = [e for e in cells_of(root)["a1"] if "target" in classes(e)]
    badge = [g for g in layer(root, "tokens") if "goal-badge" in classes(g) and "p1" in classes(g)]
    (_, number) = list(badge[0])
    assert number.text == "1"
    # The target on a goal is a ring drawn around the badge (under it), not a dot over it.
    assert marker.attrib["fill"] == "none" and float(marker.attrib["r"]) > 0.35
    assert svg.index('class="target"', svg.index('data-cell="a1"')) < svg.index("goal-badge p1")
    # A target on a plain cell is a dot.
    (dot,) = [e for e in cells_of(root)["a2"] if "target" in classes(e)]
    assert dot.attrib["fill"] == PALETTE["legal-dot"]


def test_last_move_in_the_movers_colour() -> None:
    game = MarksGame()
    view = {"marks": {"b2": ["stone-2"]}, "path": [], "last": ["b2"], "last_player": 2}
    root = parse(board_svg(game, view, colours=("green", "red", "blue")))
    (ring,) = [e for e in layer(root, "tokens") if "last-mark" in classes(e)]
    assert ring.attrib["stroke"] == PALETTE["red"]
    assert "last" in classes(cells_of(root)["b2"])
    del view["last_player"]
    root = parse(board_svg(game, view, colours=("green", "red", "blue")))
    (ring,) = [e for e in layer(root, "tokens") if "last-mark" in classes(e)]
    assert ring.attrib["stroke"] == PALETTE["last"]


def test_state_svg_marks_the_last_move_in_the_colour_of_whoever_made_it() -> None:
    state = get_game("slimetrail").new_state()
    for move, mover in (("d5", 1), ("d6", 2)):
        state.push_str(move)
        fen = state.fen()
        root = parse(state_svg(state))
        (ring,) = [e for e in layer(root, "tokens") if "last-mark" in classes(e)]
        assert ring.attrib["stroke"] == PALETTE[state.colours()[mover - 1]]
        assert state.fen() == fen and len(state.move_stack) == mover  # left as it was
    assert state.colours()[0] != state.colours()[1]


def test_path_forbidden_and_arrows() -> None:
    game = MarksGame()
    view = {"marks": {"b2": ["snail"]}, "path": ["a1", "a2", "b2"], "last": []}
    root = parse(
        board_svg(
            game, view, colours=("green", "red"), forbidden=["c3"], arrows=[("b2", "c2", "e")]
        )
    )
    lines = list(layer(root, "path"))
    assert len(lines) == 2 and lines[1].attrib["points"] == "0,2 0,1 1,1"
    assert "forbidden" in classes(cells_of(root)["c3"])
    assert cells_of(root)["c3"][0].attrib["fill"] == PALETTE["forbidden"]
    overlay = layer(root, "overlay")
    assert [t.text for t in overlay.iter(f"{SVG}text")] == ["e"]
    assert layer(root, "tokens").find(f"{SVG}g").attrib["class"] == "snail"


def test_interactive_board_carries_the_page_hooks() -> None:
    game = MarksGame(shape="hex")
    view = {"marks": {"a1": ["stone-1"], "b1": ["head-2"]}, "path": [], "last": []}
    svg = board_svg(game, view, colours=game.player_colours, targets=["c3"], interactive=True)
    root = parse(svg)
    assert {"board-svg", "hex", "interactive"} <= classes(root)
    assert root.attrib["role"] == "group"
    style = root.find(f"{SVG}style")
    assert style is not None
    for hook in (".legal", ".chosen", ".pending", ".focus"):
        assert hook in (style.text or "")
    cells = cells_of(root)
    assert cells["a1"].attrib["aria-label"] == "a1, stone of Ann"
    assert cells["b1"].attrib["aria-label"] == "b1, snake head of Bob"
    for name, group in cells.items():
        (marker,) = [e for e in group if "target" in classes(e)]
        assert marker.attrib.get("visibility") == (None if name == "c3" else "hidden")
        (ring,) = [e for e in group if "cell-ring" in classes(e)]
        assert ring.attrib["visibility"] == "hidden"
    # The target cell keeps its plain fill: the page's class, not an attribute, shades it.
    assert cells["c3"][0].attrib["fill"] == PALETTE["cell"]
    assert "legal" in classes(cells["c3"])
    # Everything but the cells lets clicks through to them.
    for group in root.findall(f"{SVG}g")[1:]:
        assert group.attrib["pointer-events"] == "none"
    assert "<style" not in draw(game, view["marks"])


def test_bad_arguments_are_refused() -> None:
    game = MarksGame()
    with pytest.raises(ValueError, match="unknown colour 'mauve'"):
        draw(game, {}, colours=("mauve", "red"))
    with pytest.raises(ValueError, match="target 'z9' is not a cell"):
        draw(game, {}, targets=["z9"])
    with pytest.raises(ValueError, match="arrow cell 'q1'"):
        draw(game, {}, arrows=[("a1", "q1", "x")])


# -- the palette, the only place colours are defined ---------------------------------------


def test_palette_css_defines_every_colour() -> None:
    css = palette_css()
    for name, value in PALETTE.items():
        assert re.fullmatch(r"[a-z][a-z0-9-]*", name) and re.fullmatch(r"#[0-9A-F]{6}", value)
        assert f"--colour-{name}: {value};" in css
    for name in ("green", "red", "blue", "black", "white", "orange"):
        assert name in PALETTE


def test_every_colour_drawn_comes_from_the_palette() -> None:
    values = {v.upper() for v in PALETTE.values()}
    drawings = [
        draw(
            MarksGame(shape=s),
            {
                "a1": ["stone-1", "win"],
                "b1": ["head-2"],
                "c1": ["trail-3"],
                "a2": ["slime"],
                "b2": ["goal-1"],
                "c2": ["next"],
            },
            targets=["c3"],
            interactive=True,
        )
        for s in ("square", "hex")
    ]
    for game_id in GAMES:
        state = get_game(game_id).new_state()
        drawings.append(board_svg(state.game, state.view(), colours=state.colours()))
    for svg in drawings:
        used = {c.upper() for c in HEX_COLOUR.findall(svg)}
        assert used and used <= values, used - values


@pytest.mark.parametrize(
    "path",
    [
        "static/style.css",
        "diagrams.py",
        "routes/pages.py",
        "templates/home.html",
        "templates/base.html",
        "templates/rules.html",
    ],
)
def test_no_colour_is_written_outside_the_palette(path: str) -> None:
    text = (WEB / path).read_text(encoding="utf-8")
    assert HEX_COLOUR.findall(text) == []
    for name in re.findall(r"var\(--colour-([a-z0-9-]+)", text):
        assert name in PALETTE, name


# -- the pages that draw through the renderer ---------------------------------------------


def test_palette_is_served_before_the_stylesheet(client: TestClient) -> None:
    answer = client.get("/palette.css")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/css")
    assert answer.text == palette_css()
    page = client.get("/").text
    assert page.index('href="/palette.css"') < page.index('href="/static/style.css"')


def test_home_previews_and_play_now(client: TestClient) -> None:
    page = client.get("/").text
    first = next(iter(GAMES))
    play_now = re.search(
        r'<form class="play-now" method="get" action="/new/([\w-]+)">(.*?)</form>', page, re.S
    )
    assert play_now and play_now.group(1) == first
    assert page.count(">Play now</button>") == 1
    assert page.index('class="play-now"') < page.index('class="game-list"')
    fields = dict(re.findall(r'name="(\w+)" value="([\w-]+)"', play_now.group(2)))
    level = default_level(levels_for(GAMES[first]()))
    assert fields == {"opponent": "computer", "level": str(level), "side": "1"}
    answer = client.post(f"/new/{first}", params=fields, follow_redirects=False)
    assert answer.status_code == 303
    match_id = answer.headers["location"].split("/play/")[1].split("?")[0]
    assert client.get(f"/api/matches/{match_id}").json()["game"] == first
    # Each card's preview is the renderer's drawing of the start position, without coordinates.
    previews = re.findall(r'<svg [^>]*class="board-svg [^"]*preview".*?</svg>', page, re.S)
    assert len(previews) == len(GAMES)
    for cls, svg in zip(GAMES.values(), previews, strict=True):
        root = parse(svg)
        assert root.attrib["data-game"] == cls().spec
        assert len(cells_of(root)) == len(cls().describe_board()["cells"])
        assert "coords" not in svg
        if cls().describe_board()["shape"] == "hex":
            assert int(root.attrib["width"]) >= 160
    # Players are named as each game declares them.
    for cls in GAMES.values():
        card = page.split(f'id="game-{cls.id}"')[1].split("</article>")[0]
        for name in cls.player_names:
            assert f"{name}</span>" in card and f">{name}" in card


# -- rules diagrams of any game -------------------------------------------------------------


def test_diagram_of_a_stone_game_shades_the_first_clicks(marks_game: type[MarksGame]) -> None:
    html = render_diagram(
        "test-marks shape=hex", fen="a1:stone-1 b1:head-2 c1:trail-3/1", legal=True, label="stones"
    )
    root = parse(html.split("<figure>\n")[1].split("\n</figure>")[0])
    cells = cells_of(root)
    shaded = {name for name, g in cells.items() if "legal" in classes(g)}
    assert shaded == {"a2", "b2", "c2", "a3", "b3", "c3"}
    assert "mark-stone-1" in classes(cells["a1"]) and "mark-head-2" in classes(cells["b1"])
    with pytest.raises(DiagramError, match="forbidden cell 'a1' is not empty"):
        render_diagram("test-marks", fen="a1:stone-1/1", forbidden="a1", label="x")


def test_diagram_of_a_compound_move_game_targets_cells_not_actions() -> None:
    # toy-pie: after Black's first move White may swap; the actions are not board targets.
    state = get_game("toy-pie").new_state()
    first = state.legal_move_strs()[0]
    state.push_str(first)
    clicks = state.next_clicks()
    assert "swap" in clicks
    html = render_diagram("toy-pie", moves=first, legal=True, label="pie")
    root = parse(html.split("<figure>\n")[1].split("\n</figure>")[0])
    cells = {c["name"] for c in state.game.describe_board()["cells"]}
    shaded = {name for name, g in cells_of(root).items() if "legal" in classes(g)}
    assert shaded == set(clicks) & cells and shaded
