"""How fast this shared machine runs Python right now (printed beside benchmark figures)."""

from __future__ import annotations

import time


def calibration_seconds() -> float:
    """Time a fixed pure-Python loop: how fast this machine runs Python right now.

    These machines are shared: within an hour this loop took 0.79-0.98 s and later 0.46-0.49 s,
    and the daemon's CPU per message halved with it (684 -> 316 us in the single phase of
    ``bench.api``). Figures from runs whose calibrations differ are not comparable. (The same
    loop typed at module level, ``python -c``, takes about twice as long: globals.)
    """
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - start
