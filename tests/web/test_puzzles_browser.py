"""The puzzle page: a puzzle solved by clicks, played out to the win, and one failed (the
wrong move refuted on the board, then retried); the rating kept in the browser."""

from __future__ import annotations

import pytest

from slimetrail import puzzles

pytestmark = pytest.mark.browser


def a_puzzle() -> dict:
    return next(
        p for p in puzzles.puzzles("slimetrail") if len(p["line"]) >= 3 and p["tree"]["refute"]
    )


def open_puzzle(open_page, live_server, puzzle):
    page = open_page(f"{live_server}/puzzles/slimetrail?id={puzzle['id']}")
    page.wait_for_selector(f'#puzzle[data-puzzle="{puzzle["id"]}"] #puzzle-board svg')
    assert "find the only winning move" in page.locator("#puzzle-status").inner_text()
    return page


def test_a_puzzle_is_solved_by_clicks_to_the_win(live_server, open_page) -> None:
    puzzle = a_puzzle()
    page = open_puzzle(open_page, live_server, puzzle)
    line = puzzle["line"]
    for index in range(0, len(line), 2):
        page.click(f'#puzzle-board [data-cell="{line[index]}"]')
        played = " ".join(line[: index + 2])
        page.wait_for_function(
            f"document.getElementById('puzzle-moves').textContent === {played!r}"
        )
    assert f"Solved! {line[-1]} wins." in page.locator("#puzzle-status").inner_text()
    assert "Solved 1 of 1 tried" in page.locator("#puzzle-progress").inner_text()
    rating = page.locator("#puzzle-rating").inner_text()
    assert rating != "Your puzzle rating: 1500" and rating.startswith("Your puzzle rating: 1")
    # The next puzzle is another one.
    page.click("#puzzle-next")
    page.wait_for_function(f"document.getElementById('puzzle').dataset.puzzle !== {puzzle['id']!r}")


def test_a_wrong_move_is_refuted_and_can_be_retried(live_server, open_page) -> None:
    puzzle = a_puzzle()
    page = open_puzzle(open_page, live_server, puzzle)
    wrong, refutation = next(iter(puzzle["tree"]["refute"].items()))
    page.click(f'#puzzle-board [data-cell="{wrong}"]')
    page.wait_for_selector('#puzzle[data-result="wrong"]')
    status = page.locator("#puzzle-status").inner_text()
    if refutation:
        assert f"{wrong} loses: the computer answers {refutation}. Try again." == status
        # The refutation is on the board: the snail (or slime) stands on its cell.
        assert page.locator(f'#puzzle-board [data-cell="{refutation}"]').count() == 1
        assert page.locator("#puzzle-moves").inner_text() == f"{wrong} {refutation}"
    else:
        assert f"{wrong} loses at once." in status
    assert "Solved 0 of 1 tried" in page.locator("#puzzle-progress").inner_text()
    page.click("#puzzle-retry")
    assert page.locator("#puzzle-moves").inner_text() == ""
    page.click(f'#puzzle-board [data-cell="{puzzle["line"][0]}"]')
    page.wait_for_function("document.getElementById('puzzle-moves').textContent !== ''")
    assert page.locator("#puzzle-moves").inner_text().startswith(puzzle["line"][0])
    # A failed puzzle counts once: solving it after a retry changes nothing.
    assert "Solved 0 of 1 tried" in page.locator("#puzzle-progress").inner_text()
