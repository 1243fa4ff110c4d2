"""The event store contract, written once and run against every backend.

It is shipped in the package (``events.store.contract``, as eventsourcing ships its recorder
tests) so that a third-party backend's own tests can subclass it; it imports pytest, so only
tests import this module.

Every :class:`events.store.base.EventStore` backend must pass these tests (after the
pyeventsourcing pattern: one abstract test class, one small subclass per backend). The class
name does not start with ``Test``, so pytest collects it only through a subclass.

To run the contract against a backend, subclass :class:`EventStoreContract` in a test module
and implement :meth:`EventStoreContract.create_store`; override the ``location`` fixture if a
store needs something other than a fresh temporary directory (for PostgreSQL: a fresh, empty
database or schema URL per test)::

    class TestPostgresEventStore(EventStoreContract):
        @pytest.fixture
        def location(self, tmp_path: Path) -> str:
            return make_fresh_database_url()  # one empty database per test

        def create_store(
            self, location: Any, *, clock: Clock, readonly: bool = False
        ) -> EventStore:
            return PostgresEventStore(location, clock=clock, readonly=readonly)

``create_store`` returns an *unopened* store; two stores created on the same ``location`` must
see the same log (the tests reopen stores and open read-only views). The default
:meth:`EventStoreContract.set_schema_version` works for every ``SqlEventStore``; a backend
with another storage overrides it.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from events.clock import Clock, ManualClock, to_micros
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
    StoredEvent,
)
from events.store.schema import events_table, store_meta_table
from events.store.sql import SqlEventStore
from events.types import (
    REDACTED_TEXT,
    FactPurged,
    FactWritten,
    MessageAppended,
    conversation_stream,
    fact_stream,
)

NS = "default"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def message(conversation: str, n: int, text: str | None = None) -> MessageAppended:
    """Return message ``n`` of a conversation."""
    return MessageAppended(
        conversation_id=conversation,
        message_id=f"{conversation}-m{n}",
        role="user" if n % 2 else "assistant",
        content=text if text is not None else f"message {n} of {conversation}",
        created_at=T0 + timedelta(seconds=n),
    )


def new(conversation: str, n: int, key: str | None = None) -> NewEvent:
    """Return message ``n`` of a conversation wrapped for appending."""
    return NewEvent(message(conversation, n), idempotency_key=key)


def fact(fact_id: str, text: str) -> FactWritten:
    """Return a fact event."""
    return FactWritten(fact_id=fact_id, text=text, valid_from=T0, tags=["t"], subject="s")


async def read_all(store: EventStore, **kwargs: Any) -> list[StoredEvent]:
    """Return everything ``store.read(**kwargs)`` yields."""
    return [e async for e in store.read(**kwargs)]


async def records(store: EventStore, **kwargs: Any) -> list[EventRecord]:
    """Return everything ``store.read_records(**kwargs)`` yields."""
    return [r async for r in store.read_records(**kwargs)]


async def next_within(events: AsyncIterator[StoredEvent], seconds: float) -> StoredEvent:
    """Return the next event of a subscription, failing the test if none comes in time."""
    async with asyncio.timeout(seconds):
        return await anext(events)


class EventStoreContract(abc.ABC):
    """Tests that every event store backend passes."""

    @abc.abstractmethod
    def create_store(self, location: Any, *, clock: Clock, readonly: bool = False) -> EventStore:
        """Return an unopened store on ``location`` (the same location = the same log)."""

    async def set_schema_version(self, location: Any, version: str) -> None:
        """Overwrite the schema version a store on ``location`` records."""
        store = self.create_store(location, clock=ManualClock())
        await store.open()
        try:
            assert isinstance(store, SqlEventStore)
            async with store.write_engine.begin() as conn:
                await conn.execute(
                    sa.update(store_meta_table)
                    .where(store_meta_table.c.key == "schema_version")
                    .values(value=version)
                )
        finally:
            await store.close()

    @pytest.fixture
    def location(self, tmp_path: Any) -> Any:
        """Where a test's log lives; override for a backend that is not a directory."""
        return tmp_path

    @pytest.fixture
    def clock(self) -> ManualClock:
        """The store's clock; tests move it by hand."""
        return ManualClock(T0)

    @pytest.fixture
    async def store(self, location: Any, clock: ManualClock) -> AsyncIterator[EventStore]:
        """An opened, empty store."""
        store = self.create_store(location, clock=clock)
        await store.open()
        try:
            yield store
        finally:
            await store.close()

    # -- append and positions ---------------------------------------------------------------

    async def test_positions_are_gapless_and_increasing(self, store: EventStore) -> None:
        assert await store.head() == 0
        assert await store.append(NS, [new("a", 1)]) == [1]
        assert await store.append(NS, [new("a", 2), new("b", 1), new("a", 3)]) == [2, 3, 4]
        assert await store.append("other", [new("c", 1)]) == [5]
        assert await store.append(NS, []) == []
        assert await store.head() == 5
        stored = await read_all(store)
        assert [e.position for e in stored] == [1, 2, 3, 4, 5]
        assert [e.event for e in stored[:4]] == [
            message("a", 1),
            message("a", 2),
            message("b", 1),
            message("a", 3),
        ]
        assert [(e.stream_id, e.stream_version) for e in stored] == [
            (conversation_stream("a"), 1),
            (conversation_stream("a"), 2),
            (conversation_stream("b"), 1),
            (conversation_stream("a"), 3),
            (conversation_stream("c"), 1),
        ]
        assert stored[4].namespace == "other"
        assert len({e.event_id for e in stored}) == 5

    async def test_envelope_is_kept(self, store: EventStore) -> None:
        envelope = NewEvent(
            message("a", 1),
            event_id="00000000-0000-4000-8000-000000000001",
            causation_id="00000000-0000-4000-8000-000000000002",
            correlation_id="00000000-0000-4000-8000-000000000003",
            idempotency_key="request-1",
        )
        await store.append(NS, [envelope])
        (stored,) = await read_all(store)
        assert stored.event_id == envelope.event_id
        assert stored.causation_id == envelope.causation_id
        assert stored.correlation_id == envelope.correlation_id
        assert stored.idempotency_key == "request-1"
        assert stored.event_type == "MessageAppended"

    async def test_batch_is_all_or_nothing(self, store: EventStore) -> None:
        await store.append(NS, [NewEvent(message("a", 1), event_id="e1")])
        # The third event reuses an event id: the database refuses it, and with it the batch.
        batch = [new("b", 1), new("b", 2), NewEvent(message("b", 3), event_id="e1")]
        with pytest.raises(Exception):  # noqa: B017, PT011 - any refusal will do
            await store.append(NS, batch)
        assert await store.head() == 1
        assert await read_all(store, stream_id=conversation_stream("b")) == []
        # The store goes on working, and positions stay gapless.
        assert await store.append(NS, [new("b", 1)]) == [2]

    async def test_a_failing_request_fails_alone_in_its_group(self, store: EventStore) -> None:
        await store.append(NS, [NewEvent(message("a", 1), event_id="e1")])
        # The database refuses the whole group commit; each request then gets its own answer.
        results = await asyncio.gather(
            store.append(NS, [new("b", 1)]),
            store.append(NS, [new("c", 1), NewEvent(message("c", 2), event_id="e1")]),
            store.append(NS, [new("d", 1), new("d", 2)]),
            return_exceptions=True,
        )
        assert isinstance(results[1], Exception)
        assert not isinstance(results[1], ConcurrencyError | IdempotencyConflict)
        assert sorted(p for r in (results[0], results[2]) if isinstance(r, list) for p in r) == [
            2,
            3,
            4,
        ]
        assert [e.position for e in await read_all(store)] == [1, 2, 3, 4]
        assert await read_all(store, stream_id=conversation_stream("c")) == []

    async def test_durable_across_reopen(
        self, store: EventStore, location: Any, clock: ManualClock
    ) -> None:
        await store.append(NS, [new("a", 1), new("a", 2)])
        await store.close()
        reopened = self.create_store(location, clock=clock)
        await reopened.open()
        try:
            assert await reopened.head() == 2
            assert await reopened.append(NS, [new("a", 3)]) == [3]
            assert await reopened.stream_version(NS, conversation_stream("a")) == 3
        finally:
            await reopened.close()
        await store.open()  # the fixture closes it again

    # -- reads ------------------------------------------------------------------------------

    async def test_read_filters(self, store: EventStore) -> None:
        for n in range(1, 6):
            await store.append(NS, [new("a", n), new("b", n)])
            await store.append("other", [new("a", n)])
        # positions: a1=1 b1=2 other:a1=3, a2=4 b2=5 other:a2=6, ...
        assert [e.position for e in await read_all(store, after=10)] == [11, 12, 13, 14, 15]
        assert [e.position for e in await read_all(store, after=3, until=6)] == [4, 5, 6]
        assert [e.position for e in await read_all(store, after=2, limit=3)] == [3, 4, 5]
        assert await read_all(store, after=15) == []
        assert await read_all(store, limit=0) == []
        other = await read_all(store, namespace="other")
        assert [e.position for e in other] == [3, 6, 9, 12, 15]
        a = await read_all(store, namespace=NS, stream_id=conversation_stream("a"))
        assert [e.position for e in a] == [1, 4, 7, 10, 13]
        assert [e.position for e in await read_all(store, stream_id=conversation_stream("b"))] == [
            2,
            5,
            8,
            11,
            14,
        ]
        limited = await read_all(store, namespace="other", after=3, limit=2)
        assert [e.position for e in limited] == [6, 9]
        assert [r.position for r in await records(store, after=12, until=14)] == [13, 14]
        assert [r.position for r in await records(store, limit=2)] == [1, 2]

    async def test_read_stream_and_version(self, store: EventStore) -> None:
        stream = conversation_stream("a")
        assert await store.stream_version(NS, stream) == NO_STREAM
        assert await store.read_stream(NS, stream) == []
        await store.append(NS, [new("a", 1), new("b", 1)])
        await store.append(NS, [new("a", 2)])
        await store.append("other", [new("a", 1)])
        events = await store.read_stream(NS, stream)
        assert [(e.stream_version, e.event) for e in events] == [
            (1, message("a", 1)),
            (2, message("a", 2)),
        ]
        assert await store.stream_version(NS, stream) == 2
        assert await store.stream_version("other", stream) == 1
        assert await store.stream_version("nobody", stream) == NO_STREAM

    async def test_large_reads_cross_chunks(self, store: EventStore) -> None:
        await store.append(NS, [new("a", n) for n in range(1, 4502)])
        assert [e.position for e in await read_all(store)] == list(range(1, 4502))
        assert len(await read_all(store, after=100, limit=4100)) == 4100
        assert (await records(store, after=4000))[-1].position == 4501

    # -- optimistic concurrency -------------------------------------------------------------

    async def test_expected_version_conflict_writes_nothing(self, store: EventStore) -> None:
        a, b = conversation_stream("a"), conversation_stream("b")
        assert await store.append(NS, [new("a", 1)], expected_versions={a: NO_STREAM}) == [1]
        assert await store.append(NS, [new("a", 2)], expected_versions={a: 1}) == [2]
        with pytest.raises(ConcurrencyError) as info:
            await store.append(NS, [new("a", 3), new("b", 1)], expected_versions={a: 1})
        assert (info.value.namespace, info.value.stream_id) == (NS, a)
        assert (info.value.expected, info.value.actual) == (1, 2)
        with pytest.raises(ConcurrencyError):
            await store.append(NS, [new("a", 3)], expected_versions={a: NO_STREAM})
        # An expectation on a stream the batch does not write to is checked too.
        with pytest.raises(ConcurrencyError):
            await store.append(NS, [new("b", 1)], expected_versions={a: 5})
        assert await store.head() == 2
        assert await store.stream_version(NS, b) == NO_STREAM
        # Versions are per namespace: the same stream elsewhere is new.
        assert await store.append("other", [new("a", 1)], expected_versions={a: NO_STREAM}) == [3]

    async def test_one_conflict_in_a_concurrent_group_fails_alone(self, store: EventStore) -> None:
        a = conversation_stream("a")
        await store.append(NS, [new("a", 1)])
        results = await asyncio.gather(
            store.append(NS, [new("b", 1)]),
            store.append(NS, [new("a", 2)], expected_versions={a: 5}),
            store.append(NS, [new("c", 1), new("c", 2)]),
            store.append(NS, [new("a", 2)], expected_versions={a: 1}),
            store.append(NS, [new("a", 3)], expected_versions={a: 1}),
            return_exceptions=True,
        )
        assert isinstance(results[1], ConcurrencyError)
        # Exactly one of the two racing "a is at 1" appends wins.
        assert sum(isinstance(r, ConcurrencyError) for r in results[3:]) == 1
        committed = [r for r in results if isinstance(r, list)]
        positions = sorted(p for r in committed for p in r)
        assert positions == [2, 3, 4, 5]
        assert await store.head() == 5
        assert await store.stream_version(NS, a) == 2

    # -- idempotency ------------------------------------------------------------------------

    async def test_idempotent_retry_returns_original_positions(self, store: EventStore) -> None:
        first = await store.append(NS, [new("a", 1, "k1"), new("a", 2, "k2")])
        await store.append(NS, [new("b", 1)])
        assert await store.append(NS, [new("a", 1, "k1"), new("a", 2, "k2")]) == first
        assert await store.append(NS, [new("a", 2, "k2")]) == [2]
        # A retry passes even though its expected version is stale by now.
        a = conversation_stream("a")
        assert await store.append(NS, [new("a", 1, "k1")], expected_versions={a: NO_STREAM}) == [1]
        assert await store.head() == 3
        assert len(await read_all(store)) == 3

    async def test_partial_key_reuse_is_a_conflict(self, store: EventStore) -> None:
        await store.append(NS, [new("a", 1, "k1")])
        with pytest.raises(IdempotencyConflict):
            await store.append(NS, [new("a", 1, "k1"), new("a", 2, "k2")])
        with pytest.raises(IdempotencyConflict):
            await store.append(NS, [new("a", 1, "k1"), new("a", 2)])
        # Same key, different event: a conflict, not a silent "already done".
        with pytest.raises(IdempotencyConflict):
            await store.append(NS, [NewEvent(fact("f", "x"), idempotency_key="k1")])
        assert await store.head() == 1

    async def test_duplicate_key_within_one_append(self, store: EventStore) -> None:
        with pytest.raises(IdempotencyConflict):
            await store.append(NS, [new("a", 1, "k"), new("a", 2, "k")])
        assert await store.head() == 0

    async def test_keys_are_scoped_by_namespace(self, store: EventStore) -> None:
        assert await store.append("n1", [new("a", 1, "k")]) == [1]
        assert await store.append("n2", [new("a", 1, "k")]) == [2]
        assert await store.append("n1", [new("a", 1, "k")]) == [1]
        assert await store.append("n2", [new("a", 1, "k")]) == [2]
        assert await store.head() == 2

    async def test_concurrent_retries_write_once(self, store: EventStore) -> None:
        results = await asyncio.gather(*(store.append(NS, [new("a", 1, "k")]) for _ in range(8)))
        assert results == [[1]] * 8
        assert await store.head() == 1

    # -- transaction time -------------------------------------------------------------------

    async def test_recorded_at_is_set_by_the_store(
        self, store: EventStore, clock: ManualClock
    ) -> None:
        await store.append(NS, [new("a", 1), new("a", 2)])
        clock.advance(timedelta(minutes=5))
        await store.append(NS, [new("a", 3)])
        clock.set(T0 - timedelta(days=1))  # the wall clock jumps backwards
        await store.append(NS, [new("a", 4)])
        clock.set(T0 + timedelta(hours=1))
        await store.append(NS, [new("a", 5)])
        stamps = [e.recorded_at for e in await read_all(store)]
        assert stamps == [
            T0,
            T0,
            T0 + timedelta(minutes=5),
            T0 + timedelta(minutes=5),
            T0 + timedelta(hours=1),
        ]
        assert all(s.tzinfo is not None for s in stamps)
        recorded = [r.recorded_at for r in await records(store)]
        assert recorded == [to_micros(s) for s in stamps]

    # -- subscriptions ----------------------------------------------------------------------

    async def test_subscribe_catches_up_then_follows(self, store: EventStore) -> None:
        # A subscriber must be woken by the commit: with the fallback poll at an hour, only
        # the wake-up can deliver the new events within the wait below.
        store.fallback_poll_seconds = 3600.0  # type: ignore[attr-defined]
        await store.append(NS, [new("a", n) for n in range(1, 4)])
        events = store.subscribe(after=1)
        try:
            assert (await next_within(events, 10)).position == 2
            assert (await next_within(events, 10)).position == 3
            waiting = asyncio.ensure_future(next_within(events, 30))
            await asyncio.sleep(0.05)
            assert not waiting.done()
            await store.append(NS, [new("b", 1), new("b", 2)])
            assert (await waiting).position == 4
            assert (await next_within(events, 30)).event == message("b", 2)
            later = asyncio.ensure_future(next_within(events, 30))
            await asyncio.sleep(0)
            await store.append("other", [new("c", 1)])
            assert (await later).position == 6
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    async def test_wait_for_head(self, store: EventStore) -> None:
        store.fallback_poll_seconds = 3600.0  # type: ignore[attr-defined]
        assert await store.wait_for_head(0)
        assert not await store.wait_for_head(1, timeout=0.05)
        waiter = asyncio.ensure_future(store.wait_for_head(2, timeout=30))
        # Started after ``waiter``, woken by the same commit: once it is done, ``waiter`` has
        # seen that commit too (no fixed sleep decides how long is long enough).
        witness = asyncio.ensure_future(store.wait_for_head(1, timeout=30))
        await asyncio.sleep(0.01)  # let both wait, so the commit must wake them
        await store.append(NS, [new("a", 1)])
        assert await witness
        assert not waiter.done()
        await store.append(NS, [new("a", 2)])
        assert await waiter

    # -- concurrency and lifecycle ----------------------------------------------------------

    async def test_concurrent_appenders_land_exactly_once(self, store: EventStore) -> None:
        async def appender(task: int) -> list[int]:
            stream = conversation_stream(f"t{task}")
            got = []
            for n in range(1, 51):
                key = f"t{task}-{n}"
                (position,) = await store.append(
                    NS, [new(f"t{task}", n, key)], expected_versions={stream: n - 1}
                )
                got.append(position)
            return got

        results = await asyncio.gather(*(appender(t) for t in range(16)))
        positions = sorted(p for r in results for p in r)
        assert positions == list(range(1, 801))
        stored = await read_all(store)
        assert [e.position for e in stored] == positions
        assert sorted(e.idempotency_key or "" for e in stored) == sorted(
            f"t{t}-{n}" for t in range(16) for n in range(1, 51)
        )
        for t in range(16):
            stream = await store.read_stream(NS, conversation_stream(f"t{t}"))
            assert [e.stream_version for e in stream] == list(range(1, 51))
            assert [e.event for e in stream] == [message(f"t{t}", n) for n in range(1, 51)]

    async def test_close_drains_queued_appends(
        self, store: EventStore, location: Any, clock: ManualClock
    ) -> None:
        pending = [asyncio.ensure_future(store.append(NS, [new("a", n)])) for n in range(1, 21)]
        await asyncio.sleep(0)
        await store.close()
        results = [await task for task in pending]
        assert sorted(p for r in results for p in r) == list(range(1, 21))
        reopened = self.create_store(location, clock=clock)
        await reopened.open()
        try:
            assert await reopened.head() == 20
        finally:
            await reopened.close()
        await store.open()

    async def test_cancelled_appender_does_not_break_its_group(self, store: EventStore) -> None:
        keep = asyncio.ensure_future(store.append(NS, [new("a", 1)]))
        cancel = asyncio.ensure_future(store.append(NS, [new("b", 1)]))
        await asyncio.sleep(0)
        cancel.cancel()
        assert await keep in ([1], [2])
        with pytest.raises(asyncio.CancelledError):
            await cancel
        # The cancelled caller gave up waiting; its append may or may not have committed,
        # but the log stays gapless and the store keeps working.
        head = await store.head()
        assert head in (1, 2)
        assert await store.append(NS, [new("c", 1)]) == [head + 1]
        assert [e.position for e in await read_all(store)] == list(range(1, head + 2))

    async def test_append_after_close_is_refused(self, store: EventStore) -> None:
        await store.close()
        with pytest.raises(Exception):  # noqa: B017, PT011 - closed: any clear refusal
            await store.append(NS, [new("a", 1)])
        await store.open()
        assert await store.append(NS, [new("a", 1)]) == [1]

    # -- import and export ------------------------------------------------------------------

    async def test_export_import_roundtrip(
        self, store: EventStore, tmp_path: Any, clock: ManualClock
    ) -> None:
        await store.append(NS, [new("a", 1, "k1"), NewEvent(fact("f1", "the sky is blue"))])
        clock.advance(timedelta(seconds=3))
        await store.append("other", [new("b", 1)])
        exported = [r.to_json() for r in await records(store)]
        parsed = [EventRecord.from_json(line) for line in exported]
        assert parsed == await records(store)

        target = self.create_store(await self.second_location(tmp_path), clock=clock)
        await target.open()
        try:
            assert await target.import_records(parsed) == 3
            assert await records(target) == await records(store)
            assert await read_all(target) == await read_all(store)
            # Appends continue after the imported head, and the imported keys are known.
            assert await target.append(NS, [new("a", 1, "k1")]) == [1]
            assert await target.append(NS, [new("a", 2)]) == [4]
        finally:
            await target.close()

    async def second_location(self, tmp_path: Any) -> Any:
        """Return a second, empty location (for copies); override for non-file backends."""
        path = tmp_path / "second"
        path.mkdir()
        return path

    async def test_import_refuses_gap_and_clash(self, store: EventStore) -> None:
        await store.append(NS, [new("a", 1), new("a", 2)])
        source = await records(store)
        # Records made up here carry no checksum (a stale one would be refused as damage).
        moved = [
            replace(r, position=r.position + 2, event_id=f"x{r.position}", checksum=None)
            for r in source
        ]
        base = replace(moved[0], stream_id=conversation_stream("z"), stream_version=1)

        with pytest.raises(ImportRefused, match="gap"):
            await store.import_records([replace(base, position=4)])
        with pytest.raises(ImportRefused, match="clash"):
            await store.import_records([replace(base, position=2)])
        # A gap in the middle refuses the whole import.
        with pytest.raises(ImportRefused, match="gap"):
            await store.import_records(
                [replace(base, position=3), replace(base, position=5, event_id="y")]
            )
        # Contiguous positions but a clash with stored events (same event id).
        with pytest.raises(ImportRefused):
            await store.import_records([replace(base, position=3, event_id=source[0].event_id)])
        # Or the same stream version.
        with pytest.raises(ImportRefused):
            await store.import_records(
                [replace(source[0], position=3, event_id="fresh", checksum=None)]
            )
        # Records this memoryd could not read back.
        with pytest.raises(ImportRefused, match="unknown event type"):
            await store.import_records([replace(base, position=3, event_type="NoSuchEvent")])
        with pytest.raises(ImportRefused, match="does not decode"):
            await store.import_records([replace(base, position=3, payload=b'{"x": 1}')])
        assert await records(store) == source
        assert await store.import_records([]) == 0
        assert await store.import_records([replace(base, position=3)]) == 1
        assert await store.head() == 3
        assert await store.append(NS, [new("z", 2)]) == [4]

    async def test_import_wakes_subscribers(self, store: EventStore) -> None:
        store.fallback_poll_seconds = 3600.0  # type: ignore[attr-defined]
        await store.append(NS, [new("a", 1)])
        record = (await records(store))[0]
        events = store.subscribe(after=1)
        try:
            waiting = asyncio.ensure_future(next_within(events, 30))
            await asyncio.sleep(0.01)
            await store.import_records(
                [replace(record, position=2, event_id="imported", stream_version=2, checksum=None)]
            )
            assert (await waiting).event_id == "imported"
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    # -- damage and fingerprints ------------------------------------------------------------

    async def test_a_changed_row_is_found_on_read_and_export(self, store: EventStore) -> None:
        await store.append(NS, [new("a", 1), new("a", 2), new("a", 3)])
        assert isinstance(store, SqlEventStore)
        [row] = [r for r in await records(store) if r.position == 2]
        async with store.write_engine.begin() as conn:
            await conn.execute(
                events_table.update()
                .where(events_table.c.position == 2)
                .values(payload=row.payload.replace(b"message 2", b"massage 2"))
            )
        with pytest.raises(DamagedLog, match="position 2") as caught:
            await read_all(store)
        assert caught.value.position == 2
        with pytest.raises(DamagedLog, match="position 2"):
            await records(store)
        assert [e.position for e in await read_all(store, until=1)] == [1]

    async def test_import_refuses_a_record_that_does_not_match_its_checksum(
        self, store: EventStore
    ) -> None:
        await store.append(NS, [new("a", 1)])
        [record] = await records(store)
        assert record.checksum == record.computed_checksum()
        edited = replace(record, position=2, event_id="x", stream_version=2)
        with pytest.raises(ImportRefused, match="checksum"):
            await store.import_records([edited])
        assert await store.head() == 1

    async def test_a_key_reused_by_another_request_is_a_conflict(self, store: EventStore) -> None:
        first = NewEvent(message("a", 1), idempotency_key="k", request_hash="h1")
        assert await store.append(NS, [first]) == [1]
        assert await store.append(NS, [replace(first, event=message("a", 9))]) == [1]
        with pytest.raises(IdempotencyConflict, match="different request"):
            await store.append(NS, [replace(first, request_hash="h2")])
        # Events written before fingerprints existed are compared by stream and type, as then.
        legacy = NewEvent(message("b", 1), idempotency_key="old")
        assert await store.append(NS, [legacy]) == [2]
        assert await store.append(NS, [replace(legacy, request_hash="h3")]) == [2]
        assert await store.head() == 2

    # -- read-only and schema ---------------------------------------------------------------

    async def test_readonly_store_refuses_writes(
        self, store: EventStore, location: Any, clock: ManualClock
    ) -> None:
        await store.append(NS, [new("a", 1)])
        record = (await records(store))[0]
        readonly = self.create_store(location, clock=clock, readonly=True)
        await readonly.open()
        try:
            assert readonly.readonly
            assert [e.event for e in await read_all(readonly)] == [message("a", 1)]
            with pytest.raises(ReadOnlyStoreError):
                await readonly.append(NS, [new("a", 2)])
            with pytest.raises(ReadOnlyStoreError):
                await readonly.import_records([replace(record, position=2, event_id="z")])
        finally:
            await readonly.close()
        assert await store.head() == 1

    async def test_schema_version_mismatch_is_refused(
        self, store: EventStore, location: Any, clock: ManualClock
    ) -> None:
        await store.close()
        await self.set_schema_version(location, "999")
        for readonly in (False, True):
            other = self.create_store(location, clock=clock, readonly=readonly)
            with pytest.raises(SchemaMismatch, match="999"):
                await other.open()
            await other.close()  # harmless after a failed open

    # -- erasure ----------------------------------------------------------------------------

    async def test_purge_redacts_the_fact_in_the_log(self, store: EventStore) -> None:
        secret = "Alice's door code is 4711"
        await store.append(NS, [NewEvent(fact("f1", secret)), NewEvent(fact("f2", "keep me"))])
        await store.append("other", [NewEvent(fact("f1", secret))])
        await store.append(NS, [NewEvent(FactPurged(fact_id="f1"))])
        events = await read_all(store)
        texts = [e.event.text for e in events if isinstance(e.event, FactWritten)]
        assert texts == [REDACTED_TEXT, "keep me", secret]  # the other namespace is untouched
        redacted = events[0].event
        assert isinstance(redacted, FactWritten)
        assert (redacted.subject, redacted.tags) == (None, [])
        assert events[0].stream_id == fact_stream("f1")
        assert [e.position for e in events] == [1, 2, 3, 4]
        exported = b"".join(r.to_json() for r in await records(store, until=2))
        assert secret.encode() not in exported
