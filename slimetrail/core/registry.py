"""The registry of games, by id.  Core names no game: games register themselves.

The built-in games are the modules listed in :mod:`slimetrail.games` (adding a game is one
folder there plus one line in that list); more can come from other packages through the
environment variable ``SLIMETRAIL_GAMES`` (comma-separated module names, each calling
:func:`register` on import), which is how the tests add their toy games to a real server.
The modules are imported the first time the registry is read, not when core is imported.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from slimetrail.core.game import Game, GameOptionError
from slimetrail.core.i18n import N_

BUILT_IN = "slimetrail.games"
PLUGINS_VARIABLE = "SLIMETRAIL_GAMES"


class Registry(Mapping[str, type[Game]]):
    """Game classes by id, in registration order; loads the game modules on first use."""

    def __init__(self) -> None:
        self._games: dict[str, type[Game]] = {}
        self._loaded = False
        # A server's first requests read the registry from several threads at once: none may
        # see it before every module has registered its games.
        self._loading = threading.RLock()

    def register(self, cls: type[Game]) -> type[Game]:
        """Add a game class (usable as a class decorator); an id may be registered once."""
        known = self._games.get(cls.id)
        if known is not None and known is not cls:
            raise ValueError(f"game id {cls.id!r} is registered already by {known.__name__}")
        self._games[cls.id] = cls
        return cls

    def unregister(self, game_id: str) -> None:
        self._games.pop(game_id, None)

    def _load(self) -> None:
        if self._loaded:
            return
        with self._loading:
            if self._loaded:
                return
            modules = [BUILT_IN, *os.environ.get(PLUGINS_VARIABLE, "").split(",")]
            for name in filter(None, (m.strip() for m in modules)):
                importlib.import_module(name)
            self._loaded = True

    def __getitem__(self, game_id: str) -> type[Game]:
        self._load()
        return self._games[game_id]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._games))

    def __len__(self) -> int:
        self._load()
        return len(self._games)


GAMES = Registry()
register = GAMES.register


def get_game(game_id: str = "slimetrail", /, **options: Any) -> Game:
    """A game by id with options (``None`` values mean the default).

    ``game_id`` is positional-only, so that an option of any name (even ``game_id``) is
    only ever an option, refused by the game if it does not declare it.
    """
    try:
        cls = GAMES[game_id]
    except KeyError:
        raise GameOptionError(
            N_("unknown game %(game)r (games: %(games)s)"), game=game_id, games=", ".join(GAMES)
        ) from None
    given = {k: v for k, v in options.items() if v is not None}
    # Checked against the declarations before any constructor sees them: an undeclared
    # name (``self``, say) is an unknown option, never a clash with a parameter.
    return cls(**cls.normalize_options(given))


def parse_game_spec(text: str) -> Game:
    """A game from its spec text: ``slimetrail-hex size=8 rules=rastros``."""
    words = text.split()
    if not words:
        raise GameOptionError("empty game spec")
    options: dict[str, str] = {}
    for word in words[1:]:
        name, sep, value = word.partition("=")
        if not sep or not name or not value:
            raise GameOptionError(f"game spec {text!r}: {word!r} is not name=value")
        options[name] = value
    return get_game(words[0], **options)
