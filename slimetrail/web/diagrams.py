"""Board diagrams for the rules pages, drawn from the rules engine when the page is rendered.

A rules fragment (``<game package>/rules/<game id>.html``) is a Jinja template; it asks for a
diagram with a short declarative call instead of pasted SVG::

    {{ diagram("slimetrail-hex size=8", moves="e nw e ...", label="The sample game on 8 by 8",
               caption="The trail of the sample game: ...") }}

The position comes from the engine: ``moves`` are replayed from the start with
:meth:`State.push_str` (cells or direction words), or ``fen`` sets the position directly.  The
picture is drawn from ``game.describe_board()`` and ``state.view()`` in the look of the play page
(``static/play.js`` and the ``.board`` rules of ``static/style.css``): square cells or pointy-top
hexagons at the given centres, one unit between neighbours, goal corners outlined in the owner's
colour with a badge 1 (circle) or 2 (square), slime dark and hatched, the trail as a line
through ``view["path"]`` and the snail token.  Optional extras, all checked against the engine:

* ``legal=True`` shades the engine's legal moves (with the play page's dot);
* ``forbidden="e1"`` crosses out cells that are empty but not legal moves (Taylor's rule);
* ``arrows="n ne e ..."`` draws an arrow from the snail for each direction word, to the cell
  the engine reads that word as.

Any bad argument -- an unknown game or option, an illegal move, a "forbidden" cell that is in fact
legal, a missing label -- raises :class:`DiagramError` while the page renders, never a wrong
picture.  Colours are inline presentation attributes (the SVG stands on its own, without the
play page's stylesheet); they are the values of ``style.css``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from html import escape
from typing import Any

from markupsafe import Markup

from slimetrail.core.game import Game, GameError, State
from slimetrail.core.registry import parse_game_spec

HEX_R = 1 / math.sqrt(3)  # circumradius of a hexagon whose neighbours are one unit apart
# Okabe-Ito colours (the play page gets them with each match): by player name, else blue
# and orange.
NAMED_COLOURS = {"green": "#009E73", "red": "#D55E00", "blue": "#0072B2", "orange": "#E69F00"}
DEFAULT_COLOURS = ("#0072B2", "#E69F00", "#CC79A7")

PIXELS_PER_UNIT = 44  # default on-screen size of one cell
# The play page's colours (style.css, ``.board ...``).
CELL = {"fill": "#ece6d6", "stroke": "#c7bfa9", "stroke-width": "0.03"}
LEGAL_FILL = "#d6e9f5"
FORBIDDEN_FILL = "#f3d9cc"
FORBIDDEN_INK = "#D55E00"
SLIME, SLIME_STROKE, HATCH_LINE = "#8d9c76", "#5d6c4a", "#5f7049"
COORD, COORD_ON_SLIME = "#8f8672", "#e8eddf"
TRAIL, TRAIL_HALO = "#2d3d22", "#f4f1e4"
ARROW = "#0072B2"
SNAIL_SHELL = (
    "M0.02,0.02 m-0.05,0 a0.05,0.05 0 1,1 0.1,0 a0.1,0.1 0 1,1 -0.2,0 a0.15,0.15 0 1,1 0.3,0"
)


class DiagramError(ValueError):
    """A diagram call in a rules fragment that cannot be drawn as asked."""


def player_colours(game: Game | type[Game]) -> list[str]:
    """Each player's colour: named after the player where possible, else the default order."""
    return [
        NAMED_COLOURS.get(name.lower(), DEFAULT_COLOURS[i % len(DEFAULT_COLOURS)])
        for i, name in enumerate(game.player_names)
    ]


def hex_points(x: float, y: float) -> str:
    """The corners of the pointy-top hexagon centred on (x, y), as an SVG ``points`` list."""
    corners = (math.pi / 2 + k * math.pi / 3 for k in range(6))
    return " ".join(f"{x + HEX_R * math.cos(a):.3f},{y + HEX_R * math.sin(a):.3f}" for a in corners)


def position(spec: str, moves: str = "", fen: str = "") -> State:
    """The position of a diagram: ``moves`` replayed from the start, or ``fen``."""
    try:
        game = parse_game_spec(spec)
    except GameError as exc:
        raise DiagramError(f"diagram {spec!r}: {exc}") from exc
    if moves and fen:
        raise DiagramError(f"diagram {spec!r}: give moves or fen, not both")
    try:
        state = game.state_from_fen(fen) if fen else game.new_state()
    except GameError as exc:
        raise DiagramError(f"diagram {spec!r}: {exc}") from exc
    for number, word in enumerate(moves.split(), 1):
        try:
            state.push_str(word)
        except GameError as exc:
            raise DiagramError(f"diagram {spec!r}: move {number} {word!r}: {exc}") from exc
    return state


