"""The one board renderer: any game's position as a self-contained SVG string.

Like python-chess's ``chess.svg``, one function draws every board of the project -- the play
page (``interactive=True``), the rules diagrams, the home-page previews and README pictures --
from nothing but ``game.describe_board()`` and ``state.view()``; it knows no game by name.

* Cells: ``describe_board()["shape"]`` is ``"square"`` (unit squares) or ``"hex"`` (pointy-top
  hexagons), centres one unit apart, y growing downwards.  Every cell is a
  ``<g class="cell ..." data-cell="NAME">`` holding its ``.cell-shape``; its classes name its
  marks (``mark-slime``, ``mark-goal-1``...) and ``legal``/``last``/``forbidden``.  Every other
  layer has ``pointer-events="none"``, so a click anywhere on a cell reaches its group.
* Marks (``view["marks"]``): each game declares the marks its views use in ``Game.marks``
  (:class:`slimetrail.core.game.MarkStyle`), as a cell paint (fill, hatching) and shapes from
  a small vocabulary (disc, ring, the player's shape with its number, the cell's outline, the
  snail); a ``NAME-P`` mark is drawn in player P's colours (``colours``).  Words a game does
  not declare are ignored, so a game may put its own words in its view.  The renderer knows
  no mark by name.  ``view["path"]`` is drawn as a line, ``view["last"]``
  as a dashed ring in the mover's colour (``view["last_player"]``, which :func:`board_view`
  fills in for every board the project serves) or a neutral one.
* Coordinates go along the board's edges, as on chess and Go boards (hex boards: at the ends
  of their rows), worked out from cell names such as ``c12``; an interactive board also
  carries every cell's name over the tokens, hidden until a page shows it (hover, focus, a
  setting).  Sides a colour must join (``describe_board()["edges"]``, Slither) are bars of
  that colour along the board.
* Players are told apart by shape and line pattern as well as by colour (SHAPES, DASHES), and
  the colours are the Okabe-Ito set, safe for colour-blind players.

:data:`PALETTE` is the only place the project defines a colour: the SVG carries its values as
presentation attributes (it needs no stylesheet) and :func:`palette_css` hands the same values
to the web pages as CSS custom properties ``--colour-NAME``.  The output is deterministic
(fixed attribute order and number format), so tests can compare it.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from slimetrail.core.game import (
    NO_COLOUR,
    ON_PLAYER,
    PLAYER,
    PLAYER_LINE,
    Game,
    MarkStyle,
    Shape,
    State,
    untranslated,
)
from slimetrail.core.i18n import N_

PALETTE: dict[str, str] = {
    # Player colours (Okabe-Ito), named as games declare them in ``player_colours``.
    "green": "#009E73",
    "red": "#D55E00",
    "blue": "#0072B2",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "yellow": "#F0E442",
    "purple": "#CC79A7",
    "black": "#000000",
    "white": "#FFFFFF",
    # The board.
    "cell": "#ECE6D6",
    "cell-alt": "#E3DCC9",
    "cell-stroke": "#C7BFA9",
    "coord": "#6B634F",
    "coord-on-dark": "#EEF2E6",
    "slime": "#8D9C76",
    "slime-stroke": "#5D6C4A",
    "slime-hatch": "#5F7049",
    "path": "#2D3D22",
    "path-halo": "#F4F1E4",
    "legal": "#D6E9F5",
    "legal-hover": "#B4D7EE",
    "legal-dot": "#0072B2",
    "chosen": "#B4D7EE",
    "pending": "#9CC8E6",
    "forbidden": "#F3D9CC",
    "forbidden-ink": "#D55E00",
    "arrow": "#0072B2",
    "snail-body": "#FFFDF5",
    "snail-outline": "#2B2B2B",
    "snail-shell": "#8A5A00",
    "badge": "#FFFFFF",
    "stone-outline": "#2B2B2B",
    "win": "#CC79A7",
    "next": "#5D6673",
    "last": "#8A5A00",
    "focus": "#CC79A7",
    "ink-dark": "#1D2430",
    "ink-light": "#FFFFFF",
    # The pages around the board.
    "page-bg": "#F6F4EE",
    "page-surface": "#FFFFFF",
    "page-ink": "#1D2430",
    "page-muted": "#5D6673",
    "page-line": "#D9D4C7",
    "accent": "#0072B2",
    "accent-ink": "#FFFFFF",
    "result-win": "#009E73",
    "result-loss": "#D55E00",
    "result-draw": "#8A8A8A",
    "error": "#B03A00",
    "note": "#8A5A00",
    "note-bg": "#FDF6E3",
    "note-edge": "#E69F00",
    "code-bg": "#F1EEE6",
    "current-move": "#DBEAF5",
}

# The players' colours (the codes games declare in ``player_colours``) as people name them:
# the site's pages and the terminal game say them in the reader's language.
COLOUR_WORDS = {
    "green": N_("Green"),
    "red": N_("Red"),
    "blue": N_("Blue"),
    "orange": N_("Orange"),
    "sky": N_("Sky blue"),
    "yellow": N_("Yellow"),
    "purple": N_("Purple"),
    "black": N_("Black"),
    "white": N_("White"),
}


def colour_word(code: str) -> str:
    """The catalogued word for a player's colour (``"sky"`` -> ``"Sky blue"``), for the
    reader's ``gettext``; a colour without one is named by its code."""
    return COLOUR_WORDS.get(code, code)


