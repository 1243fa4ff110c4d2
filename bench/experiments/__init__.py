"""One-off experiments that bound a rebuild (a floor, a ceiling, the GIL): run to answer one
question, kept with their figures and conclusions in ``docs/performance.md``; not rerun as
benchmarks. Not run in CI.
"""
