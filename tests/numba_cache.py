"""Whether a new process loads compiled searches from numba's cache instead of compiling."""

from __future__ import annotations

import subprocess
import sys


def loads_in_a_new_process(warm_up: str, module: str, searches: list[str]) -> list[str]:
    """Runs the statement ``warm_up`` in a new Python process; then for each of ``searches``
    (numba functions of ``module``) the line ``name overloads cache_hits cache_misses``."""
    probe = (
        f"{warm_up}\n"
        f"import {module} as m\n"
        f"for name in {searches!r}:\n"
        "    f = getattr(m, name)\n"
        "    hits, misses = f.stats.cache_hits, f.stats.cache_misses\n"
        "    print(name, len(f.signatures), sum(hits.values()), sum(misses.values()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr  # a bad cache entry crashes the process
    return done.stdout.splitlines()
