"""The store contract against PostgreSQL, plus what only this backend has: LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from daemon.backend import Backend
from events.clock import Clock, ManualClock
from events.store.base import EventStore
from events.store.contract import NS, EventStoreContract, new, next_within
from events.store.postgres import PostgresEventStore, asyncpg_url, is_postgres_url, libpq_dsn
from tests.pg_fixtures import PgScratch, pg_execute

pytestmark = pytest.mark.postgres


class TestPostgresEventStore(EventStoreContract):
    @pytest.fixture
    def location(self, pg_url: str, pg_scratch: PgScratch) -> str:
        self.scratch = pg_scratch
        return pg_url

    async def second_location(self, tmp_path: Any) -> str:
        return await self.scratch.fresh("b")

    def create_store(self, location: Any, *, clock: Clock, readonly: bool = False) -> EventStore:
        return PostgresEventStore(str(location), clock=clock, readonly=readonly)


def test_urls() -> None:
    assert asyncpg_url("postgres://u:p@h:5/db") == "postgresql+asyncpg://u:p@h:5/db"
    assert asyncpg_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert libpq_dsn("postgresql+asyncpg://u:p@h/db") == "postgresql://u:p@h/db"
    assert is_postgres_url("postgresql+asyncpg://h/db")
    assert not is_postgres_url("sqlite+aiosqlite:///x")
    assert not is_postgres_url(None)
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        asyncpg_url("mysql://h/db")


async def open_store(url: str, **kwargs: Any) -> PostgresEventStore:
    store = PostgresEventStore(url, clock=ManualClock(), **kwargs)
    await store.open()
    return store


async def test_another_store_wakes_a_subscriber(pg_url: str) -> None:
    """An append through one store instance (own engines, own connections: what another
    process has) wakes a subscriber on another without waiting for the fallback poll."""
    reader, writer = await open_store(pg_url), await open_store(pg_url)
    try:
        reader.fallback_poll_seconds = 3600.0
        events = reader.subscribe()
        waiting = asyncio.ensure_future(next_within(events, 30))
        await asyncio.sleep(0.05)
        assert await writer.append(NS, [new("a", 1)]) == [1]
        assert (await waiting).position == 1
        # wait_for_head is woken the same way.
        waiter = asyncio.ensure_future(reader.wait_for_head(2, timeout=30))
        await asyncio.sleep(0.05)
        await writer.append(NS, [new("a", 2)])
        assert await waiter
        assert (await next_within(events, 30)).position == 2
        await events.aclose()  # type: ignore[attr-defined]
    finally:
        await writer.close()
        await reader.close()


async def test_listener_reconnects_after_its_connection_is_killed(pg_url: str) -> None:
    reader, writer = await open_store(pg_url), await open_store(pg_url)
    try:
        reader.fallback_poll_seconds = 3600.0
        first = reader.listener_pid()
        assert first is not None
        await pg_execute(pg_url, f"SELECT pg_terminate_backend({first})")
        # Appended while the listener may be down: the reconnect re-reads the head.
        await writer.append(NS, [new("a", 1)])
        assert await reader.wait_for_head(1, timeout=30)
        for _ in range(300):
            if reader.listener_pid() not in (None, first):
                break
            await asyncio.sleep(0.05)
        assert reader.listener_pid() not in (None, first)
        events = reader.subscribe(after=1)
        waiting = asyncio.ensure_future(next_within(events, 30))
        await asyncio.sleep(0.05)
        await writer.append(NS, [new("a", 2)])
        assert (await waiting).position == 2
        await events.aclose()  # type: ignore[attr-defined]
    finally:
        await writer.close()
        await reader.close()


async def test_readonly_store_on_an_empty_database_names_the_fix(pg_url: str) -> None:
    from events.store.base import SchemaMismatch

    store = PostgresEventStore(pg_url, readonly=True)
    with pytest.raises(SchemaMismatch, match="memoryd db upgrade"):
        await store.open()
    await store.close()


async def test_backend_opens_postgres_for_log_and_projections(pg_url: str, tmp_path: Any) -> None:
    backend = Backend(data_dir=tmp_path, database_url=pg_url)
    assert backend.is_postgres
    assert not backend.is_sqlite
    store = backend.open_store()
    assert isinstance(store, PostgresEventStore)
    await store.open()
    try:
        await store.append(NS, [new("a", 1)])
    finally:
        await store.close()
    engine = backend.projection_engine(readonly=True)
    try:
        async with engine.connect() as conn:
            assert await conn.scalar(sa.text("SELECT count(*) FROM events")) == 1
            assert await conn.scalar(sa.text("SHOW transaction_read_only")) == "on"
    finally:
        await engine.dispose()
    assert not list(tmp_path.iterdir())  # nothing of PostgreSQL's lands in the data dir


async def test_writers_use_read_committed_whatever_the_server_default(pg_url: str) -> None:
    """The write lock needs a fresh snapshot per statement; a database defaulting to
    REPEATABLE READ must not make two stores assign the same positions."""
    dbname = pg_url.rsplit("/", 1)[1]
    await pg_execute(
        pg_url, f"ALTER DATABASE \"{dbname}\" SET default_transaction_isolation = 'repeatable read'"
    )
    try:
        stores = [await open_store(pg_url) for _ in range(3)]
        try:
            async with stores[0].write_engine.begin() as conn:
                assert await conn.scalar(sa.text("SHOW transaction_isolation")) == "read committed"

            async def appender(store: PostgresEventStore, k: int) -> None:
                for n in range(1, 21):
                    await store.append(NS, [new(f"s{k}", n)])

            await asyncio.gather(*(appender(s, k) for k, s in enumerate(stores)))
            assert [e.position async for e in stores[0].read()] == list(range(1, 61))
        finally:
            for store in stores:
                await store.close()
    finally:
        await pg_execute(pg_url, f'ALTER DATABASE "{dbname}" RESET default_transaction_isolation')


async def test_recorded_at_never_runs_backwards_across_daemons(pg_url: str) -> None:
    """Two daemons whose clocks disagree: transaction time still follows positions."""
    ahead_clock, behind_clock = ManualClock(), ManualClock()
    ahead_clock.advance(timedelta(minutes=5))
    ahead = PostgresEventStore(pg_url, clock=ahead_clock)
    behind = PostgresEventStore(pg_url, clock=behind_clock)
    await ahead.open()
    await behind.open()
    try:
        await ahead.append(NS, [new("a", 1)])
        await behind.append(NS, [new("b", 1)])
        behind_clock.advance(timedelta(minutes=10))
        await behind.append(NS, [new("b", 2)])
        times = [e.recorded_at async for e in ahead.read()]
        assert times == sorted(times)
        assert times[0] == times[1] == ahead_clock.now()
        assert times[2] == behind_clock.now()
    finally:
        await behind.close()
        await ahead.close()


async def test_missed_notifications_are_caught_up_by_the_fallback_poll(pg_url: str) -> None:
    reader, writer = await open_store(pg_url), await open_store(pg_url)
    try:
        await reader._stop_listening()  # deaf: every notification is missed from now on
        reader.fallback_poll_seconds = 0.2
        events = reader.subscribe()
        waiting = asyncio.ensure_future(next_within(events, 30))
        await asyncio.sleep(0.05)
        await writer.append(NS, [new("a", 1)])
        assert (await waiting).position == 1
        await events.aclose()  # type: ignore[attr-defined]
    finally:
        await writer.close()
        await reader.close()
