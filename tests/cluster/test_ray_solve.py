"""Runs the Ray cases (``ray_cases.py``) in a pytest process of their own.

A Ray driver whose local raylet dies ends its own process at once (Ray's core worker exits,
skipping Python's clean-up), which inside the suite's process would end the whole run with no
report. In a child process the suite goes on, and what the raylet logged is shown."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="needs the cluster extra: pip install -e '.[cluster]'")

CASES = Path(__file__).with_name("ray_cases.py")
ROOT = CASES.parents[2]


def raylet_log_tail(ray_dir: str, lines: int = 15) -> str:
    """The last lines of every raylet and GCS log of the sessions under ``ray_dir``."""
    found = []
    for log in sorted(Path(ray_dir).glob("ray/session_*/logs/*")):
        if log.name.startswith(("raylet.", "gcs_server.")) and log.stat().st_size:
            text = log.read_text(errors="replace").splitlines()
            tail = [line for line in text if "[state-dump]" not in line][-lines:]
            found.append(f"--- {log.name}\n" + "\n".join(tail))
    return "\n".join(found) or "(no raylet or GCS log was written)"


@pytest.mark.slow
def test_ray_cases_in_their_own_process():
    # Short: Ray's socket paths under it must fit a Unix socket name.
    ray_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    env = {**os.environ, "RAY_TMPDIR": ray_dir}
    # In one process (no xdist workers): the cases share one local Ray instance.
    pytest_args = ["-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist", str(CASES)]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = run.stdout + run.stderr
    # pytest's own failures (a bad option, a conftest hook it does not know) are not Ray's.
    own = (pytest.ExitCode.NO_TESTS_COLLECTED, pytest.ExitCode.INTERNAL_ERROR)
    assert run.returncode not in (*own, pytest.ExitCode.USAGE_ERROR), report
    if run.returncode == 0:
        shutil.rmtree(ray_dir, ignore_errors=True)
        return
    # pytest's closing line ("1 failed, 6 passed in 30.2s") is missing if the process died.
    last = run.stdout.strip().splitlines()[-1:] or [""]
    if not re.search(r"\d+ (passed|failed|errors?)\b", last[0]):
        pytest.skip(
            f"Ray's processes died under the driver on this machine (exit {run.returncode}),"
            f" so the cases could not run:\n{report[-2000:]}\n{raylet_log_tail(ray_dir)}"
        )
    pytest.fail(f"the Ray cases failed:\n{report[-6000:]}")
