"""Where the suite's time goes: each test's wall time and the processor time of everything it
ran, the processes it started included (servers, Chromium, Ray, CLI runs).

A pytest plugin, only on request: ``python -m pytest -p cputime`` writes one JSON line a test
to ``$SLIMETRAIL_CPUTIME`` (default ``cputime``) + ``.<xdist worker>.jsonl``;
``python tests/cputime.py FILE...`` sums them by file and lists the tests that waited most
(wall time with neither this process nor its children computing).  The children's time is
read from /proc (Linux): every process below the test process, living or reaped, so a
session server started by a test is counted with that test, and one killed without being
reaped (a daemon's orphan) is not counted at all.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

TICK = os.sysconf("SC_CLK_TCK")


def tree_seconds() -> float:
    """Processor seconds of this process and every process below it (their reaped children
    included), from /proc."""
    parents: dict[int, list[int]] = defaultdict(list)
    spent: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                text = stat.read()
        except OSError:  # gone meanwhile
            continue
        fields = text[text.rfind(")") + 2 :].split()
        parents[int(fields[1])].append(int(name))
        spent[int(name)] = sum(int(value) for value in fields[11:15]) / TICK
    total, below = 0.0, [os.getpid()]
    while below:
        pid = below.pop()
        total += spent.get(pid, 0.0)
        below.extend(parents.get(pid, ()))
    return total


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    started, cpu = time.monotonic(), tree_seconds()
    yield
    record = {
        "test": item.nodeid,
        "worker": worker,
        "wall": round(time.monotonic() - started, 3),
        "cpu": round(tree_seconds() - cpu, 3),
        "load": os.getloadavg()[0],
    }
    path = f"{os.environ.get('SLIMETRAIL_CPUTIME', 'cputime')}.{worker}.jsonl"
    with open(path, "a") as out:
        out.write(json.dumps(record) + "\n")


def summary(paths: list[str], idlest: int = 30) -> str:
    lines_read = (line for path in paths for line in Path(path).read_text().splitlines())
    records = [json.loads(line) for line in lines_read]
    by_file: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for record in records:
        sums = by_file[record["test"].split("::")[0]]
        sums[0] += 1
        sums[1] += record["wall"]
        sums[2] += record["cpu"]
    lines = ["tests  wall s   cpu s  file"]
    for path, (count, wall, cpu) in sorted(by_file.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"{count:5d} {wall:7.1f} {cpu:7.1f}  {path}")
    wall = sum(record["wall"] for record in records)
    cpu = sum(record["cpu"] for record in records)
    lines.append(f"{len(records):5d} {wall:7.1f} {cpu:7.1f}  (all)")
    lines.append("\nwaited most (wall - cpu, s):")
    records.sort(key=lambda record: record["cpu"] - record["wall"])
    for record in records[:idlest]:
        waited = record["wall"] - record["cpu"]
        lines.append(f"{waited:7.1f} {record['wall']:7.1f} {record['cpu']:7.1f}  {record['test']}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(sys.argv[1:]))
