"""One naming scheme for players: every game names its players by the colour they wear at the
start (declared in the game), and the pages use those names everywhere."""

from __future__ import annotations

import pytest

from slimetrail.core.registry import GAMES

pytestmark = pytest.mark.browser

PLATFORM_GAMES = {
    gid: cls for gid, cls in GAMES.items() if cls.__module__.startswith("slimetrail.")
}


def test_every_game_names_its_players_by_their_colours() -> None:
    assert "slimetrail" in PLATFORM_GAMES
    for game_id, cls in PLATFORM_GAMES.items():
        colours = tuple(colour.capitalize() for colour in cls.player_colours)
        assert cls.player_names == colours, game_id


def test_the_pages_show_the_declared_names(live_server, open_page) -> None:
    home = open_page(live_server + "/")
    for game_id, cls in PLATFORM_GAMES.items():
        card = home.locator(f"#game-{game_id}")
        assert card.locator(".players .player-name").all_inner_texts() == list(cls.player_names)
        sides = card.locator("select[name=side] option").all_inner_texts()
        assert [text.removesuffix(" (first)") for text in sides] == list(cls.player_names)
    assert "as Green" in home.locator(".play-now-note").inner_text()
    page = open_page(f"{live_server}/new/slimetrail?opponent=computer&level=1&side=1")
    page.wait_for_selector("#board [data-cell].legal", state="attached")
    names = page.locator("#players .player .name").all_inner_texts()
    assert names == ["Green \u00b7 you", "Red \u00b7 computer, level 1"]
    assert page.locator("#status").inner_text() == "Your move (Green)."
    chips = page.locator("#players .chip").all_inner_texts()
    assert chips == ["1", "2"]  # the number goes with the name, as on the board's goals
