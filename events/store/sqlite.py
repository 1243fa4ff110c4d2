"""The embedded default backend: one SQLite file in WAL mode.

Positions: SQLite admits one writer at a time (``BEGIN IMMEDIATE`` takes the write lock before
the head is read), so positions assigned under that lock commit in position order and a reader
never sees a later position before an earlier one. ``synchronous=FULL`` makes every commit
durable (the WAL is fsynced) before the append is acknowledged; group commit keeps that cheap.
Appends: each statement sent through aiosqlite is a round trip to its thread, and a group
commit needs several; so the store's write transactions (group commits, imports) run instead
as one synchronous function on a dedicated writer thread with its own pysqlite connection
(same pragmas, ``BEGIN IMMEDIATE``): one hop per group. Reads stay on the async engine.

``secure_delete`` zeroes freed content, so text removed by a purge does not linger in free
pages of the file; after a purge the WAL is checkpointed and truncated, so that its old frames
(copies of the pages from before the purge) leave the disk too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from events.clock import Clock
from events.codec import EventCodec
from events.migrations import upgrade_if_empty
from events.store.sql import SqlEventStore

EVENTS_FILE = "events.sqlite3"

log = logging.getLogger(__name__)
_R = TypeVar("_R")


WAL_SIZE_LIMIT = 4 * 1024 * 1024
"""Bytes a write-ahead log file keeps after a checkpoint has emptied it (SQLite's automatic
checkpoint runs at about this size)."""


BUSY_TIMEOUT = 30.0
"""Seconds a statement waits for another connection's lock before it fails."""


def sqlite_engine(
    path: Path,
    *,
    write: bool,
    readonly: bool = False,
    pool_size: int = 4,
    busy_timeout: float = BUSY_TIMEOUT,
) -> AsyncEngine:
    """Create an aiosqlite engine with memoryd's pragmas; ``write`` takes BEGIN IMMEDIATE.

    ``busy_timeout``: how long a statement waits for a lock. A statement cannot be stopped
    once it waits inside SQLite (cancelling the task that awaits it leaves it running in the
    connection's thread), so callers that work to a deadline pass one shorter than it.
    """
    if readonly:
        url = f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true"
    else:
        url = f"sqlite+aiosqlite:///{path}"
    engine = create_async_engine(
        url,
        pool_size=1 if write else pool_size,
        max_overflow=0 if write else 8,
        # An error's message must not carry the statement's values: users' message text.
        hide_parameters=True,
    )

    _set_pragmas(engine.sync_engine, write=write, readonly=readonly, busy_timeout=busy_timeout)
    return engine


def sqlite_sync_engine(path: Path) -> sa.Engine:
    """Create a synchronous pysqlite engine for writing, with the same pragmas.

    Its one connection may be used from whichever single thread the caller dedicates to it.
    """
    engine = sa.create_engine(
        f"sqlite:///{path}",
        pool_size=1,
        max_overflow=0,
        connect_args={"check_same_thread": False},
        hide_parameters=True,
    )
    _set_pragmas(engine, write=True, readonly=False)
    return engine


