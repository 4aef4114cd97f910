"""Benchmarks: strength against independent baselines (``bench/strength.py``), speed, solves."""
