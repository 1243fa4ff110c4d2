"""The store logic shared by the SQL backends: group commit, checks, reads, subscriptions.

Appends go through one writer task per store. Concurrent ``append`` calls queue up and the
writer commits everything queued in one transaction (group commit): one fsync serves many
appenders, which is what makes many small durable appends fast. Each request is checked
(expected versions, idempotency) before anything is inserted, so a refused request fails alone
and the others in its group still commit. A group that fails as a whole (an unexpected database
error) is retried one request at a time so each caller gets its own answer.

The work of one write transaction (checks, inserts, redactions) is plain synchronous Core
code on a ``sqlalchemy.Connection`` (:mod:`events.store.group_commit`), handed to
:meth:`SqlEventStore._write_transaction`. By default that runs it through the async engine
(``AsyncConnection.run_sync``); the SQLite backend instead runs the whole transaction in one
hop on its writer thread, since each statement sent through aiosqlite costs a thread round
trip.

Backends supply engines, the write lock that serialises position assignment, and the
cross-process wake-up; see ``sqlite.py`` and ``postgres.py``.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import dataclasses
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from events.clock import Clock, SystemClock, from_micros, to_micros
from events.codec import EventCodec, UnknownEventType, default_codec
from events.ids import new_event_ids
from events.store.base import (
    NO_STREAM,
    DamagedLog,
    EventRecord,
    EventStore,
    ImportRefused,
    NewEvent,
    ReadOnlyStoreError,
    SchemaMismatch,
    StoredEvent,
)
from events.store.checksum import event_checksum
from events.store.db_errors import classify_database_error
from events.store.driver_sql import insert_rows, record_row
from events.store.group_commit import (
    STREAM_VERSION,
    AppendRequest,
    PendingRow,
    redact_stream,
    write_group,
)
from events.store.schema import STORE_SCHEMA_VERSION, events_table, store_meta_table
from events.types import FactPurged

READ_CHUNK = 2000
_T = events_table.c
_R = TypeVar("_R")


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
        self._queue: deque[AppendRequest] = deque()
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
            PendingRow(
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
        self._queue.append(AppendRequest(namespace, rows, expected_versions, future))
        self._wake_writer.set()
        # Shielded: a caller that gives up must not cancel a commit other callers share.
        return await asyncio.shield(future)

    async def _writer_loop(self) -> None:
        group: list[AppendRequest] = []
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

    async def _commit_group(self, group: list[AppendRequest]) -> None:
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

    async def _run_group(self, group: list[AppendRequest]) -> tuple[int, bool]:
        """Commit one group; return the new head and whether it purged anything."""
        now = to_micros(self.clock.now())
        return await self._write_transaction(lambda conn: write_group(conn, group, now, self.codec))

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
            value = await conn.scalar(STREAM_VERSION, {"ns": namespace, "s0": stream_id})
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
        chunks = self._row_chunks(after, until, limit, namespace, stream_id)
        async with contextlib.aclosing(chunks):
            async for rows in chunks:
                for event in self._decode_rows(rows):
                    yield event

    async def read_records(
        self, after: int = 0, *, until: int | None = None, limit: int | None = None
    ) -> AsyncIterator[EventRecord]:
        """Yield raw records in position order."""
        chunks = self._row_chunks(after, until, limit, None, None)
        async with contextlib.aclosing(chunks):
            async for rows in chunks:
                for row in rows:
                    record = EventRecord(*row)  # select(events_table) yields ROW_COLUMNS
                    checksum = record.checksum
                    if checksum is not None and checksum != record.computed_checksum():
                        raise _damaged_row(record.position)
                    yield record

    async def _row_chunks(
        self,
        after: int,
        until: int | None,
        limit: int | None,
        namespace: str | None,
        stream_id: str | None,
    ) -> AsyncGenerator[Sequence[tuple[Any, ...]], None]:
        """Yield the rows after ``after`` (at most ``limit``) in chunks, no cursor held open."""
        remaining = limit
        while remaining is None or remaining > 0:
            chunk = READ_CHUNK if remaining is None else min(READ_CHUNK, remaining)
            rows = await self._fetch_rows(after, until, chunk, namespace, stream_id)
            yield rows
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
        rows = [record_row(dataclasses.replace(r, checksum=r.computed_checksum())) for r in batch]
        for i in range(0, len(rows), 5000):
            insert_rows(conn, rows[i : i + 5000])
        for r in batch:
            if r.event_type == FactPurged.event_type:
                redact_stream(conn, self.codec, r.namespace, r.stream_id, r.position)
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


def _consume_exception(future: asyncio.Future[list[int]]) -> None:
    if not future.cancelled():
        future.exception()


def _damaged_row(position: int) -> DamagedLog:
    return DamagedLog(
        f"the event at position {position} does not match its checksum: the log is damaged "
        "there (run `memoryd doctor`)",
        position,
    )
