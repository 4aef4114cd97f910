"""``slimetrail compile``: every registered game's kernels, or the named games' only."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from clitools import run_cli

import slimetrail
from slimetrail.core.registry import GAMES


def timed_games(stdout: str) -> list[str]:
    return re.findall(r"^([\w-]+): \d+\.\d s$", stdout, re.M)


def test_compiles_every_registered_game_the_toys_included() -> None:
    done = run_cli("compile")
    assert done.returncode == 0, done.stderr
    games = timed_games(done.stdout)
    assert set(games) >= set(GAMES) | {"toy-three", "toy-pie"}
    assert done.stdout.splitlines()[-1].startswith("compiled in ")


def test_named_games_only() -> None:
    done = run_cli("compile", "slither", "toy-three")
    assert done.returncode == 0, done.stderr
    assert timed_games(done.stdout) == ["slither", "toy-three"]
    # The package's bytecode too, fresh for every module (a later command compiles none).
    assert "bytecode: compiled" in done.stdout
    for source in Path(slimetrail.__file__).parent.rglob("*.py"):
        cached = Path(importlib.util.cache_from_source(str(source)))
        assert cached.exists(), source
        assert cached.stat().st_mtime >= source.stat().st_mtime, source


def test_an_unknown_game_is_refused_by_name() -> None:
    done = run_cli("compile", "slither", "no-such-game")
    assert done.returncode == 2
    assert "unknown game 'no-such-game'" in done.stderr
    assert done.stdout == ""
