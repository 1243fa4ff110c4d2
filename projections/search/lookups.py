"""The fold's reads of stored documents, one statement for many: which referenced documents
exist, and each conversation's last turns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from projections.search import documents
from projections.search.schema import docs_table

DOC_NAMES = tuple(c.name for c in docs_table.columns)
_DOC_COLUMNS = ", ".join(DOC_NAMES)


async def existing_refs(
    conn: AsyncConnection, namespace: str, kind: str, pairs: Sequence[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Return which ``(conversation_id, ref_id)`` pairs have a document (one query)."""
    if conn.dialect.name == "sqlite":
        # Plain driver SQL: the same string for every full chunk (sqlite3 caches its plan)
        # and no per-parameter processing.
        marks = ", ".join(["(?, ?)"] * len(pairs))
        flat: list[str] = []
        for pair in pairs:
            flat.extend(pair)
        found: Any = await conn.exec_driver_sql(
            f"WITH wanted(c, r) AS (VALUES {marks}) "
            "SELECT d.conversation_id, d.ref_id FROM wanted JOIN search_docs d "
            "ON d.namespace = ? AND d.kind = ? AND d.conversation_id = wanted.c "
            "AND d.ref_id = wanted.r",
            (*flat, namespace, kind),
        )
        return {(str(r[0]), str(r[1])) for r in found}
    # A lateral probe per pair: each is one index lookup on uq_search_ref whatever the
    # planner believes of the table (during a rebuild its statistics say "empty", and a plain
    # join then scans the whole index once per wanted pair). LIMIT 1 (a pair is unique) keeps
    # the planner from flattening the probe back into that join.
    result = await conn.execute(
        sa.text(
            "SELECT d.conversation_id, d.ref_id "
            "FROM unnest(CAST(:cids AS varchar[]), CAST(:refs AS varchar[])) AS wanted(c, r) "
            "CROSS JOIN LATERAL (SELECT conversation_id, ref_id FROM search_docs "
            "WHERE namespace = :ns AND kind = :kind AND conversation_id = wanted.c "
            "AND ref_id = wanted.r LIMIT 1) AS d"
        ),
        {
            "ns": namespace,
            "kind": kind,
            "cids": [c for c, _ in pairs],
            "refs": [r for _, r in pairs],
        },
    )
    return {(r[0], r[1]) for r in result}


async def tails(conn: AsyncConnection, namespace: str, cids: Sequence[str]) -> list[dict[str, Any]]:
    """Return the last live turns of each conversation in ``cids`` (one query)."""
    if conn.dialect.name == "sqlite":
        one = (
            f"SELECT * FROM (SELECT {_DOC_COLUMNS} FROM search_docs WHERE namespace = ?1 "
            "AND conversation_id = ? AND kind = 'message' AND live = 1 "
            f"ORDER BY doc_id DESC LIMIT {2 * documents.CONTEXT_WINDOW + 1})"
        )
        found = await conn.exec_driver_sql(
            " UNION ALL ".join([one] * len(cids)), (namespace, *cids)
        )
        rows = [dict(zip(DOC_NAMES, r, strict=True)) for r in found]
        for row in rows:
            row["live"] = bool(row["live"])
        return rows
    params: dict[str, Any] = {"ns": namespace, "kind": "message", "live": True}
    parts = []
    for i, cid in enumerate(cids):
        params[f"c{i}"] = cid
        parts.append(
            f"SELECT * FROM (SELECT {_DOC_COLUMNS} FROM search_docs WHERE namespace = :ns "
            f"AND conversation_id = :c{i} AND kind = :kind AND live = :live "
            f"ORDER BY doc_id DESC LIMIT {2 * documents.CONTEXT_WINDOW + 1}) AS t{i}"
        )
    statement = sa.text(" UNION ALL ".join(parts)).columns(*docs_table.columns)
    result = await conn.execute(statement, params)
    return [dict(r._mapping) for r in result]
