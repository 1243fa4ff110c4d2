"""What every projection is, and the small dialect-neutral helpers they share.

A projection is a pure fold: :meth:`Projection.apply` receives a batch of stored events (in
position order, all beyond its checkpoint) and a connection inside the runner's transaction,
and writes its tables. It reads no clock and calls no plugin: valid time comes from event
payloads, transaction time from :attr:`StoredEvent.recorded_at`. It may read its own tables
(through ``conn``, so it sees its own earlier writes of the same batch) but nothing else.
"""

from __future__ import annotations

import abc
import asyncio
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from events.store.base import StoredEvent

IN_CHUNK = 500
"""Most values put in one ``IN (...)`` list (SQLite's variable limit is far above it)."""


class Projection(abc.ABC):
    """A read model folded from the log; its tables are disposable and rebuilt from position 0.

    Bump :attr:`version` whenever the tables or the fold change: the runner then drops the
    tables and refolds the log (projections are not migrated, the event tables are).
    """

    name: ClassVar[str]
    version: ClassVar[int]
    metadata: ClassVar[sa.MetaData]
    """Holds exactly this projection's tables."""
    deferred_indexes: ClassVar[tuple[str, ...]] = ()
    """Indexes (by name) a rebuild from 0 drops and builds once at the end, which is much
    cheaper than maintaining them row by row. Only indexes :meth:`apply` can do without."""

    def indexes(self) -> list[sa.Index]:
        """Return every index of this projection's tables."""
        return [index for table in self.tables for index in table.indexes]

    @property
    def tables(self) -> list[sa.Table]:
        """Return this projection's tables in dependency order."""
        return list(self.metadata.sorted_tables)

    @abc.abstractmethod
    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold ``events`` into the tables through ``conn`` (inside the batch transaction)."""


def upsert(
    conn: AsyncConnection,
    table: sa.Table,
    keys: Sequence[str],
    update: Sequence[str] = (),
    *,
    add: Sequence[str] = (),
) -> sa.Insert:
    """Return ``INSERT .. ON CONFLICT (keys) DO UPDATE SET update`` (or ``DO NOTHING``);
    the columns in ``add`` get the new value added to the stored one (a counter).

    The statement takes its values at execution (``conn.execute(stmt, rows)``), so it works
    for one row or as an executemany, on SQLite and PostgreSQL.
    """
    name = conn.dialect.name
    stmt: Any
    if name == "sqlite":
        stmt = sqlite.insert(table)
    elif name == "postgresql":
        stmt = postgresql.insert(table)
    else:  # pragma: no cover - only the two backends exist
        raise NotImplementedError(f"no upsert for dialect {name!r}")
    if update or add:
        set_ = {c: stmt.excluded[c] for c in update}
        set_.update({c: table.c[c] + stmt.excluded[c] for c in add})
        result: sa.Insert = stmt.on_conflict_do_update(index_elements=list(keys), set_=set_)
    else:
        result = stmt.on_conflict_do_nothing(index_elements=list(keys))
    return result


async def execute_many(
    conn: AsyncConnection, stmt: sa.Executable, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Execute ``stmt`` for every row, in chunks (an empty list is a no-op)."""
    for i in range(0, len(rows), 5000):
        await conn.execute(stmt, list(rows[i : i + 5000]))


class BulkStatement:
    """A statement compiled once per dialect and run as an executemany of plain tuples.

    The hot path of a rebuild: it skips SQLAlchemy's per-row parameter processing, so the
    tuples must hold values the driver takes as they are (str, int, float, bool, None), in
    the order of ``columns``.
    """

    def __init__(
        self, columns: Sequence[str], build: Callable[[AsyncConnection], sa.Insert]
    ) -> None:
        self.columns = tuple(columns)
        self._build = build
        self._compiled: dict[str, str] = {}

    async def execute(self, conn: AsyncConnection, rows: Sequence[tuple[Any, ...]]) -> None:
        """Run the statement for every row (an empty list is a no-op)."""
        if not rows:
            return
        sql = self._compiled.get(conn.dialect.name)
        if sql is None:
            compiled = self._build(conn).compile(dialect=conn.dialect)
            order = tuple(compiled.positiontup or ())
            if order != self.columns:
                raise RuntimeError(f"bind order {order} differs from {self.columns}")
            sql = self._compiled[conn.dialect.name] = str(compiled)
        for i in range(0, len(rows), 5000):
            await conn.exec_driver_sql(sql, list(rows[i : i + 5000]))


K = TypeVar("K")
V = TypeVar("V")


class Carried(Generic[K, V]):
    """What a projection's fold keeps from one batch for the next (a cache of table state).

    It is handed out only to a batch that starts right after the last one this instance
    folded. Another process may have folded in between, or the batch's transaction may have
    rolled back; either way the next batch does not start there and the fold reads the
    tables instead. Whoever folded up to a checkpoint, the tables there are the same (folds
    are deterministic), so state carried to the position it was made at is still true.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._after: int | None = None
        self._items: dict[K, V] = {}

    def take(self, events: Sequence[StoredEvent]) -> dict[K, V]:
        """Return the state for a batch of ``events`` (empty unless it continues the last)."""
        items = self._items if events and self._after == events[0].position - 1 else {}
        self._after, self._items = None, {}
        return items

    def keep(self, items: dict[K, V], events: Sequence[StoredEvent]) -> None:
        """Keep ``items`` (the last inserted ``limit`` of them) after folding ``events``."""
        excess = len(items) - self.limit
        if excess > 0:
            for key in list(itertools.islice(items, excess)):
                del items[key]
        self._items, self._after = items, events[-1].position


COOPERATE_EVERY = 256
"""Items a fold's loop handles between two chances for the event loop to run other tasks."""


async def cooperate(i: int) -> None:
    """Yield to the event loop at every :data:`COOPERATE_EVERY`-th item of a long fold loop.

    A batch's fold is CPU work between few awaits that really suspend; in the daemon it
    shares the event loop with the HTTP server, and thousands of events folded without a
    pause would hold every request for the whole batch.
    """
    if i % COOPERATE_EVERY == COOPERATE_EVERY - 1:
        await asyncio.sleep(0)


def clean(text: str) -> str:
    """Return ``text`` fit for a text column on every backend: NUL becomes U+FFFD.

    PostgreSQL cannot store NUL in text, and a projection must fold every event the log
    holds (one it cannot store would stop the runner for good), identically on both
    backends. JSON columns need nothing: the encoder escapes NUL.
    """
    return text if "\x00" not in text else text.replace("\x00", "\ufffd")


def clean_opt(text: str | None) -> str | None:
    """:func:`clean` for an optional value."""
    return None if text is None else clean(text)


def dumps(value: Any) -> str:
    """Encode a JSON value for a text column (canonical: sorted keys)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def loads(text: str | None) -> Any:
    """Decode a JSON text column."""
    return None if text is None else orjson.loads(text)


def chunks(values: Sequence[Any], size: int = IN_CHUNK) -> list[Sequence[Any]]:
    """Split ``values`` into slices of at most ``size``."""
    return [values[i : i + size] for i in range(0, len(values), size)]
