"""The compiled part of the package (everything else is in pyproject.toml): the Slime Trail
solver's search as a C extension, so that a fresh process solves without loading numpy or
numba (``pip install`` builds it; ``pip install -e .`` builds it in place)."""

import platform

from setuptools import Extension, setup

# Population counts are the search's commonest operation: the instruction, where x86-64
# has it as an extension (every x86-64 CPU since 2008).
flags = ["-O3", *(["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else [])]

setup(
    ext_modules=[
        Extension(
            "slimetrail.games.trail.solver.ckernel",
            ["slimetrail/games/trail/solver/ckernel.c"],
            depends=["slimetrail/games/trail/solver/ckernel_search.h"],
            extra_compile_args=flags,
        )
    ]
)
