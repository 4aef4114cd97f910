"""Every limit of the web server in one place: admission, rate limits, watchers, retention.

``create_app(..., limits=Limits(...))`` takes them and ``slimetrail serve`` sets them from its
options (``--limit NAME=VALUE``), so a deployment (or a test) changes one value without
touching the code, and a shared job queue can be put behind the same numbers.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from limits import parse

# SLIMETRAIL_WARM_UP=0: a server's workers load a game's kernels when it is first played,
# not every game's before the first request.  For the test suite, whose many short-lived
# servers mostly play no computer move (each warm-up costs seconds of processor time).
WARM_UP_VARIABLE = "SLIMETRAIL_WARM_UP"


def warm_up_wanted() -> bool:
    return os.environ.get(WARM_UP_VARIABLE, "1") != "0"


# Limits for which 0 means nothing sensible (a clock of no time, a sweep that never rests).
POSITIVE = (
    "clock_scale",
    "clock_sweep",
    "arrival_wait",
    "bot_online",
    "keep_alive",
    "analyse_time",
)


@dataclass(frozen=True)
class Limits:
    # Admission (slimetrail.web.service.admission): jobs queued or running per client,
    # computer moves and analyses waiting in total, and how long an analysis may wait.
    client_jobs: int = 8
    move_queue: int = 200
    analysis_queue: int = 4
    analysis_wait: float = 30.0
    # Seconds an analysis of /api/analyse may search (the page's Analyse button).
    analyse_time: float = 3.0
    # Per-client rates (``limits`` notation): match creation (/api/matches, /new,
    # /api/import, rematch) and /api/analyse; ``rate_storage`` a ``limits`` storage URI,
    # "" for the database when it is PostgreSQL (shared by all processes), else memory://.
    create_rate: str = "30/minute"
    analyse_rate: str = "30/minute"
    # Seeks for an opponent (/new?opponent=human, a join in the lobby) per client, and how
    # long a seek waits before it is dropped (seconds).
    seek_rate: str = "30/minute"
    seek_timeout: float = 600.0
    rate_storage: str = ""
    # WebSocket watchers per match and in total.
    match_watchers: int = 100
    total_watchers: int = 2000
    # Back-pressure: HTTP requests served at once; one more waits at most ``in_flight_wait``
    # seconds for a place, then is answered 503.  Two at once keep the processor busy (one
    # computes while the other waits for the database) and a served move inside 100 ms; more
    # only queue in the interpreter (bench/web_load.py, bench/RESULTS.md).
    in_flight: int = 2
    in_flight_wait: float = 0.05
    # Retention (slimetrail.web.storage.retention): an unfinished match with no move for this
    # many days, a finished one this many days after its last change, are deleted; checked
    # every ``expiry_interval`` seconds by the server (0: never, leave it to ``slimetrail expire``).
    unfinished_days: float = 30.0
    finished_days: float = 180.0
    expiry_interval: float = 3600.0
    # Clocks (slimetrail.web.service.clock): every duration of a time control is multiplied by
    # ``clock_scale`` (1 in play; a test makes a minute a second), and fallen flags are looked
    # for every ``clock_sweep`` seconds, so a game ends on time with nobody connected.
    # Clocks start when every seat is taken; a game still missing a player ``arrival_wait``
    # seconds after it was made (a correspondence move's time if longer) is aborted.
    clock_scale: float = 1.0
    clock_sweep: float = 1.0
    arrival_wait: float = 86_400.0
    # Bots (slimetrail.web.bots): connections per client (a bot's reconnects), and how long a
    # bot counts as online after its last sign of life (it beats every third of that).
    bot_connect_rate: str = "10/minute"
    bot_online: float = 30.0
    # How long an idle HTTP connection is kept open (seconds).  uvicorn's own 5 s is shorter
    # than an overloaded server's event loop can stall: the timer then fires before the
    # request already waiting on the connection is read, and the request is dropped unanswered.
    keep_alive: int = 75

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name.endswith("_rate"):
                try:
                    parse(value)
                except ValueError:
                    raise ValueError(
                        f"{field.name}={value!r} is not a rate such as '30/minute'"
                    ) from None
            elif field.name in POSITIVE and value <= 0:
                raise ValueError(f"{field.name} must be positive, not {value}")
            elif isinstance(value, int | float) and value < 0:
                raise ValueError(f"{field.name} must not be negative, not {value}")

    def with_text(self, text: str) -> Limits:
        """A copy with one ``NAME=VALUE`` changed (the serve option ``--limit``)."""
        name, sep, value = text.partition("=")
        fields = {field.name: field for field in dataclasses.fields(self)}
        name = name.strip().replace("-", "_")
        if not sep or name not in fields:
            known = ", ".join(fields)
            raise ValueError(f"--limit {text!r}: expected NAME=VALUE, NAME one of {known}")
        kind = type(getattr(self, name))
        try:
            parsed = kind(value.strip())
        except ValueError:
            raise ValueError(f"--limit {text!r}: {value!r} is not a {kind.__name__}") from None
        return dataclasses.replace(self, **{name: parsed})
