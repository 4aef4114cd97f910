"""The engine driver the bot and the strength benchmark share (``slimetrail.engine.bot.
UgiProcess``), against a real ``slimetrail ugi`` subprocess: a search's lines, and an engine's
error line a warning for the bot, an error for a strict driver, the answers kept in step."""

from __future__ import annotations

import asyncio
import sys

import pytest

from slimetrail.core.registry import get_game
from slimetrail.engine.bot import BotError, UgiProcess

COMMAND = [sys.executable, "-m", "slimetrail", "ugi"]
BAD = {"game": "slimetrail", "options": {"Size": "7"}, "moves": ["d5", "d5"]}
GOOD = {"game": "slimetrail", "options": {"Size": "7"}, "moves": ["c3"]}


def legal_after(moves: list[str]) -> list[str]:
    state = get_game("slimetrail").new_state()
    for move in moves:
        state.push_str(move)
    return state.legal_move_strs()


async def two_searches(strict: bool) -> tuple[list[str] | BotError, list[str]]:
    engine = UgiProcess(COMMAND, strict=strict)
    await engine.start()
    try:
        first: list[str] | BotError = await engine.search(BAD, 50)
    except BotError as exc:
        first = exc
    second = await engine.search(GOOD, 50)
    await engine.stop()
    return first, second


def test_a_search_s_lines_end_with_a_legal_bestmove() -> None:
    async def one() -> list[str]:
        engine = UgiProcess(COMMAND, strict=True)
        await engine.start()
        assert "slimetrail" in engine.games
        await engine.set_up("slimetrail", GOOD["options"])  # before any search, as the bench
        assert engine.setup == ("slimetrail", (("Size", "7"),))
        lines = await engine.search(GOOD, 50)
        assert await engine.best_move(GOOD, 50) in legal_after(["c3"])
        await engine.stop()
        return lines

    lines = asyncio.run(one())
    assert lines[-1].split()[0] == "bestmove" and lines[-1].split()[1] in legal_after(["c3"])
    assert any(line.startswith("info ") and " nodes " in line for line in lines[:-1])


@pytest.mark.parametrize("strict", [False, True])
def test_an_engine_s_error_line_and_the_next_search_in_step(strict: bool, caplog) -> None:
    first, second = asyncio.run(two_searches(strict))
    if strict:
        assert isinstance(first, BotError) and "the snail is already there" in str(first)
    else:
        assert isinstance(first, list) and first[0].startswith("info string error position")
        assert "the snail is already there" in caplog.text
    # The next answer is the next question's, not the first search's leftovers.
    assert second[-1].split()[1] in legal_after(["c3"])
    assert not any(line.startswith("info string error") for line in second)
