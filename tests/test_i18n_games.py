"""The ``games`` translation domain: every string the games and core declare for players, and
the rules pages, in European Portuguese and Korean (issue 25).

The catalogues are ``slimetrail/locale/<lang>/LC_MESSAGES/games.po``, extracted with
``slimetrail/locale/games.cfg``.  These tests compile them into a temporary directory and
render the rules fragments with Jinja2's i18n extension the way the site does (new-style
gettext, trimmed blocks), so they need nothing of the web's language machinery.
"""

from __future__ import annotations

import html.parser
import re
from pathlib import Path
from typing import ClassVar

import jinja2
import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

import slimetrail
from slimetrail import i18n
from slimetrail.core.game import (
    NUMBER_WORDS,
    PLATFORM_REASONS,
    EndReason,
    Game,
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    outcome_sentence,
)
from slimetrail.core.registry import GAMES, get_game
from slimetrail.web.diagrams import page_diagrams

ROOT = Path(slimetrail.__file__).parent
LOCALE = ROOT / "locale"
# Every language but the source (English): a new catalogue and its line in
# slimetrail.i18n.LANGUAGES bring it under every check here.
LANGUAGES = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE]
PLACEHOLDER = re.compile(r"%\(\w+\)s")
TAG = re.compile(r"</?\w+[^>]*>")


def catalogue(lang: str) -> Catalog:
    with (LOCALE / lang / "LC_MESSAGES" / "games.po").open("rb") as po:
        return read_po(po)


def messages(cat: Catalog) -> dict[str, str]:
    return {message.id: message.string for message in cat if message.id}


@pytest.fixture(scope="module")
def translations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Translations]:
    """Each language's catalogue compiled to a .mo file and loaded, as gettext would."""
    folder = tmp_path_factory.mktemp("mo")
    loaded = {}
    for lang in LANGUAGES:
        mo = folder / f"{lang}.mo"
        with mo.open("wb") as out:
            write_mo(out, catalogue(lang))
        with mo.open("rb") as data:
            loaded[lang] = Translations(data, domain="games")
    return loaded


def render(source: str, translation: Translations | None) -> str:
    env = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, extensions=["jinja2.ext.i18n"]
    )
    env.policies["ext.i18n.trimmed"] = True
    if translation is None:
        env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    else:
        env.install_gettext_translations(translation, newstyle=True)  # type: ignore[attr-defined]
    return env.from_string(source).render(diagram=page_diagrams())


# The platform's own games (the suite registers toy games besides, with English only).
SHIPPED = {
    game_id: cls for game_id, cls in GAMES.items() if cls.__module__.startswith("slimetrail.")
}


def rules_pages() -> dict[str, str]:
    pages = {game_id: cls.rules_fragment() for game_id, cls in SHIPPED.items()}
    return {game_id: source for game_id, source in pages.items() if source is not None}


# -- the catalogues -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated_keeping_placeholders_and_markup(lang: str) -> None:
    cat = catalogue(lang)
    assert cat.locale is not None and cat.locale.language == lang
    entries = [message for message in cat if message.id]
    assert len(entries) > 250  # names, endings, levels and seven rules pages
    for message in entries:
        assert isinstance(message.id, str) and isinstance(message.string, str)
        assert message.string.strip(), f"{lang}: no translation of {message.id!r}"
        assert not message.fuzzy, f"{lang}: fuzzy translation of {message.id!r}"
        assert sorted(PLACEHOLDER.findall(message.string)) == sorted(
            PLACEHOLDER.findall(message.id)
        ), f"{lang}: placeholders differ in {message.id!r}"
        # Links, code and emphasis survive; an <a>'s target is the same page.
        assert sorted(TAG.findall(message.string)) == sorted(TAG.findall(message.id)), (
            f"{lang}: markup differs in {message.id!r}"
        )
    # Babel's own checks (python-format placeholders and the like).
    assert [(m.id, errors) for m, errors in cat.check()] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_are_not_the_english(lang: str) -> None:
    same = [
        message.id
        for message in catalogue(lang)
        if message.id and message.string == message.id and re.search(r"[a-z]{3}", message.id)
    ]
    # Names kept as players know them, and the list separator.
    assert set(same) <= {"Slither", "Slime-Moku", "zero"}


