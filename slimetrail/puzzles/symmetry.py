"""Positions equal up to the board's symmetries, for deduplicating puzzles.

The symmetries are derived from the geometry: every rotation or reflection of the plane
(the dihedral groups of the square and the hexagon, about the board's centre) that maps the
cell centres of ``Game.describe_board()`` onto themselves.  A position is compared by the
marks of ``State.view()`` (slime, snail, stones, goals), its players relabelled "mover" and
"other": a symmetry that moves a goal or swaps the players' colours maps a position to an
equivalent one exactly when the marks match, because the rules of these games depend only
on adjacency and on what the marks say.  Slither's connection directions are not marks: the
key carries the mover's direction, turned with the board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from slimetrail.core.game import Game, State

# Tolerance, in units of the closest distance between two cell centres.
TOLERANCE = 0.01


@dataclass(frozen=True)
class Symmetry:
    cells: dict[str, str]  # cell name -> its image
    turns_axes: bool  # a vertical line becomes horizontal (it swaps Slither's directions)


def _maps(order: int) -> list[tuple[float, float, float, float]]:
    """The 2x2 matrices (a, b, c, d) of the dihedral group of order ``2 * order``."""
    out = []
    for k in range(order):
        angle = 2 * math.pi * k / order
        cos, sin = math.cos(angle), math.sin(angle)
        out.append((cos, -sin, sin, cos))
        out.append((cos, sin, sin, -cos))  # the reflection in the line at angle / 2
    return out


def _nearest(points: list[tuple[float, float]], point: tuple[float, float]) -> int:
    distances = [math.dist(p, point) for p in points]
    return distances.index(min(distances))


def _symmetries(game: Game) -> tuple[Symmetry, ...]:
    cells = game.describe_board()["cells"]
    points = [(cell["x"], cell["y"]) for cell in cells]
    names = [cell["name"] for cell in cells]
    cx = sum(x for x, _ in points) / len(points)
    cy = sum(y for _, y in points) / len(points)
    step = min(
        (math.dist(p, q) for i, p in enumerate(points[:8]) for q in points if q != p),
        default=1.0,
    )
    found: dict[tuple[tuple[str, str], ...], Symmetry] = {}
    for a, b, c, d in _maps(4) + _maps(6):
        image: dict[str, str] = {}
        for name, (x, y) in zip(names, points, strict=True):
            u, v = x - cx, y - cy
            px, py = cx + a * u + b * v, cy + c * u + d * v
            near = _nearest(points, (px, py))
            if math.dist(points[near], (px, py)) > TOLERANCE * step:
                break
            image[name] = names[near]
        else:
            if len(set(image.values())) == len(image):
                turns = abs(c) > 0.5  # the image of (0, 1) is horizontal
                found.setdefault(tuple(sorted(image.items())), Symmetry(image, turns))
    return tuple(found.values())


_KNOWN: dict[str, tuple[Symmetry, ...]] = {}


def symmetries(game: Game) -> tuple[Symmetry, ...]:
    """The board's symmetries (identity included), found once per game and options."""
    if game.spec not in _KNOWN:
        _KNOWN[game.spec] = _symmetries(game)
    return _KNOWN[game.spec]


def _relabel(mark: str, mover: int) -> str:
    head, _, player = mark.rpartition("-")
    if head and player.isdigit():
        return f"{head}-{'mover' if int(player) == mover else 'other'}"
    return mark


def position_key(state: State) -> tuple[object, ...]:
    """The same key for positions equal up to a symmetry of the board (and the players'
    colours); the game's options other than the start are part of it."""
    game = state.game
    view = state.view()
    mover = state.to_move
    marks = {
        cell: tuple(sorted(_relabel(mark, mover) for mark in names))
        for cell, names in view.get("marks", {}).items()
    }
    connect = view.get("connect", {}).get(str(mover))
    images = []
    for symmetry in symmetries(game):
        cells = tuple(sorted((symmetry.cells[cell], names) for cell, names in marks.items()))
        direction = connect
        if connect is not None and symmetry.turns_axes:
            direction = "left-right" if connect == "bottom-top" else "bottom-top"
        images.append((cells, direction))
    options = tuple(sorted((k, v) for k, v in game.non_default_options().items() if k != "start"))
    return (game.id, options, min(images))
