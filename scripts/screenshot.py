"""Take docs/screenshot.png: the play page in the middle of a game against the computer.

Starts its own ``slimetrail serve`` on a free port with a throwaway database (or uses
``--url`` of a running server), plays a few moves through the API, then photographs the
page in the system Chromium.  Run from the repository root:

    python scripts/screenshot.py [--out docs/screenshot.png] [--width 1280 --height 800]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx

# The server and database helpers are test machinery (tests/liveserver.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from liveserver import CHROMIUM, CHROMIUM_ARGS, LiveServer, free_port

# Player 1's moves on 7x7, heading for a1; a move that is not legal is replaced by the first
# legal one, so the script works whatever the computer answers.
OPENING = ["c3", "c2", "b3", "b4", "a3"]


def start_server(folder: Path) -> LiveServer:
    db_url = f"sqlite:///{folder / 'screenshot.db'}"
    server = LiveServer(free_port(), db_url, folder / "serve.log", ("--workers", "1"))
    try:
        server.start()
    except RuntimeError as error:
        sys.exit(str(error))
    return server


def wait_for_turn(base: str, match_id: str, token: str) -> dict:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = httpx.get(f"{base}/api/matches/{match_id}", params={"seat": token}).json()
        if match["clicks"] or match["outcome"]:
            return match
        time.sleep(0.2)
    sys.exit("the computer did not answer within 30 s")


def play_some_moves(base: str, moves: int) -> str:
    """A level-3 game with ``moves`` moves by player 1; returns the player's page path."""
    answer = httpx.post(
        f"{base}/api/matches",
        json={"game": "slimetrail", "options": {}, "opponent": "computer", "level": 3, "side": 1},
    )
    answer.raise_for_status()
    match = answer.json()
    url = match["links"]["1"]
    token = url.split("seat=")[1]
    for wanted in OPENING[:moves]:
        match = wait_for_turn(base, match["id"], token)
        if match["outcome"]:
            break
        move = wanted if wanted in match["clicks"] else next(iter(match["clicks"]))
        body = {"seat": token, "move": move, "ply": match["ply"]}
        httpx.post(f"{base}/api/matches/{match['id']}/move", json=body).raise_for_status()
    wait_for_turn(base, match["id"], token)
    return url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshot.png"))
    parser.add_argument("--url", help="base URL of a running server (default: start one)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--moves", type=int, default=4, help="player 1 moves to play first")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        server = None if args.url else start_server(Path(folder))
        base = server.url if server else args.url.rstrip("/")
        try:
            path = play_some_moves(base, args.moves)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                page.goto(base + path)
                page.wait_for_selector("#board .cell.legal")
                page.mouse.move(0, 0)
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            if server is not None:
                server.kill()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