def render_diagram(
    spec: str,
    *,
    label: str,
    caption: str = "",
    moves: str = "",
    fen: str = "",
    legal: bool = False,
    forbidden: str = "",
    arrows: str = "",
    scale: float = PIXELS_PER_UNIT,
    hatch_id: str = "slime-hatch",
) -> Markup:
    """A ``<figure>`` with the SVG diagram and its caption (trusted HTML from the fragment).

    ``label`` is the diagram's text alternative (``aria-label``) and is required.
    """
    if not label.strip():
        raise DiagramError(f"diagram {spec!r}: needs a label (its text alternative)")
    state = position(spec, moves, fen)
    svg = draw(state, label, legal, forbidden.split(), arrows.split(), scale, hatch_id)
    figcaption = f"\n<figcaption>{caption}</figcaption>" if caption else ""
    return Markup(f"<figure>\n{svg}{figcaption}\n</figure>")


def page_diagrams() -> Callable[..., Markup]:
    """The ``diagram`` function for one page: each diagram gets its own hatch pattern id."""
    counter = itertools.count(1)

    def diagram(spec: str, **options: Any) -> Markup:
        return render_diagram(spec, hatch_id=f"slime-hatch-{next(counter)}", **options)

    return diagram


# -- drawing ------------------------------------------------------------------------------


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attrs(attrs: dict[str, Any]) -> str:
    """SVG attributes: ``stroke_width=`` becomes ``stroke-width=``, floats are rounded."""
    parts = []
    for name, value in attrs.items():
        if value is not None:
            shown = _num(value) if isinstance(value, float) else str(value)
            shown = escape(shown, quote=False).replace('"', "&quot;")
            parts.append(f' {name.rstrip("_").replace("_", "-")}="{shown}"')
    return "".join(parts)


def _el(tag: str, text: str | None = None, **attrs: Any) -> str:
    """One SVG element, empty or with escaped text."""
    if text is None:
        return f"<{tag}{_attrs(attrs)}/>"
    return f"<{tag}{_attrs(attrs)}>{escape(text)}</{tag}>"


def _cell_names(state: State, moves: Iterable[Any]) -> set[str]:
    """The cells a player clicks last to make each move: where the snail goes."""
    return {state.click_path(move)[-1] for move in moves}


