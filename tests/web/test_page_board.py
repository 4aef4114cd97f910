"""The board on a desktop: as big as the screen allows, coordinates readable on hex boards."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

MEASURE = """() => {
  const svg = document.querySelector('#board svg');
  const cells = svg.querySelector('.cells').getBoundingClientRect();
  const text = svg.querySelector('.coords text');
  const font = parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a;
  const area = document.querySelector('.board-area').getBoundingClientRect();
  const bar = document.getElementById('click-bar').getBoundingClientRect();
  return {width: cells.width, height: cells.height, bottom: cells.bottom, font,
          area: area.width, bar: bar.bottom, inner: innerHeight};
}"""


@pytest.mark.parametrize("game", ["slimetrail-hex", "slimetrail"])
def test_the_board_is_as_big_as_the_screen_allows(live_server, open_page, game) -> None:
    page = open_page(f"{live_server}/new/{game}?opponent=hotseat", (1280, 900))
    page.wait_for_selector("#board [data-cell]", state="attached")
    size = page.evaluate(MEASURE)
    assert size["bar"] <= size["inner"]  # the board and its buttons fit without scrolling
    if game == "slimetrail":
        assert size["width"] >= 0.85 * size["area"]  # a square board: the whole width
    else:
        # The 10x10 hex diamond is twice as tall as it is wide (RULES.md: short diagonal
        # across): the height of the screen is its limit, and it uses nearly all of it.
        assert size["height"] >= size["inner"] - 200
    assert size["font"] >= 11, size
