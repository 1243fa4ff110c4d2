"""The event log's hot statements as driver SQL: compiled once per dialect and run with
positional parameters where the driver takes them (SQLite's, asyncpg), skipping Core's per-row
work; other drivers take the Core route."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from events.store.base import EventRecord
from events.store.schema import events_table

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
"""The order of the values in a row tuple given to :func:`insert_rows`."""


def record_row(record: EventRecord) -> tuple[Any, ...]:
    """Return a record's values in ROW_COLUMNS order."""
    return tuple(getattr(record, name) for name in ROW_COLUMNS)


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


def fetch_plain(
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


def insert_rows(conn: sa.Connection, rows: list[tuple[Any, ...]]) -> None:
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
