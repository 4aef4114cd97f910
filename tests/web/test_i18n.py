"""The site's languages: every message translated, no English left outside the catalogues,
and the language chosen by ``?lang=``, the cookie or ``Accept-Language``."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import httpx2 as httpx
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from english import english_left

from slimetrail.i18n import (
    LANGUAGES,
    LOCALE_DIR,
    SOURCE,
    catalogue,
    negotiate,
    speaking,
    translations,
)
from slimetrail.web.language import number, when
from slimetrail.web.service.clock import parse_clock
from slimetrail.web.service.errors import InvalidRequest
from slimetrail.web.views import length_text

PACKAGE = LOCALE_DIR.parent
WEB = PACKAGE / "web"
# Each domain's sources, as its mapping file's header says to extract it.
SOURCES = {"web": [PACKAGE], "games": [PACKAGE / "games", PACKAGE / "core"]}
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]


def extracted(domain: str) -> set[str]:
    """The msgids of ``domain``'s sources (the first form of a plural)."""
    with (LOCALE_DIR / f"{domain}.cfg").open() as mapping:
        method_map, options_map = parse_mapping_cfg(mapping)
    found = set()
    for folder in SOURCES[domain]:
        for _file, _line, message, _comments, _context in extract_from_dir(
            folder, method_map, options_map
        ):
            first = message[0] if isinstance(message, tuple) else message
            if first:
                found.add(first)
    return found


PLACEHOLDERS = re.compile(r"%\(\w+\)[sdr]|\{\w+\}")


@pytest.mark.parametrize("domain", ["web", "games"])
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation(domain: str, lang: str) -> None:
    if not (LOCALE_DIR / f"{domain}.cfg").exists() or not catalogue(lang, domain).exists():
        pytest.skip(f"the {domain} domain has no {lang} catalogue yet")
    with catalogue(lang, domain).open("rb") as po:
        messages = read_po(po)
    untranslated, broken = [], []
    for msgid in sorted(extracted(domain)):
        message = messages.get(msgid)
        forms = message.string if message else None
        forms = forms if isinstance(forms, tuple) else (forms,)
        if message is None or message.fuzzy or not all(forms):
            untranslated.append(msgid)
        elif any(
            sorted(PLACEHOLDERS.findall(f)) != sorted(PLACEHOLDERS.findall(msgid)) for f in forms
        ):
            broken.append(msgid)
    assert untranslated == [], f"{lang}/{domain}.po lacks translations"
    assert broken == [], f"{lang}/{domain}.po translations change the placeholders"


def test_translations_merge_both_domains_and_speak_plurals() -> None:
    assert translations("pt").gettext("Rules") == "Regras"
    assert translations("ko").gettext("New game") == "새 게임"
    assert translations("en").gettext("Rules") == "Rules"
    assert translations("pt").ngettext("%(num)s move", "%(num)s moves", 1) == "%(num)s jogada"
    assert translations("pt").ngettext("%(num)s move", "%(num)s moves", 3) == "%(num)s jogadas"
    if catalogue("pt", "games").exists():  # the games' catalogue, once it is there
        assert translations("pt").gettext("Slimetrail (Rastros)") != "Slimetrail (Rastros)"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        translations("fr")


def test_accept_language_picks_the_best_language_spoken() -> None:
    assert negotiate("pt-PT,pt;q=0.9,en;q=0.8") == "pt"
    assert negotiate("fr-FR, ko;q=0.5, en;q=0.4") == "ko"
    assert negotiate("en;q=0.2, ko-KR;q=0.9") == "ko"
    assert negotiate("de, fr") is None
    assert negotiate("pt;q=0, en") == "en"


# -- no English outside the catalogue ---------------------------------------------------

# Words a page may show in any language: names, codes and units.
ALLOWED = {"Slimetrail", "PGN", "JSON", "MIT", "Esc", "Home", "End", "Enter"}
VISIBLE_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "aria-roledescription"}
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
# A block that fills in an attribute of the base template (the body's class), not text.
CLASS_BLOCK = re.compile(r"\{%\s*block body_class\s*%\}.*?\{%\s*endblock\s*%\}", re.S)
TRANS_BLOCK = re.compile(r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}", re.S)
ENTITY = re.compile(r"&\w+;")


