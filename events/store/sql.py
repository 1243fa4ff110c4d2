"""The store logic shared by the SQL backends: group commit, checks, reads, subscriptions.

Appends go through one writer task per store. Concurrent ``append`` calls queue up and the
writer commits everything queued in one transaction (group commit): one fsync serves many
appenders, which is what makes many small durable appends fast. Each request is checked
(expected versions, idempotency) before anything is inserted, so a refused request fails alone
and the others in its group still commit. A group that fails as a whole (an unexpected database
error) is retried one request at a time so each caller gets its own answer.

The work of one write transaction (checks, inserts, redactions) is plain synchronous Core
code on a ``sqlalchemy.Connection``, handed to :meth:`SqlEventStore._write_transaction`. By
default that runs it through the async engine (``AsyncConnection.run_sync``); the SQLite
backend instead runs the whole transaction in one hop on its writer thread, since each
statement sent through aiosqlite costs a thread round trip.

Backends supply engines, the write lock that serialises position assignment, and the
cross-process wake-up; see ``sqlite.py`` and ``postgres.py``.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import dataclasses
import errno
import functools
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from events.clock import Clock, SystemClock, from_micros, to_micros
from events.codec import EventCodec, UnknownEventType, default_codec
from events.ids import random_bits
from events.store.base import (
    NO_STREAM,
    ConcurrencyError,
    DamagedLog,
    EventRecord,
    EventStore,
    IdempotencyConflict,
    ImportRefused,
    NewEvent,
    ReadOnlyStoreError,
    SchemaMismatch,
    StorageFull,
    StoredEvent,
    StoreError,
)
from events.store.checksum import event_checksum
from events.store.schema import STORE_SCHEMA_VERSION, events_table, store_meta_table
from events.types import FactPurged

READ_CHUNK = 2000
_T = events_table.c
_R = TypeVar("_R")


def new_event_ids(count: int, millis: int) -> list[str]:
    """Return ``count`` fresh event ids: time-ordered UUIDs (version 7, RFC 9562).

    The leading 48 bits are ``millis`` (Unix milliseconds), the rest random. Ids of events
    appended around the same time sort together, so the unique index on ``event_id`` grows in
    one place instead of touching a random page per event, which keeps each commit small in a
    large log. Built as text from one draw of :func:`events.ids.random_bits` per batch:
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


@dataclass(slots=True)
class _PendingRow:
    event_id: str
    stream_id: str
    event_type: str
    schema_version: int
    payload: bytes
    causation_id: str | None
    correlation_id: str | None
    idempotency_key: str | None
    request_hash: str | None


@dataclass(slots=True)
class _AppendRequest:
    namespace: str
    rows: list[_PendingRow]
    expected_versions: Mapping[str, int] | None
    future: asyncio.Future[list[int]]
    result: list[int] | None = None
    error: BaseException | None = None


@dataclass(slots=True)
class _GroupState:
    """What one group commit has decided so far (visible only inside its transaction)."""

    head: int
    recorded_at: int
    stream_versions: dict[tuple[str, str], int] = field(default_factory=dict)
    keys: dict[tuple[str, str], tuple[int, str, str, str | None]] = field(default_factory=dict)
    inserts: list[tuple[Any, ...]] = field(default_factory=list)
    purges: list[tuple[str, str, int]] = field(default_factory=list)