# Colours for players beyond those a caller names (a view may mark more players).
SPARE_COLOURS = ("blue", "orange", "purple", "sky")
# One shape and one outline pattern per player (1, 2, 3, ...), so colour is never alone.
SHAPES = ("circle", "square", "triangle", "diamond", "pentagon", "hexagon")
DASHES: tuple[str | None, ...] = (None, "0.12 0.06", "0.04 0.06", "0.14 0.05 0.03 0.05")

HEX_R = 1 / math.sqrt(3)  # circumradius of a hexagon whose neighbours are one unit apart
PIXELS_PER_UNIT = 44  # default on-screen size of one cell
MIN_COORD_PX = 10  # names in cells at least this tall on screen at the given size
LABEL_FONT = 0.3  # of the coordinates along the edges (and a cell's name shown over it)
MARGIN = 0.08  # around the outermost cells, in units
MONO = "ui-monospace, SFMono-Regular, Menlo, monospace"
SANS = "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"
SNAIL_SHELL = (
    "M0.02,0.02 m-0.05,0 a0.05,0.05 0 1,1 0.1,0 a0.1,0.1 0 1,1 -0.2,0 a0.15,0.15 0 1,1 0.3,0"
)

Point = tuple[float, float]


def colour(name: str) -> str:
    """The hex value of a palette colour; raises ``ValueError`` naming an unknown one."""
    try:
        return PALETTE[name]
    except KeyError:
        raise ValueError(f"unknown colour {name!r} (palette: {', '.join(PALETTE)})") from None


def palette_css() -> str:
    """Every palette colour as a CSS custom property ``--colour-NAME`` on ``:root``."""
    lines = [f"  --colour-{name}: {value};" for name, value in PALETTE.items()]
    return ":root {\n" + "\n".join(lines) + "\n}\n"


# -- SVG text -----------------------------------------------------------------------------


def _num(value: float) -> str:
    """A coordinate with at most 3 decimals and no trailing zeros (``0.5``, ``2``)."""
    rounded = round(value, 3)
    whole = int(rounded)
    return str(whole) if rounded == whole else repr(rounded)


@functools.cache
def _attr_name(name: str) -> str:
    return name.rstrip("_").replace("_", "-")


def _attrs(attrs: Mapping[str, Any]) -> str:
    """Attributes in the order given; ``stroke_width`` is written ``stroke-width``."""
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, float):
            shown = _num(value)
        elif isinstance(value, int):
            shown = str(value)
        else:
            shown = escape(str(value))
        parts.append(f' {_attr_name(name)}="{shown}"')
    return "".join(parts)


# An element is text from hashable values only, and a board's cells come out the same from one
# position to the next: memoised, the play page's 7x7 board is drawn in a tenth of the time.
@functools.lru_cache(maxsize=16384, typed=True)
def _el(tag: str, text: str | None = None, **attrs: Any) -> str:
    if text is None:
        return f"<{tag}{_attrs(attrs)}/>"
    return f"<{tag}{_attrs(attrs)}>{escape(text)}</{tag}>"


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


# -- geometry -----------------------------------------------------------------------------


# Corner directions of a pointy-top hexagon, from the bottom corner clockwise (y down).
HEX_CORNERS = tuple(
    (math.cos(math.pi / 2 + k * math.pi / 3), math.sin(math.pi / 2 + k * math.pi / 3))
    for k in range(6)
)


def cell_outline(hexes: bool, x: float, y: float, inset: float = 0.0) -> list[Point]:
    """The corners of a cell centred on (x, y), pulled ``inset`` units towards the centre."""
    if hexes:
        r = HEX_R - inset * 2 / math.sqrt(3)
        return [(x + r * cx, y + r * cy) for cx, cy in HEX_CORNERS]
    h = 0.5 - inset
    return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


def _hatch(outline: list[Point], spacing: float) -> str:
    """Path data of 45-degree lines ``spacing`` apart, clipped to a convex outline (no
    pattern ids, so any number of boards can share a page)."""
    nx, ny = math.sqrt(0.5), math.sqrt(0.5)  # the lines are x + y = constant
    offsets = [px * nx + py * ny for px, py in outline]
    segments = []
    t = math.ceil(min(offsets) / spacing) * spacing
    while t < max(offsets):
        hits = []
        for (ax, ay), (bx, by), sa, sb in zip(
            outline, outline[1:] + outline[:1], offsets, offsets[1:] + offsets[:1], strict=True
        ):
            if (sa - t) * (sb - t) < 0:
                f = (t - sa) / (sb - sa)
                hits.append((ax + f * (bx - ax), ay + f * (by - ay)))
        if len(hits) == 2:
            (x0, y0), (x1, y1) = hits
            segments.append(f"M{_num(x0)},{_num(y0)}L{_num(x1)},{_num(y1)}")
        t += spacing
    return "".join(segments)


