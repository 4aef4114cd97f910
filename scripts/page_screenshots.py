"""Photograph every game's play page and rules page on a desktop and a phone, to look at.

Starts its own ``slimetrail serve`` on a free port with a throwaway database (or uses
``--url`` of a running server), creates a game between two people on one device for every
registered game, plays a few legal moves through the API, and writes full-page PNGs
``<game>-<play|rules>-<width>.png`` (1280x800 and 390x844) to ``--out``; with ``--site``,
also the site's other pages (``site-<page>-<width>.png``: home, solved, explore, lobby,
my-games, a finished game with its review, an error page).  Run from the repository root:

    python scripts/page_screenshots.py [--out shots] [--moves 4] [--games slither snake-pit]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import httpx2 as httpx

# The server helpers are test machinery (tests/liveserver.py), started as screenshot.py does.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import CHROMIUM, CHROMIUM_ARGS
from screenshot import start_server

from slimetrail.core.registry import GAMES, get_game

SIZES = [(1280, 800), (390, 844)]
# The site's pages besides the games' (--site): name and path.
SITE = {
    "home": "/",
    "solved": "/solved",
    "explore": "/explore",
    "lobby": "/lobby",
    "my-games": "/my-games",
    "error": "/no-such-page",
}
FINISHED = ("slimetrail", {"size": 5})  # a game short enough to play to its end for a review


def game_with_moves(base: str, game: str, moves: int, options: dict | None = None) -> str:
    """A game on one device with ``moves`` moves played (a legal move a third of the way
    down the engine's list, never pass or swap; fewer if the game ends); returns its page
    path."""
    body = {"game": game, "options": options or {}, "opponent": "hotseat"}
    answer = httpx.post(f"{base}/api/matches", json=body)
    answer.raise_for_status()
    match = answer.json()
    url = match["links"]["1"]
    token = url.split("seat=")[1]
    state = get_game(game, **(options or {})).new_state()
    for ply in range(moves):
        choices = [m for m in state.legal_move_strs() if m not in ("pass", "swap")]
        if state.outcome() is not None or not choices:
            break
        move = choices[len(choices) // 3]
        state.push_str(move)
        body = {"seat": token, "move": move, "ply": ply}
        httpx.post(f"{base}/api/matches/{match['id']}/move", json=body).raise_for_status()
    return url


def site_pages(page, base: str, finished: str, name: str) -> None:
    """The pages of ``SITE`` and the finished game's page with its review opened, each to
    ``name.format(page name)``."""
    for title, path in SITE.items():
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=name.format(title), full_page=True)
    page.goto(base + finished)
    page.click("#review")
    page.wait_for_selector("#review-graph svg", state="attached", timeout=120_000)
    page.mouse.move(0, 0)
    page.screenshot(path=name.format("review"), full_page=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("shots"))
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    parser.add_argument("--moves", type=int, default=4, help="moves to play on each board")
    parser.add_argument("--games", nargs="*", help="game ids (default: every registered game)")
    parser.add_argument("--site", action="store_true", help="the site's other pages too")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    games = args.games or list(GAMES)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = None if args.url else start_server(Path(folder))
        base = server.url if server else args.url.rstrip("/")
        try:
            paths = {game: game_with_moves(base, game, args.moves) for game in games}
            finished = game_with_moves(base, FINISHED[0], 99, FINISHED[1]) if args.site else ""
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for width, height in SIZES:
                    page = browser.new_page(viewport={"width": width, "height": height})
                    for game in games:
                        page.goto(base + paths[game])
                        page.wait_for_selector("#board [data-cell]", state="attached")
                        page.mouse.move(0, 0)
                        page.screenshot(path=str(args.out / f"{game}-play-{width}.png"))
                        page.goto(f"{base}/rules/{game}")
                        page.screenshot(
                            path=str(args.out / f"{game}-rules-{width}.png"), full_page=True
                        )
                    if args.site:
                        site_pages(page, base, finished, str(args.out / f"site-{{}}-{width}.png"))
                    page.close()
                browser.close()
        finally:
            if server is not None:
                server.kill()
    pictures = (len(games) * 2 + (len(SITE) + 1 if args.site else 0)) * len(SIZES)
    print(f"wrote {pictures} pictures to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
