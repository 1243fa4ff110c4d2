"""The projection runner: setup, catch-up, follow, rebuild and digest.

The runner reads the log in batches and folds each batch into every projection inside *one*
transaction that also moves the projections' checkpoints, so after a crash the tables and the
checkpoints agree and no event is applied twice or skipped. At the start of each batch it
re-reads the checkpoints (``FOR UPDATE`` where the database has it), so another runner on the
same database (a second daemon, a rebuild from the CLI) never makes it fold an event twice:
events at or below a stored checkpoint are skipped, and a checkpoint that moved *back* makes
the runner start again from there.

Durability: a batch commits without waiting for the disk (SQLite ``synchronous=NORMAL`` on
the runner's engine, PostgreSQL ``synchronous_commit=off`` for the batch). A power cut may
lose the last batches, rows and checkpoint together, and the runner folds them again from
the log, which stays fully durable; a crash of the process loses nothing.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import hashlib
import os
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from events.store.base import EventStore, StoredEvent
from events.store.sqlite import WAL_SIZE_LIMIT
from events.tasks import cancel_and_wait
from projections.base import Projection

DEFAULT_BATCH_SIZE = 5000
"""Events folded per transaction."""
ANALYSE_GROWTH = 4
"""A catch-up refreshes planner statistics each time it has folded this many times more."""
REBUILD_WAL_PAGES = 100_000
"""SQLite WAL pages (4 KiB) a rebuild lets pile up before it copies them into the database."""
DEFAULT_WAL_PAGES = 1000
"""SQLite's own ``wal_autocheckpoint``, which the runner's connection goes back to."""

checkpoints_metadata = sa.MetaData()

checkpoints_table = sa.Table(
    "projection_checkpoints",
    checkpoints_metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
)
_K = checkpoints_table.c


class ProjectionStateChanged(RuntimeError):
    """Another process changed the projection tables to a version this runner cannot fold."""


class _Rewind(Exception):
    """A stored checkpoint is behind the batch this runner read (someone rebuilt)."""


def _relax_sqlite(dbapi_connection: Any, _record: Any = None) -> None:
    # Projection commits need atomicity (rows and checkpoint together), not durability: after
    # a power cut that loses the last commits, the checkpoint is as old as the rows and the
    # runner folds those events again. So no fsync per commit (WAL, synchronous=NORMAL).
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _run_pragma(dbapi_connection: Any, pragma: str) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA {pragma}")
        cursor.fetchall()
    finally:
        cursor.close()


SETUP_LOCK_KEY = 0x6D656D6F72796470
"""PostgreSQL advisory lock taken while creating or dropping projection tables."""


async def _serialise_setup(conn: AsyncConnection) -> None:
    # Two daemons starting on one PostgreSQL database must not create the tables twice.
    # (SQLite needs nothing: the runner's transactions take the write lock at BEGIN.)
    if conn.dialect.name == "postgresql":
        await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(SETUP_LOCK_KEY)))


def _create_index(sync: sa.Connection, index: sa.Index) -> None:
    index.create(sync, checkfirst=True)


def default_projections() -> list[Projection]:
    """Return a fresh instance of every built-in projection."""
    from projections.consolidation import ConsolidationProjection
    from projections.facts import FactsProjection
    from projections.messages import MessagesProjection
    from projections.retrospective import RetrospectiveProjection
    from projections.search import SearchProjection

    return [
        MessagesProjection(),
        FactsProjection(),
        RetrospectiveProjection(),
        SearchProjection(),
        ConsolidationProjection(),
    ]


async def read_checkpoints(
    conn: AsyncConnection, *, lock: bool = False
) -> dict[str, tuple[int, int]]:
    """Return ``name -> (version, position)`` for every stored checkpoint."""
    query = sa.select(_K.name, _K.version, _K.position)
    if lock and conn.dialect.name == "postgresql":
        query = query.with_for_update()
    result = await conn.execute(query)
    return {r[0]: (int(r[1]), int(r[2])) for r in result}


async def _reset(conn: AsyncConnection, projection: Projection) -> None:
    await conn.run_sync(projection.metadata.drop_all)
    await conn.run_sync(projection.metadata.create_all)
    await conn.execute(checkpoints_table.delete().where(_K.name == projection.name))
    await conn.execute(
        checkpoints_table.insert().values(
            name=projection.name, version=projection.version, position=0
        )
    )


def _order_columns(conn: AsyncConnection, table: sa.Table) -> list[sa.ColumnElement[Any]]:
    # Byte order of strings on every backend, so a digest can be compared across them.
    out: list[sa.ColumnElement[Any]] = []
    for column in table.primary_key.columns:
        if conn.dialect.name == "postgresql" and isinstance(column.type, sa.String):
            out.append(column.collate("C"))
        else:
            out.append(column)
    return out


async def table_digest(conn: AsyncConnection, table: sa.Table) -> str:
    """Return the sha256 of a table's rows as canonical JSON lines in primary-key order."""
    digest = hashlib.sha256(orjson.dumps([c.name for c in table.columns]) + b"\n")
    result = await conn.stream(sa.select(table).order_by(*_order_columns(conn, table)))
    async for partition in result.partitions(2000):
        digest.update(b"".join(orjson.dumps(list(row)) + b"\n" for row in partition))
    return digest.hexdigest()


