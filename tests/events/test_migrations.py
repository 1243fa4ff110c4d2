"""Alembic migrations of the event tables, on SQLite and PostgreSQL, and ``memoryd db``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.backend import Backend
from daemon.cli import main
from daemon.cli.db_cmd import migration_connection
from events.migrations import (
    VERSION_TABLE,
    database_state,
    head_revision,
    revision_for,
    upgrade,
    upgrade_if_empty,
)
from events.store.base import NewEvent, SchemaMismatch
from events.store.contract import NS, message, new, read_all
from events.store.schema import STORE_SCHEMA_VERSION, metadata
from events.store.sql import SqlEventStore


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """An empty backend of each kind."""
    if request.param == "sqlite":
        return Backend(data_dir=tmp_path / "data")
    return Backend(data_dir=tmp_path / "unused", database_url=request.getfixturevalue("pg_url"))


def cli_args(backend: Backend) -> list[str]:
    """Return the CLI options that name ``backend``."""
    if backend.database_url is not None:
        return ["--database-url", backend.database_url]
    return ["--data-dir", str(backend.data_dir)]


@asynccontextmanager
async def connection(backend: Backend) -> AsyncIterator[AsyncConnection]:
    async with migration_connection(backend) as conn:
        yield conn


async def set_meta_version(backend: Backend, version: str) -> None:
    async with connection(backend) as conn:
        await conn.execute(
            sa.text("UPDATE store_meta SET value = :v WHERE key = 'schema_version'"),
            {"v": version},
        )


async def test_head_revision_builds_exactly_the_live_schema(backend: Backend) -> None:
    assert head_revision() == revision_for(STORE_SCHEMA_VERSION)
    async with connection(backend) as conn:
        result = await upgrade(conn)
        assert (result.before, result.after) == (None, head_revision())

        def diff(sync_conn: sa.Connection) -> list[Any]:
            return list(compare_metadata(MigrationContext.configure(sync_conn), metadata))

        # Only alembic's own bookkeeping table is not part of the store's metadata.
        assert [(kind, table.name) for kind, table in (d for d in await conn.run_sync(diff))] == [
            ("remove_table", VERSION_TABLE)
        ]
        state = await database_state(conn)
        assert state.schema_version == str(STORE_SCHEMA_VERSION)


async def test_upgrade_twice_changes_nothing(backend: Backend) -> None:
    async with connection(backend) as conn:
        assert await upgrade_if_empty(conn)
    async with connection(backend) as conn:
        assert not await upgrade_if_empty(conn)
        result = await upgrade(conn)
        assert not result.changed
        assert result.after == head_revision()


async def test_store_works_on_a_migrated_database(backend: Backend) -> None:
    async with connection(backend) as conn:
        await upgrade(conn)
    store = backend.open_store()
    await store.open()
    try:
        assert await store.append(NS, [new("a", 1)]) == [1]
    finally:
        await store.close()


async def test_a_version_1_log_gets_checksums_and_keeps_its_events(backend: Backend) -> None:
    async with connection(backend) as conn:
        await upgrade(conn, revision_for(1))
        await conn.execute(
            sa.text(
                "INSERT INTO events (position, event_id, namespace, stream_id, stream_version, "
                "event_type, schema_version, payload, recorded_at, idempotency_key) VALUES "
                "(:p, :e, 'ns', 'conversation:a', :v, 'MessageAppended', 2, :payload, 7, :k)"
            ),
            [
                {
                    "p": n,
                    "v": n,
                    "e": f"e{n}",
                    "k": "key" if n == 1 else None,
                    "payload": orjson.dumps(message("a", n)),
                }
                for n in (1, 2)
            ],
        )
    async with connection(backend) as conn:
        result = await upgrade(conn)
        assert (result.before, result.after) == (revision_for(1), head_revision())
    store = backend.open_store()
    await store.open()
    try:
        stored = [r async for r in store.read_records()]
        assert [r.position for r in stored] == [1, 2]
        assert all(r.checksum == r.computed_checksum() for r in stored)
        assert [e.event for e in await read_all(store)] == [message("a", 1), message("a", 2)]
        # A keyed event from before fingerprints is compared by stream and type, as it was.
        retry = NewEvent(message("a", 1), idempotency_key="key", request_hash="any")
        assert await store.append("ns", [retry]) == [1]
    finally:
        await store.close()


async def test_store_created_tables_are_adopted_by_upgrade(backend: Backend) -> None:
    """The SQLite store creates its tables itself on first open; upgrade stamps them."""
    store = backend.open_store()
    await store.open()
    await store.append(NS, [new("a", 1)])
    await store.close()
    async with connection(backend) as conn:
        result = await upgrade(conn)
        assert result.after == head_revision()
        assert (await database_state(conn)).revision == head_revision()
    store = backend.open_store()
    await store.open()
    try:
        assert [e.position async for e in store.read()] == [1]
    finally:
        await store.close()


async def test_unknown_schema_version_is_refused_with_what_to_run(backend: Backend) -> None:
    async with connection(backend) as conn:
        await upgrade(conn)
    await set_meta_version(backend, "0")
    store = backend.open_store()
    with pytest.raises(SchemaMismatch, match=r"schema version is 0.*run `memoryd db upgrade`"):
        await store.open()
    await store.close()
    await set_meta_version(backend, "99")
    store = backend.open_store()
    with pytest.raises(SchemaMismatch, match=r"schema version is 99.*newer memoryd"):
        await store.open()
    await store.close()


async def test_newer_schema_is_refused_by_upgrade(backend: Backend) -> None:
    store = backend.open_store()
    await store.open()
    await store.close()
    await set_meta_version(backend, "99")
    async with connection(backend) as conn:
        with pytest.raises(SchemaMismatch, match=r"schema version 99.*upgrade memoryd"):
            await upgrade(conn)
    async with connection(backend) as conn:
        await conn.execute(
            sa.text(
                f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} "
                "(version_num VARCHAR(32) NOT NULL PRIMARY KEY)"
            )
        )
        await conn.execute(sa.text(f"DELETE FROM {VERSION_TABLE}"))
        await conn.execute(sa.text(f"INSERT INTO {VERSION_TABLE} VALUES ('0099')"))
        with pytest.raises(SchemaMismatch, match=r"0099.*newer memoryd"):
            await upgrade(conn)


async def test_foreign_events_table_is_left_alone(backend: Backend) -> None:
    async with connection(backend) as conn:
        await conn.execute(sa.text("CREATE TABLE events (id INTEGER PRIMARY KEY)"))
    async with connection(backend) as conn:
        with pytest.raises(SchemaMismatch, match="refusing to touch it"):
            await upgrade(conn)
    if backend.is_postgres:  # (the SQLite store is another module's)
        store = backend.open_store()
        with pytest.raises(SchemaMismatch, match="no memoryd event tables"):
            await store.open()
        await store.close()


@pytest.mark.postgres
async def test_postgres_stores_opening_together_create_the_schema_once(pg_url: str) -> None:
    backend = Backend(data_dir=Path("unused"), database_url=pg_url)
    stores = [backend.open_store() for _ in range(4)]
    await asyncio.gather(*(s.open() for s in stores))
    try:
        positions = await asyncio.gather(
            *(s.append(NS, [new(f"c{i}", 1)]) for i, s in enumerate(stores))
        )
        assert sorted(p for ps in positions for p in ps) == [1, 2, 3, 4]
        first = stores[0]
        assert isinstance(first, SqlEventStore)
        async with first.read_engine.connect() as conn:
            assert await conn.scalar(sa.text(f"SELECT count(*) FROM {VERSION_TABLE}")) == 1
    finally:
        await asyncio.gather(*(s.close() for s in stores))


def test_db_commands(backend: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "status", *cli_args(backend)]) == 0
    assert "no event" in capsys.readouterr().out
    assert main(["db", "upgrade", *cli_args(backend)]) == 0
    assert f"created at {head_revision()}" in capsys.readouterr().out
    assert main(["db", "upgrade", *cli_args(backend)]) == 0
    assert "already at" in capsys.readouterr().out
    assert main(["db", "status", *cli_args(backend)]) == 0
    assert f"this memoryd needs {head_revision()}" in capsys.readouterr().out

    asyncio.run(set_meta_version(backend, "99"))
    asyncio.run(_drop_version_table(backend))
    assert main(["db", "upgrade", *cli_args(backend)]) == 2
    assert "upgrade memoryd" in capsys.readouterr().err
    assert main(["db", "status", *cli_args(backend)]) == 1
    assert "run `memoryd db upgrade`" in capsys.readouterr().out


async def _drop_version_table(backend: Backend) -> None:
    async with connection(backend) as conn:
        await conn.execute(sa.text(f"DROP TABLE {VERSION_TABLE}"))


def test_db_upgrade_refuses_a_readonly_replay(tmp_path: Path) -> None:
    (tmp_path / "READONLY").touch()
    assert main(["db", "upgrade", "--data-dir", str(tmp_path)]) == 2
