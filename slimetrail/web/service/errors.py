"""What the match service refuses, in its own terms: the web layer maps each kind to an HTTP
status (:mod:`slimetrail.web.errors`), a WebSocket close code, or an error page."""

from __future__ import annotations


class MatchError(Exception):
    """A request the match service refuses; ``message`` says why, to the person asking."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(MatchError):
    """A bad game, option, seat, move, record or field."""


class NotFound(MatchError):
    """No such match."""


class SeatRefused(MatchError):
    """The token holds no seat of the match (or none was given where one is needed)."""


class NotYourTurn(MatchError):
    """The holder of the token may not move now: another player or the computer is to."""


class Conflict(MatchError):
    """The match is not in a state for this: over, changed meanwhile (stale), no undo."""
