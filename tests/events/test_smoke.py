"""A first end-to-end check of the SQLite store: append, idempotent retry, read back."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from events.store import NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import MessageAppended


async def test_append_and_read_back(tmp_path: Path) -> None:
    store = SqliteEventStore.in_data_dir(tmp_path)
    await store.open()
    try:
        event = MessageAppended(
            conversation_id="c1",
            message_id="m1",
            role="user",
            content="hello",
            created_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        assert await store.append("default", [NewEvent(event, idempotency_key="k")]) == [1]
        assert await store.append("default", [NewEvent(event, idempotency_key="k")]) == [1]
        read = [e async for e in store.read()]
        assert [e.event for e in read] == [event]
    finally:
        await store.close()
