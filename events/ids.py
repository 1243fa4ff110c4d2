"""Random bits for ids: a process-wide generator seeded from the system's RNG.

Ids must be unique, not secret. A ``getrandom()`` system call per append or request costs tens
of microseconds in sandboxed kernels, and it releases the GIL, which the event loop then
waits to get back behind the daemon's busy threads. So one generator is seeded once per
process (and again in a forked child, which would otherwise repeat its parent's ids).
"""

from __future__ import annotations

import os
import random

_rng = random.Random(os.urandom(32))


def _reseed() -> None:
    _rng.seed(os.urandom(32))


os.register_at_fork(after_in_child=_reseed)


def random_bits(bits: int) -> int:
    """Return an integer of ``bits`` random bits (thread-safe: one call under the GIL)."""
    return _rng.getrandbits(bits)
