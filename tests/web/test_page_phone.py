"""Every game's pages on a phone (390x844) and the board's cell names (issue 24, item 6): no
page scrolls sideways, a rules page opens on its rules, board cells are big enough to tap, and
coordinates sit on the board's edges with a cell's name shown on hover, on keyboard focus, or
all of them by a remembered setting."""

from __future__ import annotations

import pytest
from pagetools import wait_frames, wait_loaded

from slimetrail.core.registry import GAMES

pytestmark = pytest.mark.browser

PHONE = (390, 844)
TAP = 40  # px: the least width of a cell a finger is to hit
FIT = 36  # px: a board whose cells fitted are this wide or more opens fitted (play.js)
# The games the live server knows (the toy games of the tests register in this process only).
BUILT_IN = [game for game, cls in GAMES.items() if cls.__module__.startswith("slimetrail.")]


def shown_names(page) -> list[str]:
    return page.eval_on_selector_all(
        "#board .names text",
        "texts => texts.filter(t => getComputedStyle(t).visibility === 'visible')"
        ".map(t => t.textContent)",
    )


@pytest.mark.parametrize("game", BUILT_IN)
def test_no_page_of_a_game_scrolls_sideways_on_a_phone(live_server, open_page, game) -> None:
    page = open_page(f"{live_server}/rules/{game}", PHONE)
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE[0], f"the rules page is {width} px wide"
    # The rules come first, right under the site's header: their heading and first paragraph
    # fill the first screen, the list of the other games' rules comes after them.
    heading = page.locator("article.rules h1").bounding_box()
    lead = page.locator("article.rules h1 + p").bounding_box()
    games = page.locator(".rules-nav").bounding_box()
    assert heading and lead and games
    assert heading["y"] <= 150 and lead["y"] + lead["height"] <= PHONE[1]
    assert games["y"] > lead["y"]
    page.goto(f"{live_server}/new/{game}?opponent=hotseat")
    wait_loaded(page)
    wait_frames(page)
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE[0], f"the play page is {width} px wide"
    # Cells a finger can hit: the board scrolls in its own box where it is wider than that,
    # or opens fitted where that keeps its cells nearly as wide (10x10 hex).
    cell = page.locator("#board [data-cell] .cell-shape").first.bounding_box()
    assert cell is not None and round(cell["width"]) >= FIT, cell


def test_snake_pit_cells_are_big_enough_to_tap_on_a_phone(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/snake-pit?opponent=hotseat", PHONE)
    wait_loaded(page)
    sizes = page.eval_on_selector_all(
        "#board [data-cell] .cell-shape",
        "shapes => shapes.map(s => s.getBoundingClientRect().width)",
    )
    assert len(sizes) == 139 and round(min(sizes)) >= TAP, min(sizes)
    # The board scrolls inside its own box; every cell can be brought into view and tapped.
    page.locator('#board [data-cell="m13"]').scroll_into_view_if_needed()
    box = page.locator('#board [data-cell="m13"]').bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0]


@pytest.mark.parametrize(("game", "rows"), [("slimetrail", 7), ("snake-pit", 13)])
def test_coordinates_are_on_the_edges_and_names_show_on_hover_and_focus(
    live_server, open_page, game, rows
) -> None:
    page = open_page(f"{live_server}/new/{game}?opponent=hotseat")
    wait_loaded(page)
    labels = page.locator("#board .coords text").all_text_contents()
    letters = "abcdefghijklm"[:rows]
    assert sorted(labels) == sorted([*letters, *map(str, range(1, rows + 1))])
    assert shown_names(page) == []  # no cell carries its name until asked
    # Cells keep their accessible names for screen readers.
    assert page.get_attribute('#board [data-cell="c3"]', "aria-label").startswith("c3")
    page.locator('#board [data-cell="c3"]').hover()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#board .names text')]"
        ".some(t => t.textContent === 'c3' && getComputedStyle(t).visibility === 'visible')"
    )
    assert shown_names(page) == ["c3"]
    page.mouse.move(0, 0)
    page.wait_for_function("() => !document.querySelector('#board .names text.named')")
    # The keyboard focus names its cell too.
    page.locator("#board").focus()
    page.keyboard.press("ArrowRight")
    focused = page.eval_on_selector("#board [data-cell].focus", "g => g.dataset.cell")
    assert shown_names(page) == [focused]


def test_a_remembered_setting_shows_every_cell_name(live_server, open_page) -> None:
    page = open_page(f"{live_server}/new/slither?opponent=hotseat")
    wait_loaded(page)
    assert shown_names(page) == []
    page.get_by_label("Cell names").check()
    assert len(shown_names(page)) == 81
    # Remembered (localStorage): the next page shows them all from the start.
    page.goto(f"{live_server}/new/slither?opponent=hotseat")
    wait_loaded(page)
    assert page.get_by_label("Cell names").is_checked()
    assert len(shown_names(page)) == 81
    page.get_by_label("Cell names").uncheck()
    assert shown_names(page) == []


def board_fits(page) -> bool:
    """Whether the whole board (cells and the coordinates on its edges) is on the screen."""
    return page.evaluate(
        """() => {
            const box = document.querySelector('#board svg').getBoundingClientRect();
            return box.left >= 0 && box.right <= window.innerWidth;
        }"""
    )


def least_cell(page) -> float:
    return page.eval_on_selector_all(
        "#board [data-cell] .cell-shape",
        "shapes => Math.min(...shapes.map(s => s.getBoundingClientRect().width))",
    )


