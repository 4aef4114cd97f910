"""A request sent on a kept-alive connection while the server is stalled (an overloaded
machine that does not schedule it for a few seconds) is answered once it runs again.

With uvicorn's own 5 s keep-alive the idle timer fired first on waking and closed the
connection with the request unread: the client got a reset and no answer (the pairing load
test's lost POST).  ``slimetrail serve`` keeps idle connections for ``keep_alive`` seconds."""

from __future__ import annotations

import asyncio
import os
import signal

import httpx2 as httpx
from liveserver import TLS

from slimetrail.web.settings import Limits

STALL = 6.0  # longer than uvicorn's default keep-alive of 5 s


def test_a_request_sent_during_a_stall_is_answered(live_server) -> None:
    assert Limits().keep_alive > STALL
    pid = live_server.process.pid

    async def asked_during_a_stall() -> int:
        async with httpx.AsyncClient(base_url=live_server, verify=TLS, timeout=60) as client:
            assert (await client.get("/healthz")).status_code == 200
            # The connection is idle and kept; the next request waits on it, unread.
            os.kill(pid, signal.SIGSTOP)
            try:
                asked = asyncio.create_task(client.get("/healthz"))
                await asyncio.sleep(STALL)
            finally:
                os.kill(pid, signal.SIGCONT)
            return (await asked).status_code

    assert asyncio.run(asked_during_a_stall()) == 200
