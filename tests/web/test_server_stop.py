"""Stopping a real ``slimetrail serve`` (Ctrl-C, or a service manager's SIGTERM) ends its
worker pool cleanly, even with a worker in the middle of a computer move: nothing on stderr
about leaked semaphores (the pool's queues, left open when uvicorn re-raises the signal)."""

from __future__ import annotations

import os
import signal

import httpx2 as httpx
import pytest
from liveserver import TLS, LiveServer, free_port
from waiting import wait_until


def group_gone(group: int) -> bool:
    """Whether no process of the process group is left (the server's resource tracker
    writes its warning after the server itself has gone)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_the_server_leaks_nothing(tmp_path, compiled_kernels, stop) -> None:
    server = LiveServer(
        free_port(),
        f"sqlite:///{tmp_path / 'stop.db'}",
        tmp_path / "serve.log",
        ("--workers", "1", "--move-time", "20"),
    )
    server.start()
    try:
        # A worker busy with the computer's first move (20 s) when the server is told to stop.
        created = httpx.post(
            f"{server}/api/matches", json={"game": "slimetrail", "side": 2, "level": 3}
        ).json()
        url = f"{server}/api/matches/{created['id']}"
        match = wait_until(lambda: httpx.get(url, verify=TLS).json(), lambda m: m["thinking"])
        assert match["ply"] == 0
        assert server.process is not None
        group = server.process.pid  # the server leads a session of its own
        server.process.send_signal(stop)
        server.process.wait(timeout=60)
        wait_until(lambda: group_gone(group), what="the server's processes to end")
    finally:
        server.kill()
    log = server.log_path.read_text()
    assert "leaked" not in log, log
    assert "Traceback" not in log, log
