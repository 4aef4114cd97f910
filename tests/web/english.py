"""English left on a page in another language: the check the translation tests share."""

from __future__ import annotations

import functools
import re

from babel.messages.pofile import read_po

from slimetrail.i18n import LANGUAGES, SOURCE, catalogue, language_name

# What a page may show in any language: the site's and a game's proper names, the languages'
# own names in the switch, file formats and key names.
PROPER = {"Slimetrail", "Rastros", "PGN", "JSON", "MIT", "Esc", "Home", "End"} | {
    language_name(lang) for lang in LANGUAGES
}
WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")


@functools.cache
def vocabulary(lang: str) -> frozenset[str]:
    """Every word of the catalogues' messages in ``lang`` (English: the msgids)."""
    words: set[str] = set()
    for domain in ("web", "games"):
        with catalogue("pt" if lang == SOURCE else lang, domain).open("rb") as po:
            for message in read_po(po):
                texts = message.id if lang == SOURCE else message.string
                for text in texts if isinstance(texts, tuple) else (texts,):
                    words.update(WORD.findall(text or ""))
    return frozenset(words)


def english_left(text: str, lang: str) -> list[str]:
    """The words of ``text`` in Latin letters that are no word of ``lang``'s messages nor a
    proper name; in Portuguese (the same letters) only those of the English messages."""
    words = set(WORD.findall(text)) - vocabulary(lang) - PROPER
    if lang == "pt":
        words &= vocabulary(SOURCE)
    return sorted(words)
