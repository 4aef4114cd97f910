"""Slither's boards show which edges each colour joins (issue 24, item 5), as Hex boards do:
a bar in the colour's palette colour along each of its two sides -- Black top and bottom, White
left and right (RULES.md section 6) -- on the play board, the home page's previews and the
rules diagrams.  The edges belong to the colour, not the seat: a pie swap leaves them."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from fastapi.testclient import TestClient
from pagetools import BEHIND, contrast

from slimetrail.core.registry import get_game
from slimetrail.render import PALETTE, state_svg

SVG = "{http://www.w3.org/2000/svg}"
SLITHERS = ["slither", "slither-advanced"]
SIDES = {"top": "black", "bottom": "black", "left": "white", "right": "white"}


def edge_bars(svg: str) -> dict[str, str]:
    """Each drawn edge bar's side (where it lies against the cells) -> its fill colour."""
    root = ET.fromstring(svg)
    cells = [
        shape
        for group in root.iter(f"{SVG}g")
        if "data-cell" in group.attrib
        for shape in group
        if "cell-shape" in shape.attrib.get("class", "")
    ]
    left = min(float(c.attrib["x"]) for c in cells)
    top = min(float(c.attrib["y"]) for c in cells)
    right = max(float(c.attrib["x"]) + 1 for c in cells)
    bottom = max(float(c.attrib["y"]) + 1 for c in cells)
    found = {}
    for bar in root.iter(f"{SVG}rect"):
        if "edge" not in bar.attrib.get("class", "").split():
            continue
        x, y = float(bar.attrib["x"]), float(bar.attrib["y"])
        width, height = float(bar.attrib["width"]), float(bar.attrib["height"])
        if width > height:  # along a row: above or below the cells, the whole width
            assert (x, x + width) == pytest.approx((left, right), abs=0.01)
            side = "top" if y + height <= top + 0.01 else "bottom"
            assert side == "top" or y >= bottom - 0.01
        else:
            assert (y, y + height) == pytest.approx((top, bottom), abs=0.01)
            side = "left" if x + width <= left + 0.01 else "right"
            assert side == "left" or x >= right - 0.01
        assert side not in found
        found[side] = bar.attrib["fill"]
    return found


def expected_bars() -> dict[str, str]:
    return {side: PALETTE[name] for side, name in SIDES.items()}


@pytest.mark.parametrize("game_id", SLITHERS)
def test_the_play_board_marks_each_colours_edges_before_and_after_a_swap(
    client: TestClient, game_id: str
) -> None:
    created = client.post("/api/matches", json={"game": game_id, "opponent": "hotseat"}).json()
    match = client.get(f"/api/matches/{created['id']}").json()
    assert edge_bars(match["svg"]) == expected_bars()
    # After the swap the first player plays White: the edges stay with the colours.
    state = get_game(game_id).new_state()
    state.push_str("c3")
    state.push_str("swap")
    assert state.colours() == ("white", "black")
    assert edge_bars(state_svg(state, interactive=True)) == expected_bars()


def test_the_home_page_previews_mark_the_edges(client: TestClient) -> None:
    page = client.get("/").text
    for game_id in SLITHERS:
        card = page.split(f'id="game-{game_id}"')[1].split("</article>")[0]
        (preview,) = re.findall(r"<svg .*?</svg>", card, re.S)
        assert edge_bars(preview) == expected_bars()


@pytest.mark.parametrize("game_id", SLITHERS)
def test_every_rules_diagram_marks_the_edges(client: TestClient, game_id: str) -> None:
    page = client.get(f"/rules/{game_id}").text
    diagrams = re.findall(r'<svg [^>]*class="board-svg [^"]*diagram.*?</svg>', page, re.S)
    assert diagrams
    for svg in diagrams:
        assert edge_bars(svg) == expected_bars()


def test_a_board_that_declares_no_edges_has_no_bars() -> None:
    for game_id in ("slimetrail", "slime-moku", "snake-pit"):
        svg = state_svg(get_game(game_id).new_state())
        assert 'class="edge' not in svg


# -- seen in a browser: every bar stands out from what is behind it -------------------------

# What the browser draws for each bar: its fill and outline, the outline's width on the
# screen (px) and the colour of the page behind the board (the first ancestor with one).
BARS_SEEN = (
    "() => { "
    + BEHIND
    + """ return [...document.querySelectorAll('svg rect.edge')].map(bar => {
    const style = getComputedStyle(bar);
    return {
        fill: style.fill, stroke: style.stroke, behind: behind(bar.ownerSVGElement),
        px: parseFloat(style.strokeWidth) * bar.getScreenCTM().a,
    };
}); }"""
)


@pytest.mark.browser
@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_every_bar_is_clearly_visible_on_the_page(live_server, open_page, size) -> None:
    # WCAG's 3:1 for graphics: a bar whose fill is as light as the page (White's) shows by a
    # dark outline, some 2 px wide on the screen on the play board and the rules diagrams
    # (it was under 1 px) and 1 px on the home page's small previews (cells of 21 px).
    least_px = {
        "/new/slither?opponent=hotseat": 1.8,
        "/": 1.0,
        "/rules/slither": 1.8,
        "/rules/slither-advanced": 1.8,
    }
    for path in least_px:
        page = open_page(f"{live_server}{path}", size)
        page.wait_for_selector("svg rect.edge", state="attached")
        bars = page.evaluate(BARS_SEEN)
        assert bars, path
        for bar in bars:
            if contrast(bar["fill"], bar["behind"]) >= 3:
                continue
            assert contrast(bar["stroke"], bar["behind"]) >= 3, (path, bar)
            assert bar["px"] >= least_px[path], (path, bar)
        page.close()
