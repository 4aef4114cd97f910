"""The web front end in a real browser: Playwright driving the system Chromium.

Each test runs against a real ``slimetrail serve`` subprocess (the session's ``live_server`` of
conftest.py, 0.3 s computer moves, each test on matches of its own) and plays through the
pages the way a person would: clicks on board cells, the keyboard, the move box, the links.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2 as httpx
import pytest
from pagetools import (
    drawn_mark,
    legal_cells,
    match_api,
    moves,
    start_from_home,
    wait_for_moves,
    wait_for_note,
    wait_loaded,
    wait_turn_or_result,
)

pytestmark = pytest.mark.browser


# -- tests ---------------------------------------------------------------------------


def test_whole_game_against_the_computer_by_clicking(live_server, new_page) -> None:
    page = new_page()
    start_from_home(page, live_server, "slimetrail", level="1", side="1")
    assert page.locator("#status").inner_text() == "Your move (Green)."
    for _ in range(40):
        wait_turn_or_result(page)
        if page.locator("#result").is_visible():
            break
        before = len(moves(page))
        cells = legal_cells(page)
        assert cells, "my turn, yet no cell is highlighted"
        page.click(f'#board [data-cell="{cells[0]}"]')
        wait_for_moves(page, before + 1)
        assert moves(page)[before] == cells[0]
    else:
        pytest.fail("the game did not end")

    match = match_api(live_server, page)
    assert match["outcome"] is not None
    result = page.locator("#result").inner_text()
    expected = "You win!" if match["outcome"]["winner"] == 1 else "You lose"
    assert expected in result
    assert match["outcome"]["result"] in result
    # The live region announces the result to screen readers as well.
    status = page.locator("#status")
    assert status.get_attribute("aria-live") == "polite"
    assert "wins" in status.inner_text()
    assert moves(page) == match["moves"]
    assert legal_cells(page) == []


def test_friend_game_between_two_browsers_updates_live(live_server, new_page) -> None:
    alice = new_page(f"{live_server}/new/slimetrail?opponent=friend&side=1")
    invite = alice.locator('#link-list input[data-link="2"]').input_value()
    watch = alice.locator('#link-list input[data-link="watch"]').input_value()
    assert "seat=" in invite and "seat=" not in watch
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    alice.locator('#link-list .link-row:has(input[data-link="2"]) button').click()
    assert alice.evaluate("navigator.clipboard.readText()") == invite
    bob = new_page(invite)
    assert bob.locator("#status").inner_text() == "Waiting for Green\u2026"
    assert legal_cells(bob) == []

    alice.click('#board [data-cell="d5"]')
    wait_for_moves(bob, 1)  # arrives over the WebSocket, no reload
    assert moves(bob) == ["d5"]
    bob.wait_for_selector("#board [data-cell].legal")
    assert "e6" in legal_cells(bob)
    assert legal_cells(alice) == []

    bob.click('#board [data-cell="e6"]')
    wait_for_moves(alice, 2)
    assert moves(alice) == ["d5", "e6"]
    assert alice.locator("#status").inner_text() == "Your move (Green)."
    # The snail is drawn where the last move took it, and the trail runs through every cell.
    assert drawn_mark(alice, "e6", "snail")
    assert drawn_mark(alice, "d5", "slime")
    # Undo is not offered between two people.
    assert not alice.locator("#undo").is_visible()


def test_spectator_cannot_move(live_server, new_page) -> None:
    player = new_page(f"{live_server}/new/slimetrail?opponent=friend&side=1")
    watch = player.locator('#link-list input[data-link="watch"]').input_value()
    spectator = new_page(watch)
    assert "watching" in spectator.locator("#status").inner_text()
    assert legal_cells(spectator) == []
    assert not spectator.locator("#move-form").is_visible()
    # Clicking a neighbour of the snail does nothing.
    requests: list[str] = []
    spectator.on("request", lambda request: requests.append(request.url))
    spectator.click('#board [data-cell="d5"]')
    wait_for_note(spectator, "You are watching")  # the click was handled: by a note only
    assert not [url for url in requests if url.endswith("/move")]
    assert moves(spectator) == []
    # The API refuses a move without a seat token.
    match_id = watch.rsplit("/", 1)[1]
    answer = httpx.post(
        f"{live_server}/api/matches/{match_id}/move", json={"seat": "", "move": "d5", "ply": 0}
    )
    assert answer.status_code == 403
    # But the spectator does see the players' moves live.
    player.click('#board [data-cell="c5"]')
    wait_for_moves(spectator, 1)
    assert moves(spectator) == ["c5"]
    assert legal_cells(spectator) == []


@pytest.mark.slow
def test_game_continues_after_the_server_is_killed(restartable_server, new_page) -> None:
    live_server = restartable_server
    page = new_page(f"{live_server}/new/slimetrail?opponent=computer&level=2&side=1")
    page.click('#board [data-cell="d5"]')
    wait_for_moves(page, 1)
    live_server.restart()  # kill -9 (maybe mid computer move), start on the same database
    page.reload()
    wait_loaded(page)
    wait_for_moves(page, 2)  # the computer's reply, resumed after the restart if need be
    wait_turn_or_result(page)
    before = moves(page)
    assert before[0] == "d5" and len(before) == 2
    cell = legal_cells(page)[0]
    page.click(f'#board [data-cell="{cell}"]')
    wait_for_moves(page, 4)
    assert moves(page)[:3] == [*before, cell]
    # The page that stays open over a second restart reconnects by itself and plays on.
    connects = int(page.get_attribute("#play", "data-connects"))
    live_server.restart()
    page.wait_for_function(
        "n => +document.getElementById('play').dataset.connects > n", arg=connects
    )
    assert page.locator("#conn").is_hidden()
    wait_turn_or_result(page)
    assert moves(page) == match_api(live_server, page)["moves"]
    if page.locator("#result").is_hidden():
        cell = legal_cells(page)[0]
        page.click(f'#board [data-cell="{cell}"]')
        wait_for_moves(page, 6)  # the computer's reply comes over the new socket
        assert moves(page)[4] == cell


def test_keyboard_only_move_and_move_list_navigation(live_server, new_page) -> None:
    page = new_page(f"{live_server}/new/slimetrail?opponent=hotseat")
    for _ in range(30):
        if page.evaluate("document.activeElement && document.activeElement.id") == "board":
            break
        page.keyboard.press("Tab")
    else:
        pytest.fail("Tab never reached the board")
    # The focus starts on the snail (d4); up, then right: e5.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowRight")
    assert page.locator("#board [data-cell].focus").count() == 1
    assert page.locator("#board-focus").inner_text().startswith("e5")
    page.keyboard.press("Enter")
    wait_for_moves(page, 1)
    assert moves(page) == ["e5"]
    page.keyboard.press("ArrowDown")  # e4 is next to the snail on e5
    page.keyboard.press("Enter")
    wait_for_moves(page, 2)
    assert moves(page) == ["e5", "e4"]

    # Outside the board the arrow keys and Home/End walk through the moves.
    page.locator("#moves-title").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#viewing:not([hidden])")
    assert "after move 1 of 2" in page.locator("#viewing").inner_text()
    assert drawn_mark(page, "e5", "snail")
    assert legal_cells(page) == []  # no moving from a past position
    page.keyboard.press("Home")
    page.wait_for_function("document.querySelector('#viewing').textContent.includes('move 0')")
    assert drawn_mark(page, "d4", "snail")
    page.keyboard.press("End")
    page.wait_for_selector("#viewing", state="hidden")
    assert drawn_mark(page, "e4", "snail")
    assert legal_cells(page)


def test_typed_moves_and_bad_input_errors(live_server, new_page) -> None:
    page = new_page(f"{live_server}/new/slimetrail?opponent=hotseat")
    box, error = page.locator("#move-input"), page.locator("#move-error")
    box.fill("zz9")
    box.press("Enter")
    page.wait_for_function("document.getElementById('move-error').textContent !== ''")
    assert "zz9" in error.inner_text()
    assert moves(page) == []
    assert box.input_value() == "zz9"  # the text stays for correcting
    box.fill("a1")
    box.press("Enter")
    page.wait_for_function("document.getElementById('move-error').textContent.includes('a1')")
    assert "not next to the snail" in error.inner_text()
    box.fill("")
    page.get_by_role("button", name="Move", exact=True).click()
    assert "Type a move" in error.inner_text()
    box.fill("ne")  # a compass direction: d4 -> e5
    box.press("Enter")
    wait_for_moves(page, 1)
    assert moves(page) == ["e5"]
    page.wait_for_function("document.getElementById('move-input').value === ''")
    assert error.inner_text() == ""


def test_export_and_import_round_trip(live_server, new_page, tmp_path: Path) -> None:
    page = new_page(f"{live_server}/new/slimetrail-hex?opponent=hotseat&size=6")
    for text in ("e", "nw", "ne"):
        before = len(moves(page))
        page.locator("#move-input").fill(text)
        page.locator("#move-input").press("Enter")
        wait_for_moves(page, before + 1)
    played = moves(page)
    assert len(played) == 3
    assert page.locator("#board [data-cell] polygon.cell-shape").count() == 36  # hexagons, 6x6
    page.locator("#record-box summary").click()
    with page.expect_download() as pgn_download:
        page.click("#export-pgn")
    pgn = Path(pgn_download.value.path()).read_text()
    with page.expect_download() as json_download:
        page.click("#export-json")
    json_path = tmp_path / "game.json"
    pgn_download_json = Path(json_download.value.path()).read_text()
    json_path.write_text(pgn_download_json)
    assert json.loads(pgn_download_json)["moves"] == played

    # PGN text pasted on the home page replays the same game.
    page.goto(f"{live_server}/")
    page.locator("#import-text").fill(pgn)
    page.get_by_role("button", name="Import and replay").click()
    page.wait_for_url("**/play/**")
    wait_loaded(page)
    wait_for_moves(page, 3)
    assert moves(page) == played
    assert page.locator("#title").inner_text() == "Slime Trail (hex)"

    # The JSON file chosen on the play page does too; a broken record gets an inline error.
    page.locator("#record-box summary").click()
    page.locator("#import-text").fill("this is not a game record")
    page.locator("#import-form button[type=submit]").click()
    page.wait_for_function("document.getElementById('import-error').textContent !== ''")
    assert "Could not import" in page.locator("#import-error").inner_text()
    page.locator("#import-file").set_input_files(str(json_path))
    page.wait_for_function("document.getElementById('import-text').value.includes('moves')")
    old_url = page.url
    page.locator("#import-form button[type=submit]").click()
    page.wait_for_url(lambda url: url != old_url)
    wait_loaded(page)
    wait_for_moves(page, 3)
    assert moves(page) == played


def test_undo_analyse_and_new_game(live_server, new_page) -> None:
    page = new_page(f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1&size=5")
    page.click('#board [data-cell="c4"]')
    wait_for_moves(page, 2)
    wait_turn_or_result(page)
    page.click("#undo")  # takes back the computer's reply and my move
    page.wait_for_function("document.querySelectorAll('#move-list .mv').length === 0")
    assert "c4" in legal_cells(page)

    # The server draws the board: rank 1 at the bottom, file a on the left.  Both cells are
    # measured in one step (a live update may replace the board between two).
    a1, e5 = page.evaluate(
        "names => names.map(n => { const r = document.querySelector("
        '`#board [data-cell="${n}"]`).getBoundingClientRect(); return [r.x, r.y]; })',
        ["a1", "e5"],
    )
    assert a1[1] > e5[1] and a1[0] < e5[0]

    page.click("#analyse")
    page.wait_for_selector("#analysis .move-values li")
    expected = httpx.post(
        f"{live_server}/api/analyse",
        json={"game": "slimetrail", "options": {"size": "5"}, "moves": []},
    ).json()
    assert expected["solved"]
    words = {"win": "wins", "loss": "loses", "draw": "draws"}
    shown = page.locator("#analysis .move-values .what").all_inner_texts()
    assert sorted(shown) == sorted(
        f"{move} {words[value]}" for move, value in expected["moves"].items()
    )
    # Each legal cell carries a W/L/D badge as well as its colour.
    letters = page.locator("#board .badge text").all_text_contents()
    assert sorted(letters) == sorted(value[0].upper() for value in expected["moves"].values())

    # A new game with the other side at another level: the computer opens.
    page.locator("#new-game summary").click()
    page.locator("#new-game-form select[name=level]").select_option("2")
    assert page.locator("#new-game-form select[name=side]").input_value() == "2"
    old_url = page.url
    page.get_by_role("button", name="Start", exact=True).click()
    page.wait_for_url(lambda url: url != old_url)
    wait_loaded(page)
    wait_for_moves(page, 1)
    match = match_api(live_server, page)
    assert (match["computer_side"], match["level"], match["options"]["size"]) == (1, 2, "5")
    assert page.locator('#players .player[data-player="2"] .name').inner_text() == (
        "Red \u00b7 you"
    )
    assert "to-move" in page.get_attribute('#players .player[data-player="2"]', "class")


def test_analyse_says_when_it_cannot_solve(live_server, new_page) -> None:
    page = new_page(f"{live_server}/new/slimetrail?opponent=hotseat&size=15")
    page.click("#analyse")
    page.wait_for_function(
        "document.getElementById('analysis').textContent.startsWith('Could not solve')",
        timeout=30_000,
    )
    assert page.locator("#board .badge").count() == 0


def test_thinking_indicator_and_result_pushed_over_the_socket(live_server, new_page) -> None:
    real = httpx.post(
        f"{live_server}/api/matches", json={"game": "slimetrail", "opponent": "computer"}
    ).json()
    token = real["links"]["1"].split("seat=")[1]
    players = [{**p, "to_move": p["player"] == 2} for p in real["players"]]
    players[1]["kind"], players[1]["level"] = "computer", 3
    thinking = {
        **real,
        "moves": ["d5"],
        "movers": [1],
        "move_colours": real["player_colours"][:1],
        "ply": 1,
        "to_move": 2,
        "thinking": True,
        "clicks": {},
        "players": players,
    }
    sockets = []

    def on_socket(socket) -> None:
        sockets.append(socket)
        socket.send(json.dumps({"type": "match", "match": thinking}))

    page = new_page()
    page.route(f"**/api/matches/{real['id']}**", lambda route: route.fulfill(json=thinking))
    page.route_web_socket(f"**/ws/matches/{real['id']}**", on_socket)
    page.goto(f"{live_server}/play/{real['id']}?seat={token}")
    wait_loaded(page)
    page.wait_for_selector("#thinking", state="visible")
    assert page.locator("#status").inner_text() == "Red (computer) to move."
    assert legal_cells(page) == []

    won = {
        **thinking,
        "moves": ["d5", "c4", "b3", "a2", "a1"],
        "movers": [1, 2, 1, 2, 1],
        "move_colours": [real["player_colours"][m - 1] for m in [1, 2, 1, 2, 1]],
        "ply": 5,
        "thinking": False,
        "outcome": {"winner": 1, "reason": "goal", "result": "1-0", "places": [1, 2]},
        "result_sentence": "The snail reached Green's goal: Green wins.",
        "players": [
            {**p, "to_move": False, "place": p["player"], "result": ["win", "loss"][i]}
            for i, p in enumerate(players)
        ],
    }
    sockets[0].send(json.dumps({"type": "match", "match": won}))
    page.wait_for_selector("#result", state="visible")
    assert page.locator("#thinking").is_hidden()
    assert page.locator("#result").inner_text().startswith("You win!")
    assert page.locator("#status").inner_text() == (
        "The snail reached Green's goal: Green wins. (1-0)"
    )
    assert page.locator("#move-input").is_disabled()


@pytest.mark.parametrize("game", ["slimetrail size=15", "slimetrail-hex size=15"])
def test_the_largest_boards_are_usable_on_a_phone_screen(live_server, browser, game: str) -> None:
    # Issue 24: cells a finger can hit (40 px) rather than the whole board on the screen; a
    # board wider than the screen scrolls in its own box, and the page never sideways.
    game_id, size = game.split(" size=")
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, bypass_csp=True
    )
    try:
        page = context.new_page()
        page.goto(f"{live_server}/new/{game_id}?opponent=hotseat&size={size}")
        wait_loaded(page)
        # Cells are attached before the SVG is sized, and a redraw (say, on a message from the
        # server) attaches new ones: check and measure in one go, once all are laid out.
        measured = page.wait_for_function(
            "n => { const cells = [...document.querySelectorAll('#board [data-cell]')]; "
            "const rects = cells.map(c => c.getBoundingClientRect()); "
            "if (cells.length !== n || rects.some(r => !r.width || !r.height)) return null; "
            "const b = document.getElementById('board').getBoundingClientRect(); "
            "return {board: [b.left, b.right], page: document.scrollingElement.scrollWidth, "
            "cells: rects.map(r => Math.min(r.width, r.height))}; }",
            arg=int(size) ** 2,
        ).json_value()
        left, right = measured["board"]
        assert left >= 0 and right <= 390 and measured["page"] <= 390
        assert len(measured["cells"]) == int(size) ** 2
        assert round(min(measured["cells"])) >= 40  # big enough to tap
        # Every cell can be scrolled into the board's box and tapped there.
        for corner in ("a1", f"{'abcdefghijklmnopqrstuvwxyz'[int(size) - 1]}{size}"):
            page.locator(f'#board [data-cell="{corner}"]').scroll_into_view_if_needed()
            box = page.locator(f'#board [data-cell="{corner}"]').bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    finally:
        context.close()


# -- any game: three players, compound moves, swap, pass ------------------------------------


def bars(page) -> list[dict]:
    """The player bars: name text, whether lit as the mover, the colour shown."""
    return page.eval_on_selector_all(
        "#players .player",
        "bars => bars.map(b => ({player: +b.dataset.player, name: b.querySelector('.name')"
        ".textContent, lit: b.classList.contains('to-move'), colour: b.style.getPropertyValue("
        "'--colour'), note: b.querySelector('.note').textContent}))",
    )


def click_and_wait(page, cell: str) -> None:
    before = len(moves(page))
    page.click(f'#board [data-cell="{cell}"]')
    wait_for_moves(page, before + 1)


@pytest.mark.slow
def test_three_players_with_a_computer_and_a_friend_then_rematch(toy_server, new_page):
    me = new_page(f"{toy_server}/new/toy-three?seats=me,computer:1,friend")
    invite = me.locator('#link-list input[data-link="3"]').input_value()
    friend = new_page(invite)
    shown = bars(me)
    assert [b["player"] for b in shown] == [1, 2, 3]
    assert [b["lit"] for b in shown] == [True, False, False]
    assert "computer, level 1" in shown[1]["name"] and "you" in shown[0]["name"]
    assert bars(friend)[2]["name"] == "Red \u00b7 you"
    assert len({b["colour"] for b in shown}) == 3
    assert friend.locator("#status").inner_text() == "Waiting for Green\u2026"
    for _ in range(12):
        if me.locator("#result").is_visible():
            break
        match = match_api(toy_server, me)
        if match["outcome"]:
            break
        if match["to_move"] == 2:
            wait_for_moves(me, match["ply"] + 1)
            continue
        page = me if match["to_move"] == 1 else friend
        page.wait_for_selector("#board [data-cell].legal")
        lit = [b["player"] for b in bars(page) if b["lit"]]
        assert lit == [match["to_move"]]
        other = friend if page is me else me
        assert legal_cells(other) == []
        click_and_wait(page, legal_cells(page)[0])
        wait_for_moves(other, match["ply"] + 1)  # the other person sees it live
    match = match_api(toy_server, me)
    assert match["outcome"] is not None and len(match["moves"]) == 12
    for page in (me, friend):
        page.wait_for_selector("#result:not([hidden])")
        assert match["outcome"]["result"] in page.locator("#result").inner_text()
        assert not any(b["lit"] for b in bars(page))
    places = {b["player"]: b["note"] for b in bars(me)}
    for player, place in enumerate(match["outcome"]["places"], 1):
        assert places[player] in ({"wins", "first (shared)"} if place == 1 else {f"place {place}"})

    # Rematch: the friend's page is shown the way to their own seat in the new match.
    me.click("#rematch")
    me.wait_for_url(lambda url: match["id"] not in url)
    wait_loaded(me)
    friend.wait_for_selector("#rematch-ready:not([hidden])")
    friend.click("#rematch-ready a")
    friend.wait_for_url(lambda url: match["id"] not in url)
    wait_loaded(friend)
    again = match_api(toy_server, friend)
    assert again["id"] != match["id"] and again["seats"] == [2]  # seats rotated: 3 -> 2
    assert match_api(toy_server, me)["seats"] == [3]
    assert bars(friend)[1]["name"] == "Blue \u00b7 you"  # names go with the player numbers


def test_compound_move_by_clicks_with_swap_and_cancel(toy_server, new_page) -> None:
    page = new_page(f"{toy_server}/new/toy-pie?opponent=hotseat")
    assert page.locator("#actions-bar button").count() == 0
    click_and_wait(page, "b2")  # Black places a stone: one click
    # White may swap: a button, since the move names no cell.
    swap = page.locator('#actions-bar button[data-action="swap"]')
    swap.wait_for()
    before = bars(page)
    swap.click()
    wait_for_moves(page, 2)
    after = bars(page)
    # The colours are exchanged, not the players: player 1 is White now and to move.
    assert [b["colour"] for b in after] == [before[1]["colour"], before[0]["colour"]]
    assert [b["lit"] for b in after] == [True, False]
    assert page.locator("#actions-bar button").count() == 0
    click_and_wait(page, "c3")  # player 1, now White
    # Player 2 (Black's stone on b2): step b2 -> a1, then place on d4: three clicks.
    page.click('#board [data-cell="b2"]')
    page.wait_for_selector('#board [data-cell="b2"].chosen')
    assert "Move so far: b2" in page.locator("#partial").inner_text()
    assert sorted(legal_cells(page)) == ["a1", "a2", "a3", "b1", "b3", "c1", "c2"]
    page.keyboard.press("Escape")  # cancelled: back to the first clicks
    page.wait_for_selector("#board [data-cell].chosen", state="detached")
    assert page.locator("#partial").is_hidden() and "d4" in legal_cells(page)
    page.click('#board [data-cell="b2"]')
    page.wait_for_selector('#board [data-cell="b2"].chosen')
    page.click("#cancel")
    page.wait_for_selector("#board [data-cell].chosen", state="detached")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.click('#board [data-cell="b2"]')
    page.wait_for_selector('#board [data-cell="b2"].chosen')
    page.click('#board [data-cell="a1"]')
    page.wait_for_selector('#board [data-cell="a1"].chosen')
    assert "a1" not in legal_cells(page) and "d4" in legal_cells(page)
    assert not [url for url in requests if url.endswith("/move")]  # nothing sent yet
    click_and_wait(page, "d4")
    assert moves(page) == ["b2", "swap", "c3", "b2-a1/d4"]
    assert [url for url in requests if "/clicks?" in url][-1].endswith("prefix=b2%2Ca1")
    assert page.locator("#partial").is_hidden()


def test_forced_pass_buttons_finish_the_game_and_rematch(toy_server, new_page) -> None:
    page = new_page(f"{toy_server}/new/toy-pie?opponent=hotseat")
    match = match_api(toy_server, page)
    seat = page.url.split("seat=")[1]
    fill = ["a1", "a3", "a4", "c3", "b2", "b4", "b3", "a2", "c1", "c2", "c4", "b1"]
    for ply, cell in enumerate([*fill, "d3", "d4", "d2", "d1"]):
        answer = httpx.post(
            f"{toy_server}/api/matches/{match['id']}/move",
            json={"seat": seat, "move": cell, "ply": ply},
        )
        assert answer.status_code == 200, answer.text
    wait_for_moves(page, 16)  # the page follows the moves made elsewhere
    assert legal_cells(page) == []
    for count in (17, 18):
        page.locator('#actions-bar button[data-action="pass"]').click()
        wait_for_moves(page, count)
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#result strong").inner_text() == "Draw"
    # The toy game's declared sentence for its "two passes" ending.
    assert "Nobody could place a stone: a draw." in page.locator("#result").inner_text()
    assert page.locator("#resign").is_hidden()
    page.click("#rematch")
    page.wait_for_url(lambda url: match["id"] not in url)
    wait_loaded(page)
    assert moves(page) == [] and len(legal_cells(page)) == 16


def test_resign_button(toy_server, new_page) -> None:
    page = new_page(f"{toy_server}/new/toy-pie?opponent=computer&level=1")
    page.click("#resign")
    page.click("#resign-yes")
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#result strong").inner_text() == "You lose"
    assert "Black resigned" in page.locator("#result").inner_text()
