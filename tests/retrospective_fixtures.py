"""Helpers for retrospective tests: stored events without a store, and a default config."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from daemon.config import RetrospectiveConfig
from events.store.base import StoredEvent
from events.types import Content, Event, MessageAppended
from projections.retrospective import RetrospectiveFold

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def config(**changes: Any) -> RetrospectiveConfig:
    """Return the default ``[retrospective]`` config with some keys changed."""
    return dataclasses.replace(RetrospectiveConfig(), **changes)


class LogBuilder:
    """Make positioned :class:`StoredEvent` values and fold them, as a store would."""

    def __init__(self, namespace: str = "default") -> None:
        self.namespace = namespace
        self.position = 0
        self.versions: dict[str, int] = {}
        self.events: list[StoredEvent] = []
        self.fold = RetrospectiveFold()

    def add(self, event: Event, recorded_at: datetime = T0) -> StoredEvent:
        """Append one event and fold it."""
        self.position += 1
        version = self.versions.get(event.stream_id, 0) + 1
        self.versions[event.stream_id] = version
        stored = StoredEvent(
            position=self.position,
            event_id=f"e{self.position}",
            namespace=self.namespace,
            stream_id=event.stream_id,
            stream_version=version,
            recorded_at=recorded_at,
            event=event,
        )
        self.events.append(stored)
        self.fold.apply(stored)
        return stored

    def message(
        self,
        cid: str,
        mid: str,
        role: str = "user",
        content: Content = "hello there",
        at: datetime = T0,
        finalized: bool = True,
    ) -> StoredEvent:
        """Append a message."""
        return self.add(
            MessageAppended(
                conversation_id=cid,
                message_id=mid,
                role=role,  # type: ignore[arg-type]
                content=content,
                created_at=at,
                finalized=finalized,
            )
        )

    def replay(self) -> Iterator[StoredEvent]:
        """Return every event so far (for a fresh fold)."""
        return iter(list(self.events))


def minutes(n: float) -> timedelta:
    """Return ``n`` minutes."""
    return timedelta(minutes=n)