@pytest.mark.parametrize("game", ["snake-pit", "slime-moku"])
def test_a_board_wider_than_a_phone_can_be_fitted_to_the_screen(
    live_server, open_page, game
) -> None:
    page = open_page(f"{live_server}/new/{game}?opponent=hotseat", PHONE)
    wait_loaded(page)
    fit = page.get_by_label("Fit board to screen")
    # Cells to tap by default: the board is wider than the screen and scrolls.
    assert round(least_cell(page)) >= TAP and not board_fits(page)
    assert fit.is_visible() and not fit.is_checked()
    fit.check()
    wait_frames(page)
    assert board_fits(page)
    # Remembered: the next game opens with the whole board on the screen, and a cell
    # still takes its click.
    page.goto(f"{live_server}/new/{game}?opponent=hotseat")
    wait_loaded(page)
    wait_frames(page)
    assert fit.is_checked() and board_fits(page)
    page.locator("#board [data-cell].legal").first.click()
    # A snake chosen (Snake Pit's first click) or the move played (Slime-Moku's only one).
    page.wait_for_function(
        "document.querySelector('#board [data-cell].chosen')"
        " || document.querySelectorAll('#move-list .mv').length > 0"
    )
    fit.uncheck()
    wait_frames(page)
    assert round(least_cell(page)) >= TAP and not board_fits(page)


@pytest.mark.parametrize(("game", "size"), [("slimetrail", PHONE), ("snake-pit", (1280, 800))])
def test_no_fit_switch_where_the_board_fits(live_server, open_page, game, size) -> None:
    page = open_page(f"{live_server}/new/{game}?opponent=hotseat", size)
    wait_loaded(page)
    wait_frames(page)
    assert board_fits(page)
    assert page.locator("#fit-board").is_hidden()


def across(page, selector: str, texts: tuple[str, ...] = ()) -> list[list[float]]:
    """The left and right edges on the screen of every element ``selector`` picks (only
    those whose text is one of ``texts``, if given)."""
    return page.eval_on_selector_all(
        selector,
        """(nodes, texts) => nodes
            .filter(n => !texts.length || texts.includes(n.textContent))
            .map(n => [n.getBoundingClientRect().left, n.getBoundingClientRect().right])""",
        list(texts),
    )


@pytest.mark.parametrize(
    "query",
    [
        "slimetrail-hex?size=10",
        "slimetrail-hex?size=9",
        "slimetrail-hex?size=8",
        "slimetrail-square",
        "slimetrail?size=9",
        "slime-moku",
        "slither",
        "slither?size=13",
        "snake-pit",
    ],
)
def test_a_phone_player_sees_the_whole_board_or_the_switch_to_see_it(
    live_server, open_page, query
) -> None:
    """Each game at its biggest common size on a phone: the board opens with its row "1" and
    column "a" labels and both goals on the screen (10x10 hex, 406 px at 40 px cells, opens
    fitted), and where it is still wider than the screen, the fit switch is in the first
    screen, over the board."""
    game, _, options = query.partition("?")
    page = open_page(f"{live_server}/new/{game}?opponent=hotseat&{options}", PHONE)
    wait_loaded(page)
    wait_frames(page)
    labels = across(page, "#board .coords text", ("1", "a"))
    assert len(labels) == 2
    goals = across(page, "#board [data-cell][class*='mark-goal-']")
    for left, right in labels + goals:
        assert left >= 0 and right <= PHONE[0], (left, right)
    fit = page.locator("#fit-board")
    if board_fits(page) and not fit.is_visible():
        assert round(least_cell(page)) >= TAP
        return
    box = fit.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE[1]
    if page.get_by_label("Fit board to screen").is_checked():
        assert board_fits(page) and round(least_cell(page)) >= FIT
    else:
        assert round(least_cell(page)) >= TAP


def test_a_board_a_little_too_wide_opens_fitted_until_the_player_says_otherwise(
    live_server, open_page
) -> None:
    page = open_page(f"{live_server}/new/slimetrail-hex?opponent=hotseat&size=10", PHONE)
    wait_loaded(page)
    wait_frames(page)
    fit = page.get_by_label("Fit board to screen")
    assert fit.is_checked() and board_fits(page)
    fit.uncheck()
    wait_frames(page)
    assert round(least_cell(page)) >= TAP and not board_fits(page)
    # The choice is remembered: the next 10x10 board opens scrolled, on its labelled edge.
    page.goto(f"{live_server}/new/slimetrail-hex?opponent=hotseat&size=10")
    wait_loaded(page)
    wait_frames(page)
    assert not fit.is_checked() and not board_fits(page)
    assert page.evaluate("document.getElementById('board').scrollLeft") == 0


def test_the_snake_pit_cell_table_is_whole_on_a_phone(live_server, open_page) -> None:
    page = open_page(f"{live_server}/rules/snake-pit", PHONE)
    table = page.locator("article.rules pre")
    assert "m13" in table.inner_text()
    width, room = table.evaluate("pre => [pre.scrollWidth, pre.clientWidth]")
    assert width <= room, f"the cell table is {width} px in a {room} px box"


def test_the_browser_bar_coming_and_going_keeps_the_board_where_the_player_scrolled(
    live_server, open_page
) -> None:
    """A phone's browser bar hides and shows as the page scrolls, resizing the window: the
    board scrolled sideways by the player stays where it is."""
    page = open_page(f"{live_server}/new/slime-moku?opponent=hotseat", PHONE)
    wait_loaded(page)
    wait_frames(page)
    page.evaluate("document.getElementById('board').scrollLeft = 200")
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1] - 60})
    wait_frames(page)
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    wait_frames(page)
    assert page.evaluate("document.getElementById('board').scrollLeft") == 200