def draw(
    state: State,
    label: str,
    legal: bool,
    forbidden: list[str],
    arrows: list[str],
    scale: float,
    hatch_id: str,
) -> str:
    game = state.game
    board, view = game.describe_board(), state.view()
    spec = game.spec
    hexes = board["shape"] == "hex"
    centres = {cell["name"]: (cell["x"], cell["y"]) for cell in board["cells"]}
    marks: dict[str, list[str]] = view["marks"]
    legal_cells = _cell_names(state, state.legal_moves())
    snail = [name for name, words in marks.items() if "snail" in words]

    for name in forbidden:
        if name not in centres:
            raise DiagramError(f"diagram {spec!r}: forbidden cell {name!r} is not on the board")
        if name in legal_cells:
            raise DiagramError(f"diagram {spec!r}: forbidden cell {name!r} is a legal move")
        if {"snail", "slime"} & set(marks.get(name, [])):
            raise DiagramError(f"diagram {spec!r}: forbidden cell {name!r} is not empty")
    targets: list[tuple[str, str]] = []
    for word in arrows:
        if len(snail) != 1:
            raise DiagramError(f"diagram {spec!r}: arrows need exactly one snail on the board")
        try:
            move = state.parse_move(word)
        except GameError as exc:
            raise DiagramError(f"diagram {spec!r}: arrow {word!r}: {exc}") from exc
        targets.append((word, state.click_path(move)[-1]))

    colours = player_colours(game)
    goals = {cell: int(player) for player, cell in board.get("goals", {}).items()}
    shaded = legal_cells if legal else set()

    xs = [x for x, _ in centres.values()]
    ys = [y for _, y in centres.values()]
    pad = HEX_R + 0.1 if hexes else 0.6
    box = (min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad)
    svg_attrs = {
        "xmlns": "http://www.w3.org/2000/svg",
        "class": "diagram",
        "viewBox": " ".join(f"{v:.3f}" for v in box),
        "width": round(box[2] * scale),
        "height": round(box[3] * scale),
        "role": "img",
        "aria-label": label,
        "data-game": spec,
        "data-fen": state.fen(),
    }
    out = [f"<svg{_attrs(svg_attrs)}>"]
    if any("slime" in words for words in marks.values()):
        out.append(
            f'<defs><pattern id="{escape(hatch_id)}" width="0.2" height="0.2" '
            'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
            + _el("rect", width=0.2, height=0.2, fill=SLIME)
            + _el("line", x1=0, y1=0, x2=0, y2=0.2, stroke=HATCH_LINE, stroke_width=0.07)
            + "</pattern></defs>"
        )

    # Cells, goal corners last so that their thick outlines are not covered by a neighbour.
    shapes, coords = [], []
    for name in sorted(centres, key=lambda name: name in goals):
        x, y = centres[name]
        words = marks.get(name, [])
        paint = dict(CELL)
        if name in shaded:
            paint["fill"] = LEGAL_FILL
        if name in forbidden:
            paint["fill"] = FORBIDDEN_FILL
        if "slime" in words:
            paint.update(fill=f"url(#{hatch_id}) {SLIME}", stroke=SLIME_STROKE)
        if name in goals:
            paint.update(stroke=colours[goals[name] - 1], stroke_width="0.08")
            if goals[name] != 1:
                paint["stroke-dasharray"] = "0.12 0.06"
        attrs = {key.replace("-", "_"): value for key, value in paint.items()}
        if hexes:
            shapes.append(_el("polygon", points=hex_points(x, y), data_cell=name, **attrs))
        else:
            shapes.append(
                _el("rect", x=x - 0.5, y=y - 0.5, width=1, height=1, data_cell=name, **attrs)
            )
        coords.append(
            _el(
                "text",
                name,
                x=float(x) if hexes else x - 0.44,
                y=y + 0.36 if hexes else y + 0.42,
                font_size=0.16 if hexes else 0.18,
                text_anchor="middle" if hexes else None,
                fill=COORD_ON_SLIME if "slime" in words else COORD,
                font_family="ui-monospace, monospace",
            )
        )
    out += ["<g>", *shapes, "</g>", '<g aria-hidden="true">', *coords, "</g>"]

    path = [centres[name] for name in view.get("path", []) if name in centres]
    if len(path) > 1:
        points = " ".join(f"{_num(x)},{_num(y)}" for x, y in path)
        line = {"points": points, "fill": "none", "stroke_linecap": "round"}
        line["stroke_linejoin"] = "round"
        out.append(
            _el("polyline", stroke=TRAIL_HALO, stroke_width=0.17, opacity=0.8, **line)
            + _el("polyline", stroke=TRAIL, stroke_width=0.08, **line)
        )

    # Goal badges: the owner's number in the owner's colour, and a shape per player.
    for name, player in sorted(goals.items(), key=lambda item: item[1]):
        x, y = centres[name]
        ink = colours[player - 1]
        if player == 1:
            out.append(_el("circle", cx=x, cy=y, r=0.3, fill="#fff", stroke=ink, stroke_width=0.07))
        else:
            out.append(
                _el(
                    "rect",
                    x=x - 0.27,
                    y=y - 0.27,
                    width=0.54,
                    height=0.54,
                    rx=0.05,
                    fill="#fff",
                    stroke=ink,
                    stroke_width=0.07,
                )
            )
        out.append(
            _el(
                "text",
                str(player),
                x=x,
                y=y + 0.11,
                font_size=0.32,
                font_weight=700,
                text_anchor="middle",
                fill=ink,
            )
        )

    for name in forbidden:
        x, y = centres[name]
        cross = f"M{_num(x - 0.2)},{_num(y - 0.2)} l0.4,0.4 m0,-0.4 l-0.4,0.4"
        out.append(_el("path", d=cross, stroke=FORBIDDEN_INK, stroke_width=0.08))
    for word, target in targets:
        out.append(_arrow(centres[snail[0]], centres[target], word))
    for name in snail:
        x, y = centres[name]
        out.append(
            f'<g transform="translate({_num(x)} {_num(y)})">'
            + _el("circle", r=0.33, fill="#fffdf5", stroke="#2b2b2b", stroke_width=0.06)
            + _el(
                "path",
                d=SNAIL_SHELL,
                fill="none",
                stroke="#8a5a00",
                stroke_width=0.05,
                stroke_linecap="round",
            )
            + "</g>"
        )
    for name in sorted(shaded):
        x, y = centres[name]
        out.append(_el("circle", cx=x, cy=y, r=0.14, fill=ARROW, opacity=0.75))
    out.append("</svg>")
    return "\n".join(out)


def _arrow(start: tuple[float, float], end: tuple[float, float], word: str) -> str:
    """An arrow from outside the snail towards a neighbour, with the direction word there."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length
    tip = (x0 + 0.8 * dx, y0 + 0.8 * dy)
    base = (tip[0] - 0.14 * ux, tip[1] - 0.14 * uy)
    head = [
        tip,
        (base[0] - 0.08 * uy, base[1] + 0.08 * ux),
        (base[0] + 0.08 * uy, base[1] - 0.08 * ux),
    ]
    return "".join(
        [
            _el(
                "line",
                x1=x0 + 0.42 * dx,
                y1=y0 + 0.42 * dy,
                x2=tip[0],
                y2=tip[1],
                stroke=ARROW,
                stroke_width=0.06,
            ),
            _el(
                "path",
                d="M" + " L".join(f"{_num(x)},{_num(y)}" for x, y in head) + " Z",
                fill=ARROW,
            ),
            _el(
                "text",
                word,
                x=x1,
                y=y1 - 0.08,
                font_size=0.24,
                font_weight=700,
                text_anchor="middle",
                fill=ARROW,
            ),
        ]
    )
