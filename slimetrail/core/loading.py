"""A game's compiled kernels, loaded once per process, in the background when a move asks.

numba's first load of a kernel in a process (from its cache: a second or more of CPU for a
game's kernels, several times that on a busy machine) cannot be interrupted.  A timed move
therefore never waits for it: it asks :meth:`KernelLoad.ready`, which starts the load in a
background thread, and plays without the kernels until they are loaded.  A server or an
engine loads them before its first move (:meth:`KernelLoad.run`, through ``Game.warm_up``).

Once loaded, everything the process holds is frozen out of the garbage collector's view
(``gc.freeze``): its full collections scanned the whole heap of loaded modules and compiled
code, 50-70 ms in the middle of a search, which made timed moves overrun their limits
(bench/RESULTS.md, session 47).  What is frozen is never collected; it was there to stay.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable


class KernelLoad:
    """The load of one set of kernels: ``load`` runs once per process."""

    def __init__(self, load: Callable[[], None], name: str) -> None:
        self.load = load
        self.name = name
        self.loaded = threading.Event()
        self.loading = threading.Lock()

    def run(self) -> None:
        """Load the kernels now (once; a second caller waits for the first one's load)."""
        with self.loading:
            if not self.loaded.is_set():
                self.load()
                gc.freeze()
                self.loaded.set()

    def ready(self) -> bool:
        """Whether the kernels are loaded; if not, their load starts in a background thread
        (unless it is running already)."""
        if self.loaded.is_set():
            return True
        if self.loading.acquire(blocking=False):  # nobody is loading them
            self.loading.release()
            threading.Thread(target=self.run, name=f"load {self.name}", daemon=True).start()
        return False
