"""Benchmarks (not run in CI): ``python -m bench.eventlog``, ``python bench/rebuild.py``."""
