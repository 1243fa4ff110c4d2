"""What every table group of the consolidation projection folds with: the one ``MetaData``
that holds all their tables, the batch being folded, and the pairing of an event class with
the function that folds it.

A group declares its folds as a tuple of :func:`on` pairs; :func:`dispatch_table` joins the
groups into one lookup by event class. :func:`on` ties the event class to the type the fold
takes, so a fold registered for the wrong class is a type error.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.store.base import StoredEvent
from events.types import Event

metadata = sa.MetaData()
"""Every consolidation table: the groups share one projection version and checkpoint."""


class BatchCache(abc.ABC):
    """Rows a group reads at most once per batch, edits in memory and writes at its end."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn

    @abc.abstractmethod
    async def flush(self) -> None:
        """Write every row edited since the last flush."""


C = TypeVar("C", bound=BatchCache)


class Batch:
    """One batch being folded: its connection and the caches its folds opened."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        self._caches: dict[type[BatchCache], BatchCache] = {}

    def cache(self, kind: type[C]) -> C:
        """Return this batch's cache of ``kind`` (opened on first use)."""
        found = self._caches.get(kind)
        if not isinstance(found, kind):
            found = self._caches[kind] = kind(self.conn)
        return found

    async def flush(self) -> None:
        """Write what every cache holds (at the end of the batch)."""
        for cache in self._caches.values():
            await cache.flush()


E = TypeVar("E", bound=Event)
Fold = Callable[[Batch, StoredEvent, E], Awaitable[None]]
"""Folds one stored event (whose ``event`` is an ``E``) into a group's tables."""


@dataclass(frozen=True, slots=True)
class EventFold:
    """A fold and the event class it takes."""

    event_class: type[Event]
    fold: Fold[Any]


def on(event_class: type[E], fold: Fold[E]) -> EventFold:
    """Pair ``fold`` with the event class it folds."""
    return EventFold(event_class, fold)


def dispatch_table(
    groups: Iterable[Iterable[EventFold]],
) -> dict[type[Event], tuple[Fold[Any], ...]]:
    """Return ``event class -> folds``; an event two groups fold runs both, in group order."""
    table: dict[type[Event], tuple[Fold[Any], ...]] = {}
    for group in groups:
        for entry in group:
            table[entry.event_class] = (*table.get(entry.event_class, ()), entry.fold)
    return table
