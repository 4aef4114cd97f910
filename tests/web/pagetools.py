"""What the browser tests read from and wait for on the play page, in one place.

Every wait is on a condition in the page (Playwright's own polling, under the page's default
timeout), never a fixed time.
"""

from __future__ import annotations

import time

import httpx2 as httpx
from liveserver import TLS


def wait_loaded(page) -> None:
    page.wait_for_selector("#board [data-cell]", state="attached")


def wait_my_turn(page) -> None:
    page.wait_for_selector("#board [data-cell].legal", state="attached")


def moves(page) -> list[str]:
    return page.locator("#move-list .mv").all_inner_texts()


def legal_cells(page) -> list[str]:
    script = "cells => cells.map(c => c.dataset.cell)"
    return page.eval_on_selector_all("#board [data-cell].legal", script)


def drawn_mark(page, cell: str, mark: str) -> bool:
    """Whether the server's board shows ``mark`` (a view mark: snail, slime...) on ``cell``."""
    classes = page.get_attribute(f'#board [data-cell="{cell}"]', "class") or ""
    return f"mark-{mark}" in classes.split()


def wait_for_moves(page, count: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('#move-list .mv').length >= n", arg=count
    )


def wait_turn_or_result(page, *, buttons: bool = False) -> None:
    """Until the page offers a move (a legal cell; with ``buttons`` an action button such as
    swap or pass as well) or shows the result."""
    actions = "document.querySelector('#actions-bar button') || " if buttons else ""
    page.wait_for_function(
        "document.querySelector('#board [data-cell].legal') || "
        + actions
        + "!document.getElementById('result').hidden"
    )


def wait_for_note(page, text: str) -> None:
    """Until the note under the board (what a click did, or why it did nothing) has ``text``."""
    page.wait_for_function(
        "t => document.getElementById('board-note').textContent.includes(t)", arg=text
    )


def match_api(base: str, page, seat: str | None = None) -> dict:
    """The match the page shows, from the API, as the page's seat (or ``seat``) sees it."""
    match_id = page.url.split("/play/")[1].split("?")[0]
    seat = seat or (page.url.split("seat=")[1] if "seat=" in page.url else None)
    params = {"seat": seat} if seat else {}
    # A server just restarted sheds requests (503) while it starts; the page retries so too.
    for _ in range(30):
        answer = httpx.get(f"{base}/api/matches/{match_id}", params=params, verify=TLS)
        if answer.status_code != 503:
            break
        time.sleep(float(answer.headers.get("Retry-After", 1)))
    assert answer.is_success, f"{answer.status_code} {answer.text}"
    return answer.json()


def start_from_home(page, base: str, game: str, **fields: str) -> None:
    """Fill in the game's card on the home page and start."""
    page.goto(f"{base}/")
    card = page.locator(f"#game-{game}")
    opponent = fields.pop("opponent", "computer")
    card.locator(f"input[name=opponent][value={opponent}]").check()
    for name, value in fields.items():
        card.locator(f"select[name={name}]").select_option(value)
    card.get_by_role("button", name="Start a game").click()
    page.wait_for_url("**/play/**")
    wait_loaded(page)


def wait_frames(page) -> None:
    """Until the browser has drawn two more frames: layout, and anything it set off (a focus
    scrolling into view), has happened."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def luminance(rgb: str) -> float:
    """WCAG relative luminance of a computed ``rgb(r, g, b)`` colour."""
    channels = [int(part) / 255 for part in rgb[rgb.index("(") + 1 : -1].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio of two computed colours (3:1 for graphics and large text)."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


# A page script's function: the colour behind ``node`` (its first ancestor's with one).
BEHIND = """function behind(node) {
    for (let n = node.parentElement; n; n = n.parentElement) {
        const colour = getComputedStyle(n).backgroundColor;
        if (!/rgba\\(.*, 0\\)|transparent/.test(colour)) return colour;
    }
    return 'rgb(255, 255, 255)';
}"""
