"""``slimetrail bot``: connect any UGI engine to a Slimetrail site and play its games there.

The bot dials out (a WebSocket to the site's ``/ws/bot``, so it runs behind NAT), says which
games it plays (``--games``, else every game the engine's ``Game`` option lists), and for each
``turn`` the site sends it sets the engine up (game, options, the moves so far) and answers
with the engine's ``bestmove``: ``go p1time .. p2time .. p1inc .. p2inc ..`` on a clock,
``go movetime`` otherwise (correspondence too: days are not a budget to spend).  The
protocol's messages are described in :mod:`slimetrail.web.bots`.  A lost connection is
dialled again, with a growing pause; a refused token ends the bot with an error.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
from collections.abc import Sequence
from typing import Any

log = logging.getLogger("slimetrail.bot")

BAD_TOKEN = 4401  # the site's close code (slimetrail.web.bots)
RETRY_PAUSES = (1.0, 2.0, 5.0, 10.0, 30.0)
ENGINE_WAIT = 120.0  # seconds for the engine's answers to ugi and isready (kernels compile)


class BotError(Exception):
    """The bot cannot go on: a refused token, an engine that does not speak UGI."""


class UgiProcess:
    """An engine subprocess spoken to in UGI, one search at a time."""

    def __init__(self, command: Sequence[str], *, strict: bool = False) -> None:
        """``strict``: an ``info string error`` line from the engine (a setting or a
        position it refused) ends the search with :class:`BotError` instead of a warning in
        the log (a benchmark must not go on from a position the engine does not have)."""
        self.command = list(command)
        self.strict = strict
        self.process: asyncio.subprocess.Process | None = None
        self.games: list[str] = []
        self.setup: tuple[str, tuple[tuple[str, str], ...]] | None = None

    async def start(self) -> None:
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
            )
        except OSError as exc:
            raise BotError(f"cannot start the engine {shlex.join(self.command)}: {exc}") from None
        self.send("ugi")
        for line in await self.until("ugiok", ENGINE_WAIT):
            words = line.split()
            # option name Game type combo default slimetrail var slimetrail var slimetrail-hex
            if words[:3] == ["option", "name", "Game"]:
                self.games = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "var"]
        # Ready before the first turn: the engine's set-up (kernels) is not spent on a clock.
        self.send("isready")
        await self.until("readyok", ENGINE_WAIT)

    def send(self, line: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        log.debug("> %s", line)
        self.process.stdin.write(f"{line}\n".encode())

    async def until(self, word: str, timeout: float | None = None) -> list[str]:
        """The engine's lines up to the first starting with ``word`` (included); strict, an
        error line among them raises :class:`BotError` once ``word`` has come (so that the
        engine's answers stay in step with the questions)."""
        assert self.process is not None and self.process.stdout is not None
        lines: list[str] = []
        errors: list[str] = []
        while True:
            raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            if not raw:
                raise BotError(f"the engine {shlex.join(self.command)} exited")
            line = raw.decode(errors="replace").strip()
            log.debug("< %s", line)
            if line.startswith("info string error"):
                errors.append(line)
                log.warning("engine: %s", line)
            lines.append(line)
            if line.split()[:1] == [word]:
                if errors and self.strict:
                    raise BotError(f"the engine {shlex.join(self.command)} answered {errors[0]!r}")
                return lines

    async def set_up(self, game: str, options: dict[str, str]) -> None:
        """The engine set to ``game`` with ``options`` (names as the engine's options) and
        ready, unless it already is: its kernels load here, not in a search's time."""
        setup = (game, tuple(sorted(options.items())))
        if self.setup != setup:
            self.send(f"setoption name Game value {game}")
            for name, value in setup[1]:
                self.send(f"setoption name {name} value {value}")
            self.send("isready")
            await self.until("readyok", ENGINE_WAIT)
            self.setup = setup

    async def best_move(self, turn: dict[str, Any], movetime_ms: int) -> str:
        """The engine's move for the site's ``turn`` message."""
        return (await self.search(turn, movetime_ms))[-1].split()[1]

    async def search(self, turn: dict[str, Any], movetime_ms: int) -> list[str]:
        """The engine's lines for the site's ``turn`` message, its ``info`` lines (nodes,
        depth) and last its ``bestmove``."""
        await self.set_up(turn["game"], turn["options"])
        moves = turn["moves"]
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        clock = turn.get("clock_ms")
        if clock and not turn.get("per_move"):
            increment = turn.get("increment_ms", 0)
            self.send(
                f"go p1time {max(0, clock[0])} p2time {max(0, clock[1])}"
                f" p1inc {increment} p2inc {increment}"
            )
        else:
            self.send(f"go movetime {movetime_ms}")
        return await self.until("bestmove")

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            try:
                self.send("quit")
                await asyncio.wait_for(self.process.wait(), 5)
            except (TimeoutError, OSError):
                self.process.kill()
                await self.process.wait()


def socket_url(url: str) -> str:
    """The site's bot endpoint: ``https://site`` -> ``wss://site/ws/bot``."""
    base = url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base[len("https://") :]
    elif base.startswith("http://"):
        base = "ws://" + base[len("http://") :]
    elif not base.startswith(("ws://", "wss://")):
        raise BotError(f"--url {url!r}: give the site's address, e.g. https://slimetrail.example")
    return base + "/ws/bot"


async def play(
    url: str,
    token: str,
    engine_command: str,
    games: Sequence[str] = (),
    movetime_ms: int = 1000,
) -> None:
    """Play on the site at ``url`` until stopped."""
    import websockets

    endpoint = socket_url(url)
    engine = UgiProcess(shlex.split(engine_command))
    await engine.start()
    announced = list(games) or engine.games
    if not announced:
        raise BotError("the engine names no games (no Game option): give --games")
    pauses = iter(RETRY_PAUSES)
    try:
        while True:
            try:
                async with websockets.connect(
                    endpoint, additional_headers={"Authorization": f"Bearer {token}"}
                ) as socket:
                    await socket.send(json.dumps({"type": "hello", "games": announced}))
                    async for raw in socket:
                        message = json.loads(raw)
                        if message.get("type") == "welcome":
                            log.info("connected as %s, playing %s", message["name"], announced)
                            pauses = iter(RETRY_PAUSES)
                        elif message.get("type") == "turn":
                            move = await engine.best_move(message, movetime_ms)
                            reply = {"match": message["match"], "ply": message["ply"]}
                            await socket.send(json.dumps({"type": "move", **reply, "move": move}))
                        elif message.get("type") == "error":
                            log.warning("site: %s", message.get("message"))
            except websockets.ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code == BAD_TOKEN:
                    raise BotError(f"the site refused the token: {exc.rcvd.reason}") from None
                log.warning("connection closed: %s", exc)
            except (OSError, websockets.InvalidHandshake) as exc:
                log.warning("cannot connect to %s: %s", endpoint, exc)
            pause = next(pauses, RETRY_PAUSES[-1])
            log.info("connecting again in %g s", pause)
            await asyncio.sleep(pause)
    finally:
        await engine.stop()
