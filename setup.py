"""The compiled part of the package (everything else is in pyproject.toml): the Slime Trail
solver's search as a C extension, so that a fresh process solves without loading numpy or
numba (``pip install`` builds it; ``pip install -e .`` builds it in place), and the
translation catalogues compiled from ``.po`` to ``.mo`` (:mod:`slimetrail.i18n`)."""

import importlib.util
import platform
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class BuildWithCatalogues(build_py):
    """``build_py`` that also writes the ``.mo`` of every catalogue into the build (in place
    for an editable install)."""

    def run(self) -> None:
        super().run()
        # slimetrail.i18n alone, not the package (whose import needs numpy and numba).
        spec = importlib.util.spec_from_file_location("i18n", "slimetrail/i18n.py")
        assert spec is not None and spec.loader is not None
        i18n = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(i18n)
        target = Path("slimetrail") if self.editable_mode else Path(self.build_lib, "slimetrail")
        i18n.compile_catalogues(target / "locale")


# Population counts are the search's commonest operation: the instruction, where x86-64
# has it as an extension (every x86-64 CPU since 2008).
flags = ["-O3", *(["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else [])]

setup(
    cmdclass={"build_py": BuildWithCatalogues},
    ext_modules=[
        Extension(
            "slimetrail.games.trail.solver.ckernel",
            ["slimetrail/games/trail/solver/ckernel.c"],
            depends=["slimetrail/games/trail/solver/ckernel_search.h"],
            extra_compile_args=flags,
        )
    ],
)
