"""A whole game against the computer in Portuguese and in Korean: no English on the page."""

from __future__ import annotations

import random

import pytest
from english import english_left
from pagetools import legal_cells, wait_loaded, wait_turn_or_result

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(("lang", "your_move"), [("pt", "A sua vez"), ("ko", "내 차례")])
def test_a_whole_game_speaks_the_language(live_server, open_page, lang, your_move) -> None:
    page = open_page(
        f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1",
        extra_http_headers={"Accept-Language": lang},
    )
    wait_loaded(page)
    assert page.get_attribute("html", "lang") == lang
    rng = random.Random(7)
    seen = []
    for _ in range(40):
        wait_turn_or_result(page)
        if page.locator("#result").is_visible():
            break
        seen.append(page.inner_text("body"))
        before = page.locator("#move-list .mv").count()
        page.locator(f'#board [data-cell="{rng.choice(legal_cells(page))}"]').click()
        # Until the computer has answered (or the game is over): the board is its turn's.
        page.wait_for_function(
            "n => document.querySelectorAll('#move-list .mv').length >= n + 2"
            " || !document.getElementById('result').hidden",
            arg=before,
        )
    page.wait_for_selector("#result:not([hidden])")
    assert your_move in seen[0]
    # The board's cells speak the language too (their screen-reader labels).
    snail = page.get_attribute("#board [data-cell].mark-snail", "aria-label") or ""
    assert english_left(snail, lang) == [], snail
    for text in [*seen, page.inner_text("body"), page.title()]:
        assert english_left(text, lang) == [], text
