"""Benchmarks: strength against independent baselines (``bench/strength.py``), speed, solves.

Importing the package drops the numba kernels cached from older sources of ``slimetrail``
(as ``slimetrail compile`` and the test suite do): numba checks a cached kernel against its
own file only, so a benchmark run right after an edit would otherwise measure the kernels of
the edited file's callers as they were compiled before it (bench/RESULTS.md, session 46).
Only the first process does it; the workers it starts find the record already current."""

import multiprocessing
from pathlib import Path

import slimetrail
from slimetrail.cli.compile import forget_stale_kernels

if multiprocessing.parent_process() is None:
    forget_stale_kernels(Path(slimetrail.__file__).parent)
