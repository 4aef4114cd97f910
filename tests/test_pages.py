"""The HTML pages served by ``slimetrail.web.pages``: home, rules and play shells.

The browser behaviour is in test_browser.py; these check the server-side HTML in-process.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from slimetrail.ai import LEVELS
from slimetrail.core.registry import GAMES, get_game
from slimetrail.web.app import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'pages.db'}"
    with TestClient(create_app(url, workers=1, move_time=0.2)) as test_client:
        yield test_client


class Forms(HTMLParser):
    """Collects each form's action and its select fields with their option values."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, list[str]]] = {}
        self.form: dict[str, list[str]] | None = None
        self.select: str | None = None
        self.svg_cells = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and a.get("action"):
            self.form = self.forms.setdefault(a["action"] or "", {})
        elif tag == "select" and self.form is not None:
            self.select = a["name"]
            self.form[self.select or ""] = []
        elif tag == "option" and self.form is not None and self.select:
            self.form[self.select].append(a["value"] or "")
        elif tag == "input" and self.form is not None and a.get("type") == "radio":
            self.form.setdefault(a["name"] or "", []).append(a["value"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = None


def test_home_offers_every_game_with_its_options(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    parser = Forms()
    parser.feed(page.text)
    assert set(parser.forms) == {f"/new/{game_id}" for game_id in GAMES}
    for game_id, cls in GAMES.items():
        form = parser.forms[f"/new/{game_id}"]
        assert form["opponent"] == ["computer", "hotseat", "friend"]
        assert form["level"] == [str(level) for level in sorted(LEVELS)]
        assert form["side"] == ["1", "2"]
        for spec in cls.option_specs:
            if spec.choices:
                assert form[spec.name] == list(spec.choices)
        assert f'href="/rules/{game_id}"' in page.text
    # The Portuguese start is offered as a named variant of Slimetrail.
    assert parser.forms["/new/slimetrail"]["start"] == ["centre", "e5"]
    assert "Portuguese variant" in page.text


def test_every_choice_on_the_home_page_starts_a_game(client: TestClient) -> None:
    parser = Forms()
    parser.feed(client.get("/").text)
    for action, fields in parser.forms.items():
        for name, values in fields.items():
            for value in values:
                answer = client.get(action, params={name: value}, follow_redirects=False)
                assert answer.status_code == 303, (action, name, value, answer.text)
                assert re.fullmatch(r"/play/[\w-]+\?seat=[\w-]+", answer.headers["location"])


@pytest.mark.parametrize("game_id", list(GAMES))
def test_rules_page_for_each_game(client: TestClient, game_id: str) -> None:
    page = client.get(f"/rules/{game_id}")
    assert page.status_code == 200
    game = get_game(game_id)
    assert f"<h1>{game.title}</h1>" in page.text
    assert page.text.count("<svg") >= 2  # diagrams
    assert "Choices this site makes" in page.text
    goals = game.describe_board()["goals"]
    for cell in (goals["1"], goals["2"], game.describe_board()["start"]):
        assert f"<code>{cell}</code>" in page.text or f"on {cell}" in page.text


def test_rules_pages_state_the_pinned_facts(client: TestClient) -> None:
    hex_page = client.get("/rules/slimetrail-hex").text
    for fact in ("<code>j10</code>", "obtuse", "short diagonal", "(+1, +1)", "rules=rastros"):
        assert fact in hex_page
    # The published sample game, corrected, is quoted and its trail ends on e4.
    assert "e nw e nw ne nw ne nw nw sw se w sw e se w w se w sw e sw e se e" in hex_page
    assert "<code>e5</code>" in client.get("/rules/slimetrail").text
    assert "Portuguese" in client.get("/rules/slimetrail").text
    assert "<code>e5</code>" in client.get("/rules/slimetrail-square").text


def test_unknown_rules_page_is_404_naming_the_games(client: TestClient) -> None:
    answer = client.get("/rules/chess")
    assert answer.status_code == 404
    assert "'chess'" in answer.json()["detail"] and "slimetrail-hex" in answer.json()["detail"]


def test_play_page_is_a_shell_for_the_script(client: TestClient) -> None:
    created = client.get("/new/slimetrail?opponent=hotseat", follow_redirects=False)
    location = created.headers["location"]
    match_id, token = re.fullmatch(r"/play/([\w-]+)\?seat=([\w-]+)", location).groups()
    page = client.get(location)
    assert page.status_code == 200
    assert f'data-match="{match_id}"' in page.text and f'data-seat="{token}"' in page.text
    assert 'src="/static/play.js"' in page.text
    assert 'aria-live="polite"' in page.text
    spectator = client.get(f"/play/{match_id}")
    assert 'data-seat=""' in spectator.text
    for asset in ("play.js", "common.js", "home.js", "style.css", "favicon.svg"):
        assert client.get(f"/static/{asset}").status_code == 200


def test_play_page_of_an_unknown_match_is_404(client: TestClient) -> None:
    answer = client.get("/play/nosuchmatch")
    assert answer.status_code == 404
    assert "nosuchmatch" in answer.text
