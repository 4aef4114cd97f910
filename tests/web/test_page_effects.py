"""Move sound and move animation, each with an off switch remembered in localStorage."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Counts what the page does, without changing it: tones started, animations on the board.
SPY = """
window.effects = {tones: 0, slides: 0, grows: 0};
const realStart = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.effects.tones += 1;
  return realStart.apply(this, args);
};
const realAnimate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  if (this.closest && this.closest('#board')) {
    const first = JSON.stringify(frames[0]);
    window.effects[first.includes('translate') ? 'slides' : 'grows'] += 1;
  }
  return realAnimate.call(this, frames, options);
};
"""


def start(open_page, url: str):
    page = open_page("about:blank")
    page.add_init_script(SPY)
    page.goto(url)
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    return page


def play(page) -> None:
    before = page.locator("#move-list .mv").count()
    cell = page.eval_on_selector("#board [data-cell].legal", "c => c.dataset.cell")
    page.locator(f'#board [data-cell="{cell}"]').click()
    # The sound and the animation start in the same step as the move list grows.
    page.wait_for_function(
        "n => document.querySelectorAll('#move-list .mv').length > n", arg=before
    )


def effects(page) -> dict:
    return page.evaluate("window.effects")


def test_a_move_sounds_and_slides_the_snail(live_server, open_page) -> None:
    page = start(open_page, f"{live_server}/new/slimetrail?opponent=hotseat")
    assert effects(page) == {"tones": 0, "slides": 0, "grows": 0}  # none on loading
    assert page.is_checked("#setting-sound") and page.is_checked("#setting-animation")
    play(page)
    assert effects(page)["tones"] == 1
    assert effects(page)["slides"] >= 1  # the snail (and its last-move ring) slide in


def test_a_placed_stone_grows_in(live_server, open_page) -> None:
    page = start(open_page, f"{live_server}/new/slime-moku?opponent=hotseat")
    play(page)
    assert effects(page)["grows"] >= 1


def test_both_switch_off_and_stay_off(live_server, open_page) -> None:
    page = start(open_page, f"{live_server}/new/slimetrail?opponent=hotseat")
    page.uncheck("#setting-sound")
    page.uncheck("#setting-animation")
    play(page)
    assert effects(page) == {"tones": 0, "slides": 0, "grows": 0}
    page.reload()
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    assert not page.is_checked("#setting-sound") and not page.is_checked("#setting-animation")
    play(page)
    assert effects(page) == {"tones": 0, "slides": 0, "grows": 0}
    page.check("#setting-sound")
    play(page)
    assert effects(page)["tones"] == 1 and effects(page)["slides"] == 0
