"""Board diagrams for the rules pages, drawn from the rules engine when the page is rendered.

A rules fragment (``<game package>/rules/<game id>.html``) is a Jinja template; it asks for a
diagram with a short declarative call instead of pasted SVG::

    {{ diagram("slimetrail-hex size=8", moves="e nw e ...", label="The sample game on 8 by 8",
               caption="The trail of the sample game: ...") }}

The position comes from the engine: ``moves`` are replayed from the start with
:meth:`State.push_str` (cells or direction words), or ``fen`` sets the position directly.  It
is drawn by the one board renderer, :func:`slimetrail.render.board_svg`, from
``game.describe_board()`` and ``state.view()``, so a diagram of any registered game looks like
its board on the play page.  Optional extras, all checked against the engine:

* ``legal=True`` shades the first click of every legal move (``state.next_clicks()``);
* ``forbidden="e1"`` crosses out cells that are empty but not legal moves (Taylor's rule);
* ``arrows="n ne e ..."`` draws an arrow from the snail for each direction word, to the cell
  the engine reads that word as.

Any bad argument -- an unknown game or option, an illegal move, a "forbidden" cell that is in fact
legal, a missing label -- raises :class:`DiagramError` while the page renders, never a wrong
picture.
"""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup

from slimetrail.core.game import Game, GameError, State
from slimetrail.core.registry import parse_game_spec
from slimetrail.render import board_svg, colour


class DiagramError(ValueError):
    """A diagram call in a rules fragment that cannot be drawn as asked."""


def player_colours(game: Game | type[Game]) -> list[str]:
    """Each player's colour value at the start (the palette colours the game declares)."""
    return [colour(name) for name in game.player_colours]


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
) -> Markup:
    """A ``<figure>`` with the SVG diagram and its caption (trusted HTML from the fragment).

    ``label`` is the diagram's text alternative (``aria-label``) and is required.
    """
    if not label.strip():
        raise DiagramError(f"diagram {spec!r}: needs a label (its text alternative)")
    state = position(spec, moves, fen)
    game = state.game
    view = state.view()
    cells = {cell["name"] for cell in game.describe_board()["cells"]}
    # The first click of every legal move that is a cell (not an action such as ``pass``).
    targets = sorted(click for click in state.next_clicks() if click in cells)
    marks = view.get("marks", {})

    crossed = forbidden.split()
    for name in crossed:
        if name not in cells:
            raise DiagramError(f"diagram {spec!r}: forbidden cell {name!r} is not on the board")
        if name in targets:
            raise DiagramError(f"diagram {spec!r}: forbidden cell {name!r} is a legal move")
        if set(marks.get(name, [])) - {f"goal-{p}" for p in range(1, game.num_players + 1)}:
            raise DiagramError(f"diagram {spec!r}: forbidden cell {name!r} is not empty")

    pointers: list[tuple[str, str, str]] = []
    snail = [name for name, words in marks.items() if "snail" in words]
    for word in arrows.split():
        if len(snail) != 1:
            raise DiagramError(f"diagram {spec!r}: arrows need exactly one snail on the board")
        try:
            move = state.parse_move(word)
        except GameError as exc:
            raise DiagramError(f"diagram {spec!r}: arrow {word!r}: {exc}") from exc
        pointers.append((snail[0], state.click_path(move)[-1], word))

    svg = board_svg(
        game,
        view,
        colours=state.colours(),
        targets=targets if legal else (),
        forbidden=crossed,
        arrows=pointers,
        label=label,
        css_class="diagram",
        attrs={"data-fen": state.fen()},
    )
    figcaption = f"\n<figcaption>{caption}</figcaption>" if caption else ""
    return Markup(f"<figure>\n{svg}{figcaption}\n</figure>")


def page_diagrams() -> Callable[..., Markup]:
    """The ``diagram`` function a rules fragment calls (the SVGs need no ids, so diagrams on
    one page cannot clash)."""
    return render_diagram
