"""The proof that a game is one definition: ``toy-flags`` (tests/toygames.py) declares its own
flag mark, its endings with their sentences and its ``summit`` option, and nothing outside
that definition knows them.  A real server that registers it through ``SLIMETRAIL_GAMES``
draws the flag and says the ending, its records write and read back, and ``slimetrail play``
prints the sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx2 as httpx
import pytest

from slimetrail.core.records import parse_json, parse_pgn

SUMMIT_WIN = "Sky planted a flag on the summit, a1."
TESTS = str(Path(__file__).resolve().parents[1])
# What a server or a command needs to know the toy games: the module, and where it is.
TOY_ENV = {
    "SLIMETRAIL_GAMES": "toygames",
    "PYTHONPATH": os.pathsep.join(filter(None, [TESTS, os.environ.get("PYTHONPATH")])),
}


@pytest.fixture
def flags_server(toy_server: str) -> str:
    """The session's toy server (tests/web/conftest.py): it registers the toy games through
    ``SLIMETRAIL_GAMES``, as any plug-in game would be."""
    return toy_server


def finished_match(base: str) -> dict:
    """A hotseat toy-flags match on the summit a1: Gold plants b2, Sky takes the summit."""
    created = httpx.post(
        f"{base}/api/matches",
        json={"game": "toy-flags", "options": {"summit": "a1"}, "opponent": "hotseat"},
    )
    assert created.status_code == 201, created.text
    match = created.json()
    assert match["options"] == {"summit": "a1"} and match["spec"] == "toy-flags summit=a1"
    seat = match["links"]["1"].split("seat=")[1]
    for text in ("b2", "a1"):
        body = {"seat": seat, "move": text, "ply": match["ply"]}
        answer = httpx.post(f"{base}/api/matches/{match['id']}/move", json=body)
        assert answer.status_code == 200, answer.text
        match = answer.json()
    return match


def test_the_server_draws_the_flag_and_says_the_ending(flags_server) -> None:
    match = finished_match(flags_server)
    assert match["outcome"]["reason"] == "summit" and match["outcome"]["winner"] == 2
    assert match["result_sentence"] == SUMMIT_WIN
    svg = match["svg"]
    assert 'class="cell mark-flag-1" data-cell="b2" aria-label="b2, flag of Gold"' in svg
    assert '<circle class="toy-flag p2" cx="0" cy="2" r="0.4" fill="none"' in svg
    # The player bars: a two-player loser has lost.
    assert [p["result"] for p in match["players"]] == ["loss", "win"]


def test_the_servers_records_write_and_read_back(flags_server) -> None:
    match = finished_match(flags_server)
    base = f"{flags_server}/api/matches/{match['id']}/record"
    pgn = httpx.get(base).text
    assert '[Game "toy-flags"]' in pgn and '[Summit "a1"]' in pgn and '[Result "0-1"]' in pgn
    for record in (parse_pgn(pgn), parse_json(httpx.get(base, params={"format": "json"}).text)):
        assert record.game.spec == "toy-flags summit=a1" and record.result == "0-1"
        assert record.replay().outcome().reason == "summit"  # type: ignore[union-attr]


def test_the_play_page_shows_the_flag_and_the_sentence(flags_server, new_page) -> None:
    match = finished_match(flags_server)
    page = new_page(f"{flags_server}/play/{match['id']}")
    assert page.locator("#board .toy-flag").count() == 2
    page.wait_for_function("text => document.body.innerText.includes(text)", arg=SUMMIT_WIN)
    assert "place 2" not in page.locator("#players").inner_text()


def test_the_terminal_prints_the_sentence() -> None:
    command = ["play", "--game", "toy-flags", "--summit", "a1", "--hotseat"]
    proc = subprocess.run(
        [sys.executable, "-m", "slimetrail", *command],
        input="b2\na1\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **TOY_ENV},
    )
    assert proc.returncode == 0, proc.stderr
    assert f"Game over. {SUMMIT_WIN}" in proc.stdout