class SqlEventStore(EventStore):
    """An event store over SQLAlchemy Core; subclasses add the dialect specifics."""

    fallback_poll_seconds: float = 1.0
    """Longest a subscriber sleeps without a wake-up before it looks again (missed wake-ups)."""

    def __init__(
        self,
        *,
        codec: EventCodec | None = None,
        clock: Clock | None = None,
        readonly: bool = False,
        max_group_events: int = 20_000,
    ) -> None:
        self.codec = codec or default_codec
        self.clock = clock or SystemClock()
        self.readonly = readonly
        self._max_group_events = max_group_events
        self._write_engine: AsyncEngine | None = None
        self._read_engine: AsyncEngine | None = None
        self._queue: deque[_AppendRequest] = deque()
        self._wake_writer = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._writer_task: asyncio.Task[None] | None = None
        self._head_changed = asyncio.Condition()
        self._known_head = 0
        self._closing = False

    # -- backend hooks ---------------------------------------------------------------------

    @abc.abstractmethod
    async def _create_engines(self) -> tuple[AsyncEngine, AsyncEngine]:
        """Return (write engine, read engine)."""

    @abc.abstractmethod
    async def _prepare_schema(self, conn: AsyncConnection) -> None:
        """Create the schema where this backend does so itself (or check it exists)."""

    async def _lock_for_write(self, conn: AsyncConnection) -> None:
        """Serialise writers across processes for the rest of this transaction."""

    async def _write_transaction(self, work: Callable[[sa.Connection], _R]) -> _R:
        """Run ``work`` in one write transaction, after the write lock, and commit it.

        ``work`` is synchronous Core code; an exception from it rolls everything back.
        """
        async with self.write_engine.begin() as conn:
            await self._lock_for_write(conn)
            return await conn.run_sync(work)

    async def _after_purge(self) -> None:
        """Scrub what a purge's commit left outside the live rows (e.g. old WAL frames)."""

    async def _file_problems(self, *, full: bool) -> list[str]:
        """Return what the database's own check of its file finds (none where it has none)."""
        return []

    async def _start_listening(self) -> None:
        """Start waking subscribers on other processes' commits."""

    async def _stop_listening(self) -> None:
        """Stop the cross-process wake-up."""

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def read_engine(self) -> AsyncEngine:
        """Return the engine used for reads."""
        if self._read_engine is None:
            raise RuntimeError("store is not open")
        return self._read_engine

    @property
    def write_engine(self) -> AsyncEngine:
        """Return the engine used for appends."""
        if self._write_engine is None:
            raise RuntimeError("store is not open")
        return self._write_engine

    async def open(self) -> None:
        """Connect, check the schema, start the writer and the listener."""
        # Fresh primitives: asyncio binds each to the loop that first uses it, and a store may
        # be reopened under another loop (say, one asyncio.run per command).
        self._wake_writer = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._head_changed = asyncio.Condition()
        self._write_engine, self._read_engine = await self._create_engines()
        try:
            if not self.readonly:
                async with self._write_engine.begin() as conn:
                    await self._prepare_schema(conn)
            await self._check_schema_version()
            self._known_head = await self.head()
        except sa.exc.DBAPIError as exc:
            await self._dispose_engines()
            raise (classify_database_error(exc) or exc) from exc
        except BaseException:
            await self._dispose_engines()
            raise
        self._closing = False
        if not self.readonly:
            self._writer_task = asyncio.create_task(self._writer_loop(), name="memoryd-writer")
        await self._start_listening()

    async def close(self) -> None:
        """Drain queued appends, stop background tasks, dispose the engines."""
        self._closing = True
        try:
            if self._writer_task is not None:
                self._wake_writer.set()
                await self._writer_task
        finally:
            self._writer_task = None
            await self._stop_listening()
            async with self._head_changed:
                self._head_changed.notify_all()
            await self._dispose_engines()

    async def _dispose_engines(self) -> None:
        for engine in (self._write_engine, self._read_engine):
            if engine is not None:
                await engine.dispose()
        self._write_engine = self._read_engine = None

    async def _check_schema_version(self) -> None:
        async with self.read_engine.connect() as conn:
            try:
                row = (
                    await conn.execute(
                        sa.select(store_meta_table.c.value).where(
                            store_meta_table.c.key == "schema_version"
                        )
                    )
                ).first()
            except sa.exc.DBAPIError as exc:
                damage = classify_database_error(exc)
                if damage is not None:
                    raise damage from exc
                raise SchemaMismatch(
                    "this database has no memoryd event tables; run `memoryd db upgrade`"
                ) from exc
        if row is None or int(row[0]) != STORE_SCHEMA_VERSION:
            found = "none" if row is None else row[0]
            newer = row is not None and int(row[0]) > STORE_SCHEMA_VERSION
            raise SchemaMismatch(
                f"event store schema version is {found}, this memoryd needs "
                f"{STORE_SCHEMA_VERSION}; "
                + (
                    "it was written by a newer memoryd: upgrade memoryd"
                    if newer
                    else "run `memoryd db upgrade`"
                )
            )

    # -- appends ---------------------------------------------------------------------------

    async def append(
        self,
        namespace: str,
        events: Sequence[NewEvent],
        *,
        expected_versions: Mapping[str, int] | None = None,
    ) -> list[int]:
        """Queue events for the next group commit and wait until they are durable."""
        if self.readonly:
            raise ReadOnlyStoreError("this store is read-only")
        if self._closing or self._writer_task is None or self._writer_task.done():
            raise RuntimeError("store is not open")
        if not events:
            return []
        millis = to_micros(self.clock.now()) // 1000
        ids = new_event_ids(sum(1 for e in events if e.event_id is None), millis)
        id_iter = iter(ids)
        encode = self.codec.encode
        rows = [
            _PendingRow(
                event_id=e.event_id or next(id_iter),
                stream_id=e.event.stream_id,
                event_type=e.event.event_type,
                schema_version=e.event.schema_version,
                payload=encode(e.event),
                causation_id=e.causation_id,
                correlation_id=e.correlation_id,
                idempotency_key=e.idempotency_key,
                request_hash=e.request_hash if e.idempotency_key is not None else None,
            )
            for e in events
        ]
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        # A caller that was cancelled never looks at its future: mark its error as seen.
        future.add_done_callback(_consume_exception)
        self._queue.append(_AppendRequest(namespace, rows, expected_versions, future))
        self._wake_writer.set()
        # Shielded: a caller that gives up must not cancel a commit other callers share.
        return await asyncio.shield(future)

    async def _writer_loop(self) -> None:
        group: list[_AppendRequest] = []
        try:
            while True:
                await self._wake_writer.wait()
                self._wake_writer.clear()
                while self._queue:
                    group = []
                    count = 0
                    while self._queue and (not group or count < self._max_group_events):
                        req = self._queue.popleft()
                        group.append(req)
                        count += len(req.rows)
                    await self._commit_group(group)
                    group = []
                if self._closing and not self._queue:
                    return
        finally:
            # Only reached early if the writer itself fails or is cancelled: no caller may be
            # left waiting for an answer that will never come.
            stranded = group + list(self._queue)
            self._queue.clear()
            for req in stranded:
                if not req.future.done():
                    req.future.set_exception(
                        RuntimeError(
                            "the store's writer stopped: this append may or may not have "
                            "committed (retry it with its idempotency key)"
                        )
                    )

    async def _commit_group(self, group: list[_AppendRequest]) -> None:
        try:
            async with self._write_lock:
                head, purged = await self._run_group(group)
                if purged:
                    await self._after_purge()
        except Exception as exc:
            if len(group) == 1:
                group[0].result = None
                group[0].error = classify_database_error(exc) or exc
                head = None
            else:
                for req in group:
                    req.result = req.error = None
                    await self._commit_group([req])
                return
        for req in group:
            if req.future.done():
                continue
            if req.error is not None:
                req.future.set_exception(req.error)
            elif req.result is not None:
                req.future.set_result(req.result)
        if head is not None:
            await self._advance_head(head)

    async def _run_group(self, group: list[_AppendRequest]) -> tuple[int, bool]:
        """Commit one group; return the new head and whether it purged anything."""
        now = to_micros(self.clock.now())
        return await self._write_transaction(lambda conn: self._write_group(conn, group, now))

    def _write_group(
        self, conn: sa.Connection, group: list[_AppendRequest], now: int
    ) -> tuple[int, bool]:
        found = _fetch_plain(conn, _HEAD_QUERY, {})
        last = found[0] if found else None
        head, last_recorded = (int(last[0]), int(last[1])) if last else (0, 0)
        # Transaction time never runs backwards along positions, even if the clock does.
        state = _GroupState(head, max(now, last_recorded))
        self._load_stream_versions(conn, group, state)
        for req in group:
            req.error = None
            req.result = None
            try:
                req.result = self._plan_request(conn, req, state)
            except (ConcurrencyError, IdempotencyConflict) as exc:
                req.error = exc
        if state.inserts:
            _insert_rows(conn, state.inserts)
            for namespace, stream_id, position in state.purges:
                self._redact_stream(conn, namespace, stream_id, position)
        return state.head, bool(state.purges)

    def _load_stream_versions(
        self, conn: sa.Connection, group: list[_AppendRequest], state: _GroupState
    ) -> None:
        by_ns: dict[str, set[str]] = {}
        for req in group:
            by_ns.setdefault(req.namespace, set()).update(r.stream_id for r in req.rows)
        for namespace, streams in by_ns.items():
            ids = sorted(streams)
            for i in range(0, len(ids), 200):
                chunk = ids[i : i + 200]
                # One scalar max() per stream: SQLite and PostgreSQL answer each with a single
                # probe of the (namespace, stream_id, stream_version) index. A GROUP BY over
                # ``stream_id IN (...)`` reads every version of every stream instead, which
                # made appends to long conversations slower the longer they got.
                params = {f"s{n}": sid for n, sid in enumerate(chunk)}
                [row] = _fetch_plain(
                    conn, _stream_versions_query(len(chunk)), {"ns": namespace, **params}
                )
                for sid, version in zip(chunk, row, strict=True):
                    state.stream_versions[(namespace, sid)] = (
                        int(version) if version is not None else NO_STREAM
                    )

    def _plan_request(
        self, conn: sa.Connection, req: _AppendRequest, state: _GroupState
    ) -> list[int]:
        ns = req.namespace
        existing = self._existing_idempotent(conn, req, state)
        if existing is not None:
            return existing
        for stream_id, expected in (req.expected_versions or {}).items():
            actual = state.stream_versions.get((ns, stream_id))
            if actual is None:
                value = conn.scalar(_STREAM_VERSION, {"ns": ns, "s0": stream_id})
                actual = int(value) if value is not None else NO_STREAM
                state.stream_versions[(ns, stream_id)] = actual
            if actual != expected:
                raise ConcurrencyError(ns, stream_id, expected, actual)
        positions = []
        for row in req.rows:
            state.head += 1
            key = (ns, row.stream_id)
            version = state.stream_versions[key] + 1
            state.stream_versions[key] = version
            if row.idempotency_key is not None:
                state.keys[(ns, row.idempotency_key)] = (
                    state.head,
                    row.stream_id,
                    row.event_type,
                    row.request_hash,
                )
            values = (  # in the order of ROW_COLUMNS, checksum excepted
                state.head,
                row.event_id,
                ns,
                row.stream_id,
                version,
                row.event_type,
                row.schema_version,
                row.payload,
                state.recorded_at,
                row.causation_id,
                row.correlation_id,
                row.idempotency_key,
                row.request_hash,
            )
            state.inserts.append((*values, event_checksum(*values)))
            if row.event_type == FactPurged.event_type:
                state.purges.append((ns, row.stream_id, state.head))
            positions.append(state.head)
        return positions

    def _existing_idempotent(
        self, conn: sa.Connection, req: _AppendRequest, state: _GroupState
    ) -> list[int] | None:
        keys = [r.idempotency_key for r in req.rows if r.idempotency_key is not None]
        if not keys:
            return None
        if len(set(keys)) != len(keys):
            raise IdempotencyConflict("an idempotency key appears twice in one append")
        found: dict[str, tuple[int, str, str, str | None]] = {}
        for key in keys:
            pending = state.keys.get((req.namespace, key))
            if pending is not None:
                found[key] = pending
        missing = [k for k in keys if k not in found]
        for i in range(0, len(missing), 500):
            result = conn.execute(
                sa.select(
                    _T.idempotency_key, _T.position, _T.stream_id, _T.event_type, _T.request_hash
                ).where(_T.namespace == req.namespace, _T.idempotency_key.in_(missing[i : i + 500]))
            )
            for key, position, stream_id, event_type, request_hash in result:
                found[key] = (int(position), stream_id, event_type, request_hash)
        if not found:
            return None
        if len(found) != len(req.rows):
            raise IdempotencyConflict(
                "some idempotency keys of this append are already used and others are not: "
                + ", ".join(sorted(found))
            )
        positions = []
        for row in req.rows:
            assert row.idempotency_key is not None
            position, stream_id, event_type, request_hash = found[row.idempotency_key]
            if (stream_id, event_type) != (row.stream_id, row.event_type):
                raise IdempotencyConflict(
                    f"idempotency key {row.idempotency_key!r} was used for a different event"
                )
            if None not in (request_hash, row.request_hash) and request_hash != row.request_hash:
                raise IdempotencyConflict(
                    f"idempotency key {row.idempotency_key!r} was used for a different request"
                )
            positions.append(position)
        return positions

    def _redact_stream(
        self, conn: sa.Connection, namespace: str, stream_id: str, before: int
    ) -> None:
        # The one sanctioned rewrite of the log: a purge removes the fact's text from every
        # earlier event of its stream in the purge's own transaction.
        result = conn.execute(
            sa.select(events_table).where(
                _T.namespace == namespace, _T.stream_id == stream_id, _T.position < before
            )
        )
        for row in result.all():
            record = EventRecord(*row)
            event = self.codec.decode(record.event_type, record.schema_version, record.payload)
            event = event.redacted()
            redacted = dataclasses.replace(
                record,
                payload=self.codec.encode(event),
                schema_version=event.schema_version,
            )
            conn.execute(
                events_table.update()
                .where(_T.position == record.position)
                .values(
                    payload=redacted.payload,
                    schema_version=redacted.schema_version,
                    checksum=redacted.computed_checksum(),
                )
            )

    @property
    def known_head(self) -> int:
        """Return the last position this process knows to be committed."""
        return self._known_head

    async def note_head(self, position: int) -> None:
        """Learn that another process committed ``position``; wake whoever waits for it."""
        await self._advance_head(position)

    async def next_head(self, after: int) -> int:
        """Wait until this process learns of a commit past ``after``; return the known head.

        Unlike :meth:`wait_for_head` it never asks the database: it waits for this process's
        own commits, notifications and :meth:`note_head`. Returns ``after`` once closing.
        """
        await self._wait_beyond(after, None)
        return self._known_head

    async def _advance_head(self, head: int) -> None:
        async with self._head_changed:
            if head > self._known_head:
                self._known_head = head
            self._head_changed.notify_all()

    # -- reads -----------------------------------------------------------------------------

    async def request_hashes(self, namespace: str, key: str) -> set[str]:
        """Return the fingerprints stored with ``key`` or ``key#...`` in ``namespace``."""
        # "#" and "$" are neighbours: the range is every key that starts with "key#", read
        # from the (namespace, idempotency_key) index.
        query = sa.select(_T.request_hash).where(
            _T.namespace == namespace,
            sa.or_(
                _T.idempotency_key == key,
                sa.and_(_T.idempotency_key >= f"{key}#", _T.idempotency_key < f"{key}$"),
            ),
            _T.request_hash.isnot(None),
        )
        async with self.read_engine.connect() as conn:
            return {str(h) for h in (await conn.scalars(query)).all()}

    async def stream_version(self, namespace: str, stream_id: str) -> int:
        """Return a stream's current version."""
        async with self.read_engine.connect() as conn:
            value = await conn.scalar(_STREAM_VERSION, {"ns": namespace, "s0": stream_id})
        return int(value) if value is not None else NO_STREAM

    async def head(self) -> int:
        """Return the last committed position."""
        async with self.read_engine.connect() as conn:
            value = await conn.scalar(sa.select(sa.func.max(_T.position)))
        return int(value) if value is not None else 0

    async def _fetch_rows(
        self,
        after: int,
        until: int | None,
        limit: int,
        namespace: str | None,
        stream_id: str | None,
    ) -> Sequence[tuple[Any, ...]]:
        query = sa.select(events_table).where(_T.position > after)
        if until is not None:
            query = query.where(_T.position <= until)
        if namespace is not None:
            query = query.where(_T.namespace == namespace)
        if stream_id is not None:
            query = query.where(_T.stream_id == stream_id)
        query = query.order_by(_T.position).limit(limit)
        try:
            async with self.read_engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        except sa.exc.DBAPIError as exc:
            raise (classify_database_error(exc) or exc) from exc
        # A Row unpacks like the tuple it holds (ROW_COLUMNS for select(events_table)).
        return cast("Sequence[tuple[Any, ...]]", rows)

    def _decode_rows(self, rows: Sequence[tuple[Any, ...]]) -> list[StoredEvent]:
        # The hot loop of every replay: rows unpack by position (``select(events_table)``
        # yields ROW_COLUMNS), and a group commit's events share one recorded_at.
        decode = self.codec.decode
        out = []
        last_micros, recorded_at = None, None
        for row in rows:
            (
                position,
                event_id,
                namespace,
                stream_id,
                stream_version,
                event_type,
                schema_version,
                payload,
                micros,
                causation_id,
                correlation_id,
                idempotency_key,
                _request_hash,
                checksum,
            ) = row
            if checksum is not None and checksum != event_checksum(*row[:-1]):
                raise _damaged_row(position)
            if micros != last_micros:
                last_micros, recorded_at = micros, from_micros(micros)
            assert recorded_at is not None
            out.append(
                StoredEvent(
                    position=position,
                    event_id=event_id,
                    namespace=namespace,
                    stream_id=stream_id,
                    stream_version=stream_version,
                    recorded_at=recorded_at,
                    event=decode(event_type, schema_version, payload),
                    causation_id=causation_id,
                    correlation_id=correlation_id,
                    idempotency_key=idempotency_key,
                )
            )
        return out

    async def read(
        self,
        after: int = 0,
        *,
        until: int | None = None,
        limit: int | None = None,
        namespace: str | None = None,
        stream_id: str | None = None,
    ) -> AsyncIterator[StoredEvent]:
        """Yield decoded events in position order (read in chunks, no open cursor held)."""
        remaining = limit
        while remaining is None or remaining > 0:
            chunk = READ_CHUNK if remaining is None else min(READ_CHUNK, remaining)
            rows = await self._fetch_rows(after, until, chunk, namespace, stream_id)
            for event in self._decode_rows(rows):
                yield event
            if len(rows) < chunk:
                return
            after = rows[-1][0]
            if remaining is not None:
                remaining -= len(rows)

    async def read_records(
        self, after: int = 0, *, until: int | None = None, limit: int | None = None
    ) -> AsyncIterator[EventRecord]:
        """Yield raw records in position order."""
        remaining = limit
        while remaining is None or remaining > 0:
            chunk = READ_CHUNK if remaining is None else min(READ_CHUNK, remaining)
            rows = await self._fetch_rows(after, until, chunk, None, None)
            for row in rows:
                record = EventRecord(*row)  # select(events_table) yields ROW_COLUMNS
                if record.checksum is not None and record.checksum != record.computed_checksum():
                    raise _damaged_row(record.position)
                yield record
            if len(rows) < chunk:
                return
            after = rows[-1][0]
            if remaining is not None:
                remaining -= len(rows)

    async def subscribe(self, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Catch up from ``after``, then follow commits; woken in-process on each commit."""
        position = after
        while not self._closing:
            rows = await self._fetch_rows(position, None, READ_CHUNK, None, None)
            for event in self._decode_rows(rows):
                position = event.position
                yield event
            if rows:
                continue
            await self._wait_beyond(position, self.fallback_poll_seconds)

    async def _wait_beyond(self, position: int, timeout: float | None) -> bool:
        # ``asyncio.timeout``, not ``asyncio.wait_for``: on Python 3.11 ``wait_for`` returns
        # the inner result when a cancellation races the wake-up (a commit), swallowing the
        # cancellation, so a cancelled subscriber looped on and hung in "cancelling". Here a
        # cancellation always propagates; only our own deadline becomes TimeoutError.
        async with self._head_changed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._head_changed.wait_for(
                        lambda: self._known_head > position or self._closing
                    )
            return self._known_head > position

    async def wait_for_head(self, position: int, timeout: float | None = None) -> bool:
        """Wait until ``position`` is committed (seen by this process); False if closed."""
        if self._known_head >= position:
            return True
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not self._closing:
            if await self.head() >= position:
                async with self._head_changed:
                    self._known_head = max(self._known_head, position)
                return True
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            step = self.fallback_poll_seconds if left is None else min(left, 1.0)
            if await self._wait_beyond(position - 1, step):
                return True
        return False

    # -- integrity -------------------------------------------------------------------------

    TAIL_CHECKED = 1000
    """Events whose checksums the quick check (at start) verifies: the newest."""

    async def integrity_problems(self, *, full: bool = False) -> list[str]:
        """Check the log; return what is wrong (an empty list when nothing is).

        Quick (at start): the database's own quick check, positions gapless from 1 to the
        head, and the checksums of the newest TAIL_CHECKED events. Full (``memoryd doctor``):
        the database's whole integrity check and every event's checksum.
        """
        problems = await self._file_problems(full=full)
        try:
            async with self.read_engine.connect() as conn:
                count, first, last = (
                    await conn.execute(
                        sa.select(
                            sa.func.count(), sa.func.min(_T.position), sa.func.max(_T.position)
                        )
                    )
                ).one()
            if count and (first != 1 or last != count):
                problems.append(
                    f"positions are not gapless: {count} events between {first} and {last}"
                )
            after = 0 if full or not last else max(0, int(last) - self.TAIL_CHECKED)
            problems.extend(await self._checksum_problems(after))
        except sa.exc.DBAPIError as exc:
            problem = classify_database_error(exc)
            problems.append(str(problem) if problem is not None else f"cannot read the log: {exc}")
        except DamagedLog as exc:
            problems.append(str(exc).removesuffix(" (run `memoryd doctor`)"))
        return problems

    async def _checksum_problems(self, after: int, most: int = 20) -> list[str]:
        damaged: list[int] = []
        while True:
            rows = await self._fetch_rows(after, None, READ_CHUNK, None, None)
            for row in rows:
                record = EventRecord(*row)
                if record.checksum is not None and record.checksum != record.computed_checksum():
                    damaged.append(record.position)
            if len(rows) < READ_CHUNK:
                break
            after = rows[-1][0]
        if not damaged:
            return []
        shown = ", ".join(str(p) for p in damaged[:most])
        more = f" and {len(damaged) - most} more" if len(damaged) > most else ""
        return [f"{len(damaged)} events do not match their checksums: positions {shown}{more}"]

    # -- import ----------------------------------------------------------------------------

    async def import_records(self, records: Iterable[EventRecord]) -> int:
        """Write records with their positions, contiguous after the current head."""
        if self.readonly:
            raise ReadOnlyStoreError("this store is read-only")
        batch = list(records)
        if not batch:
            return 0
        for record in batch:
            # Nothing this memoryd cannot read back enters the log.
            try:
                self.codec.decode(record.event_type, record.schema_version, record.payload)
            except UnknownEventType as exc:
                raise ImportRefused(
                    f"position {record.position}: unknown event type {record.event_type!r}"
                ) from exc
            except ValueError as exc:
                raise ImportRefused(
                    f"position {record.position}: {record.event_type} "
                    f"v{record.schema_version} does not decode: {exc}"
                ) from exc
        async with self._write_lock:
            try:
                head = await self._write_transaction(lambda conn: self._import(conn, batch))
            except sa.exc.IntegrityError as exc:
                raise ImportRefused(f"clash with existing events: {exc.orig}") from exc
            if any(r.event_type == FactPurged.event_type for r in batch):
                await self._after_purge()
        await self._advance_head(head)
        return len(batch)

    def _import(self, conn: sa.Connection, batch: list[EventRecord]) -> int:
        head = int(conn.scalar(sa.select(sa.func.max(_T.position))) or 0)
        expected = head + 1
        for record in batch:
            if record.position != expected:
                kind = "clash" if record.position < expected else "gap"
                raise ImportRefused(
                    f"{kind}: position {record.position} where {expected} was "
                    f"expected (the log's head is {head})"
                )
            expected += 1
        for record in batch:
            if record.checksum is not None and record.checksum != record.computed_checksum():
                raise ImportRefused(
                    f"position {record.position}: the record does not match its checksum "
                    "(damaged or edited after export)"
                )
        rows = [_record_row(dataclasses.replace(r, checksum=r.computed_checksum())) for r in batch]
        for i in range(0, len(rows), 5000):
            _insert_rows(conn, rows[i : i + 5000])
        for r in batch:
            if r.event_type == FactPurged.event_type:
                self._redact_stream(conn, r.namespace, r.stream_id, r.position)
        return expected - 1

    async def write_schema_meta(self, conn: AsyncConnection) -> None:
        """Record the schema version if the database has none yet."""
        present = await conn.scalar(
            sa.select(store_meta_table.c.value).where(store_meta_table.c.key == "schema_version")
        )
        if present is None:
            await conn.execute(
                store_meta_table.insert().values(
                    key="schema_version", value=str(STORE_SCHEMA_VERSION)
                )
            )


def _stream_version(n: int) -> sa.Select[tuple[Any]]:
    """``max(stream_version)`` of stream ``:s<n>`` in namespace ``:ns``."""
    return sa.select(sa.func.max(_T.stream_version)).where(
        _T.namespace == sa.bindparam("ns"), _T.stream_id == sa.bindparam(f"s{n}")
    )


_STREAM_VERSION = _stream_version(0)


@functools.cache
def _stream_versions_query(count: int) -> sa.Select[Any]:
    # Built once per chunk size: constructing the statement costs more than running it.
    return sa.select(*(_stream_version(n).scalar_subquery() for n in range(count)))


def _consume_exception(future: asyncio.Future[list[int]]) -> None:
    if not future.cancelled():
        future.exception()


ROW_COLUMNS: tuple[str, ...] = (
    "position",
    "event_id",
    "namespace",
    "stream_id",
    "stream_version",
    "event_type",
    "schema_version",
    "payload",
    "recorded_at",
    "causation_id",
    "correlation_id",
    "idempotency_key",
    "request_hash",
    "checksum",
)
"""The order of the values in a row tuple given to :func:`_insert_rows`."""


_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_NOTADB = 26
_PG_DISK_FULL = "53100"
_PG_CORRUPTED = ("XX001", "XX002")


def classify_database_error(exc: BaseException) -> StoreError | None:
    """Return the typed store error a database error amounts to: a full disk or a damaged
    file (each with a message for a person), or None for anything else."""
    orig = getattr(exc, "orig", None) or exc
    code = getattr(orig, "sqlite_errorcode", None)
    sqlstate = getattr(orig, "sqlstate", None)
    if (isinstance(code, int) and code & 0xFF == _SQLITE_FULL) or sqlstate == _PG_DISK_FULL:
        return StorageFull(f"the disk holding the event log is full ({orig}); nothing was written")
    if isinstance(orig, OSError) and orig.errno == errno.ENOSPC:
        return StorageFull(f"the disk holding the event log is full ({orig.strerror})")
    if (isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)) or (
        sqlstate in _PG_CORRUPTED
    ):
        return DamagedLog(f"the event log's database is damaged: {orig} (run `memoryd doctor`)")
    return None


def _damaged_row(position: int) -> DamagedLog:
    return DamagedLog(
        f"the event at position {position} does not match its checksum: the log is damaged "
        "there (run `memoryd doctor`)",
        position,
    )


def _record_row(record: EventRecord) -> tuple[Any, ...]:
    return tuple(getattr(record, name) for name in ROW_COLUMNS)


_HEAD_QUERY = sa.select(_T.position, _T.recorded_at).order_by(_T.position.desc()).limit(1)
_INSERT_ROWS = events_table.insert().values({name: sa.bindparam(name) for name in ROW_COLUMNS})


@dataclass(frozen=True, slots=True)
class _DriverSql:
    """A statement compiled for one dialect: the SQL, its bind names in order, their defaults."""

    sql: str
    order: tuple[str, ...]
    defaults: dict[str, Any]
    positional: bool

    def args(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        """Return the positional parameters (the statement's own binds, a LIMIT say, default)."""
        values = {**self.defaults, **params}
        return tuple(values[name] for name in self.order)


def _driver_sql(statement: sa.Select[Any] | sa.Insert, dialect: sa.Dialect) -> _DriverSql:
    """Return ``statement`` compiled for ``dialect``, once per statement and dialect.

    The writer's hot statements (the insert, the head and stream-version reads) run as driver
    SQL on positional drivers (SQLite's, asyncpg): through Core each cost more than SQLite's
    own work for a whole commit (cache keys, parameter processing, result set-up).
    """
    key = (statement, dialect.name, dialect.driver, dialect.paramstyle)
    found = _driver_sql_cache.get(key)
    if found is None:
        compiled = statement.compile(dialect=dialect)
        found = _DriverSql(
            str(compiled),
            tuple(compiled.positiontup or ()),
            dict(compiled.params),
            bool(dialect.positional),
        )
        _driver_sql_cache[key] = found
    return found


_driver_sql_cache: dict[tuple[Any, ...], _DriverSql] = {}
"""Keyed by the statement object itself (hashed by identity; the module keeps them alive)."""


def _fetch_plain(
    conn: sa.Connection, statement: sa.Select[Any], params: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """Return the rows of a Core SELECT, as driver SQL where the driver is positional
    (SQLite's on a bare cursor); others take the Core route."""
    compiled = _driver_sql(statement, conn.dialect)
    if not compiled.positional:
        return [tuple(r) for r in conn.execute(statement, params)]
    args = compiled.args(params)
    if conn.dialect.name == "sqlite":
        cursor = conn.connection.cursor()
        try:
            cursor.execute(compiled.sql, args)
            return list(cursor.fetchall())
        finally:
            cursor.close()
    return [tuple(r) for r in conn.exec_driver_sql(compiled.sql, args)]


def _insert_sql(dialect: sa.Dialect) -> str | None:
    """Return the dialect's INSERT with positional parameters in ROW_COLUMNS order, if any."""
    compiled = _driver_sql(_INSERT_ROWS, dialect)
    return compiled.sql if compiled.positional and compiled.order == ROW_COLUMNS else None


def _insert_rows(conn: sa.Connection, rows: list[tuple[Any, ...]]) -> None:
    """Insert row tuples (ROW_COLUMNS order) with one executemany.

    The hot path of every append: on a positional-parameter driver (SQLite's, asyncpg) the
    tuples go to the driver as they are; the Core route would build and process a dict per
    row, which costs more than SQLite's own work for the row.
    """
    sql = _insert_sql(conn.dialect)
    if sql is not None:
        conn.exec_driver_sql(sql, rows)
    else:
        conn.execute(events_table.insert(), [dict(zip(ROW_COLUMNS, r, strict=True)) for r in rows])
