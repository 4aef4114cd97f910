"""Importing ``bench`` drops the kernels numba cached from older sources of the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import slimetrail.cli.compile
from slimetrail.cli.compile import SOURCES_STAMP, sources_digest

ROOT = Path(__file__).resolve().parents[2]


def test_a_benchmark_never_runs_kernels_cached_from_older_sources(tmp_path: Path) -> None:
    # A stand-in ``slimetrail`` (the real ``compile`` module, one kernel source) whose cache
    # holds a kernel with no record of the sources it came from.
    package = tmp_path / "slimetrail"
    (package / "cli").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    (package / "__init__.py").write_text("")
    (package / "cli" / "__init__.py").write_text("")
    shutil.copy(slimetrail.cli.compile.__file__, package / "cli" / "compile.py")
    (package / "kernel.py").write_text("A = 1\n")
    cached = package / "__pycache__" / "kernel.f-3.py311.nbi"
    cached.write_bytes(b"x")
    code = f"import sys; sys.path[:0] = [{str(tmp_path)!r}, {str(ROOT)!r}]; import bench"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not cached.exists()
    assert (package / "__pycache__" / SOURCES_STAMP).read_text() == sources_digest(package)