def _set_pragmas(
    engine: sa.Engine, *, write: bool, readonly: bool, busy_timeout: float = BUSY_TIMEOUT
) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let us issue BEGIN ourselves (pysqlite's implicit transactions get in the way).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not readonly:
            cursor.execute("PRAGMA journal_mode=WAL")
            # A checkpoint that empties the WAL also shrinks it back to this: the largest
            # transaction so far (a burst of writes folded in one batch) no longer keeps its
            # size on the disk for good.
            cursor.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={round(busy_timeout * 1000)}")
        cursor.execute("PRAGMA secure_delete=ON")
        cursor.execute("PRAGMA cache_size=-65536")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class SqliteEventStore(SqlEventStore):
    """The event log in ``<data dir>/events.sqlite3``."""

    def __init__(
        self,
        path: Path,
        *,
        codec: EventCodec | None = None,
        clock: Clock | None = None,
        readonly: bool = False,
        max_group_events: int = 20_000,
    ) -> None:
        super().__init__(
            codec=codec, clock=clock, readonly=readonly, max_group_events=max_group_events
        )
        self.path = Path(path)
        self._sync_writer: sa.Engine | None = None
        self._writer_thread: ThreadPoolExecutor | None = None
        self._writer_conn: sa.Connection | None = None
        """The writer thread's connection, kept open between commits (writer thread only)."""

    @classmethod
    def in_data_dir(cls, data_dir: Path, **kwargs: Any) -> SqliteEventStore:
        """Open the store of a data dir."""
        return cls(Path(data_dir) / EVENTS_FILE, **kwargs)

    async def _create_engines(self) -> tuple[AsyncEngine, AsyncEngine]:
        if not self.readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.exists():
            raise FileNotFoundError(f"no event log at {self.path}")
        return (
            sqlite_engine(self.path, write=True, readonly=self.readonly),
            sqlite_engine(self.path, write=False, readonly=self.readonly),
        )

    async def open(self) -> None:
        """Start the writer thread and its connection, then open as every SQL store does."""
        if not self.readonly:
            self._writer_thread = ThreadPoolExecutor(1, thread_name_prefix="memoryd-sqlite")
            self._sync_writer = sqlite_sync_engine(self.path)
        try:
            await super().open()
        except BaseException:
            await self._stop_writer_thread()
            raise

    async def close(self) -> None:
        """Drain appends, then close the engines and the writer thread's connection."""
        try:
            await super().close()
        finally:
            await self._stop_writer_thread()

    async def _stop_writer_thread(self) -> None:
        thread, engine = self._writer_thread, self._sync_writer
        self._writer_thread = self._sync_writer = None
        if thread is not None and engine is not None:

            def stop() -> None:
                self._drop_writer_connection()
                engine.dispose()

            await asyncio.get_running_loop().run_in_executor(thread, stop)
            thread.shutdown()

    def _writer_connection(self) -> sa.Connection:
        # Checking a connection out of the pool and back for every commit cost about as much
        # CPU as SQLite's own work for a one-event append; the writer keeps one open instead.
        if self._writer_conn is None:
            if self._sync_writer is None:
                raise RuntimeError("store is not open")
            self._writer_conn = self._sync_writer.connect()
        return self._writer_conn

    def _drop_writer_connection(self) -> None:
        conn, self._writer_conn = self._writer_conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    async def _in_writer_thread(self, fn: Callable[[], _R]) -> _R:
        assert self._writer_thread is not None
        return await asyncio.get_running_loop().run_in_executor(self._writer_thread, fn)

    async def _write_transaction(self, work: Callable[[sa.Connection], _R]) -> _R:
        if self._sync_writer is None:
            raise RuntimeError("store is not open")

        def transaction() -> _R:
            conn = self._writer_connection()
            try:
                with conn.begin():
                    return work(conn)
            except BaseException:
                # Whatever failed may have left the connection unusable: the next commit
                # starts on a fresh one.
                self._drop_writer_connection()
                raise

        return await self._in_writer_thread(transaction)

    async def _prepare_schema(self, conn: AsyncConnection) -> None:
        # The embedded default needs no set-up step: a new data dir gets the current schema
        # through the same alembic migrations `memoryd db upgrade` runs, so the first future
        # migration finds an alembic revision to start from.
        await upgrade_if_empty(conn)

    async def _file_problems(self, *, full: bool) -> list[str]:
        # SQLite's own check of every page (quick: without the slower index cross-checks).
        pragma = "integrity_check(20)" if full else "quick_check(20)"
        try:
            async with self.read_engine.connect() as conn:
                rows = (await conn.exec_driver_sql(f"PRAGMA {pragma}")).all()
        except sa.exc.DBAPIError as exc:
            return [f"{self.path}: {getattr(exc, 'orig', exc)}"]
        found = [str(row[0]) for row in rows]
        return [] if found == ["ok"] else [f"{self.path}: {line}" for line in found]

    async def _after_purge(self) -> None:
        # Old WAL frames still hold the purged text until the WAL is reset: copy them into the
        # database (whose pages now hold the redacted rows) and truncate the file. This waits
        # (busy_timeout) for readers that still use the old frames. It must run outside a
        # transaction, so it goes to the driver connection directly.
        def checkpoint() -> Any:
            return _checkpoint_truncate(self._writer_connection())

        row = await self._in_writer_thread(checkpoint)
        if row is None or row[0] != 0:
            log.warning("purge: the WAL could not be truncated yet (readers busy): %s", row)


def _checkpoint_truncate(conn: sa.Connection) -> Any:
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return cursor.fetchone()
    finally:
        cursor.close()
