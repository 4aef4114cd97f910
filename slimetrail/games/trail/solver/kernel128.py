"""Sets of up to 128 cells in numba code: a pair ``(lo, hi)`` of ``uint64`` (vertices 0-63 in
``lo``, 64-127 in ``hi``), passed and returned as plain scalars so that nothing is allocated
per node.  The compiled playouts and searches of the computer players use these; the exact
solver's search on such sets is C (``ckernel.c``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from slimetrail.compiled import cttz

U0 = np.uint64(0)
U1 = np.uint64(1)

__all__ = ["bit", "lowest"]


@nb.njit(cache=True, inline="always")
def bit(i):
    """The set holding only vertex ``i``."""
    if i < 64:
        return U1 << np.uint64(i), U0
    return U0, U1 << np.uint64(i - 64)


@nb.njit(cache=True, inline="always")
def lowest(lo, hi):
    """The lowest vertex of a non-empty set and the set without it."""
    if lo != U0:
        return np.int64(cttz(lo)), lo & (lo - U1), hi
    return np.int64(cttz(hi)) + 64, lo, hi & (hi - U1)
