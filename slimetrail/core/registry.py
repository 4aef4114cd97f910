"""The games of the platform, by id. Adding a game is one folder plus one line here."""

from __future__ import annotations

from typing import Any

from slimetrail.core.game import Game, GameOptionError
from slimetrail.games.trail.game import HexSlimeTrailGame, SlimetrailGame, SquareSlimeTrailGame

GAMES: dict[str, type[Game]] = {
    cls.id: cls
    for cls in (
        SlimetrailGame,
        HexSlimeTrailGame,
        SquareSlimeTrailGame,
    )
}


def get_game(game_id: str = "slimetrail", **options: Any) -> Game:
    """A game by id with options (``None`` values mean the default)."""
    try:
        cls = GAMES[game_id]
    except KeyError:
        raise GameOptionError(f"unknown game {game_id!r} (games: {', '.join(GAMES)})") from None
    return cls(**{k: v for k, v in options.items() if v is not None})


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
