"""The pages drawn with the one renderer, as a player sees them in Chromium: "Play now" above
the fold on a desktop and a phone, the hex preview's width, readable diagram coordinates."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from slimetrail.web.liveserver import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (390, 844)]


@pytest.fixture(scope="module")
def browser() -> Iterator:
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is not installed (Debian package chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


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
        assert len(sizes) == 100  # the 10x10 board, every cell named
        assert min(sizes) >= 10, min(sizes)
    finally:
        context.close()
