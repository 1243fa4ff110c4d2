"""The one place the event side reads a clock, injectable for tests and replays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Tell the current time as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        """Return the current UTC time."""
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests, deterministic runs)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        """Return the set time."""
        return self._now

    def advance(self, delta: timedelta) -> None:
        """Move the clock forward."""
        self._now += delta

    def set(self, when: datetime) -> None:
        """Jump to a given time."""
        self._now = when


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_micros(when: datetime) -> int:
    """Return microseconds since the Unix epoch for an aware datetime."""
    delta = when - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    """Return the aware UTC datetime for microseconds since the Unix epoch."""
    return EPOCH + timedelta(microseconds=micros)
