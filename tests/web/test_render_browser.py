"""The pages drawn with the one renderer, as a player sees them in Chromium: "Play now" above
the fold on a desktop and a phone, the hex preview's width, readable diagram coordinates."""

from __future__ import annotations

import re

import pytest

from slimetrail.core.registry import get_game
from slimetrail.render import PALETTE, state_svg

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (390, 844)]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_play_now_is_above_the_fold_and_starts_a_game(
    browser, live_server: str, width: int, height: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(live_server + "/")
        button = page.get_by_role("button", name="Play now")
        box = button.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height
        # The hex board's preview is big enough to see (issue 14: it was 80 px wide).
        preview = page.locator("#game-slimetrail-hex svg.preview").bounding_box()
        assert preview is not None and preview["width"] >= 160
        button.click()
        page.wait_for_url(re.compile(r"/play/[\w-]+\?seat="))
    finally:
        context.close()


def test_rules_diagram_coordinates_are_readable(browser, live_server: str) -> None:
    width, height = SIZES[0]
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(live_server + "/rules/slimetrail-hex")
        first = page.locator("svg.diagram").first
        # The font size on screen: the font size in board units times the drawing's scale.
        sizes = first.locator(".coords text").evaluate_all(
            """texts => texts.map(t => {
                const svg = t.ownerSVGElement;
                const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                return parseFloat(getComputedStyle(t).fontSize) * scale;
            })"""
        )
        assert len(sizes) == 20  # the 10x10 board: its 10 letters and 10 numbers on the edges
        assert min(sizes) >= 10, min(sizes)
    finally:
        context.close()


def test_interactive_board_shows_the_classes_a_script_toggles(browser) -> None:
    state = get_game("slimetrail").new_state()
    state.push_str("d5")
    svg = state_svg(state, interactive=True, targets=list(state.next_clicks()))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(f"<!doctype html><body>{svg}</body>")

        def look(cell: str) -> dict:
            return page.locator(f'[data-cell="{cell}"]').evaluate(
                """g => ({
                    fill: getComputedStyle(g.querySelector('.cell-shape')).fill,
                    target: getComputedStyle(g.querySelector('.target')).visibility,
                    ring: getComputedStyle(g.querySelector('.cell-ring')).visibility,
                    cursor: getComputedStyle(g).cursor,
                })"""
            )

        def rgb(name: str) -> str:
            value = PALETTE[name]
            return "rgb({}, {}, {})".format(*(int(value[i : i + 2], 16) for i in (1, 3, 5)))

        assert look("c6") == {
            "fill": rgb("legal"),
            "target": "visible",
            "ring": "hidden",
            "cursor": "pointer",
        }
        assert look("a4")["fill"] == rgb("cell") and look("a4")["target"] == "hidden"
        toggle = "(g, [remove, add]) => { g.classList.remove(remove); g.classList.add(add); }"
        page.locator('[data-cell="c6"]').evaluate(toggle, ["legal", "chosen"])
        assert look("c6") == {
            "fill": rgb("chosen"),
            "target": "hidden",
            "ring": "visible",
            "cursor": "auto",
        }
        page.locator('[data-cell="a4"]').evaluate(toggle, ["x", "legal"])
        assert look("a4")["fill"] == rgb("legal") and look("a4")["target"] == "visible"
        page.locator('[data-cell="a4"]').evaluate(toggle, ["legal", "pending"])
        assert look("a4")["fill"] == rgb("pending")
        page.locator('[data-cell="a1"]').evaluate(toggle, ["x", "focus"])
        assert look("a1")["ring"] == "visible"
        # A click on a token (the snail) lands on its cell's group.
        box = page.locator('[data-cell="d5"]').bounding_box()
        assert box is not None
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('[data-cell]').dataset.cell",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit == "d5"
    finally:
        context.close()
