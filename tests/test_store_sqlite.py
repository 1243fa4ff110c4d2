"""The store contract (``tests/store_contract.py``) against the embedded SQLite backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from events.clock import Clock
from events.store.base import EventStore
from events.store.sqlite import SqliteEventStore
from tests.store_contract import EventStoreContract


class TestSqliteEventStore(EventStoreContract):
    def create_store(self, location: Any, *, clock: Clock, readonly: bool = False) -> EventStore:
        return SqliteEventStore.in_data_dir(Path(location), clock=clock, readonly=readonly)
