"""``slimetrail compile``: every registered game's kernels, or the named games' only."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from clitools import run_cli

import slimetrail
from slimetrail.cli.compile import (
    SOURCES_STAMP,
    drop_stale_kernels,
    forget_stale_kernels,
    sources_digest,
)
from slimetrail.core.registry import GAMES


def timed_games(stdout: str) -> list[str]:
    return re.findall(r"^([\w-]+): \d+\.\d s$", stdout, re.M)


def test_compiles_every_registered_game_the_toys_included() -> None:
    done = run_cli("compile")
    assert done.returncode == 0, done.stderr
    games = timed_games(done.stdout)
    assert set(games) >= set(GAMES) | {"toy-three", "toy-pie"}
    assert done.stdout.splitlines()[-1].startswith("compiled in ")
    # The sources the cached kernels come from are recorded: unchanged, none is dropped.
    package = Path(slimetrail.__file__).parent
    stamp = package / "__pycache__" / SOURCES_STAMP
    assert stamp.read_text() == sources_digest(package)
    assert drop_stale_kernels(package, sources_digest(package)) == 0


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


def test_kernels_cached_from_other_sources_are_dropped(tmp_path: Path) -> None:
    # numba would keep a kernel whose own file is unchanged although a module it calls
    # changed: after any change of the sources, every cached kernel goes.
    package = tmp_path / "pkg"
    (package / "games" / "__pycache__").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    (package / "kernel.py").write_text("A = 1\n")
    cached = [
        package / "__pycache__" / "kernel.f-3.py311.nbi",
        package / "games" / "__pycache__" / "g.h-9.py311.1.nbc",
    ]
    bytecode = package / "__pycache__" / "kernel.cpython-311.pyc"
    for path in [*cached, bytecode]:
        path.write_bytes(b"x")
    digest = sources_digest(package)
    assert drop_stale_kernels(package, digest) == 2  # no record yet: nothing is trusted
    assert not any(path.exists() for path in cached) and bytecode.exists()
    (package / "__pycache__" / SOURCES_STAMP).write_text(digest)  # as a compile ends
    for path in cached:
        path.write_bytes(b"x")
    assert drop_stale_kernels(package, digest) == 0
    assert all(path.exists() for path in cached)
    (package / "kernel.py").write_text("A = 2\n")
    changed = sources_digest(package)
    assert changed != digest
    assert drop_stale_kernels(package, changed) == 2
    assert not any(path.exists() for path in cached)


def test_the_suite_forgets_kernels_of_older_sources_and_records_the_new(tmp_path: Path) -> None:
    # What tests/conftest.py runs before the workers start.
    package = tmp_path / "pkg"
    (package / "__pycache__").mkdir(parents=True)
    (package / "kernel.py").write_text("A = 1\n")
    cached = package / "__pycache__" / "kernel.f-3.py311.nbi"
    cached.write_bytes(b"x")
    assert forget_stale_kernels(package) == 1  # no record yet
    assert (package / "__pycache__" / SOURCES_STAMP).read_text() == sources_digest(package)
    cached.write_bytes(b"x")  # compiled from the recorded sources: kept
    assert forget_stale_kernels(package) == 0 and cached.exists()
    (package / "kernel.py").write_text("A = 2\n")
    assert forget_stale_kernels(package) == 1 and not cached.exists()
