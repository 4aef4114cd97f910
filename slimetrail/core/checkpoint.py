"""Saved search tables: numpy archives tagged with the search they belong to.

A long solve saves its table now and then so that a run that is killed (or outlives the
machine's uptime) resumes where it was.  A save is written beside its file and renamed over
it, so a run killed while writing leaves the last save whole; a load names the file and what
is wrong with it (unreadable, cut short, another search's) instead of numpy's or zipfile's
error, and reads nothing into the search until the whole file has been read.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable, Mapping
from typing import Any

from .game import GameError

# Errors numpy raises for a file that is missing, not an archive, or cut short.
UNREADABLE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile)


def write_checkpoint(path: str | os.PathLike[str], meta: str, arrays: Mapping[str, Any]) -> None:
    """Save ``arrays`` to ``path``, tagged with ``meta`` (what :func:`read_checkpoint` checks
    that it is given back), replacing any earlier save only once the new one is whole."""
    import numpy as np

    part = f"{os.fspath(path)}.part"
    with open(part, "wb") as out:  # a folder that cannot be written fails here, plainly
        try:
            np.savez(out, meta=np.array(meta), **arrays)
        except BaseException:
            os.unlink(part)  # no half-written file left beside the last save
            raise
    os.replace(part, path)


def read_checkpoint(
    path: str | os.PathLike[str],
    meta: str,
    names: Iterable[str],
    optional: Iterable[str] = (),
) -> dict[str, Any]:
    """The arrays ``names`` (and those of ``optional`` the file has) of a save tagged ``meta``;
    a clear :class:`GameError` (the file left as it is) if it is unreadable or another
    solve's."""
    import numpy as np

    try:
        with np.load(path) as saved:
            found = str(saved["meta"])
            arrays = {name: saved[name] for name in names}
            arrays.update({name: saved[name] for name in optional if name in saved})
    except UNREADABLE as exc:
        raise GameError(f"checkpoint {os.fspath(path)!r} is unreadable: {exc}") from exc
    if found != meta:
        raise GameError(
            f"checkpoint {os.fspath(path)!r} belongs to another solve: "
            f"it was saved for {found!r}, not {meta!r}"
        )
    return arrays
