"""Per-client limits behind a reverse proxy: ``slimetrail serve --forwarded-allow-ips`` names
the proxies whose ``X-Forwarded-For`` is the client's address (otherwise every player behind a
proxy in another container would share one address, and one limit)."""

from __future__ import annotations

import httpx2 as httpx
import pytest
from liveserver import running_server

HOTSEAT = {"game": "slimetrail", "opponent": "hotseat"}


def creations_from_two_clients(tmp_path, proxies: str) -> list[int]:
    # A server of its own: the proxies it trusts are a setting of the server.
    args = ("--workers", "1", "--limit", "create_rate=1/minute", "--forwarded-allow-ips", proxies)
    with running_server(tmp_path, *args) as server:
        return [
            httpx.post(
                f"{server}/api/matches",
                json=HOTSEAT,
                headers={"X-Forwarded-For": client},
                timeout=30,
            ).status_code
            for client in ("203.0.113.1", "203.0.113.2")
        ]


@pytest.mark.slow
def test_a_trusted_proxy_names_each_client(tmp_path) -> None:
    # The test's requests come from 127.0.0.1, here the trusted proxy: two clients, two limits.
    assert creations_from_two_clients(tmp_path, "127.0.0.1") == [201, 201]


@pytest.mark.slow
def test_an_untrusted_sender_cannot_name_the_client(tmp_path) -> None:
    # Only 192.0.2.9 is trusted: the header is ignored and both count against 127.0.0.1.
    assert creations_from_two_clients(tmp_path, "192.0.2.9") == [201, 429]
