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


def a_slither_puzzle() -> dict:
    """A Slither puzzle whose first move steps a stone, and a wrong move that does too."""
    return next(
        p
        for p in puzzles.puzzles("slither")
        if "-" in p["line"][0]
        and len(p["line"]) >= 3
        and any("-" in m and r for m, r in p["tree"]["refute"].items())
    )


def click_move(page, state, move: str) -> None:
    """A compound move click by click: each click waits for the server's next clicks."""
    path = state.click_path(state.parse_move(move))
    for made, click in enumerate(path, 1):
        page.click(f'#puzzle-board [data-cell="{click}"]')
        if made < len(path):
            so_far = f"Move so far: {' '.join(path[:made])}"
            page.wait_for_function(f"document.getElementById('partial').textContent === {so_far!r}")
            # the cells picked are marked, the next ones offered
            assert page.locator(f'#puzzle-board [data-cell="{click}"].chosen').count() == 1
            assert page.locator(f'#puzzle-board [data-cell="{path[made]}"].legal').count() == 1


def test_a_slither_puzzle_is_solved_by_compound_clicks(live_server, open_page) -> None:
    puzzle = a_slither_puzzle()
    page = open_page(f"{live_server}/puzzles/slither?id={puzzle['id']}")
    page.wait_for_selector(f'#puzzle[data-puzzle="{puzzle["id"]}"] #puzzle-board svg')
    line = puzzle["line"]
    # Cancel drops a move under way.
    state = puzzles.position(puzzle)
    stone = state.click_path(state.parse_move(line[0]))[0]
    page.click(f'#puzzle-board [data-cell="{stone}"]')
    page.wait_for_selector("#cancel:not([hidden])")
    page.click("#cancel")
    page.wait_for_selector("#partial", state="hidden")
    assert page.locator("#puzzle-board .chosen").count() == 0
    for index in range(0, len(line), 2):
        click_move(page, puzzles.position(puzzle, line[:index]), line[index])
        played = " ".join(line[: index + 2])
        page.wait_for_function(
            f"document.getElementById('puzzle-moves').textContent === {played!r}"
        )
    assert f"Solved! {line[-1]} wins." in page.locator("#puzzle-status").inner_text()
    assert "Solved 1 of 1 tried" in page.locator("#puzzle-progress").inner_text()


def test_a_wrong_slither_move_is_refuted_on_the_board(live_server, open_page) -> None:
    puzzle = a_slither_puzzle()
    page = open_page(f"{live_server}/puzzles/slither?id={puzzle['id']}")
    page.wait_for_selector(f'#puzzle[data-puzzle="{puzzle["id"]}"] #puzzle-board svg')
    wrong, refutation = next((m, r) for m, r in puzzle["tree"]["refute"].items() if "-" in m and r)
    click_move(page, puzzles.position(puzzle), wrong)
    page.wait_for_selector('#puzzle[data-result="wrong"]')
    status = page.locator("#puzzle-status").inner_text()
    assert status == f"{wrong} loses: the computer answers {refutation}. Try again."
    assert page.locator("#puzzle-moves").inner_text() == f"{wrong} {refutation}"
    # The refutation is on the board: a stone on the cell of its placement.
    placed = puzzles.position(puzzle, [wrong]).click_path(
        puzzles.position(puzzle, [wrong]).parse_move(refutation)
    )[-1]
    assert page.locator(f'#puzzle-board [data-cell="{placed}"][class*="mark-stone"]').count() == 1
    page.click("#puzzle-retry")
    click_move(page, puzzles.position(puzzle), puzzle["line"][0])
    page.wait_for_function("document.getElementById('puzzle-moves').textContent !== ''")
    assert page.locator("#puzzle-moves").inner_text().startswith(puzzle["line"][0])


def test_a_draw_saving_puzzle_shows_its_goal_and_is_played_to_the_draw(
    live_server, open_page
) -> None:
    puzzle = next(p for p in puzzles.puzzles("slime-moku") if p.get("goal") == "draw")
    page = open_page(f"{live_server}/puzzles/slime-moku?id={puzzle['id']}")
    page.wait_for_selector(f'#puzzle[data-puzzle="{puzzle["id"]}"] #puzzle-board svg')
    assert "find the only move that saves the draw" in page.locator("#puzzle-status").inner_text()
    line = puzzle["line"]
    for index in range(0, len(line), 2):
        click_move(page, puzzles.position(puzzle, line[:index]), line[index])
        played = " ".join(line[: index + 2])
        page.wait_for_function(
            f"document.getElementById('puzzle-moves').textContent === {played!r}"
        )
    assert page.locator("#puzzle-status").inner_text() == "Solved! The draw is saved."


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_small_board_is_drawn_big_enough_to_click(live_server, open_page, size) -> None:
    """A 4x4 Slither puzzle beside the panel grows to a board worth clicking (it was 44 px a
    cell, a sixth of a laptop's screen), and stays within the screen on a laptop and a phone."""
    puzzle = next(p for p in puzzles.puzzles("slither") if p["options"].get("size") == "4")
    page = open_page(f"{live_server}/puzzles/slither?id={puzzle['id']}", size=size)
    page.wait_for_selector(f'#puzzle[data-puzzle="{puzzle["id"]}"] #puzzle-board svg')
    board = page.locator("#puzzle-board svg").bounding_box()
    cell = page.locator('#puzzle-board [data-cell="a1"]').bounding_box()
    assert board is not None and cell is not None
    assert cell["width"] >= 70, cell
    assert board["x"] >= 0 and board["x"] + board["width"] <= size[0]
    assert board["y"] + board["height"] <= size[1] or size[0] < 800  # a phone scrolls down
    assert page.evaluate("document.scrollingElement.scrollWidth") <= size[0]
