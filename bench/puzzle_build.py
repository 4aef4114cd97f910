"""Puzzle building speed: this checkout's builder against a baseline revision's, run at the
same time on the same seed (so both see the same machine load), one process each.

    python bench/puzzle_build.py [--game slimetrail-square] [--minutes 8] [--seed 5]
                                 [--baseline 04d06d4]

Each side runs the builder's ``generate`` for the given minutes with nothing already seen and
prints the puzzles made, per wall-clock minute and per CPU minute of its process (the honest
figure on a shared machine); the ratios are this checkout's over the baseline's.  The
baseline is ``slimetrail/puzzles/build.py`` at ``--baseline`` (git), loaded as a module
beside this checkout's package.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILDER = "slimetrail/puzzles/build.py"


def run_side(module_path: str, game: str, minutes: float, seed: int) -> dict:
    spec = importlib.util.spec_from_file_location("builder_under_test", module_path)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = builder  # dataclasses look their module up
    spec.loader.exec_module(builder)
    start, cpu = time.monotonic(), time.process_time()
    made = list(builder.generate(game, 10**6, seed, set(), start + 60 * minutes))
    wall, cpu = time.monotonic() - start, time.process_time() - cpu
    return {"puzzles": len(made), "wall": wall, "cpu": cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="slimetrail-square")
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--baseline", default="04d06d4", help="git revision of the baseline")
    parser.add_argument("--side", help=argparse.SUPPRESS)  # a child process: builder path
    args = parser.parse_args()
    if args.side:
        print(json.dumps(run_side(args.side, args.game, args.minutes, args.seed)))
        return 0
    old = subprocess.run(
        ["git", "show", f"{args.baseline}:{BUILDER}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(old)
    sides = {"baseline": handle.name, "this": str(ROOT / BUILDER)}
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    common = ["--game", args.game, "--minutes", str(args.minutes), "--seed", str(args.seed)]
    print(f"load at start: {os.getloadavg()[0]:.1f}")
    children = {
        name: subprocess.Popen(
            [sys.executable, __file__, "--side", path, *common],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name, path in sides.items()
    }
    results = {name: json.loads(child.communicate()[0]) for name, child in children.items()}
    os.unlink(handle.name)
    print(f"load at end: {os.getloadavg()[0]:.1f}")
    print(f"{args.game}, {args.minutes} min each, seed {args.seed}")
    print(f"{'builder':10} {'puzzles':>8} {'per wall min':>13} {'per CPU min':>12}")
    rates = {}
    for name, r in results.items():
        rates[name] = (r["puzzles"] / r["wall"] * 60, r["puzzles"] / max(r["cpu"], 1e-9) * 60)
        print(f"{name:10} {r['puzzles']:8d} {rates[name][0]:13.2f} {rates[name][1]:12.2f}")
    base = rates["baseline"]
    if base[0] and base[1]:
        this = rates["this"]
        print(f"ratio this/baseline: {this[0] / base[0]:.2f} (wall), {this[1] / base[1]:.2f} (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
