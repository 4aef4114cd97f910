"""What the scale-out tests share: the site of two web-only servers and one worker on one
PostgreSQL, and its timeouts (a plain module: test files import it; the fixture that starts
the site is in tests/scaleout/conftest.py).  The start timeouts are generous: on a loaded
machine a cold start (JIT) takes long."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from liveserver import LiveServer, LiveWorker, free_port

STALL_SECONDS = 3.0
START_TIMEOUT = 300.0


@dataclass
class Site:
    a: LiveServer
    b: LiveServer
    worker: LiveWorker
    db_url: str


def web_only(db_url: str, log: Path) -> LiveServer:
    return LiveServer(free_port(), db_url, log, ("--workers", "0"))
