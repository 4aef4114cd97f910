"""The registry read first by several threads at once (a server's first requests): each
thread sees every built-in game, none an empty registry while the modules still load."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import threading
from slimetrail.core.registry import get_game
seen, errors = [], []
def read():
    try:
        seen.append(get_game("slimetrail").id)
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=read) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(seen), errors)
"""


def test_concurrent_first_reads_see_every_game() -> None:
    for _ in range(3):  # a fresh process each time: the race is on the first load only
        done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "8 []"
