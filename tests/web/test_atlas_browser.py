"""The solved atlas page lists every proven result of the README, each with its diagram;
the opening explorer clicks through 7x7 with every move's proven value and game length."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_results() -> list[list[str]]:
    """The rows of the README's Solved table: game, options, start, value, winning moves."""
    block = README.read_text().split("<!-- solved-table: begin -->")[1]
    block = block.split("<!-- solved-table: end -->")[0]
    rows = [line.strip("|").split("|") for line in block.strip().splitlines()[2:]]
    return [[cell.strip() for cell in row[:5]] for row in rows]


def test_the_atlas_lists_every_proven_result_of_the_readme(live_server, open_page) -> None:
    page = open_page(f"{live_server}/solved")
    rows = readme_results()
    assert len(rows) >= 15
    for game, options, start, value, moves in rows:
        selector = (
            f'.atlas-row[data-game="{game}"][data-options="{options}"]'
            f'[data-start="{start}"][data-value="{value}"]'
        )
        row = page.locator(selector)
        assert row.count() == 1, selector
        shown = row.locator(".atlas-moves").inner_text()
        assert shown == (moves if moves != "-" else "none")
        assert row.locator("figure svg").count() == 1
        # The diagram shades the winning first moves (where they are cells), and only those.
        shaded = row.locator("figure [data-cell].legal").evaluate_all(
            "cells => cells.map(c => c.dataset.cell)"
        )
        cells = set(moves.split()) if moves != "-" else set()
        assert set(shaded) == {m for m in cells if re.fullmatch(r"[a-z]\d+", m)}
    # Every 7x7 start square under both rule sets is there too, with a way to explore it.
    assert page.locator('.atlas-row[data-game="slimetrail"]').count() == 52
    page.click('.atlas-row[data-game="slimetrail"][data-start="e5"] a')
    page.wait_for_url(re.compile(r"/explore\?rules=rastros&start=e5"))


@pytest.mark.slow
def test_the_explorer_clicks_through_the_opening(live_server, open_page) -> None:
    page = open_page(f"{live_server}/explore?rules=rastros&start=d4")
    page.wait_for_selector("#explore-values li", timeout=90_000)
    first = page.locator("#explore-values li").all_inner_texts()
    assert len(first) == 8 and all(" wins in " in text for text in first)
    assert first[0] == "c3 wins in 37 plies"  # the quickest win first
    assert (
        "Green to move wins with best play (game length 37 plies)."
        in page.locator("#explore-status").inner_text()
    )
    page.click('#explore-board [data-cell="c3"]')
    page.wait_for_function("document.getElementById('explore-moves').textContent === 'c3'")
    page.wait_for_selector('#explore-values li[data-move="c2"]', timeout=90_000)
    assert "Red to move loses" in page.locator("#explore-status").inner_text()
    page.click('#explore-values li[data-move="c2"] button')
    page.wait_for_selector('#explore-values li[data-move="d2"]', timeout=90_000)
    assert page.locator('#explore-values li[data-move="d2"]').inner_text() == "d2 wins in 35 plies"
    assert page.locator('#explore-values li[data-move="b2"]').inner_text().startswith("b2 loses")
    page.click("#explore-back")
    page.wait_for_function("document.getElementById('explore-moves').textContent === 'c3'")
    # Another rule set and start: the page asks again from the new start.
    page.select_option("#explore-rules", "taylor")
    page.wait_for_function(
        "document.getElementById('explore-moves').textContent === '' && "
        "document.querySelectorAll('#explore-values li').length > 0",
        timeout=90_000,
    )
    taylor = page.locator("#explore-values li").all_inner_texts()
    assert {t.split()[0] for t in taylor if " wins" in t} == {"c3", "e3", "e4", "c5", "d5", "e5"}


@pytest.mark.parametrize("path", ["/solved", "/explore"])
def test_the_atlas_and_the_explorer_fit_a_phone(live_server, open_page, path) -> None:
    page = open_page(f"{live_server}{path}", size=(390, 844))
    page.wait_for_selector("svg [data-cell]", state="attached", timeout=90_000)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390


def test_the_atlas_reads_on_a_phone(live_server, open_page) -> None:
    """On a 390 px screen each result's facts go under its diagram, at the card's width (they
    were squeezed beside it, one letter a line)."""
    page = open_page(f"{live_server}/solved", (390, 844))
    widths = page.eval_on_selector_all(
        ".atlas-row",
        "rows => rows.map(r => [r.getBoundingClientRect().width,"
        " r.querySelector('.atlas-facts').getBoundingClientRect().width])",
    )
    assert widths
    for card, facts in widths:
        assert facts >= card - 40, (card, facts)
