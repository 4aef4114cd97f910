"""How soon does the UGI engine answer ``stop``?  While the top level's solver is proving a
position it cannot finish (or an analysis search runs), ``stop`` is sent and the time until
``bestmove`` measured.

    python bench/ugi_stop.py --trials 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from slimetrail.engine.ugi import UgiEngine

# Nothing slimed and the second player to move: no game reaches it, so no book holds it, and
# the solver needs seconds for it.
UNBOOKED = "7/7/7/7/7/7/4o2 2"
GOES = ("go movetime 60000", "go p1time 600000 p2time 600000", "go infinite")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--after", type=float, default=0.7, help="seconds before stop")
    args = parser.parse_args(argv)
    out: list[str] = []
    engine = UgiEngine(out.append)
    engine.handle("isready")
    for go in GOES:
        delays = []
        for _ in range(args.trials):
            engine.handle(f"position fen {UNBOOKED}")
            engine.handle(go)
            time.sleep(args.after)
            began = time.perf_counter()
            engine.handle("stop")  # returns once bestmove is sent
            delays.append((time.perf_counter() - began) * 1000)
            assert out[-1].startswith("bestmove ")
        print(
            f"{go:32s} stop -> bestmove: median {statistics.median(delays):.0f} ms, "
            f"max {max(delays):.0f} ms ({' '.join(f'{d:.0f}' for d in delays)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
