"""Running ``slimetrail`` in a subprocess that knows the toy games too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def run_cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["SLIMETRAIL_GAMES"] = "toygames"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-m", "slimetrail", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