async def table_digests(conn: AsyncConnection, projections: Sequence[Projection]) -> dict[str, str]:
    """Return ``table name -> digest`` for every table of ``projections``."""
    out: dict[str, str] = {}
    for projection in projections:
        for table in projection.tables:
            out[table.name] = await table_digest(conn, table)
    return out


class ProjectionRunner:
    """Keeps a set of projections folded up to the log's head."""

    def __init__(
        self,
        store: EventStore,
        engine: AsyncEngine,
        projections: Sequence[Projection] | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        self.store = store
        self.engine = engine
        self.projections = list(projections) if projections is not None else default_projections()
        names = [p.name for p in self.projections]
        if len(set(names)) != len(names):
            raise ValueError(f"projection names must be unique: {names}")
        self.batch_size = batch_size
        if engine.dialect.name == "sqlite" and not sa.event.contains(
            engine.sync_engine, "connect", _relax_sqlite
        ):
            sa.event.listen(engine.sync_engine, "connect", _relax_sqlite)
        self._checkpoints: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._changed = asyncio.Condition()

    @property
    def position(self) -> int:
        """Return the position every projection has reached (0 before :meth:`setup`)."""
        return min(self._checkpoints.values(), default=0)

    @property
    def checkpoints(self) -> dict[str, int]:
        """Return each projection's checkpoint."""
        return dict(self._checkpoints)

    async def setup(self) -> None:
        """Create missing tables; drop and reset a projection whose stored version differs."""
        if self.engine.dialect.name == "sqlite":
            async with self.engine.connect() as conn:  # the connection pooled already, if any
                await conn.run_sync(lambda sync: _relax_sqlite(sync.connection.dbapi_connection))
        async with self._lock, self.engine.begin() as conn:
            await _serialise_setup(conn)
            await conn.run_sync(checkpoints_metadata.create_all)
            stored = await read_checkpoints(conn, lock=True)
            checkpoints = {}
            for projection in self.projections:
                found = stored.get(projection.name)
                if found is None or found[0] != projection.version:
                    await _reset(conn, projection)
                    checkpoints[projection.name] = 0
                else:
                    await conn.run_sync(projection.metadata.create_all)
                    checkpoints[projection.name] = found[1]
        self._checkpoints = checkpoints
        await self._create_indexes()

    async def catch_up(
        self,
        until: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Fold every event up to ``until`` (default: the store's head); return the position."""
        async with self._lock:
            return await self._catch_up(until, progress)

    async def _catch_up(
        self, until: int | None, progress: Callable[[int, int], None] | None
    ) -> int:
        if not self._checkpoints:
            raise RuntimeError("call setup() before folding")
        target = await self.store.head() if until is None else until
        # Read the next batch while the current one is folded: the reads run on the store's
        # connection, the writes on ours, so the database works on both at once.
        ahead: asyncio.Task[list[StoredEvent]] | None = None
        folded, analyse_at = 0, self.batch_size
        try:
            while self.position < target:
                if ahead is None:
                    ahead = asyncio.create_task(self._read_batch(self.position, target))
                events = await ahead
                ahead = None
                if not events:
                    break
                if events[-1].position < target:
                    ahead = asyncio.create_task(self._read_batch(events[-1].position, target))
                try:
                    await self._apply(events)
                except _Rewind:
                    if ahead is not None:
                        ahead.cancel()
                        ahead = None
                    async with self.engine.connect() as conn:
                        stored = await read_checkpoints(conn)
                    self._checkpoints = {p.name: stored[p.name][1] for p in self.projections}
                    continue
                folded += len(events)
                if folded >= analyse_at:
                    await self._analyse()
                    analyse_at *= ANALYSE_GROWTH
                if progress is not None:
                    progress(self.position, target)
        finally:
            if ahead is not None:
                await cancel_and_wait(ahead, errors=(Exception,))
        return self.position

    async def _read_batch(self, after: int, until: int) -> list[StoredEvent]:
        """Read up to ``batch_size`` events after ``after`` (decoded, in position order)."""
        return [e async for e in self.store.read(after, until=until, limit=self.batch_size)]

    async def _apply(self, events: list[StoredEvent]) -> None:
        first, last = events[0].position, events[-1].position
        positions = [e.position for e in events]
        reached: dict[str, int] = {}
        async with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")
            stored = await read_checkpoints(conn, lock=True)
            for projection in self.projections:
                found = stored.get(projection.name)
                if found is None or found[0] != projection.version:
                    raise ProjectionStateChanged(
                        f"projection {projection.name!r} was reset to another version by "
                        "another process; restart this one"
                    )
                checkpoint = found[1]
                if checkpoint < first - 1:
                    raise _Rewind
                if checkpoint >= last:
                    reached[projection.name] = checkpoint
                    continue
                todo = events[bisect.bisect_right(positions, checkpoint) :]
                await projection.apply(conn, todo)
                await conn.execute(
                    checkpoints_table.update()
                    .where(_K.name == projection.name)
                    .values(position=last)
                )
                reached[projection.name] = last
        self._checkpoints = reached
        async with self._changed:
            self._changed.notify_all()

    async def run(self) -> None:
        """Catch up, then follow the log forever (cancel the task to stop).

        Woken by the store's commit notifications (``wait_for_head``), it folds whatever has
        been committed since in batches, so a burst of appends costs few transactions.
        Cancel this task before closing the store.
        """
        await self.catch_up()
        while True:
            if await self.store.wait_for_head(self.position + 1, timeout=None):
                await self.catch_up()

    async def wait_for(self, position: int, timeout: float | None = None) -> bool:
        """Wait until every projection has folded ``position``; False on timeout."""
        async with self._changed:
            try:
                async with asyncio.timeout(timeout):
                    await self._changed.wait_for(lambda: self.position >= position)
            except TimeoutError:
                return False
        return True

    async def rebuild(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        until: int | None = None,
    ) -> int:
        """Drop every projection's tables and fold the log again from position 0."""
        async with self._lock:
            deferred = [
                index
                for p in self.projections
                for index in p.indexes()
                if index.name in p.deferred_indexes
            ]
            async with self.engine.begin() as conn:
                await _serialise_setup(conn)
                await conn.run_sync(checkpoints_metadata.create_all)
                for projection in self.projections:
                    await _reset(conn, projection)
                for index in deferred:
                    await conn.run_sync(index.drop)
            self._checkpoints = {p.name: 0 for p in self.projections}
            try:
                async with self._wal_held_back():
                    position = await self._catch_up(until, progress)
            except BaseException:
                with contextlib.suppress(Exception):  # else the next setup() creates them
                    await self._create_indexes()
                raise
            await self._create_indexes()
            await self._analyse()
            return position

    @contextlib.asynccontextmanager
    async def _wal_held_back(self) -> AsyncIterator[None]:
        """Let a rebuild's commits pile up in SQLite's WAL and copy them over once at the end.

        Every checkpoint fsyncs the WAL and the database (``synchronous=NORMAL``); at the
        default of 1000 pages a rebuild checkpoints at nearly every batch, and those syncs
        were a seventh of its time. A commit itself stays as safe as before: it is in the
        WAL, which a crash keeps. The price is disk space, REBUILD_WAL_PAGES * 4 KiB at most
        until the final checkpoint truncates the file.
        """
        if self.engine.dialect.name != "sqlite":
            yield
            return
        await self._pragma(f"wal_autocheckpoint={REBUILD_WAL_PAGES}")
        try:
            yield
        finally:
            await self._pragma(f"wal_autocheckpoint={DEFAULT_WAL_PAGES}")
            await self._pragma("wal_checkpoint(TRUNCATE)")

    async def shrink_wal(self) -> None:
        """Give back the room a large fold took in SQLite's WAL.

        A batch writes all it folds to the WAL before a checkpoint copies it over, so a burst
        (5,000 long messages) leaves a WAL of hundreds of MiB that stays that size until the
        next fold happens to reset it, which on a nearly full disk may never come. Once it
        is larger than its limit, a checkpoint copies it over and truncates it.
        """
        if self.engine.dialect.name != "sqlite" or self.engine.url.database is None:
            return
        try:
            size = os.path.getsize(f"{self.engine.url.database}-wal")  # noqa: ASYNC240 - one stat
        except OSError:
            return
        if size > WAL_SIZE_LIMIT:
            await self._pragma("wal_checkpoint(TRUNCATE)")

    async def _pragma(self, pragma: str) -> None:
        # On the driver connection, outside SQLAlchemy's transaction (a checkpoint cannot
        # run inside one). The write engine pools one connection: the batches use it too.
        async with self.engine.connect() as conn:
            await conn.run_sync(lambda sync: _run_pragma(sync.connection.dbapi_connection, pragma))

    async def _analyse(self) -> None:
        """Refresh PostgreSQL's planner statistics of the projection tables.

        A long catch-up (a rebuild, a first start on a big log) grows tables that the planner
        still believes empty, and it then picks plans such as scanning a whole index per
        looked-up row; autovacuum comes too late for the batches in between. Called after
        the first batch and then each time the folded count has grown ANALYSE_GROWTH-fold, it
        costs a few sampled scans per catch-up. SQLite's planner needs no statistics here.
        """
        if self.engine.dialect.name != "postgresql":
            return
        names = ", ".join(t.name for p in self.projections for t in p.tables)
        async with self.engine.begin() as conn:
            await conn.exec_driver_sql(f"ANALYZE {names}")

    async def _create_indexes(self) -> None:
        """Create any index that is missing (after a rebuild, or one that was cut short)."""
        async with self.engine.begin() as conn:
            for projection in self.projections:
                for index in projection.indexes():
                    await conn.run_sync(_create_index, index)

    async def digest(self) -> dict[str, str]:
        """Return ``table name -> sha256`` of every projection table (see :func:`table_digest`)."""
        async with self.engine.connect() as conn:
            return await table_digests(conn, self.projections)
