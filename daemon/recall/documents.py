"""Reading the search projection's documents for recall: the rows weighing and hits need,
which documents pass a filter, the entities they mention.

The in-memory index answers for the documents it holds (refreshed before every search), the
tables for any folded since; on SQLite the driver's own cursor reads them.
"""

from __future__ import annotations

import collections
from typing import Any

import sqlalchemy as sa

from daemon.recall.fusion import trust_multiplier
from daemon.recall.query import Filters
from daemon.recall.vectors import VectorIndex
from projections.base import chunks
from projections.search import docs_table, mentions_table

_D = docs_table.c
_M = mentions_table.c
_WEIGH_COLUMNS = (
    _D.doc_id,
    _D.status,
    _D.validated_tx,
    _D.provenance,
    _D.importance,
    _D.created_at,
)
_HIT_COLUMNS = (
    *_WEIGH_COLUMNS,
    _D.kind,
    _D.ref_id,
    _D.conversation_id,
    _D.text,
    _D.metadata_json,
    _D.tags_json,
    _D.owner,
    _D.valid_from,
    _D.valid_to,
    _D.superseded_by,
    _D.name,
    _D.role,
)

_WEIGH_ROW = collections.namedtuple("_WEIGH_ROW", [c.name for c in _WEIGH_COLUMNS])  # type: ignore[misc]
_HIT_ROW = collections.namedtuple("_HIT_ROW", [c.name for c in _HIT_COLUMNS])  # type: ignore[misc]


def load_rows(
    conn: sa.Connection, index: VectorIndex, doc_ids: list[int], *, full: bool = False
) -> dict[int, Any]:
    """Load documents: the columns weighing needs, or (``full``) everything a hit shows.

    Weighing reads the in-memory index for the documents it holds (refreshed before
    every search) and the table for the rest."""
    rows: dict[int, Any] = {}
    if not full:
        held, doc_ids = index.weigh_rows(doc_ids)
        rows.update((row[0], _WEIGH_ROW._make(row)) for row in held)
        if not doc_ids:
            return rows
    columns = _HIT_COLUMNS if full else _WEIGH_COLUMNS
    if conn.dialect.name == "sqlite":
        # The driver's own cursor: SQLAlchemy's IN expansion and row wrapping cost more
        # than the lookups themselves.
        row_type = _HIT_ROW if full else _WEIGH_ROW
        cursor = raw_cursor(conn)
        try:
            for part in chunks(sorted(doc_ids)):
                marks = ", ".join("?" * len(part))
                cursor.execute(
                    f"SELECT {', '.join(row_type._fields)} FROM search_docs "
                    f"WHERE doc_id IN ({marks})",
                    part,
                )
                rows.update({int(r[0]): row_type._make(r) for r in cursor})
        finally:
            cursor.close()
        return rows
    for part in chunks(sorted(doc_ids)):
        result = conn.execute(sa.select(*columns).where(_D.doc_id.in_(part)))
        rows.update({int(r.doc_id): r for r in result})
    return rows


def admit(
    conn: sa.Connection, index: VectorIndex, doc_ids: list[int], filters: Filters
) -> set[int]:
    """Return which of ``doc_ids`` pass ``filters``: the in-memory index decides for the
    documents it holds (the same rules), the table for any folded since its refresh."""
    allowed, unknown = index.passing(doc_ids, filters)
    for part in chunks(unknown):
        allowed.update(
            int(d)
            for (d,) in conn.execute(
                sa.select(_D.doc_id).where(_D.doc_id.in_(part), filters.where())
            )
        )
    return allowed


def row_trust(row: Any, known_at: int | None) -> float:
    """Return a row's trust factor, quarantine judged as known at ``known_at``."""
    validated = row.validated_tx is not None and (known_at is None or row.validated_tx <= known_at)
    return trust_multiplier(row.status == "quarantined" and not validated, row.provenance)


def mentions(conn: sa.Connection, by: str, values: list[Any]) -> list[tuple[int, str]]:
    """Return the ``(doc_id, entity_key)`` mentions whose column ``by`` is one of ``values``."""
    out: list[tuple[int, str]] = []
    if conn.dialect.name != "sqlite":
        for part in chunks(values):
            result = conn.execute(sa.select(_M.doc_id, _M.entity_key).where(_M[by].in_(part)))
            out.extend((int(d), str(k)) for d, k in result)
        return out
    cursor = raw_cursor(conn)
    try:
        for part in chunks(values):
            marks = ", ".join("?" * len(part))
            cursor.execute(
                f"SELECT doc_id, entity_key FROM search_mentions WHERE {by} IN ({marks})",
                part,
            )
            out.extend(cursor.fetchall())
    finally:
        cursor.close()
    return out


def raw_cursor(conn: sa.Connection) -> Any:
    """Return a DBAPI cursor of the connection (rows as plain tuples, no result wrapping)."""
    return conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
