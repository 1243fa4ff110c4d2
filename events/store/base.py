"""The event store contract that every backend implements.

The contract is written once as the test suite in ``events/store/contract.py`` and every
backend (SQLite, PostgreSQL) runs it; this module holds the types and the abstract interface.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from events.clock import from_micros, to_micros
from events.types import Event

NO_STREAM = 0
"""Expected version meaning "this stream must not exist yet" (versions start at 1)."""


class StoreError(Exception):
    """Base of the store's typed errors."""


class ConcurrencyError(StoreError):
    """A stream was not at the version the appender expected."""

    def __init__(self, namespace: str, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream_id!r} in namespace {namespace!r} is at version {actual}, "
            f"expected {expected}"
        )
        self.namespace = namespace
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class IdempotencyConflict(StoreError):
    """An idempotency key was reused for a different append."""


class ReadOnlyStoreError(StoreError):
    """The store was opened read-only (for example a replayed data dir)."""


class ImportRefused(StoreError):
    """An import would leave a gap in positions or clash with existing events."""


class SchemaMismatch(StoreError):
    """The database holds a schema version this memoryd does not know."""


class DamagedLog(StoreError):
    """The log's file or a row in it is damaged (a page the database cannot read, a row whose
    checksum does not match). Nothing of it is trusted; ``memoryd doctor`` says more."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class StorageFull(StoreError):
    """The disk (or the database server's) has no room for the append; nothing was written."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append, with its envelope."""

    event: Event
    event_id: str | None = None
    causation_id: str | None = None
    correlation_id: str | None = None
    idempotency_key: str | None = None
    request_hash: str | None = None
    """A fingerprint of the request that asked for a keyed event: a retry with the same key
    must carry the same one, else it is an :class:`IdempotencyConflict`."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as it stands in the log, decoded and upcast to its current class."""

    position: int
    event_id: str
    namespace: str
    stream_id: str
    stream_version: int
    recorded_at: datetime
    event: Event
    causation_id: str | None = None
    correlation_id: str | None = None
    idempotency_key: str | None = None

    @property
    def event_type(self) -> str:
        """Return the event's type name."""
        return self.event.event_type


@dataclass(frozen=True, slots=True)
class EventRecord:
    """An event as stored, undecoded: the unit of export, import and store copy."""

    position: int
    event_id: str
    namespace: str
    stream_id: str
    stream_version: int
    event_type: str
    schema_version: int
    payload: bytes
    recorded_at: int
    causation_id: str | None = None
    correlation_id: str | None = None
    idempotency_key: str | None = None
    request_hash: str | None = None
    checksum: int | None = None
    """The row's checksum as stored (None: written before checksums existed)."""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def computed_checksum(self) -> int:
        """Return the checksum this record's columns call for."""
        from events.store.checksum import event_checksum

        return event_checksum(
            self.position,
            self.event_id,
            self.namespace,
            self.stream_id,
            self.stream_version,
            self.event_type,
            self.schema_version,
            self.payload,
            self.recorded_at,
            self.causation_id,
            self.correlation_id,
            self.idempotency_key,
            self.request_hash,
        )

    def to_json(self) -> bytes:
        """Serialise as one NDJSON line (without the newline)."""
        return orjson.dumps(
            {
                "position": self.position,
                "event_id": self.event_id,
                "namespace": self.namespace,
                "stream_id": self.stream_id,
                "stream_version": self.stream_version,
                "event_type": self.event_type,
                "schema_version": self.schema_version,
                "recorded_at": from_micros(self.recorded_at),
                "causation_id": self.causation_id,
                "correlation_id": self.correlation_id,
                "idempotency_key": self.idempotency_key,
                "request_hash": self.request_hash,
                "checksum": self.checksum,
                "payload": orjson.Fragment(self.payload),
            }
        )

    @classmethod
    def from_json(cls, line: bytes | str) -> EventRecord:
        """Parse one NDJSON line written by :meth:`to_json`."""
        from events.codec import parse_datetime

        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ImportRefused(f"not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise ImportRefused("not a JSON object")
        try:
            return cls(
                position=int(data["position"]),
                event_id=str(data["event_id"]),
                namespace=str(data["namespace"]),
                stream_id=str(data["stream_id"]),
                stream_version=int(data["stream_version"]),
                event_type=str(data["event_type"]),
                schema_version=int(data["schema_version"]),
                payload=orjson.dumps(data["payload"]),
                recorded_at=to_micros(parse_datetime(data["recorded_at"])),
                causation_id=data.get("causation_id"),
                correlation_id=data.get("correlation_id"),
                idempotency_key=data.get("idempotency_key"),
                request_hash=data.get("request_hash"),
                checksum=None if data.get("checksum") is None else int(data["checksum"]),
            )
        except KeyError as exc:
            raise ImportRefused(f"missing field {exc.args[0]!r}") from exc
        except (TypeError, ValueError) as exc:
            raise ImportRefused(f"malformed event line: {exc}") from exc


class EventStore(abc.ABC):
    """An append-only, positioned, namespaced event log."""

    readonly: bool = False

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect, create or check the schema, start background tasks."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish pending appends and release connections."""

    async def __aenter__(self) -> EventStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @abc.abstractmethod
    async def append(
        self,
        namespace: str,
        events: Sequence[NewEvent],
        *,
        expected_versions: Mapping[str, int] | None = None,
    ) -> list[int]:
        """Append events atomically and durably; return their positions.

        ``expected_versions`` maps a stream id to the version it must be at before this append
        (``NO_STREAM`` for a new stream); a mismatch raises :class:`ConcurrencyError` and
        writes nothing. If every event carries an idempotency key that is already stored, the
        original positions are returned and nothing is written; a partial or mismatching reuse
        raises :class:`IdempotencyConflict`.
        """

    @abc.abstractmethod
    def read(
        self,
        after: int = 0,
        *,
        until: int | None = None,
        limit: int | None = None,
        namespace: str | None = None,
        stream_id: str | None = None,
    ) -> AsyncIterator[StoredEvent]:
        """Yield events with ``after < position <= until`` in position order."""

    @abc.abstractmethod
    def read_records(
        self, after: int = 0, *, until: int | None = None, limit: int | None = None
    ) -> AsyncIterator[EventRecord]:
        """Yield raw records (undecoded) in position order."""

    async def read_stream(self, namespace: str, stream_id: str) -> list[StoredEvent]:
        """Return one stream's events in version order."""
        return [e async for e in self.read(namespace=namespace, stream_id=stream_id)]

    @abc.abstractmethod
    async def request_hashes(self, namespace: str, key: str) -> set[str]:
        """Return the request fingerprints stored with idempotency key ``key`` and the keys
        derived from it (``key#...``) in ``namespace``; events without one are left out."""

    @abc.abstractmethod
    async def stream_version(self, namespace: str, stream_id: str) -> int:
        """Return a stream's current version (``NO_STREAM`` if it has no events)."""

    @abc.abstractmethod
    async def head(self) -> int:
        """Return the last committed position (0 for an empty log)."""

    @abc.abstractmethod
    def subscribe(self, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Catch up from ``after``, then follow new commits as they happen, forever."""

    @abc.abstractmethod
    async def wait_for_head(self, position: int, timeout: float | None = None) -> bool:
        """Wait until the log holds ``position``; return False on timeout."""

    @property
    @abc.abstractmethod
    def known_head(self) -> int:
        """Return the last position this process knows to be committed (no database read)."""

    @abc.abstractmethod
    async def note_head(self, position: int) -> None:
        """Learn that another process committed ``position`` (wakes waiters in this one)."""

    @abc.abstractmethod
    async def next_head(self, after: int) -> int:
        """Wait until this process learns of a commit past ``after``; return the known head."""

    @abc.abstractmethod
    async def import_records(self, records: Iterable[EventRecord]) -> int:
        """Append raw records keeping their positions; refuse a gap or a clash.

        Returns the number of records written. All or nothing.
        """