def _polygon_points(sides: int, x: float, y: float, r: float, turn: float) -> list[Point]:
    angles = (turn + 2 * math.pi * k / sides for k in range(sides))
    return [(x + r * math.cos(a), y + r * math.sin(a)) for a in angles]


def player_shape(player: int, x: float, y: float, r: float, **paint: Any) -> str:
    """Player ``player``'s shape (:data:`SHAPES`) of about radius ``r`` centred on (x, y)."""
    kind = SHAPES[(player - 1) % len(SHAPES)]
    if kind == "circle":
        return _el("circle", cx=float(x), cy=float(y), r=r, **paint)
    if kind == "square":
        side = 1.75 * r
        return _el("rect", x=x - side / 2, y=y - side / 2, width=side, height=side, **paint)
    up = -math.pi / 2
    sides, size, turn, dy = {
        "triangle": (3, 1.3 * r, up, 0.25 * r),
        "diamond": (4, 1.2 * r, up, 0.0),
        "pentagon": (5, 1.1 * r, up, 0.05 * r),
        "hexagon": (6, 1.05 * r, 0.0, 0.0),
    }[kind]
    return _el("polygon", points=_points(_polygon_points(sides, x, y + dy, size, turn)), **paint)


def _lightness(value: str) -> float:
    r, g, b = (int(value[i : i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b


def _ink_on(background: str) -> str:
    """Dark or light text, whichever reads better on ``background``."""
    return PALETTE["ink-dark"] if _lightness(background) > 140 else PALETTE["ink-light"]


def _line_ink(value: str) -> str:
    """A player's colour for lines and text on the light board; too pale a colour (white,
    yellow) is drawn dark there -- its shape and line pattern still tell the player."""
    return PALETTE["stone-outline"] if _lightness(value) > 200 else value


def _interactive_style() -> str:
    """Rules for the classes a page toggles on cells; scoped to interactive boards."""
    scope = "svg.board-svg.interactive .cell"
    p = PALETTE
    rules = [
        f"{scope}>.target{{visibility:hidden}}",
        f"{scope}.legal>.target{{visibility:visible}}",
        f"{scope}.legal{{cursor:pointer}}",
        f"{scope}.legal>.cell-shape{{fill:{p['legal']}}}",
        f"{scope}.legal:hover>.cell-shape{{fill:{p['legal-hover']}}}",
        f"{scope}.chosen>.cell-shape{{fill:{p['chosen']}}}",
        f"{scope}.pending>.cell-shape{{fill:{p['pending']}}}",
        # The ring lies inside its own cell, so no neighbour drawn later covers it.
        f"{scope}.chosen>.cell-ring{{visibility:visible;stroke:{p['legal-dot']}}}",
        f"{scope}.focus>.cell-ring{{visibility:visible;stroke:{p['focus']}}}",
        "svg.board-svg.interactive .names>text.named,"
        ".show-names svg.board-svg.interactive .names>text{visibility:visible}",
    ]
    return "<style>" + "".join(rules) + "</style>"


SIDES = ("top", "bottom", "left", "right")
EDGE_WIDTH = 0.1  # of a side's bar, in units, just outside the cells
EDGE_OUTLINE = 0.05  # a pale bar's dark outline, in units (2 px on a phone's 40 px cells)
LABEL_GAP = 0.78  # from an end cell's centre to its row's label, in units along the row
LABEL_REACH = (0.1, 0.17)  # half the extent of a label: x per character, and y
CELL_NAME = re.compile(r"([a-z]+)(\d+)")


def _cells_box(centres: Iterable[Point], hexes: bool) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the cells' shapes."""
    xs, ys = zip(*centres, strict=True)
    half_y = HEX_R if hexes else 0.5
    return min(xs) - 0.5, min(ys) - half_y, max(xs) + 0.5, max(ys) + half_y


def _edge_bars(
    board: Mapping[str, Any], hexes: bool, cells: tuple[float, float, float, float], flipped: bool
) -> list[tuple[str, float, float, float, float]]:
    """The bars of ``board["edges"]`` (side -> palette colour name) as (colour, x, y, width,
    height), each along the whole side just outside the cells (turned with the board)."""
    edges = board.get("edges", {})
    if edges and hexes:
        raise ValueError("edges can be declared on square boards only")
    left, top, right, bottom = cells
    turned = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
    bars = []
    for side, name in edges.items():
        if side not in SIDES:
            raise ValueError(f"edge side {side!r} is not one of {', '.join(SIDES)}")
        colour(name)  # a known palette colour, or a ValueError naming it
        drawn = turned[side] if flipped else side
        if drawn in ("top", "bottom"):
            y = top - EDGE_WIDTH if drawn == "top" else bottom
            bars.append((name, left, y, right - left, EDGE_WIDTH))
        else:
            x = left - EDGE_WIDTH if drawn == "left" else right
            bars.append((name, x, top, EDGE_WIDTH, bottom - top))
    return bars


def _edge_labels(centres: Mapping[str, Point]) -> list[tuple[str, float, float]]:
    """Coordinates along the board's edges, as chess and Go boards have them, from cell names
    made of a letter part and a number part (``c12``): cells sharing a letter, or a number,
    form a row (a column on a square board, a row on a hex one), named once just beyond its
    lowest-named end cell (beyond its other end where that spot is on the board).  Empty when
    a name is not of that form, or a row is a single cell."""
    parts = {}
    for name in centres:
        found = CELL_NAME.fullmatch(name)
        if not found:
            return []
        parts[name] = (found[1], int(found[2]))
    rows: dict[tuple[int, str], list[tuple[tuple[int, str] | int, str]]] = {}
    for name, (letters, number) in parts.items():
        rows.setdefault((0, letters), []).append((number, name))
        rows.setdefault((1, str(number)), []).append(((len(letters), letters), name))
    labels = []
    for (_, text), members in sorted(rows.items(), key=lambda row: row[0]):
        if len(members) < 2:
            return []
        ordered = [centres[name] for _, name in sorted(members)]
        for end, after in ((ordered[0], ordered[1]), (ordered[-1], ordered[-2])):
            dx, dy = end[0] - after[0], end[1] - after[1]
            length = math.hypot(dx, dy)
            spot = (end[0] + LABEL_GAP * dx / length, end[1] + LABEL_GAP * dy / length)
            if all(math.dist(spot, centre) > 0.75 for centre in centres.values()):
                labels.append((text, *spot))
                break
    return labels


def _box(layout: _Layout, coordinates: bool) -> tuple[float, float, float, float]:
    """The view box (x, y, width, height) around the cells, their edge bars and, with
    ``coordinates``, the labels along the edges."""
    left, top, right, bottom = layout.cells
    for _, x, y, width, height in layout.edges:
        left, top = min(left, x), min(top, y)
        right, bottom = max(right, x + width), max(bottom, y + height)
    if coordinates:
        per_character, reach_y = LABEL_REACH
        for text, x, y in layout.labels:
            reach_x = per_character * len(text)
            left, top = min(left, x - reach_x), min(top, y - reach_y)
            right, bottom = max(right, x + reach_x), max(bottom, y + reach_y)
    return (
        left - MARGIN,
        top - MARGIN,
        right - left + 2 * MARGIN,
        bottom - top + 2 * MARGIN,
    )


def fit_size(game: Game, width: float, height: float, *, coordinates: bool = True) -> float:
    """The ``size`` (pixel width) at which ``game``'s board, drawn with or without its
    ``coordinates``, fits in ``width`` x ``height``."""
    _, _, box_width, box_height = _box(_layout(game, False), coordinates)
    return min(width, height * box_width / box_height)


@dataclass(frozen=True)
class _Layout:
    """A board's geometry, the same for every position of a game: computed once."""

    board: Mapping[str, Any]
    hexes: bool
    centres: dict[str, Point]
    shapes: dict[str, str]  # cell name -> the points (hex) of its outline
    rings: dict[str, str]  # cell name -> the points of its inset ring
    cells: tuple[float, float, float, float]  # left, top, right, bottom of the cells
    edges: list[tuple[str, float, float, float, float]]  # see _edge_bars
    labels: list[tuple[str, float, float]]  # text, x, y of the coordinates on the edges


@functools.lru_cache(maxsize=256)
def _layout(game: Game, flipped: bool) -> _Layout:
    board = game.describe_board()
    shape = board["shape"]
    if shape not in ("square", "hex"):
        raise ValueError(f"{game.spec}: cannot draw a board of shape {shape!r}")
    hexes = shape == "hex"
    xs = [float(cell["x"]) for cell in board["cells"]]
    ys = [float(cell["y"]) for cell in board["cells"]]
    low_x, high_x, low_y, high_y = min(xs), max(xs), min(ys), max(ys)
    centres = {}
    for cell, x, y in zip(board["cells"], xs, ys, strict=True):
        centres[cell["name"]] = (low_x + high_x - x, low_y + high_y - y) if flipped else (x, y)
    shapes = {name: _points(cell_outline(hexes, x, y)) for name, (x, y) in centres.items()}
    rings = {name: _points(cell_outline(hexes, x, y, 0.06)) for name, (x, y) in centres.items()}
    cells = _cells_box(centres.values(), hexes)
    try:
        edges = _edge_bars(board, hexes, cells, flipped)
    except ValueError as exc:
        raise ValueError(f"{game.spec}: {exc}") from None
    return _Layout(board, hexes, centres, shapes, rings, cells, edges, _edge_labels(centres))


@functools.lru_cache(maxsize=4096)
def _hatch_at(hexes: bool, x: float, y: float, spacing: float) -> str:
    return _hatch(cell_outline(hexes, x, y), spacing)


# -- the renderer -------------------------------------------------------------------------


def board_svg(
    game: Game,
    view: Mapping[str, Any],
    *,
    colours: Sequence[str],
    names: Sequence[str] = (),
    size: float | None = None,
    coordinates: bool = True,
    targets: Iterable[str] = (),
    forbidden: Iterable[str] = (),
    arrows: Iterable[tuple[str, str, str]] = (),
    interactive: bool = False,
    label: str | None = None,
    flipped: bool = False,
    css_class: str = "",
    attrs: Mapping[str, str] | None = None,
    gettext: Callable[[str], str] = untranslated,
) -> str:
    """The position ``view`` of ``game`` as an SVG document (a string).

    ``colours``: each player's palette colour name (``state.colours()``); ``names``: each
    player's name in this position (``state.player_name``: after a swap the players wear
    each other's colours), which the cells' labels use; default the game's.  ``size``: the
    picture's width in pixels (default: 44 pixels a cell; see :func:`fit_size`).
    ``targets``: cells shaded as the next legal clicks, with a dot (a ring around a token, so
    a goal's number stays readable).  ``forbidden``: cells crossed out.  ``arrows``:
    ``(from cell, to cell, text)`` arrows.  ``label``: the text alternative (``role="img"``).
    ``flipped``: turned half a turn (the second player's view).  ``css_class`` and ``attrs``
    are added to the ``<svg>`` element.  ``gettext`` translates the marks' declared words in
    the cells' labels (names given are used as they are).

    ``interactive``: the play page's board.  Cells carry ``aria-label``s; every cell holds a
    hidden ``.target`` marker and ``.cell-ring``; targets get the class ``legal`` but keep
    their plain fill attribute, and an embedded style shows the classes a script toggles on
    a cell group: ``legal`` (a next click: shaded, marker shown, pointer cursor), ``chosen``
    (already clicked in a compound move: shaded and ringed), ``pending`` (sent, waiting for
    the server), ``focus`` (keyboard focus ring).  With ``coordinates``, its ``.names`` layer
    holds every cell's name over the tokens, hidden: the class ``named`` on one shows it, the
    class ``show-names`` on an element around the board shows them all.  The ``<svg>``'s style
    sets ``--board-units``, its width in cell units, for a page that sizes cells in pixels.

    Raises ``ValueError`` for an unknown board shape or colour, or a target, forbidden cell
    or arrow off the board.
    """
    layout = _layout(game, flipped)
    board, hexes, centres = layout.board, layout.hexes, layout.centres
    shape = board["shape"]
    cells = board["cells"]

    def on_board(names: Iterable[str], what: str) -> list[str]:
        names = list(names)
        for name in names:
            if name not in centres:
                raise ValueError(f"{game.spec}: {what} {name!r} is not a cell of the board")
        return names

    target_set = set(on_board(targets, "target"))
    forbidden_list = on_board(forbidden, "forbidden cell")
    arrow_list = list(arrows)
    for start, end, _ in arrow_list:
        on_board((start, end), "arrow cell")

    inks = [colour(name) for name in colours]

    def player_word(player: int) -> str:
        known = names or game.player_names
        return known[player - 1] if 0 < player <= len(known) else f"player {player}"

    def ink(player: int) -> str:
        if player <= len(inks):
            return inks[player - 1]
        return colour(SPARE_COLOURS[(player - len(inks) - 1) % len(SPARE_COLOURS)])

    # Each cell's marks as (declared name, declaration, player); undeclared words are ignored.
    marks: dict[str, list[tuple[str, MarkStyle, int]]] = {}
    for name, words in view.get("marks", {}).items():
        if name in centres:
            marks[name] = [found for word in words if (found := game.mark_style(word))]
    last_cells = [name for name in view.get("last", []) if name in centres]
    last_player = view.get("last_player")
    last_ink = ink(last_player) if isinstance(last_player, int) else PALETTE["last"]

    box = _box(layout, coordinates)
    scale = size / box[2] if size else PIXELS_PER_UNIT
    # Names inside cells as large as fits them; the labels along the edges have more room.
    cell_font = min(0.3, max(0.25, MIN_COORD_PX / scale))

    classes = ["board-svg", shape]
    if interactive:
        classes.append("interactive")
    if css_class:
        classes.append(css_class)
    root: dict[str, Any] = {
        "xmlns": "http://www.w3.org/2000/svg",
        "class": " ".join(classes),
        "viewBox": " ".join(_num(v) for v in box),
        "width": round(box[2] * scale),
        "height": round(box[3] * scale),
        # The drawing's width in cell units, for a page that sets a least size of a cell.
        "style": f"--board-units:{_num(box[2])}",
    }
    if interactive:
        root.update(role="group", aria_label=label or game.title)
    elif label:
        root.update(role="img", aria_label=label)
    root["data-game"] = game.spec
    root.update(attrs or {})
    out = [f"<svg{_attrs(root)}>"]
    if interactive:
        out.append(_interactive_style())

    # Cells, each a group the page can click and restyle.
    out.append('<g class="cells">')
    for cell in cells:
        name = cell["name"]
        x, y = centres[name]
        kinds = marks.get(name, [])
        paint = {"fill": PALETTE["cell"], "stroke": PALETTE["cell-stroke"], "stroke_width": 0.03}
        hatch, hatch_ink = "", ""
        # The first mark that paints its cell paints it.
        painted = [(style.cell, p) for _, style, p in kinds if style.cell is not None]
        if painted:
            cell_paint, player = painted[0]
            paint.update(
                fill=_colour_of(cell_paint.fill, player, ink),
                stroke=_colour_of(cell_paint.line, player, ink),
            )
            if cell_paint.opacity is not None:
                paint["fill_opacity"] = cell_paint.opacity
            if cell_paint.hatch:
                hatch = _hatch_at(hexes, x, y, cell_paint.hatch)
                hatch_ink = _colour_of(cell_paint.hatch_colour, player, ink)
        if name in target_set and not interactive:
            paint["fill"] = PALETTE["legal"]
        if name in forbidden_list:
            paint["fill"] = PALETTE["forbidden"]

        group_class = [
            "cell",
            *(f"mark-{kind}-{p}" if p else f"mark-{kind}" for kind, _, p in kinds),
        ]
        if name in target_set:
            group_class.append("legal")
        if name in last_cells:
            group_class.append("last")
        if name in forbidden_list:
            group_class.append("forbidden")
        group: dict[str, Any] = {"class": " ".join(group_class), "data_cell": name}
        if interactive:
            said = (gettext(style.words) % {"player": player_word(p)} for _, style, p in kinds)
            words = [name, *said]
            group["aria_label"] = ", ".join(words)
        out.append(f"<g{_attrs(group)}>")
        if hexes:
            out.append(_el("polygon", class_="cell-shape", points=layout.shapes[name], **paint))
        else:
            out.append(
                _el("rect", class_="cell-shape", x=x - 0.5, y=y - 0.5, width=1, height=1, **paint)
            )
        if hatch:
            out.append(_el("path", d=hatch, stroke=hatch_ink, stroke_width=0.06, opacity=0.7))
        if interactive:
            ring = layout.rings[name]
            out.append(
                _el(
                    "polygon",
                    class_="cell-ring",
                    points=ring,
                    fill="none",
                    stroke_width=0.1,
                    visibility="hidden",
                )
            )
        if interactive or name in target_set:
            # Under the tokens: a ring around a token (a goal's number stays readable), else
            # a dot in the middle of the cell.
            hidden = None if name in target_set else "hidden"
            marker = {"class_": "target", "cx": float(x), "cy": float(y)}
            if any(style.token for _, style, _ in kinds):
                out.append(
                    _el(
                        "circle",
                        **marker,
                        r=0.45,
                        fill="none",
                        stroke=PALETTE["legal-dot"],
                        stroke_width=0.07,
                        visibility=hidden,
                    )
                )
            else:
                out.append(
                    _el(
                        "circle",
                        **marker,
                        r=0.14,
                        fill=PALETTE["legal-dot"],
                        opacity=0.75,
                        visibility=hidden,
                    )
                )
        out.append("</g>")
    out.append("</g>")

    layer = '<g class="{}" aria-hidden="true" pointer-events="none"{}>'
    if layout.edges:
        out.append(layer.format("edges", ""))
        for name, x, y, width, height in layout.edges:
            out.append(
                _el(
                    "rect",
                    class_="edge",
                    x=x,
                    y=y,
                    width=width,
                    height=height,
                    fill=colour(name),
                    stroke=PALETTE["stone-outline"],
                    # A pale bar (White's) on the light page shows by its outline alone.
                    stroke_width=EDGE_OUTLINE if _lightness(colour(name)) > 200 else 0.02,
                )
            )
        out.append("</g>")
    font_attrs = f' font-family="{MONO}" text-anchor="middle"'
    label_attrs = f'{font_attrs} font-size="{_num(LABEL_FONT)}" dominant-baseline="central"'
    if coordinates and layout.labels:
        out.append(layer.format("coords", label_attrs))
        for text, x, y in layout.labels:
            out.append(_el("text", text, x=x, y=y, fill=PALETTE["coord"]))
        out.append("</g>")
    elif coordinates:
        # Names that give no rows to label along the edges: each cell carries its own.
        out.append(layer.format("coords", f'{font_attrs} font-size="{_num(cell_font)}"'))
        for cell in cells:
            name = cell["name"]
            x, y = centres[name]
            dark = any(style.cell and style.cell.dark for _, style, _ in marks.get(name, []))
            ink_text = PALETTE["coord-on-dark"] if dark else PALETTE["coord"]
            out.append(_el("text", name, x=float(x), y=y + 0.42, fill=ink_text))
        out.append("</g>")

    path = [centres[name] for name in view.get("path", []) if name in centres]
    if len(path) > 1:
        line = {"points": _points(path), "fill": "none"}
        out.append(layer.format("path", ' stroke-linecap="round" stroke-linejoin="round"'))
        out.append(
            _el("polyline", **line, stroke=PALETTE["path-halo"], stroke_width=0.17, opacity=0.8)
        )
        out.append(_el("polyline", **line, stroke=PALETTE["path"], stroke_width=0.08))
        out.append("</g>")

    out.append(layer.format("tokens", ""))
    for cell in cells:
        name = cell["name"]
        x, y = centres[name]
        for _, style, player in marks.get(name, []):
            for shape in style.shapes:
                out.extend(_shape(shape, player, x, y, hexes, ink))
    for name in last_cells:
        x, y = centres[name]
        out.append(
            _el(
                "circle",
                class_="last-mark",
                cx=float(x),
                cy=float(y),
                r=0.45,
                fill="none",
                stroke=last_ink,
                stroke_width=0.07,
                stroke_dasharray="0.1 0.06",
            )
        )
    out.append("</g>")

    if interactive and coordinates and layout.labels:
        # Every cell's name over the tokens, hidden: a page shows one on hover or keyboard
        # focus (class ``named``) or all of them (``show-names`` on an ancestor).
        halo = PALETTE["page-bg"]
        out.append(layer.format("names", label_attrs))
        for cell in cells:
            name = cell["name"]
            x, y = centres[name]
            out.append(
                _el(
                    "text",
                    name,
                    data_name=name,
                    x=float(x),
                    y=y + 0.3,
                    fill=PALETTE["ink-dark"],
                    stroke=halo,
                    stroke_width=0.08,
                    paint_order="stroke",
                    visibility="hidden",
                )
            )
        out.append("</g>")

    if forbidden_list or arrow_list:
        out.append(layer.format("overlay", ""))
        for name in forbidden_list:
            x, y = centres[name]
            cross = f"M{_num(x - 0.2)},{_num(y - 0.2)}l0.4,0.4m0,-0.4l-0.4,0.4"
            out.append(_el("path", d=cross, stroke=PALETTE["forbidden-ink"], stroke_width=0.08))
        for start, end, text in arrow_list:
            out.append(_arrow(centres[start], centres[end], text))
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _colour_of(name: str, player: int, ink: Callable[[int], str]) -> str:
    """A colour a mark declares: a palette colour, or one of the player's (see
    :class:`slimetrail.core.game.Shape`)."""
    if name == PLAYER:
        return ink(player)
    if name == PLAYER_LINE:
        return _line_ink(ink(player))
    if name == ON_PLAYER:
        return _ink_on(ink(player))
    if name == NO_COLOUR:
        return "none"
    return colour(name)


def _shape(
    shape: Shape, player: int, x: float, y: float, hexes: bool, ink: Callable[[int], str]
) -> list[str]:
    """The elements of one declared part of a mark over the cell centred on (x, y)."""
    css = f"{shape.css} p{player}" if shape.css and player else shape.css or None
    paint: dict[str, Any] = {
        "fill": _colour_of(shape.fill, player, ink),
        "stroke": _colour_of(shape.line, player, ink),
        "stroke_width": shape.width,
    }
    dash = DASHES[(player - 1) % len(DASHES)] if shape.dash == "player" else shape.dash or None
    if shape.kind in ("disc", "ring"):
        fill = "none" if shape.kind == "ring" else paint["fill"]
        circle = {"cx": float(x), "cy": float(y), "r": shape.size}
        paint.update(fill=fill, stroke_dasharray=dash)
        return [_el("circle", class_=css, **circle, **paint)]
    if shape.kind == "outline":
        points = _points(cell_outline(hexes, x, y, shape.size))
        return [_el("polygon", class_=css, points=points, **paint, stroke_dasharray=dash)]
    if shape.kind == "snail":
        return [
            f'<g class="snail" transform="translate({_num(x)} {_num(y)})">',
            _el(
                "circle",
                r=0.33,
                fill=PALETTE["snail-body"],
                stroke=PALETTE["snail-outline"],
                stroke_width=0.06,
            ),
            _el(
                "path",
                d=SNAIL_SHELL,
                fill="none",
                stroke=PALETTE["snail-shell"],
                stroke_width=0.05,
                stroke_linecap="round",
            ),
            "</g>",
        ]
    # The player's own shape, with the player's number in it if declared.
    if shape.group:
        out = [
            f'<g class="{shape.group} p{player}">',
            player_shape(player, x, y, shape.size, **paint),
        ]
    else:
        out = [player_shape(player, x, y, shape.size, class_=css, **paint)]
    if shape.label:
        drop = shape.label_drop
        if SHAPES[(player - 1) % len(SHAPES)] == "triangle":
            drop += shape.triangle_drop
        out.append(
            _el(
                "text",
                str(player),
                x=float(x),
                y=y + drop,
                fill=_colour_of(shape.label_colour, player, ink),
                font_size=shape.label_size,
                font_weight=700,
                font_family=SANS,
                text_anchor="middle",
            )
        )
    if shape.group:
        out.append("</g>")
    return out


def _arrow(start: Point, end: Point, text: str) -> str:
    """An arrow from outside the start cell's token towards ``end``, with ``text`` there."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    tip = (x0 + 0.8 * dx, y0 + 0.8 * dy)
    base = (tip[0] - 0.14 * ux, tip[1] - 0.14 * uy)
    head = [
        tip,
        (base[0] - 0.08 * uy, base[1] + 0.08 * ux),
        (base[0] + 0.08 * uy, base[1] - 0.08 * ux),
    ]
    ink = PALETTE["arrow"]
    return "".join(
        [
            _el(
                "line",
                x1=x0 + 0.42 * dx,
                y1=y0 + 0.42 * dy,
                x2=tip[0],
                y2=tip[1],
                stroke=ink,
                stroke_width=0.06,
            ),
            _el("path", d="M" + "L".join(f"{_num(x)},{_num(y)}" for x, y in head) + "Z", fill=ink),
            _el(
                "text",
                text,
                x=float(x1),
                y=y1 - 0.08,
                fill=ink,
                font_size=0.24,
                font_weight=700,
                font_family=SANS,
                text_anchor="middle",
            ),
        ]
    )


def board_view(state: State, mover: int | None = None) -> dict[str, Any]:
    """``state.view()`` as :func:`board_svg` draws it: with ``last_player``, the player who
    made the last move, so its mark is in their colour (unless the view names it itself).

    ``mover``: that player as a record of the moves has it (a match's moves table); without
    it the move is taken back on a copy and the player to move there is the one who made it
    -- never "the player before ``to_move``", wrong when a player moves twice or is out."""
    view = dict(state.view())
    if view.get("last") and "last_player" not in view and state.move_stack:
        if mover is None:
            before = state.copy()
            before.pop()
            mover = before.to_move
        view["last_player"] = mover
    return view


def state_svg(state: State, **options: Any) -> str:
    """:func:`board_svg` of a position: its :func:`board_view` and its players' colours."""
    names = [state.player_name(p) for p in range(1, state.game.num_players + 1)]
    return board_svg(state.game, board_view(state), colours=state.colours(), names=names, **options)


# -- the evaluation graph of a game review --------------------------------------------------

GRAPH_HEIGHT = 120  # pixels, and the width of one ply (at least) below
GRAPH_PLY_WIDTH = 12
GRAPH_MIN_WIDTH = 360


def evaluation_graph_svg(
    points: Sequence[Mapping[int, float]],
    *,
    colours: Sequence[str],
    turning: Iterable[int] = (),
    titles: Sequence[str] = (),
    label: str = "",
) -> str:
    """A game's evaluation graph: ``points[k]``, each player's expected result in [0, 1]
    after ``k`` moves (the players known there), as one line per player in their palette
    ``colours`` (for two players only player 1's, over an area: the other is its mirror).
    ``turning``: plies marked as turning points.  Every ply is a clickable strip (class
    ``ply-hit``, ``data-ply``) titled ``titles[ply]``; ``label``: the text alternative."""
    plies = max(len(points) - 1, 1)
    step = max(GRAPH_PLY_WIDTH, GRAPH_MIN_WIDTH / plies)
    width, height = step * plies, float(GRAPH_HEIGHT)

    def xy(ply: int, value: float) -> Point:
        return ply * step, (1.0 - value) * height

    root = {
        "xmlns": "http://www.w3.org/2000/svg",
        "class": "eval-graph",
        "viewBox": f"0 0 {_num(width)} {_num(height)}",
        "width": round(width),
        "height": round(height),
        "role": "img",
        "aria_label": label or None,
    }
    out = [
        f"<svg{_attrs(root)}>",
        _el("rect", x=0, y=0, width=_num(width), height=_num(height), fill=PALETTE["cell"]),
        _el(
            "line",
            x1=0,
            y1=_num(height / 2),
            x2=_num(width),
            y2=_num(height / 2),
            stroke=PALETTE["cell-stroke"],
            stroke_width=1,
        ),
    ]
    players = sorted({player for point in points for player in point})
    drawn = players[:1] if len(colours) == 2 else players
    for player in drawn:
        line = [xy(k, point[player]) for k, point in enumerate(points) if player in point]
        if not line:
            continue
        ink = colour(colours[player - 1]) if player <= len(colours) else PALETTE["next"]
        if len(colours) == 2:
            area = [(line[0][0], height), *line, (line[-1][0], height)]
            out.append(_el("polygon", points=_points(area), fill=ink, fill_opacity="0.25"))
        out.append(
            _el(
                "polyline",
                points=_points(line),
                fill="none",
                stroke=ink,
                stroke_width=2,
                data_player=player,
            )
        )
    for ply in sorted(set(turning)):
        if 0 < ply < len(points):
            x = ply * step
            out.append(
                _el(
                    "line",
                    x1=_num(x),
                    y1=0,
                    x2=_num(x),
                    y2=_num(height),
                    stroke=PALETTE["forbidden-ink"],
                    stroke_width=2,
                    stroke_dasharray="4 3",
                    class_="turning",
                    data_ply=ply,
                )
            )
    for ply in range(len(points)):
        title = titles[ply] if ply < len(titles) else str(ply)
        x0 = max(0.0, (ply - 0.5) * step)
        out.append(
            f'<rect class="ply-hit" data-ply="{ply}" x="{_num(x0)}" y="0" '
            f'width="{_num(min(width, (ply + 0.5) * step) - x0)}" height="{_num(height)}" '
            f'fill="transparent"><title>{escape(title)}</title></rect>'
        )
    out.append("</svg>")
    return "".join(out)
