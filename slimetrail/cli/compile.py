"""``slimetrail compile``: compile the games' kernels into numba's cache ahead of their use.

A fresh install compiles them on first use (about a minute and a half on a 2-core machine),
which would land on the first computer move, solve or server start. This does it once, as
part of installing, and compiles the translation catalogues (``.po`` to ``.mo``) and the
package's Python bytecode too: an editable install writes no bytecode of its own, and where
``PYTHONDONTWRITEBYTECODE`` is set every command would compile its modules again (a third of
a small solve's time from the shell).

numba keys a cached kernel by its own source file only: a kernel that calls a kernel of
another module, or reads its constants, is not compiled again when that module changes, and
would go on running the old code.  So when any of the package's sources changed since the
last ``slimetrail compile`` (after an upgrade, or an edit), every cached kernel of the
package is dropped first."""

from __future__ import annotations

import argparse
import compileall
import hashlib
import time
from pathlib import Path

import slimetrail


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compile",
        help="compile the games' kernels now (once after installing)",
        description="Compile every registered game's compiled kernels (or only those of the "
        "games named) into numba's cache, so that no move, solve or server start pays for "
        "it later. Games that share kernels compile them once. The translation catalogues "
        "and the package's bytecode are compiled too.",
    )
    parser.add_argument("games", nargs="*", metavar="GAME", help="game ids (default: all)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.core.registry import GAMES, get_game
    from slimetrail.i18n import compile_catalogues

    classes = [type(get_game(game_id)) for game_id in args.games] or list(GAMES.values())
    print(f"translation catalogues: {len(compile_catalogues())} compiled", flush=True)
    package = Path(slimetrail.__file__).parent
    if not compileall.compile_dir(package, quiet=1):
        print(f"slimetrail: some modules under {package} did not compile")
        return 1
    print("bytecode: compiled", flush=True)
    dropped = forget_stale_kernels(package)
    print(f"numba cache: {dropped} files of kernels compiled from older sources removed")
    started = time.perf_counter()
    for cls in classes:
        begun = time.perf_counter()
        cls.warm_up()
        print(f"{cls.id}: {time.perf_counter() - begun:.1f} s", flush=True)
    print(f"compiled in {time.perf_counter() - started:.1f} s")
    return 0


# In the package's own __pycache__: the digest of the sources its cached kernels come from.
SOURCES_STAMP = "slimetrail-sources.sha256"


def sources_stamp(package: Path) -> Path:
    """Where the last compile recorded :func:`sources_digest`."""
    return package / "__pycache__" / SOURCES_STAMP


def sources_digest(package: Path) -> str:
    """One digest of every Python source of the package (names and contents)."""
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0")
        digest.update(source.read_bytes())
    return digest.hexdigest()


def drop_stale_kernels(package: Path, digest: str) -> int:
    """Remove numba's cached kernels under ``package`` unless the last compile recorded
    ``digest`` (then they all come from these sources); the files removed."""
    stamp = sources_stamp(package)
    if stamp.exists() and stamp.read_text() == digest:
        return 0
    stale = [path for path in package.rglob("*.nb[ic]") if path.parent.name == "__pycache__"]
    for path in stale:
        path.unlink(missing_ok=True)  # another process may have removed it already
    return len(stale)


def forget_stale_kernels(package: Path) -> int:
    """:func:`drop_stale_kernels` for the sources as they are now, which are then recorded:
    the kernels numba caches from here on come from them.  Returns the files removed."""
    digest = sources_digest(package)
    dropped = drop_stale_kernels(package, digest)
    stamp = sources_stamp(package)
    stamp.parent.mkdir(exist_ok=True)
    stamp.write_text(digest)
    return dropped
