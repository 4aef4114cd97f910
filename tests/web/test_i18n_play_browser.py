"""Every registered game's play page in Portuguese and in Korean, in a real browser: a
turn by clicks against the computer, a refused move, the hint and the analysis, and no
English left in what a player reads or hears (issue 25).

The games come from the registry, so a new game is checked here without a line more.
"""

from __future__ import annotations

import random

import pytest
from english import english_left
from pagetools import legal_cells, moves, wait_loaded, wait_turn_or_result

from slimetrail.core.registry import GAMES
from slimetrail.i18n import LANGUAGES, SOURCE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The platform's own games (the suite may register toy games besides, in English only).
SHIPPED = [game_id for game_id, cls in GAMES.items() if cls.__module__.startswith("slimetrail.")]
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
# What a player reads and hears of the play page: its text, and the texts only a screen
# reader says (the cells' and stones' labels, the live regions, the board's own label).
HEARD = """() => [
    ...[...document.querySelectorAll('[aria-label]')].map(e => e.getAttribute('aria-label')),
    ...[...document.querySelectorAll('[title]')].map(e => e.getAttribute('title')),
    ...[...document.querySelectorAll('[aria-live], [role=alert], [role=status]')]
        .map(e => e.textContent),
    document.getElementById('move-input').placeholder,
]"""


def said(page) -> list[str]:
    return [page.title(), page.inner_text("body"), *page.evaluate(HEARD)]


def english_on(page, lang: str) -> dict[str, list[str]]:
    """Each text of the page with English words in it, and those words."""
    found = {text: english_left(text, lang) for text in said(page) if text}
    return {text[:300]: words for text, words in found.items() if words}


def play_my_turn(page, rng: random.Random) -> None:
    """One turn by clicks (a compound turn click by click), then until the computers have
    answered and it is my move again or the game is over."""
    before = len(moves(page))
    clicked: list[str] = []
    while len(moves(page)) == before:
        cells = [cell for cell in legal_cells(page) if cell not in clicked]
        if cells:
            cell = rng.choice(cells)
            clicked.append(cell)
            page.click(f'#board [data-cell="{cell}"]')
        else:  # a move without a cell: Slither's swap or pass
            page.locator("#actions-bar button").first.click()
        page.wait_for_function(
            "([n, cell]) => document.querySelectorAll('#move-list .mv').length > n"
            " || (cell && document.querySelector(`#board [data-cell='${cell}'].chosen`))",
            arg=[before, clicked[-1] if cells else None],
        )
    wait_turn_or_result(page, buttons=True)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("game_id", SHIPPED)
def test_the_play_page_speaks_the_language(live_server, open_page, game_id, lang) -> None:
    seats = ",".join(["me"] + ["computer:1"] * (GAMES[game_id].num_players - 1))
    page = open_page(
        f"{live_server}/new/{game_id}?seats={seats}",
        extra_http_headers={"Accept-Language": lang},
    )
    wait_loaded(page)
    assert page.get_attribute("html", "lang") == lang
    wait_turn_or_result(page, buttons=True)
    heard = [english_on(page, lang)]
    rng = random.Random(game_id)
    # One turn: the page has then shown every kind of text a turn brings (both sides' moves
    # in the list, the computers' answers announced, whose turn it is); later turns only
    # bring more of the same (and took a third of each case's time).
    if not page.locator("#result").is_visible():
        play_my_turn(page, rng)
        heard.append(english_on(page, lang))
    # A refusal under the move box.
    page.fill("#move-input", "z99")
    page.press("#move-input", "Enter")
    page.wait_for_function("document.getElementById('move-error').textContent.trim() !== ''")
    refused = page.inner_text("#move-error")
    assert english_left(refused, lang) == [], refused
    # Why a cell that is no move does nothing: the note under the board.
    page.locator("#board [data-cell]:not(.legal)").first.click()
    page.wait_for_function("document.getElementById('board-note').textContent.trim() !== ''")
    if page.locator("#hint").is_visible():
        page.click("#hint")
        page.wait_for_function(
            "!document.getElementById('hint').disabled"
            " && document.getElementById('hint-text').textContent !== ''"
        )
    page.click("#analyse")
    page.wait_for_function(
        "!document.getElementById('analyse').disabled"
        " && document.getElementById('analysis').textContent !== ''",
        timeout=60_000,
    )
    heard.append(english_on(page, lang))
    assert [found for found in heard if found] == []
