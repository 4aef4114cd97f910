"""Compiled helpers shared by the games' numba kernels: LLVM's count-trailing-zeros and
population count on ``uint64`` words, and a monotonic clock that compiled code can read.
Only numba and llvmlite are needed; nothing here knows a game."""

from __future__ import annotations

import time

import numba as nb
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["cttz", "now", "popcount"]


@intrinsic
def cttz(typingctx, x):
    """Index of the lowest set bit (LLVM ``cttz``)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def popcount(typingctx, x):
    """The number of set bits (LLVM ``ctpop``)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@nb.njit(cache=True)
def now() -> float:
    """``time.monotonic()``, from compiled code (an object-mode call: read it rarely)."""
    with nb.objmode(t="float64"):
        t = time.monotonic()
    return t
