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


_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def new_event_ids(count: int, millis: int) -> list[str]:
    """Return ``count`` fresh event ids: time-ordered UUIDs (version 7, RFC 9562).

    The leading 48 bits are ``millis`` (Unix milliseconds), the rest random. Ids of events
    appended around the same time sort together, so the unique index on ``event_id`` grows in
    one place instead of touching a random page per event, which keeps each commit small in a
    large log. Built as text from one draw of :func:`random_bits` per batch:
    ``uuid4()`` per event would cost more than the rest of the append path.
    """
    stamp = f"{millis & 0xFFFF_FFFF_FFFF:012x}"
    head = f"{stamp[:8]}-{stamp[8:]}-7"
    rand = f"{random_bits(80 * count):0{20 * count}x}" if count else ""
    out = []
    for i in range(0, 20 * count, 20):
        r = rand[i : i + 20]
        # version nibble 7 (in ``head``), variant bits 10xx
        out.append(f"{head}{r[:3]}-{_VARIANT[r[3]]}{r[4:7]}-{r[8:20]}")
    return out


_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}
