"""What players see of quick pairing and their games, in Chromium against a real server: two
browsers pair through ``/new/slimetrail?opponent=human`` and play to the end, a closed seek
page leaves the lobby, and ``/my-games`` survives a server restart."""

from __future__ import annotations

import httpx2 as httpx
from pagetools import legal_cells, match_api, wait_loaded
from waiting import wait_until

# A board and clock of its own (5x5, 59+30): no other test's seek on the shared server matches.
LINK = "/new/slimetrail?opponent=human&size=5&clock=59%2B30"


def lobby(server: str) -> str:
    return httpx.get(f"{server}/lobby").text


def test_two_browsers_pair_through_the_link_and_play_to_the_end(live_server, open_page):
    alice = open_page(f"{live_server}{LINK}")
    alice.wait_for_url("**/seek/**")
    assert "Looking for an opponent" in alice.locator("h1").inner_text()
    seek_id = alice.url.rsplit("/", 1)[1]
    wait_until(lambda: seek_id in lobby(live_server), what="the seek in the lobby")
    bob = open_page(f"{live_server}{LINK}")
    bob.wait_for_url("**/play/**")
    alice.wait_for_url("**/play/**")  # sent there by the WebSocket, no click
    for page in (alice, bob):
        wait_loaded(page)
    a, b = match_api(live_server, alice), match_api(live_server, bob)
    assert a["id"] == b["id"] and a["seats"] != b["seats"]
    # Play to the end: whoever has a legal cell clicks the first.
    pages = {a["seats"][0]: alice, b["seats"][0]: bob}
    for _ in range(30):
        match = match_api(live_server, alice)
        if match["outcome"] is not None:
            break
        page = pages[match["to_move"]]
        page.wait_for_selector("#board [data-cell].legal", state="attached")
        page.click(f'#board [data-cell="{legal_cells(page)[0]}"]')
        wait_until(lambda m=match: match_api(live_server, alice)["ply"] > m["ply"], what="the move")
    for page in (alice, bob):
        page.wait_for_selector("#result:not([hidden])")
    # Each browser finds the game in its games, with its own result.
    results = set()
    for page in (alice, bob):
        page.goto(f"{live_server}/my-games")
        row = page.locator(f'tr[data-match="{a["id"]}"]')
        results.add(row.locator(".my-result").inner_text())
    assert results == {"won", "lost"}


def test_the_card_offers_a_person_online_and_a_closed_page_leaves_the_pool(live_server, open_page):
    page = open_page(f"{live_server}/")
    card = page.locator("#game-slimetrail-square")
    card.locator("input[name=opponent][value=human]").check()
    assert not card.locator("select[name=side]").is_visible()  # colours are drawn at random
    card.get_by_role("button", name="Start a game").click()
    page.wait_for_url("**/seek/**")
    seek_id = page.url.rsplit("/", 1)[1]
    wait_until(lambda: seek_id in lobby(live_server), what="the seek in the lobby")
    page.close()
    wait_until(lambda: seek_id not in lobby(live_server), what="the seek gone from the lobby")


def test_my_games_after_a_server_restart(restartable_server, open_page):
    page = open_page(f"{restartable_server}/new/slimetrail?opponent=hotseat")
    page.wait_for_url("**/play/**")
    wait_loaded(page)
    match_id = match_api(restartable_server, page)["id"]
    page.click(f'#board [data-cell="{legal_cells(page)[0]}"]')
    wait_until(lambda: match_api(restartable_server, page)["ply"] == 1, what="the move")
    restartable_server.restart()
    page.goto(f"{restartable_server}/my-games")
    row = page.locator(f'tr[data-match="{match_id}"]')
    assert row.locator(".my-result").inner_text() == "ongoing"
    row.get_by_role("link", name="Continue").click()
    wait_loaded(page)
    assert match_api(restartable_server, page)["ply"] == 1 and legal_cells(page)
