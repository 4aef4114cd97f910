"""The HTML pages served by ``slimetrail.web.routes.pages``: home, rules and play shells.

The browser behaviour is in test_browser.py; these check the server-side HTML in-process.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser

import jinja2
import pytest
from fastapi.testclient import TestClient

from slimetrail.ai import levels_for
from slimetrail.core.registry import GAMES, get_game, parse_game_spec
from slimetrail.render import PALETTE
from slimetrail.web.app import create_app
from slimetrail.web.diagrams import DiagramError, render_diagram
from slimetrail.web.routes.pages import render_fragment, rules_fragment
from slimetrail.web.settings import Limits


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'pages.db'}"
    # Every choice on the home page makes a match (most against the computer): more than
    # one client may make.
    limits = Limits(create_rate="100000/minute", client_jobs=100000)
    with TestClient(create_app(url, workers=1, move_time=0.2, limits=limits)) as test_client:
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
            # A select without a name is not sent (the home page's seats, joined by script).
            self.select = a.get("name")
            if self.select:
                self.form[self.select] = []
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
        assert form["opponent"] == ["computer", "human", "hotseat", "friend"]
        # Each game's own ladder (Snake Pit's is shorter than the Slime Trail games').
        assert form["level"] == [str(level) for level in sorted(levels_for(cls()))]
        assert form["side"] == [str(p) for p in range(1, cls.num_players + 1)]
        for spec in cls.option_specs:
            if spec.texts():
                assert form[spec.name] == list(spec.texts())
        assert (f'href="/rules/{game_id}"' in page.text) == (rules_fragment(cls) is not None)
    # The Portuguese start is offered as a named variant of Slimetrail.
    assert parser.forms["/new/slimetrail"]["start"] == ["centre", "e5"]
    assert "Portuguese variant" in page.text


def test_home_offers_each_seat_you_a_friend_or_the_computer(client: TestClient) -> None:
    page = client.get("/").text
    for game_id, cls in GAMES.items():
        card = page.split(f'id="game-{game_id}"')[1].split("</article>")[0]
        selects = re.findall(r'<select data-seat="(\d+)">(.*?)</select>', card, re.S)
        assert [int(number) for number, _ in selects] == list(range(1, cls.num_players + 1))
        levels = [f"computer:{level}" for level in sorted(levels_for(cls()))]
        for _, options in selects:
            assert re.findall(r'value="([^"]+)"', options) == ["me", "friend", *levels]
        assert '<input type="hidden" name="seats" disabled>' in card


def test_every_choice_on_the_home_page_starts_a_game(client: TestClient) -> None:
    parser = Forms()
    parser.feed(client.get("/").text)
    for action, fields in parser.forms.items():
        for name, values in fields.items():
            for value in values:
                answer = client.post(action, params={name: value}, follow_redirects=False)
                assert answer.status_code == 303, (action, name, value, answer.text)
                # A person online: the seek's waiting page (nobody else seeks here).
                started = r"/seek/[\w-]+" if value == "human" else r"/play/[\w-]+\?seat=[\w-]+"
                assert re.fullmatch(started, answer.headers["location"])


TRAIL_GAMES = [
    gid for gid, cls in GAMES.items() if cls.__module__.startswith("slimetrail.games.trail")
]


@pytest.mark.parametrize("game_id", TRAIL_GAMES)
def test_rules_page_for_each_trail_game(client: TestClient, game_id: str) -> None:
    page = client.get(f"/rules/{game_id}")
    assert page.status_code == 200
    game = get_game(game_id)
    assert f"<h1>{game.title}</h1>" in page.text
    assert page.text.count("<svg") >= 2  # diagrams
    assert "Choices this site makes" in page.text
    board = game.describe_board()
    for cell in (*board.get("goals", {}).values(), board["start"]):  # goals: the trail games
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
    # A page, not JSON: the styled error page names the game and the known ones.
    text = html.unescape(answer.text)
    assert "'chess'" in text and "slimetrail-hex" in text


def test_play_page_is_a_shell_for_the_script(client: TestClient) -> None:
    created = client.post("/new/slimetrail?opponent=hotseat", follow_redirects=False)
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


# -- diagrams on the rules pages ---------------------------------------------------------


class Diagrams(HTMLParser):
    """Collects each ``<svg class="... diagram">``: its attributes, its cells (the shape in
    each ``data-cell`` group) and its lines."""

    def __init__(self) -> None:
        super().__init__()
        self.diagrams: list[dict] = []
        self.inside = False
        self.cell: str | None = None  # the data-cell group whose shape comes next

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}
        if tag == "svg" and "diagram" in a.get("class", "").split():
            self.inside = True
            self.diagrams.append({"attrs": a, "cells": [], "lines": []})
        elif not self.inside:
            return
        elif tag == "g" and "data-cell" in a:
            self.cell = a["data-cell"]
        elif tag in ("rect", "polygon") and self.cell is not None:
            if tag == "rect":
                centre = (float(a["x"]) + 0.5, float(a["y"]) + 0.5)
            else:
                points = [tuple(map(float, p.split(","))) for p in a["points"].split()]
                centre = (
                    sum(x for x, _ in points) / len(points),
                    sum(y for _, y in points) / len(points),
                )
            self.diagrams[-1]["cells"].append((self.cell, centre))
            self.cell = None
        elif tag == "polyline":
            points = [tuple(map(float, p.split(","))) for p in a["points"].split()]
            self.diagrams[-1]["lines"].append(points)

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.inside = False
        self.cell: str | None = None  # the data-cell group whose shape comes next


def diagrams_of(html: str) -> list[dict]:
    parser = Diagrams()
    parser.feed(html)
    return parser.diagrams


def cell_at(board: dict, point: tuple[float, float]) -> str:
    """The board cell whose centre is at ``point``."""
    for cell in board["cells"]:
        if abs(cell["x"] - point[0]) < 1e-3 and abs(cell["y"] - point[1]) < 1e-3:
            return cell["name"]
    raise AssertionError(f"no cell centred on {point}")


@pytest.mark.parametrize("game_id", list(GAMES))
def test_rules_page_renders_every_diagram(client: TestClient, game_id: str) -> None:
    source = rules_fragment(GAMES[game_id])
    assert source is not None and "<svg" not in source  # no pasted diagrams
    page = client.get(f"/rules/{game_id}").text
    diagrams = diagrams_of(page)
    assert len(diagrams) == source.count("{{ diagram(") >= 2
    assert "{{" not in page and "{%" not in page
    for figure in re.findall(r"<figure>.*?</figure>", page, re.S):
        assert figure.count('<svg xmlns="http://www.w3.org/2000/svg"') == 1
        assert re.search(r"<figcaption>\S.*</figcaption>", figure, re.S)
    for diagram in diagrams:
        assert diagram["attrs"]["role"] == "img" and diagram["attrs"]["aria-label"].strip()
    # The diagrams use no ids (slime is hatched with clipped lines), so none can clash.
    assert " id=" not in "".join(re.findall(r"<svg.*?</svg>", page, re.S))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_diagram_cells_are_the_board_cells(client: TestClient, game_id: str) -> None:
    for diagram in diagrams_of(client.get(f"/rules/{game_id}").text):
        game = parse_game_spec(diagram["attrs"]["data-game"])
        board = game.describe_board()
        drawn = dict(diagram["cells"])
        assert len(drawn) == len(diagram["cells"])  # no cell drawn twice
        assert set(drawn) == {cell["name"] for cell in board["cells"]}
        for cell in board["cells"]:
            assert drawn[cell["name"]] == pytest.approx((cell["x"], cell["y"]), abs=1e-3)
        # The position drawn is a position of that game.
        assert (
            game.state_from_fen(diagram["attrs"]["data-fen"]).fen() == diagram["attrs"]["data-fen"]
        )


@pytest.mark.parametrize(
    ("game_id", "label", "spec", "moves", "trail"),
    [
        (
            "slimetrail-hex",
            "The sample game on 8 by 8",
            "slimetrail-hex size=8",
            "e nw e nw ne nw ne nw nw sw se w sw e se w w se w sw e sw e se e",
            "d4 e5 d5 e6 d6 d7 c7 c8 b8 a8 a7 b7 a6 a5 b6 c6 b5 a4 b4 a3 a2 b3 b2 c3 d3 e4",
        ),
        (
            "slimetrail-square",
            "The sample game",
            "slimetrail-square",
            "sw e sw e e ne e n nw w s e sw se sw se w w n w nw nw n nw ne nw s ne e s e sw",
            None,
        ),
    ],
)
def test_sample_game_diagram_is_the_engine_replay(
    client: TestClient, game_id: str, label: str, spec: str, moves: str, trail: str | None
) -> None:
    page = client.get(f"/rules/{game_id}").text
    assert f"<code>{moves}</code>" in page
    (diagram,) = [d for d in diagrams_of(page) if d["attrs"]["aria-label"] == label]
    assert diagram["attrs"]["data-game"] == spec
    state = parse_game_spec(spec).new_state()
    for word in moves.split():
        state.push_str(word)
    assert state.outcome() is None
    board = state.game.describe_board()
    # Every line drawn (the trail and its halo) runs through the replayed trail.
    assert len(diagram["lines"]) == 2
    for line in diagram["lines"]:
        assert [cell_at(board, point) for point in line] == state.view()["path"]
    if trail is not None:  # RULES.md section 2 spells out the corrected trail
        assert state.view()["path"] == trail.split()
    assert diagram["attrs"]["data-fen"] == state.fen()


def test_diagram_shades_the_engine_legal_moves() -> None:
    html = render_diagram("slimetrail", moves="e5 f6 e6 d5 c5 c6", legal=True, label="x")
    shaded = re.findall(
        rf'data-cell="(\w+)">\n<rect class="cell-shape"[^>]* fill="{PALETTE["legal"]}"', html
    )
    assert sorted(shaded) == sorted(["b5", "b6", "d6", "b7", "c7", "d7"])
    crossed = render_diagram(
        "slimetrail-hex size=5", moves="c2 d3 e3 e2 d2 d1", forbidden="e1", label="x"
    )
    assert re.search(rf'data-cell="e1">\n<polygon [^>]*fill="{PALETTE["forbidden"]}"', crossed)


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("chess", {}, "unknown game 'chess'"),
        ("slimetrail size=4", {}, "size"),
        ("slimetrail colour=red", {}, "unknown option 'colour'"),
        ("slimetrail", {"moves": "e5 e5"}, "move 2 'e5'"),
        ("slimetrail", {"moves": "e5 zz"}, "move 2 'zz'"),
        ("slimetrail-hex size=5", {"moves": "c2 d3 e3 e2 d2 d1 e1"}, "Taylor"),
        ("slimetrail", {"fen": "7/7 1"}, "rows"),
        ("slimetrail", {"fen": "7/7/7/3o3/7/7/7 1", "moves": "e5"}, "not both"),
        ("slimetrail", {"forbidden": "e5"}, "forbidden cell 'e5' is a legal move"),
        ("slimetrail", {"forbidden": "z9"}, "forbidden cell 'z9' is not on the board"),
        ("slimetrail", {"moves": "e5", "forbidden": "d4"}, "forbidden cell 'd4' is not empty"),
        ("slimetrail", {"moves": "e5", "arrows": "sw"}, "arrow 'sw'"),
        ("slimetrail", {"label": " "}, "needs a label"),
    ],
)
def test_bad_diagram_arguments_fail_loudly(spec: str, options: dict, message: str) -> None:
    options = {"label": "a diagram", **options}
    with pytest.raises(DiagramError, match=re.escape(message)) as caught:
        render_diagram(spec, **options)
    assert repr(spec) in str(caught.value)  # the error names the diagram


def test_a_bad_diagram_in_a_fragment_fails_the_page_render() -> None:
    with pytest.raises(DiagramError, match="unknown game 'chess'"):
        render_fragment('<p>Text</p>{{ diagram("chess", label="x") }}')
    with pytest.raises(TypeError):
        render_fragment('{{ diagram("slimetrail", label="x", highlight="d4") }}')
    with pytest.raises(jinja2.UndefinedError):
        render_fragment("{{ diagram(spec, label='x') }}")
