"""Event stores: the contract (``base``), shared SQL logic (``sql``) and the backends."""

from events.store.base import (
    NO_STREAM,
    ConcurrencyError,
    EventRecord,
    EventStore,
    IdempotencyConflict,
    ImportRefused,
    NewEvent,
    ReadOnlyStoreError,
    SchemaMismatch,
    StoredEvent,
    StoreError,
)

__all__ = [
    "NO_STREAM",
    "ConcurrencyError",
    "EventRecord",
    "EventStore",
    "IdempotencyConflict",
    "ImportRefused",
    "NewEvent",
    "ReadOnlyStoreError",
    "SchemaMismatch",
    "StoreError",
    "StoredEvent",
]
