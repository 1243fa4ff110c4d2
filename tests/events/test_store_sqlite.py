"""The store contract (``events/store/contract.py``) against the embedded SQLite backend."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from events.clock import Clock
from events.store.base import EventStore, NewEvent
from events.store.contract import NS, EventStoreContract, message
from events.store.sqlite import SqliteEventStore


class TestSqliteEventStore(EventStoreContract):
    def create_store(self, location: Any, *, clock: Clock, readonly: bool = False) -> EventStore:
        return SqliteEventStore.in_data_dir(Path(location), clock=clock, readonly=readonly)


def test_a_store_can_be_reopened_under_another_event_loop(tmp_path: Path) -> None:
    store = SqliteEventStore.in_data_dir(tmp_path)

    async def append_one(n: int) -> list[int]:
        await store.open()
        try:
            return await store.append(NS, [NewEvent(message("a", n))])
        finally:
            await store.close()

    assert asyncio.run(append_one(1)) == [1]
    assert asyncio.run(append_one(2)) == [2]
