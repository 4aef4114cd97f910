"""The language of each request, and the pages' templates that speak it.

The language is, first to last: ``?lang=`` on the URL (remembered in the ``lang`` cookie), the
cookie, the browser's ``Accept-Language``, English.  :class:`LanguageChoice` (ASGI middleware)
sets it for the request (:data:`slimetrail.i18n.CURRENT`), so the templates, the error pages,
the service's refusals and the human sentences of the JSON answers all read it through
:func:`slimetrail.i18n.gettext` without passing it around; keys and codes of the JSON never
change.

The templates use Jinja2's i18n extension with **new-style gettext**
(``env.newstyle_gettext = True``): ``{{ _("Moves: %(n)s", n=n) }}`` and ``{% trans %}`` blocks
format and escape their variables themselves.  The callables are installed once and ask the
context variable for the language, so one environment serves every language at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import jinja2
from babel.dates import format_datetime
from babel.messages.extract import extract_javascript
from babel.numbers import format_decimal
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from slimetrail.i18n import (
    CURRENT,
    LANGUAGES,
    SOURCE,
    gettext,
    language_name,
    negotiate,
    ngettext,
    speaking,
)
from slimetrail.web.players import cookie_of, setting_cookie

COOKIE = "lang"
MAX_AGE = 365 * 24 * 3600
TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"


def number(value: float) -> str:
    """A number written the request's language's way (1,234 / 1 234 / 1,234)."""
    return format_decimal(value, locale=LANGUAGES[CURRENT.get()])


def when(moment: Any) -> str:
    """A date and time written the request's language's way."""
    return format_datetime(moment, "medium", locale=LANGUAGES[CURRENT.get()])


class LanguageChoice:
    """ASGI middleware: the request's language in :data:`CURRENT`; ``?lang=`` sets the cookie.
    An unknown ``?lang=`` is refused (400) naming the languages."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        asked = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"))).get("lang")
        remembered = cookie_of(scope, COOKIE)
        lang = remembered if remembered in LANGUAGES else None
        if lang is None:
            headers = dict(scope.get("headers", ()))
            lang = negotiate(headers.get(b"accept-language", b"").decode("latin-1")) or SOURCE
        if asked is not None and asked not in LANGUAGES:
            if scope["type"] == "http":
                with speaking(lang):  # the language the person would otherwise have had
                    said = gettext("unknown language %(lang)r in ?lang= (languages: %(known)s)")
                    text = said % {"lang": asked, "known": ", ".join(LANGUAGES)}
                await PlainTextResponse(text, status_code=400)(scope, receive, send)
                return
            asked = None
        lang = asked or lang
        if asked and asked != remembered and scope["type"] == "http":
            cookie = f"{COOKIE}={asked}; Max-Age={MAX_AGE}; Path=/; SameSite=Lax"
            send = setting_cookie(send, cookie)
        with speaking(lang):
            await self.app(scope, receive, send)


def switch_links(request: Request) -> list[dict[str, Any]]:
    """The language switch: this page in each language."""
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    return [
        {
            "lang": lang,
            "name": language_name(lang),
            "href": request.url.path + "?" + urlencode([*query, ("lang", lang)]),
            "current": lang == CURRENT.get(),
        }
        for lang in LANGUAGES
    ]


def page_context(request: Request) -> dict[str, Any]:
    """What every page's template has: its language, the switch, and ``link`` (a site path
    that keeps an explicit ``?lang=``, for a browser without cookies)."""
    asked = request.query_params.get("lang")

    def link(path: str) -> str:
        if not asked:
            return path
        return path + ("&" if "?" in path else "?") + urlencode({"lang": asked})

    return {"lang": CURRENT.get(), "languages": switch_links(request), "link": link}


def script_messages() -> list[str]:
    """Every message the page scripts ask for: the ``_("...")`` calls of ``static/*.js``."""
    found: dict[str, None] = {}
    for script in sorted(STATIC.glob("*.js")):
        with script.open("rb") as source:
            for _line, _function, message, _comments in extract_javascript(
                source, {"_": None}, [], {}
            ):
                # A call with more arguments than the message (its placeholders' values)
                # comes as a tuple, the message first.
                first = message[0] if isinstance(message, tuple) else message
                if isinstance(first, str):
                    found[first] = None
    return list(found)


def script_catalogue() -> Markup:
    """The page scripts' messages in the request's language, as JSON for a
    ``<script type="application/json">`` (``<`` escaped, so no text closes the element)."""
    messages = {message: gettext(message) for message in SCRIPT_MESSAGES}
    return Markup(json.dumps(messages, ensure_ascii=False).replace("<", "\\u003c"))


SCRIPT_MESSAGES = script_messages()


def environment(**options: Any) -> jinja2.Environment:
    """A Jinja environment with the i18n extension speaking the request's language."""
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], **options)
    # {% trans %} blocks with their whitespace collapsed, as extracted (web.cfg, games.cfg).
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=gettext, ngettext=ngettext, newstyle=True
    )
    env.globals.update(number=number, when=when, script_catalogue=script_catalogue)
    return env


templates = Jinja2Templates(
    env=environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True),
    context_processors=[page_context],
)
