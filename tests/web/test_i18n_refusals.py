"""Refusals a person reads, in their language: no English sentence raised outside the
catalogues, a sample of each router's refusals in Portuguese and Korean, and a fourth
language added by one catalogue and one line (issue 25)."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import httpx2 as httpx
import pytest
from babel.messages.pofile import read_po, write_po

from slimetrail import i18n
from slimetrail.i18n import LOCALE_DIR, translations

PACKAGE = LOCALE_DIR.parent
# Where the sentences people read are raised: the site, the games, the games' interface.
# (The games' solvers and computer players are left out: their refusals -- a board too
# large, a game they do not play -- are met on the command line.)
SOURCES = [*sorted((PACKAGE / "web").rglob("*.py")), *sorted((PACKAGE / "games").glob("*/game.py"))]
SOURCES += [PACKAGE / "core" / "game.py", PACKAGE / "core" / "records.py"]
# The errors whose message reaches a person: the games' refusals and a record's import
# errors (shown translated, see GameError.translated) and the web service's (its answers'
# "detail" and error pages).
SHOWN = {"IllegalMoveError", "InvalidMoveError", "GameOptionError", "RecordError"} | {
    "MatchError",
    "InvalidRequest",
    "NotFound",
    "SeatRefused",
    "NotYourTurn",
    "Conflict",
}
# Not on this list on purpose: InvalidPositionError (a position string comes from tools --
# UGI, the command line, the rules pages' diagrams -- never from the site's players), and
# GameError itself, ValueError, TypeError and the like (a game's bad declaration, a bad
# setting: read by developers).
WORDS = re.compile(r"[A-Za-z]{2,}")


def english_raised(source: str) -> list[str]:
    """``raise Shown("literal ...")`` whose literal (or f-string) holds words: a sentence
    that reaches a person without passing through gettext or N_."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
            continue
        call = node.exc
        name = call.func.attr if isinstance(call.func, ast.Attribute) else ast.unparse(call.func)
        if name not in SHOWN or not call.args:
            continue
        message = call.args[0]
        if isinstance(message, ast.BinOp):  # "..." % values
            message = message.left
        if isinstance(message, ast.JoinedStr):
            text = "".join(part.value for part in message.values if isinstance(part, ast.Constant))
        elif isinstance(message, ast.Constant) and isinstance(message.value, str):
            text = re.sub(r"%\(\w+\)[sdr]", "", message.value)  # a template's holes
        else:
            continue
        if WORDS.search(text):
            found.append(f"line {node.lineno}: {ast.unparse(message)[:80]}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_refusal_is_raised_in_english_only(path: Path) -> None:
    assert english_raised(path.read_text()) == [], f"{path.name}: mark it N_ or gettext"


def test_the_scan_sees_an_english_refusal() -> None:
    source = """
raise InvalidRequest(f"the bot {name!r} is offline")
raise errors.NotFound("no such seek")
raise GameError(f"{cls.id}: ending {reason!r} is not declared")
raise IllegalMoveError(N_("%(cell)s is slimed"), cell=name)
raise InvalidRequest(gettext("no match %(id)r") % {"id": match_id})
raise IllegalMoveError("%(text)s: %(why)s", text=text, why=problem)
raise ValueError(f"workers must be at least 1, not {workers}")
"""
    assert english_raised(source) == [
        "line 2: f'the bot {name!r} is offline'",
        "line 3: 'no such seek'",
    ]


# -- each router's refusals in the request's language ------------------------------------


def detail(answer: httpx.Response) -> str:
    return answer.json()["detail"]


def test_refusals_of_each_router_speak_the_language(live_server) -> None:
    with httpx.Client(base_url=live_server, timeout=60) as site:
        # Bots: a seat for a bot that is not there.
        made = site.post(
            "/api/matches",
            params={"lang": "pt"},
            json={
                "game": "slimetrail",
                "seats": [{"kind": "me"}, {"kind": "bot", "name": "nobody"}],
            },
        )
        assert made.status_code == 400
        assert detail(made).startswith("não há nenhum bot 'nobody'")
        # Atlas: the explorer's rule set and start square.
        rules = site.get("/api/explore", params={"rules": "chess", "lang": "ko"})
        assert rules.status_code == 400
        assert detail(rules) == "rules='chess'은(는) rastros, taylor 중 하나가 아닙니다"
        start = site.get("/api/explore", params={"start": "z9", "lang": "pt"})
        assert detail(start) == "start='z9' não é uma casa de partida resolvida do 7x7"
        # Matches: a record in an unknown format, a click prefix longer than any move.
        match = site.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"}).json()
        record = site.get(
            f"/api/matches/{match['id']}/record", params={"format": "txt", "lang": "ko"}
        )
        assert detail(record) == "format='txt'은(는) pgn도 json도 아닙니다"
        clicks = site.get(
            f"/api/matches/{match['id']}/clicks",
            params={"prefix": ",".join(["d3"] * 65), "lang": "pt"},
        )
        assert detail(clicks).startswith("um início de 65 cliques é mais longo")
        # A game's refusal inside the service's sentence: Snake Pit's typed move.
        pit = site.post(
            "/api/matches", json={"game": "snake-pit", "seats": [{"kind": "me"}] * 3}
        ).json()
        seat = pit["links"]["1"].split("seat=")[1]
        typed = site.post(
            f"/api/matches/{pit['id']}/move",
            params={"lang": "ko"},
            json={"seat": seat, "move": "b9", "ply": 0},
        )
        assert typed.status_code == 400
        assert "'b9'의 'b9'은(는) a7-b7 같은 '출발-도착' 걸음이 아닙니다" in detail(typed)
        # Options of a game, as a /new link or the API gives them.
        size = site.post(
            "/api/matches",
            params={"lang": "pt"},
            json={"game": "slimetrail", "options": {"size": "x"}, "opponent": "hotseat"},
        )
        assert detail(size) == "slimetrail: opção size='x' não é um número inteiro"


def test_pairing_and_people_refusals_speak_the_language(live_server) -> None:
    with httpx.Client(base_url=live_server, timeout=60) as site:
        gone = site.get("/seek/nothing-here", params={"lang": "ko"})
        assert gone.status_code == 404
        assert "이 신청은 없어졌습니다" in gone.text
        named = site.post(
            "/my-games/name",
            params={"lang": "pt"},
            content="name=" + "x" * 50,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert named.status_code == 400
        assert "um nome tem no máximo 40 caracteres, não 50" in named.text


def test_an_unsolved_position_says_why_in_the_language(live_server) -> None:
    answer = httpx.post(
        f"{live_server}/api/analyse",
        params={"lang": "ko"},
        json={"game": "snake-pit", "moves": []},
        timeout=120,
    ).json()
    assert answer["solved"] is False
    assert answer["detail"] == "뱀 구덩이에는 정확한 풀이기가 없습니다"


# -- a fourth language --------------------------------------------------------------------


@pytest.fixture
def german(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The README's recipe in a copy of the catalogues: ``locale/pt`` copied to ``locale/de``
    (a sentence changed, to tell it is the new one that is served), and the one line in
    ``LANGUAGES``."""
    locale = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, locale, ignore=shutil.ignore_patterns("*.mo"))
    shutil.copytree(locale / "pt", locale / "de")
    po = locale / "de" / "LC_MESSAGES" / "web.po"
    with po.open("rb") as source:
        catalogue = read_po(source, locale="de")
    catalogue["Lobby"].string = "Spielsaal"
    with po.open("wb") as out:
        write_po(out, catalogue)
    monkeypatch.setattr(i18n, "LOCALE_DIR", locale)
    monkeypatch.setitem(i18n.LANGUAGES, "de", "de_DE")
    translations.cache_clear()
    yield
    translations.cache_clear()


def test_a_fourth_language_is_one_catalogue_and_one_line(client, german) -> None:
    page = client.get("/lobby", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert page.status_code == 200
    assert '<html lang="de">' in page.text and "Spielsaal" in page.text
    # The language switch offers it, in its own name, on every page.
    assert ">Deutsch<" in client.get("/lobby", params={"lang": "pt"}).text
    assert client.get("/lobby", params={"lang": "de"}).cookies.get("lang") == "de"


def test_the_solved_results_name_games_and_options_in_the_language(live_server) -> None:
    page = httpx.get(f"{live_server}/solved", params={"lang": "pt"}, timeout=60).text
    assert "<h2>Rastros · Tamanho do tabuleiro: 7, Regras: rastros, início b1 (= a2)</h2>" in page
    assert "slimetrail size=7" not in page.split("<main", 1)[1]


def test_the_rules_of_slither_in_korean_name_it_seulrideo(live_server) -> None:
    page = httpx.get(f"{live_server}/rules/slither", params={"lang": "ko"}, timeout=60).text
    assert '<html lang="ko">' in page and "<h1>슬리더</h1>" in page