def test_extraction_finds_exactly_the_catalogued_messages() -> None:
    """Babel's extraction over the games and core with games.cfg gives the catalogue's
    msgids: a new marked string or rules sentence without a translation fails here."""
    with (LOCALE / "games.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    extracted = set()
    for folder in ("games", "core"):
        for _, _, message, _, _ in extract_from_dir(ROOT / folder, method_map, options_map):
            extracted.add(message)
    assert len(extracted) > 250
    for lang in LANGUAGES:
        catalogued = set(messages(catalogue(lang)))
        assert sorted(extracted - catalogued) == [], f"{lang}: not in the catalogue"
        assert sorted(catalogued - extracted) == [], f"{lang}: no longer in the source"


def declared_texts(cls: type[Game]) -> list[str]:
    """Every player-read text a game declares, the way the front ends reach it."""
    game = cls()
    texts = [cls.title, *cls.player_names, *cls.action_words.values(), *cls.turn.step_words]
    texts += [spec.help for spec in cls.option_specs]
    for reason in cls.end_reasons.values():
        texts += [reason.sentence, *([reason.draw] if reason.draw else [])]
    texts += [style.words for style in cls.marks.values()]
    texts += list(cls.preset_names.values())
    texts += [level.description for level in game.ai_ladder().levels.values()]
    return texts


@pytest.mark.parametrize("game_id", list(SHIPPED))
def test_every_declared_text_is_in_the_catalogue(game_id: str) -> None:
    """A declaration not marked with N_ would be missed by the extraction: caught here."""
    for lang in LANGUAGES:
        catalogued = messages(catalogue(lang))
        missing = [text for text in declared_texts(SHIPPED[game_id]) if text not in catalogued]
        assert missing == [], lang


def test_platform_texts_are_in_the_catalogue() -> None:
    platform = [reason.sentence for reason in PLATFORM_REASONS.values()]
    platform += [reason.draw for reason in PLATFORM_REASONS.values() if reason.draw]
    platform += [*NUMBER_WORDS, *Game.player_names]
    for lang in LANGUAGES:
        catalogued = messages(catalogue(lang))
        assert [text for text in platform if text not in catalogued] == [], lang


def test_a_sentence_with_format_braces_is_refused() -> None:
    with pytest.raises(TypeError, match=r"%\(name\)s"):

        class Braces(GAMES["slither"]):  # type: ignore[misc,valid-type]
            end_reasons: ClassVar = {"x": EndReason("{winner} won")}


# -- the rules pages ------------------------------------------------------------------------


class TextOutside(html.parser.HTMLParser):
    """Words in a fragment's markup that no trans block holds (code and pre excepted)."""

    def __init__(self) -> None:
        super().__init__()
        self.literal = 0
        self.words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.literal += tag in ("code", "pre")
        for name, value in attrs:
            if name in ("title", "alt", "aria-label") and value:
                self.words.append(value)

    def handle_endtag(self, tag: str) -> None:
        self.literal -= tag in ("code", "pre")

    def handle_data(self, data: str) -> None:
        if not self.literal and re.search(r"[A-Za-z]{2,}", data):
            self.words.append(data.strip())


@pytest.mark.parametrize("game_id", list(rules_pages()))
def test_rules_fragment_has_no_text_outside_the_catalogue(game_id: str) -> None:
    source = rules_pages()[game_id]
    assert "{% trans" in source
    # Every diagram's label and caption is a gettext call, never a bare string.
    assert not re.search(r"\b(label|caption)\s*=\s*['\"]", source)
    rest = re.sub(r"{%-? trans.*?endtrans -?%}", "", source, flags=re.S)
    rest = re.sub(r"{{.*?}}|{%.*?%}|<!--.*?-->", "", rest, flags=re.S)
    parser = TextOutside()
    parser.feed(rest)
    assert parser.words == []


def test_the_text_check_sees_a_sentence_left_out() -> None:
    parser = TextOutside()
    parser.feed("<p>The snail moves.</p><pre>a1 b2</pre><code>n ne</code>")
    assert parser.words == ["The snail moves."]


SVG = re.compile(r"<svg.*?</svg>", re.S)


def drawings(page: str) -> list[str]:
    """The page's diagrams without their text alternative: the shapes and positions."""
    return [re.sub(r' aria-label="[^"]*"', "", svg) for svg in SVG.findall(page)]


@pytest.mark.parametrize("game_id", list(rules_pages()))
def test_rules_page_draws_the_same_diagrams_in_every_language(
    game_id: str, translations: dict[str, Translations]
) -> None:
    source = rules_pages()[game_id]
    english = render(source, None)
    assert len(drawings(english)) == source.count("{{ diagram(") >= 2
    lead = re.search(r'<p class="lead">(.*?)</p>', english, re.S)
    assert lead is not None
    for lang in LANGUAGES:
        page = render(source, translations[lang])
        assert drawings(page) == drawings(english)
        labels = re.findall(r' aria-label="([^"]*)"', "".join(SVG.findall(page)))
        assert labels and not set(labels) & set(
            re.findall(r' aria-label="([^"]*)"', "".join(SVG.findall(english)))
        )
        # The lead paragraph and every caption are in the page's language.
        assert lead.group(1) not in page
        captions = re.findall(r"<figcaption>(.*?)</figcaption>", page, re.S)
        assert captions and not set(captions) & set(
            re.findall(r"<figcaption>(.*?)</figcaption>", english, re.S)
        )


def heading(page: str) -> str:
    found = re.search(r"<h1>(.*?)</h1>", page)
    assert found is not None
    return found.group(1)


def test_games_go_by_the_names_players_know(translations: dict[str, Translations]) -> None:
    pages = rules_pages()
    assert heading(render(pages["slither"], translations["ko"])) == "슬리더"
    assert heading(render(pages["slither-advanced"], translations["ko"])) == "어드밴스드 슬리더"
    assert heading(render(pages["slimetrail"], translations["pt"])) == "Rastros"
    assert heading(render(pages["slither"], None)) == "Slither"
    assert translations["pt"].gettext(GAMES["slimetrail"].title) == "Rastros"
    assert translations["ko"].gettext(GAMES["slither"].title) == "슬리더"


# -- the ending sentences -------------------------------------------------------------------


def test_ending_sentences_in_each_language(translations: dict[str, Translations]) -> None:
    moku = get_game("slime-moku")
    row = Outcome.win(1, reason="row")
    assert outcome_sentence(moku, row) == "Black made five in a row."
    pt, ko = translations["pt"].gettext, translations["ko"].gettext
    assert outcome_sentence(moku, row, gettext=pt) == "Preto fez cinco em linha."
    assert outcome_sentence(moku, row, gettext=ko) == "흑, 다섯 개를 한 줄로 완성."
    slither = get_game("slither")
    joined = Outcome.win(2, reason="left-right")
    assert outcome_sentence(slither, joined, gettext=ko) == "백, 왼쪽과 오른쪽을 연결."
    # Names given by the front end (a player's own name) are used as they are.
    assert (
        outcome_sentence(slither, joined, ["Ana", "Rui"], pt) == "Rui ligou a esquerda à direita."
    )
    # The platform's endings and the verdict are translated too.
    resigned = Outcome.win(2, reason="resigned")
    assert outcome_sentence(get_game("slimetrail"), resigned, gettext=pt) == (
        "Verde desistiu: Vermelho vence."
    )
    shared = Outcome.ranking([{1, 2}, 3], reason="resigned")
    assert outcome_sentence(get_game("snake-pit"), shared, gettext=pt) == (
        "Vermelho desistiu: Verde e Azul partilham o primeiro lugar."
    )


def test_refusals_in_each_language(translations: dict[str, Translations]) -> None:
    """Why a cell is refused, as a player clicking or typing it reads it."""
    pt, ko = translations["pt"].gettext, translations["ko"].gettext
    with pytest.raises(IllegalMoveError) as far:
        get_game("slimetrail").new_state().parse_move("a1")
    assert str(far.value) == "a1 is not next to the snail on d4"
    assert far.value.translated(pt) == "a1 não é vizinha do caracol em d4"
    assert far.value.translated(ko) == "a1은(는) d4의 달팽이 옆 칸이 아닙니다"
    moku = get_game("slime-moku", size=9).new_state()
    moku.push_str("f6")
    with pytest.raises(IllegalMoveError) as held:
        moku.parse_move("e5")
    assert held.value.translated(pt) == "e5 tem uma pedra preta"
    with pytest.raises(InvalidMoveError) as unread:
        moku.parse_move("zz")
    assert str(unread.value) == (
        "'zz' is neither a cell of the 9x9 board nor a direction (n ne e se s sw w nw)"
    )
    assert unread.value.translated(ko) == (
        "'zz': 9x9 판의 칸도 아니고 방향(n ne e se s sw w nw)도 아닙니다"
    )
    # An error raised as a plain sentence stays as it is in every language.
    assert GameError("no such game").translated(ko) == "no such game"


def test_slither_refusals_name_the_movers_colour(translations: dict[str, Translations]) -> None:
    pt, ko = translations["pt"].gettext, translations["ko"].gettext
    state = get_game("slither", size=5).new_state()
    state.push_str("c3")
    with pytest.raises(IllegalMoveError) as taken:
        state.parse_move("c3")
    assert str(taken.value) == "c3: c3 is occupied"
    assert taken.value.translated(ko) == "c3: c3은(는) 차 있습니다"
    state.push_str("a5")  # Black to move again: d4 would touch c3 only at a corner
    with pytest.raises(IllegalMoveError) as diagonal:
        state.parse_move("d4")
    assert diagonal.value.translated(pt) == (
        "d4: c3 e d4 ficariam vizinhas na diagonal sem nenhuma pedra preta em d3 ou c4 "
        "(a regra da diagonal)"
    )


def test_snake_pit_refusals_name_players_in_the_language(
    translations: dict[str, Translations],
) -> None:
    """The players' names inside a refusal are translated with it (``Term``)."""
    pt, ko = translations["pt"].gettext, translations["ko"].gettext
    state = get_game("snake-pit").new_state()
    with pytest.raises(IllegalMoveError) as foreign:
        state.next_clicks(["a1"])
    assert str(foreign.value) == "a1 as the first click: not one of Green's snakes"
    assert foreign.value.translated(pt) == "a1 como primeiro clique: não é uma das cobras de Verde"
    assert foreign.value.translated(ko) == "a1 (첫 클릭): 초록의 뱀이 아닙니다"
    with pytest.raises(InvalidMoveError) as typed:
        state.parse_move("b9")
    assert typed.value.translated(pt).startswith(
        "'b9' em 'b9' não é um passo 'origem-destino' como a7-b7"
    )
    with pytest.raises(GameError) as size:
        get_game("slimetrail", size="x")
    assert size.value.translated(ko) == "slimetrail: 옵션 size='x'은(는) 정수가 아닙니다"
