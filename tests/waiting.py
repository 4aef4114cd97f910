"""Waiting on a condition with a deadline, instead of sleeping a fixed time.

A fixed sleep is too long on a quiet machine and too short on a busy one; these poll the
condition often and give up, naming what never happened, only at the deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def wait_until(
    fetch: Callable[[], T],
    done: Callable[[T], Any] = bool,
    timeout: float = 60.0,
    what: str = "the condition",
    interval: float = 0.05,
) -> T:
    """Call ``fetch`` until ``done`` holds for what it returns (by default: until that is
    true), and return it; fail after ``timeout`` seconds naming ``what`` and the last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}: {value!r}")
        time.sleep(interval)


def computer_idle(app, match_id: str) -> bool:
    """Whether the in-process server (``TestClient(app)``) has no computer move under way for
    ``match_id`` and all its workers free, so that a search it started (even one whose answer
    is no longer wanted) has ended and any move it was going to make is made."""
    stats = app.state.admission.stats()
    return match_id not in app.state.computer.tasks and stats["free_workers"] == (
        app.state.computer.pool.workers
    )