class VisibleText(HTMLParser):
    """The text nodes and the attributes a person reads of an HTML page (scripts and styles
    left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.hidden += 1
        self.found += [value for name, value in attrs if name in VISIBLE_ATTRIBUTES and value]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.found.append(data)


def english_words(text: str) -> list[str]:
    words = re.findall(r"[A-Za-z]{2,}", ENTITY.sub(" ", text))
    return [word for word in words if word not in ALLOWED]


def template_leftovers(source: str) -> list[str]:
    """What a template shows (text, readable attributes) that is not in _() or a trans block."""
    parser = VisibleText()
    parser.feed(JINJA.sub(" ", CLASS_BLOCK.sub(" ", TRANS_BLOCK.sub(" ", source))))
    return [text for text in parser.found if english_words(text)]


@pytest.mark.parametrize(
    "template", sorted((WEB / "templates").glob("*.html")), ids=lambda p: p.name
)
def test_templates_say_nothing_outside_the_catalogue(template: Path) -> None:
    leftovers = template_leftovers(template.read_text())
    assert leftovers == [], f"{template.name}: text outside _() or {{% trans %}}"


# A script's string literal, and whether it is the first argument of _().
LITERAL = re.compile(r"""(_\(\s*)?("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)""")
# Code that a sentence-like test would take for English: selectors, media queries, headers.
CODE = re.compile(r"^[\s\w\-.:#\[\]=\"'(),>*/@+]*$")


def sentences_outside_catalogue(script: str) -> list[str]:
    found = []
    for marked, literal in LITERAL.findall(script):
        text = re.sub(r"\$\{[^}]*\}", " ", literal[1:-1])  # a template literal's holes
        text = re.sub(r"<[^>]*>", " ", text)  # markup built in a string
        if marked or not re.search(r"[A-Za-z]{2,} [a-z]{2,}", text):
            continue
        if CODE.match(text) and not re.search(r"[A-Za-z]{2,} [a-z]{2,} [a-z]{2,}", text):
            continue  # "[data-cell].legal", "(max-width: 860px)": code, not a sentence
        found.append(literal)
    return found


@pytest.mark.parametrize("script", sorted((WEB / "static").glob("*.js")), ids=lambda p: p.name)
def test_scripts_say_nothing_outside_the_catalogue(script: Path) -> None:
    source = re.sub(r"^\s*//.*$", "", script.read_text(), flags=re.M)  # comments
    assert sentences_outside_catalogue(source) == [], f"{script.name}: a sentence outside _()"


def test_the_checks_catch_english() -> None:
    """The two checks above do fail on a stray sentence."""
    page = '<p title="Go back">{{ _("Fine") }}</p>{% trans %}Fine{% endtrans %}<b>Start again</b>'
    assert template_leftovers(page) == ["Go back", "Start again"]
    script = 'el.textContent = "Not your turn"; el.textContent = _("Your turn"); q("[data-cell]");'
    assert sentences_outside_catalogue(script) == ['"Not your turn"']


# -- choosing the language --------------------------------------------------------------


def get(url: str, **options) -> httpx.Response:
    return httpx.get(url, timeout=60, **options)  # the home page draws every game's board


def html_lang(text: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', text)
    assert found is not None
    return found.group(1)


def test_accept_language_chooses_the_first_visit_language(live_server) -> None:
    pt = get(f"{live_server}/", headers={"Accept-Language": "pt-PT,pt;q=0.9"})
    assert html_lang(pt.text) == "pt"
    assert "Jogar já" in pt.text and "Play now" not in pt.text
    ko = get(f"{live_server}/", headers={"Accept-Language": "ko-KR"})
    assert html_lang(ko.text) == "ko"
    assert "바로 두기" in ko.text and "Play now" not in ko.text
    other = get(f"{live_server}/", headers={"Accept-Language": "de-DE"})
    assert html_lang(other.text) == "en" and "Play now" in other.text
    assert "lang" not in pt.cookies  # only a choice made (?lang=) is remembered


def test_lang_in_the_url_wins_is_remembered_and_kept_in_links(live_server) -> None:
    with httpx.Client(
        base_url=live_server, headers={"Accept-Language": "pt-PT"}, timeout=60
    ) as browser:
        page = browser.get("/lobby", params={"lang": "ko"})
        assert html_lang(page.text) == "ko" and "로비" in page.text
        assert page.cookies.get("lang") == "ko"
        # The site's links keep an explicit choice, for a client without cookies.
        assert 'href="/my-games?lang=ko"' in page.text
        # Remembered: the next page without ?lang= speaks Korean, over Accept-Language.
        later = browser.get("/my-games")
        assert html_lang(later.text) == "ko" and "내 게임" in later.text
        assert 'href="/lobby"' in later.text  # no explicit choice here: plain links
        back = browser.get("/my-games", params={"lang": "en"})
        assert html_lang(back.text) == "en" and browser.cookies.get("lang") == "en"


def test_the_language_switch_is_on_every_page(live_server) -> None:
    for path in ("/", "/lobby", "/my-games", "/solved", "/explore", "/rules/slimetrail", "/nope"):
        text = get(f"{live_server}{path}", params={"lang": "pt"}).text
        switch = text.split('id="languages"', 1)[1].split("</nav>", 1)[0]
        assert f'href="{path}?lang=ko"' in switch and ">한국어<" in switch, path
        assert 'lang="pt" aria-current="true"' in switch, path


def test_an_unknown_language_is_refused_naming_the_languages(live_server) -> None:
    answer = get(f"{live_server}/", params={"lang": "fr"})
    assert answer.status_code == 400
    assert "unknown language 'fr'" in answer.text and "en, pt, ko" in answer.text
    # Said in the language the page would have been in.
    korean = get(f"{live_server}/", params={"lang": "fr"}, headers={"Accept-Language": "ko"})
    assert korean.status_code == 400 and "'fr'은(는) 알 수 없는 언어입니다" in korean.text


def test_json_keeps_its_keys_and_codes_and_speaks_the_language(live_server) -> None:
    made = {}
    for lang in ("en", "pt", "ko"):
        answer = httpx.post(
            f"{live_server}/api/matches",
            timeout=60,
            params={"lang": lang},
            json={"game": "slimetrail", "opponent": "hotseat"},
        )
        assert answer.status_code == 201, answer.text[:200]
        made[lang] = answer.json()
    assert made["pt"].keys() == made["en"].keys() == made["ko"].keys()
    assert made["pt"]["game"] == made["ko"]["game"] == "slimetrail"
    assert made["pt"]["clicks"] == made["en"]["clicks"]
    # Why a cell is refused is the game's catalogued sentence, in the language.
    assert made["pt"]["refusals"].keys() == made["en"]["refusals"].keys()
    assert made["pt"]["refusals"]["a1"] != made["en"]["refusals"]["a1"]
    assert 'aria-label="O tabuleiro de ' in made["pt"]["svg"]
    assert 'aria-label="The board of ' in made["en"]["svg"]
    # A refusal's sentence too (the service's words), its status the same.
    seat = made["pt"]["links"]["1"].split("seat=")[1]
    refused = httpx.post(
        f"{live_server}/api/matches/{made['pt']['id']}/undo",
        params={"lang": "pt"},
        json={"seat": seat, "ply": 0},
        timeout=60,
    )
    assert refused.status_code == 409
    assert refused.json()["detail"] == "não tem nenhuma jogada para anular"
    missing = get(f"{live_server}/play/nothing-here", params={"lang": "pt"})
    assert missing.status_code == 404 and "Jogo inexistente" in missing.text


def test_the_scripts_get_their_sentences_in_the_page_language(live_server) -> None:
    text = get(f"{live_server}/", params={"lang": "pt"}).text
    blob = text.split('<script type="application/json" id="messages">', 1)[1].split("</script>")[0]
    assert '"Paste a game record or choose a file first.": "Cole primeiro' in blob
    assert '"Your move": "A sua vez"' in blob
    # A call with its placeholders' values (which Babel reads as a tuple) is served too.
    assert '"Hint: {move} ({why}).": "Sugestão: {move} ({why})."' in blob


def test_numbers_and_dates_are_written_the_language_s_way() -> None:
    moment = datetime(2026, 12, 3, 7, 52, tzinfo=UTC)
    written = {}
    for lang in ("en", "pt", "ko"):
        with speaking(lang):
            written[lang] = (re.sub(r"\s", " ", number(1234567.5)), when(moment))
    assert written["en"] == ("1,234,567.5", "3 Dec 2026, 07:52:00")
    assert written["pt"] == ("1 234 567,5", "03/12/2026, 07:52:00")
    assert written["ko"][0] == "1,234,567.5" and written["ko"][1].startswith("2026. 12. 3.")


# -- what was merged after the first translation: puzzles, clocks, refusals -------------------


def english_on_page(page: str, lang: str) -> list[str]:
    """The English words a person reads on a page rendered in ``lang``."""
    parser = VisibleText()
    parser.feed(page)
    return english_left(" ".join(parser.found), lang)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("path", ["/puzzles", "/puzzles/slimetrail"])
def test_puzzle_pages_speak_the_language(live_server, lang: str, path: str) -> None:
    page = get(f"{live_server}{path}", params={"lang": lang})
    assert page.status_code == 200
    assert html_lang(page.text) == lang
    assert english_on_page(page.text, lang) == [], path
    blob = page.text.split('id="messages">', 1)[1].split("</script>")[0]
    assert '"Solved! {move} wins.": "' + translations(lang).gettext("Solved! {move} wins.") in blob
    assert f'href="/puzzles?lang={lang}"' in page.text or path == "/puzzles"


def test_the_check_sees_english_on_a_page() -> None:
    page = '<p title="Tabuleiro">Jogadas: <b>Next puzzle</b></p><a lang="en">English</a>'
    assert english_on_page(page, "pt") == ["Next", "puzzle"]
    assert english_on_page("<p>퍼즐 Slimetrail</p><p>Retry</p>", "ko") == ["Retry"]


def test_puzzle_api_speaks_the_language(live_server) -> None:
    made = get(f"{live_server}/api/puzzles/next", params={"game": "slimetrail", "lang": "pt"})
    assert made.status_code == 200, made.text[:200]
    puzzle = made.json()
    assert puzzle["players"] == ["Verde", "Vermelho"]
    assert 'aria-label="Rastros: problema"' in puzzle["svg"]
    wrong = httpx.post(
        f"{live_server}/api/puzzles/{puzzle['id']}/answer",
        params={"lang": "pt"},
        json={"moves": ["zz"]},
        timeout=60,
    )
    assert wrong.status_code == 400
    # The puzzle's sentence and the game's reason inside it, both in Portuguese.
    detail = wrong.json()["detail"]
    assert detail.startswith("jogada 1 ('zz'): ") and "is not" not in detail
    gone = get(f"{live_server}/api/puzzles/next", params={"game": "nope", "lang": "ko"})
    assert gone.status_code == 404
    assert gone.json()["detail"].startswith("'nope' 게임의 퍼즐이 없습니다")


def test_creation_refusals_speak_the_language(live_server) -> None:
    unknown = httpx.post(
        f"{live_server}/api/matches",
        params={"lang": "pt"},
        json={"game": "slimetrail", "options": {"colour": "x"}, "opponent": "hotseat"},
        timeout=60,
    )
    assert unknown.status_code == 400
    assert "opção desconhecida 'colour'" in unknown.json()["detail"]
    seats = httpx.post(
        f"{live_server}/api/matches",
        params={"lang": "ko"},
        json={"game": "slimetrail", "opponent": "nobody"},
        timeout=60,
    )
    assert seats.status_code == 400
    assert seats.json()["detail"].startswith("상대 'nobody'은(는)")
    missing = get(f"{live_server}/api/matches/abcdefgh", params={"lang": "pt"})
    assert missing.status_code == 404
    assert missing.json()["detail"] == "não há nenhum jogo 'abcdefgh'"


def test_the_portuguese_variant_is_named_in_the_language(live_server) -> None:
    pt = get(f"{live_server}/", params={"lang": "pt"}).text
    assert "e5 (variante portuguesa)" in pt and "Portuguese" not in pt
    ko = get(f"{live_server}/", params={"lang": "ko"}).text
    assert "e5 (포르투갈 변형)" in ko


def test_clock_and_abort_words_are_catalogued() -> None:
    assert translations("pt").gettext("aborted") == "anulado"
    assert translations("ko").gettext("Aborted") == "무효"
    wait = "Waiting for your opponent: the clocks start when they arrive"
    assert translations("pt").gettext(wait).startswith("À espera do seu adversário")
    assert translations("ko").gettext(wait) != wait


def test_the_length_under_best_play_has_plural_forms() -> None:
    with speaking("en"):
        assert length_text(1, 0) == "Game length under best play: 1 ply before the move, 0 after."
        assert length_text(3, 2).startswith("Game length under best play: 3 plies")
        assert length_text(None, 2) == ""
    with speaking("pt"):
        assert "1 jogada antes" in length_text(1, 0)
        assert "3 jogadas antes" in length_text(3, 2)
    with speaking("ko"):
        assert "이 수 전 1수" in length_text(1, 0)


def test_a_bad_clock_is_refused_in_the_language() -> None:
    with speaking("pt"), pytest.raises(InvalidRequest) as refused:
        parse_clock("9x")
    assert refused.value.message.startswith("o relógio '9x' não é um controlo de tempo: indique")
    with speaking("en"), pytest.raises(InvalidRequest) as english:
        parse_clock("d99")
    assert english.value.message.startswith("clock 'd99': give minutes+increment")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_solved_atlas_and_its_notes_speak_the_language(live_server, lang: str) -> None:
    page = get(f"{live_server}/solved", params={"lang": lang}).text
    main = page.split("<main", 1)[1].split(">", 1)[1]
    assert translations(lang).gettext("the second player wins by swap") in main
    # The commands that prove the results are commands, in any language.
    assert english_on_page(re.sub(r"<code>.*?</code>", "", main), lang) == []
