"""The benchmarks' own checks: they measure what they claim to."""
