"""Open the event store and the projection database a command or the daemon works on.

SQLite (the embedded default) keeps ``events.sqlite3`` and ``projections.sqlite3`` in the data
dir: the projections file can be deleted and rebuilt from the log at any time. Other backends
are chosen by a database URL (see the PostgreSQL backend).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from events.clock import Clock
from events.store.base import EventStore
from events.store.postgres import PostgresEventStore, is_postgres_url, postgres_engine
from events.store.sqlite import BUSY_TIMEOUT, SqliteEventStore, sqlite_engine
from projections.base import Projection
from projections.runner import DEFAULT_BATCH_SIZE, ProjectionRunner

PROJECTIONS_FILE = "projections.sqlite3"
READONLY_MARKER = "READONLY"
"""A data dir holding this file (written by ``memoryd replay``) is opened read-only."""


@dataclass(frozen=True, slots=True)
class Backend:
    """Where the log and the projections live."""

    data_dir: Path
    database_url: str | None = None

    @property
    def is_sqlite(self) -> bool:
        """Return True for the embedded SQLite default."""
        return self.database_url is None or self.database_url.startswith("sqlite")

    @property
    def is_postgres(self) -> bool:
        """Return True for a PostgreSQL URL (log and projections in that one database)."""
        return is_postgres_url(self.database_url)

    @property
    def readonly(self) -> bool:
        """Return True for a data dir materialised by ``memoryd replay``."""
        return self.is_sqlite and (self.data_dir / READONLY_MARKER).exists()

    def open_store(self, *, clock: Clock | None = None, readonly: bool = False) -> EventStore:
        """Create (not yet opened) the event store."""
        if self.is_sqlite:
            return SqliteEventStore.in_data_dir(
                self.data_dir, clock=clock, readonly=readonly or self.readonly
            )
        if self.is_postgres:
            assert self.database_url is not None
            return PostgresEventStore(self.database_url, clock=clock, readonly=readonly)
        raise ValueError(f"unsupported database URL: {self.database_url}")

    def projection_engine(self, *, write: bool = True, readonly: bool = False) -> AsyncEngine:
        """Create an engine on the projection tables: ``write`` for the runner, else reads."""
        if self.is_sqlite:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            return sqlite_engine(
                self.data_dir / PROJECTIONS_FILE,
                write=write,
                readonly=readonly or self.readonly,
            )
        if self.is_postgres:
            assert self.database_url is not None
            # Projections live next to the log, in the same database.
            return postgres_engine(
                self.database_url, pool_size=2 if write else 4, readonly=readonly
            )
        raise ValueError(f"unsupported database URL: {self.database_url}")

    def side_engine(self, file_name: str, *, busy_timeout: float = BUSY_TIMEOUT) -> AsyncEngine:
        """Create a small writing engine for tables kept beside the log (the embedding cache,
        the leases): on SQLite their own file ``file_name`` in the data dir, so they survive a
        projection rebuild and never contend with the log's writer; on PostgreSQL the database.
        ``busy_timeout``: how long an SQLite statement waits for another's lock."""
        if self.is_sqlite:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            return sqlite_engine(self.data_dir / file_name, write=True, busy_timeout=busy_timeout)
        assert self.database_url is not None
        return create_async_engine(self.database_url, pool_size=2, hide_parameters=True)

    @contextlib.asynccontextmanager
    async def open_runner(
        self,
        projections: Sequence[Projection] | None = None,
        *,
        store: EventStore | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> AsyncIterator[ProjectionRunner]:
        """Yield a set-up runner that folds the log (``store``, else the log opened here
        read-only) into the projection tables; close what was opened here afterwards."""
        async with contextlib.AsyncExitStack() as stack:
            if store is None:
                store = self.open_store(readonly=True)
                await store.open()
                stack.push_async_callback(store.close)
            engine = self.projection_engine(write=True)
            stack.push_async_callback(engine.dispose)
            runner = ProjectionRunner(store, engine, projections, batch_size=batch_size)
            await runner.setup()
            yield runner
