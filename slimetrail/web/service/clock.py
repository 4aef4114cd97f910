"""Time controls: what a ``clock=`` text means, and how a clock runs from move to move.

Two kinds, as lichess has them: ``M+I`` (``M`` minutes each for the whole game, ``I``
seconds added after every move; ``1+0`` up to ``60+30``) and correspondence ``dN`` (``N``
days for every move, ``d1`` to ``d7``, the time left set back to ``N`` days after each move).
:func:`parse_clock` is the one place a clock text is read (match creation here, pairing
later); the match service keeps each seat's milliseconds with every move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from slimetrail.ai.limits import clock_budget
from slimetrail.core.i18n import N_
from slimetrail.i18n import gettext
from slimetrail.web.service.errors import InvalidRequest

MINUTES = (1, 60)
INCREMENT = (0, 30)
DAYS = (1, 7)
DAY_MS = 24 * 3600 * 1000
# The time a player with a clock runs short: the page warns below it.
LOW_TIME_MS = 10_000
# The clocks the home page offers (any other valid text works in a link or the API).
CLOCK_CHOICES = (
    ("1+0", N_("1+0 (bullet)")),
    ("3+2", N_("3+2 (blitz)")),
    ("5+3", N_("5+3 (blitz)")),
    ("10+5", N_("10+5 (rapid)")),
    ("15+10", N_("15+10 (rapid)")),
    ("30+20", N_("30+20 (classical)")),
    ("d1", N_("1 day per move")),
    ("d3", N_("3 days per move")),
)
CLOCK_TEXT = re.compile(r"(\d{1,3})\+(\d{1,3})|d(\d{1,2})")
CLOCK_HELP = N_(
    "give minutes+increment such as 3+2 (minutes %(low)s to %(high)s, increment "
    "%(least)s to %(most)s seconds) or days per move d%(fewest)s to d%(days)s"
)


def clock_refusal(text: str, template: str) -> InvalidRequest:
    """A bad clock, quoted, with what is accepted, in the request's language."""
    help_text = gettext(CLOCK_HELP) % {
        "low": MINUTES[0],
        "high": MINUTES[1],
        "least": INCREMENT[0],
        "most": INCREMENT[1],
        "fewest": DAYS[0],
        "days": DAYS[1],
    }
    return InvalidRequest(gettext(template) % {"clock": text, "help": help_text})


@dataclass(frozen=True)
class TimeControl:
    """A parsed clock: ``text`` as the player wrote it (normalised), each seat's time at the
    start, the increment per move, and ``per_move`` for correspondence (time reset each move)."""

    text: str
    initial_ms: int
    increment_ms: int
    per_move: bool

    def after_move(self, left_ms: int) -> int:
        """The mover's time once their move is made with ``left_ms`` still on their clock."""
        return self.initial_ms if self.per_move else left_ms + self.increment_ms

    def budget(self, left_ms: int) -> float:
        """Seconds the computer may think with ``left_ms`` on its clock."""
        if self.per_move:
            return clock_budget(left_ms * 10)  # days to spare: the level's own limit rules
        return clock_budget(left_ms, self.increment_ms)


def parse_clock(text: str, scale: float = 1.0) -> TimeControl:
    """The time control ``text`` names; :class:`InvalidRequest` quotes a bad text and says
    what is accepted.  ``scale`` multiplies every duration (1 in play; the server's
    ``clock_scale`` limit, so that a test loses a 1+0 game in a second)."""
    cleaned = text.strip().lower()
    found = CLOCK_TEXT.fullmatch(cleaned)
    if found is None:
        raise clock_refusal(text, N_("clock %(clock)r is not a time control: %(help)s"))
    minutes, increment, days = found.groups()
    if days is not None:
        if not DAYS[0] <= int(days) <= DAYS[1]:
            raise clock_refusal(text, N_("clock %(clock)r: %(help)s"))
        initial = int(int(days) * DAY_MS * scale)
        return TimeControl(f"d{int(days)}", initial, 0, per_move=True)
    if not (
        MINUTES[0] <= int(minutes) <= MINUTES[1] and INCREMENT[0] <= int(increment) <= INCREMENT[1]
    ):
        raise clock_refusal(text, N_("clock %(clock)r: %(help)s"))
    initial = int(int(minutes) * 60_000 * scale)
    return TimeControl(
        f"{int(minutes)}+{int(increment)}", initial, int(int(increment) * 1000 * scale), False
    )
