"""The progress bar long CLI work draws on a terminal: share done, count, rate and ETA.

``progress_bar(label)`` is None when stderr is not a terminal: a log or a pipe gets nothing
extra. Used by ``projections rebuild|verify``, ``replay``, ``events import --wait`` (folding),
``events export`` and ``store copy``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

REDRAW_EVERY = 0.1
"""Seconds between two redraws (the last one is always drawn)."""


def _duration(seconds: float) -> str:
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


class ProgressBar:
    """A one-line progress bar, redrawn at most every :data:`REDRAW_EVERY` and at the end."""

    def __init__(
        self,
        label: str,
        out: TextIO,
        width: int = 30,
        *,
        unit: str = "events",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.out = out
        self.width = width
        self.unit = unit
        self.clock = clock
        self._started = clock()
        self._first: int | None = None
        self._last = float("-inf")
        self._drawn = False

    def update(self, done: int, total: int) -> None:
        """Redraw for ``done`` of ``total``."""
        now = self.clock()
        if self._first is None:
            self._first = done  # work done before this run (a resumed copy) is not its rate
        if done < total and now - self._last < REDRAW_EVERY:
            return
        self._last = now
        share = 1.0 if total <= 0 else min(done / total, 1.0)
        filled = int(share * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        line = f"\r{self.label} [{bar}] {share:4.0%} {done:,}/{total:,} {self.unit}"
        elapsed = now - self._started
        rate = (done - self._first) / elapsed if elapsed > 0 else 0.0
        if rate > 0:
            line += f"  {rate:,.0f}/s"
            line += f"  ETA {_duration((total - done) / rate)}" if done < total else ""
            line += f"  in {_duration(elapsed)}" if done >= total else ""
        self.out.write(line + "\x1b[K")  # clear what a longer line before left
        self.out.flush()
        self._drawn = True

    def finish(self) -> None:
        """End the line."""
        if self._drawn:
            self.out.write("\n")
            self.out.flush()


def progress_bar(label: str, *, unit: str = "events") -> ProgressBar | None:
    """Return a bar on stderr when it is a terminal, else None."""
    return ProgressBar(label, sys.stderr, unit=unit) if sys.stderr.isatty() else None
