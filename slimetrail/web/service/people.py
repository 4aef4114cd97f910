"""The players: display names, the seats a browser holds, its games, the live games.

A seat is a player's (``owner``) when they create the match, are paired into it, or open
its seat link first (a friend invited by link).  Nothing here knows HTTP.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from slimetrail.i18n import gettext
from slimetrail.web.service.errors import InvalidRequest
from slimetrail.web.service.matches import Live, MatchService
from slimetrail.web.storage.people import MatchOf, PeopleRepository

NAME_LENGTH = 40
LIVE_HOURS = 2  # a game between people is "live" in the lobby if it moved this recently


def clean_name(text: str) -> str | None:
    """A display name as typed, trimmed (``None``: no name); :class:`InvalidRequest` says
    what is wrong with a bad one."""
    name = " ".join(text.split())
    if len(name) > NAME_LENGTH:
        said = gettext("a name has at most %(most)s characters, not %(n)s")
        raise InvalidRequest(said % {"most": NAME_LENGTH, "n": len(name)})
    if any(not ch.isprintable() for ch in name):
        raise InvalidRequest(gettext("a name cannot hold control characters"))
    return name or None


class People:
    def __init__(self, repository: PeopleRepository, matches: MatchService) -> None:
        self.repository = repository
        self.matches = matches

    def name(self, player: str) -> str | None:
        return self.repository.name(player)

    def rename(self, player: str, text: str) -> str | None:
        name = clean_name(text)
        self.repository.set_name(player, name)
        return name

    def opened(self, live: Live, token: str, player: str) -> bool:
        """The holder of ``token`` opened the match (its page, or its seat through the API):
        seats of nobody's become ``player``'s, and the clocks start if they were the last to
        arrive; whether the seats were taken (the match changed: its watchers are to be
        told).  A token holding no seat of the match is refused (:class:`SeatRefused`)."""
        held = live.held_by(token)
        if not any(live.seat(p).owner is None for p in held):
            return False
        if not self.repository.claim_seat(live.id, token, player):
            return False
        self.matches.arrived(live.id, token, player)
        return True

    def games_of(self, player: str) -> list[MatchOf]:
        return self.repository.matches_of(player)

    def live_games(self, limit: int = 50) -> list[MatchOf]:
        since = datetime.now(UTC) - timedelta(hours=LIVE_HOURS)
        return self.repository.live_matches(since, limit)
