"""The translation machinery: gettext catalogues made with Babel, one per language and domain.

The catalogues are ``slimetrail/locale/<lang>/LC_MESSAGES/<domain>.po`` with English msgids
(English is the source language and needs none). Two domains: ``web`` (the site's pages,
scripts and refusals, the review's verdicts and the terminal game's sentences, extracted from
``slimetrail/`` with ``locale/web.cfg``) and ``games`` (the games' declared texts, boards'
legends and rules pages, from ``slimetrail/games`` and ``slimetrail/core`` with
``locale/games.cfg``). :func:`translations` merges both, so a msgid found in either is
translated. The ``.mo`` files are compiled from the ``.po`` files by the build (``setup.py``)
and by ``slimetrail compile`` (:func:`compile_catalogues`); they are not in the repository,
and a catalogue without an up-to-date ``.mo`` is compiled in memory when first used.

Adding a language is one new catalogue per domain plus its line in :data:`LANGUAGES`.

What is being said now is in :data:`CURRENT`'s language (the web sets it per request, see
:mod:`slimetrail.web.language`): :func:`gettext` and :func:`ngettext` translate into it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
from collections.abc import Iterator, Mapping
from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

# The languages the site speaks, the source language first: each one's code (ISO 639-1, the
# catalogue's folder, ?lang=) and the locale its numbers and dates are written in.
LANGUAGES = {
    "en": "en_GB",
    "pt": "pt_PT",
    "ko": "ko_KR",
}
SOURCE = next(iter(LANGUAGES))
DOMAINS = ("web", "games")
LOCALE_DIR = Path(__file__).parent / "locale"
CURRENT: contextvars.ContextVar[str] = contextvars.ContextVar("language", default=SOURCE)


def catalogue(lang: str, domain: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def compiled(po: Path) -> bytes:
    """The ``.mo`` bytes of one ``.po`` file (fuzzy entries left out, as gettext does)."""
    with po.open("rb") as source:
        messages = read_po(source, domain=po.stem)
    out = io.BytesIO()
    write_mo(out, messages)
    return out.getvalue()


def compile_catalogues(target: Path = LOCALE_DIR) -> list[Path]:
    """Write each catalogue's ``.mo`` beside it under ``target``; the files written."""
    written = []
    for po in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        mo = target / po.relative_to(LOCALE_DIR).with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        mo.write_bytes(compiled(po))
        written.append(mo)
    return written


def load(po: Path) -> Translations:
    mo = po.with_suffix(".mo")
    fresh = mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime
    data = mo.read_bytes() if fresh else compiled(po)
    return Translations(io.BytesIO(data), domain=po.stem)


@functools.cache
def translations(lang: str) -> Translations:
    """Both domains' messages in ``lang`` (the source language, or a domain without a
    catalogue, answers with the msgid itself)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r} (languages: {', '.join(LANGUAGES)})")
    found = [load(po) for domain in DOMAINS if (po := catalogue(lang, domain)).exists()]
    if lang == SOURCE or not found:
        return Translations()
    # The first catalogue read keeps its plural rule (merge() takes only the messages).
    merged = found[0]
    for other in found[1:]:
        merged.merge(other)
    return merged


def language_name(lang: str) -> str:
    """The language's name in itself ("Português", "한국어"), for the language switch."""
    name = Locale.parse(lang).get_display_name(lang) or lang
    return name[:1].upper() + name[1:]


def negotiate(accept_language: str) -> str | None:
    """The best of :data:`LANGUAGES` for an ``Accept-Language`` header, or ``None``."""
    weighted = []
    for position, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and quality > 0:
            weighted.append((-quality, position, tag.strip().lower()))
    for _q, _p, tag in sorted(weighted):
        primary = tag.split("-")[0]
        if primary in LANGUAGES:
            return primary
    return None


def from_environment(environ: Mapping[str, str]) -> str:
    """The language of a terminal, as gettext reads it: the first of ``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set gives a colon-separated list of
    locales (``pt_BR.UTF-8:en``), and the first of them that :data:`LANGUAGES` has wins;
    none (or the ``C`` locale) is the source language."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            for locale in value.split(":"):
                primary = locale.split(".")[0].split("@")[0].replace("-", "_").split("_")[0]
                if primary.lower() in LANGUAGES:
                    return primary.lower()
            break
    return SOURCE


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return translations(CURRENT.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return translations(CURRENT.get()).ngettext(singular, plural, count)


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """The current language while the block runs (a message built for another reader)."""
    token = CURRENT.set(lang)
    try:
        yield
    finally:
        CURRENT.reset(token)
