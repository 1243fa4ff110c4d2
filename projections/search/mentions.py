"""Entity mentions: which canonical entities each live document's own text names, and per
namespace how many documents mention each (``search_entities``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from projections.base import BulkStatement, chunks, cooperate, upsert
from projections.entities import extract_entities
from projections.search.schema import docs_table, entities_table, mentions_table

_D = docs_table.c

# A new key is inserted with its change (deleted right after when that is negative); a known
# key keeps its display and adds the change to its count.
_add_entity_counts = BulkStatement(
    ("namespace", "entity_key", "display", "doc_count"),
    lambda conn: upsert(conn, entities_table, ("namespace", "entity_key"), add=("doc_count",)),
)


async def write_entities(
    conn: AsyncConnection, doc_ids: list[int], new_rows: Mapping[int, dict[str, Any]]
) -> None:
    """Store the entities each of ``doc_ids`` mentions (none for a document no longer live);
    those in ``new_rows`` are read from memory."""
    if not doc_ids:
        return
    wanted: dict[int, dict[str, str]] = {}
    fresh: dict[int, str] = {}
    for i, doc_id in enumerate(doc_ids):
        await cooperate(i)
        row = new_rows.get(doc_id)
        if row is not None:
            wanted[doc_id] = {e.key: e.display for e in extract_entities(row["text"])}
            fresh[doc_id] = row["namespace"]
    for part in chunks([d for d in doc_ids if d not in fresh]):
        result = await conn.execute(
            sa.select(_D.doc_id, _D.text, _D.live).where(_D.doc_id.in_(part))
        )
        for doc_id, text, live in result:
            wanted[int(doc_id)] = {e.key: e.display for e in extract_entities(text)} if live else {}
    await set_mentions(conn, doc_ids, wanted, fresh)


async def set_mentions(
    conn: AsyncConnection,
    doc_ids: Iterable[int],
    wanted: dict[int, dict[str, str]],
    fresh: dict[int, str] | None = None,
) -> None:
    """Make the mentions of ``doc_ids`` equal ``wanted`` and keep the entity counts.

    ``fresh`` maps documents first written by this flush (no mentions yet) to their
    namespace, which spares reading them back."""
    ids = sorted(set(doc_ids))
    if not ids:
        return
    old: dict[int, set[str]] = {}
    namespaces: dict[int, str] = dict(fresh or {})
    for part in chunks([d for d in ids if d not in namespaces]):
        result = await conn.execute(
            sa.select(mentions_table.c.doc_id, mentions_table.c.entity_key).where(
                mentions_table.c.doc_id.in_(part)
            )
        )
        for doc_id, key in result:
            old.setdefault(int(doc_id), set()).add(key)
        result = await conn.execute(sa.select(_D.doc_id, _D.namespace).where(_D.doc_id.in_(part)))
        namespaces.update({int(d): ns for d, ns in result})
    delta: dict[tuple[str, str], int] = {}
    displays: dict[tuple[str, str], str] = {}
    removes: list[dict[str, Any]] = []
    adds: list[dict[str, Any]] = []
    for doc_id in ids:
        ns = namespaces.get(doc_id)
        if ns is None:
            continue
        before = old.get(doc_id, set())
        after = wanted.get(doc_id, {})
        for key in sorted(before - set(after)):
            removes.append({"d": doc_id, "k": key})
            delta[(ns, key)] = delta.get((ns, key), 0) - 1
        for key in sorted(set(after) - before):
            adds.append({"doc_id": doc_id, "entity_key": key})
            delta[(ns, key)] = delta.get((ns, key), 0) + 1
            displays.setdefault((ns, key), after[key])
    if removes:
        await conn.execute(
            mentions_table.delete().where(
                mentions_table.c.doc_id == sa.bindparam("d"),
                mentions_table.c.entity_key == sa.bindparam("k"),
            ),
            removes,
        )
    if adds:
        await conn.execute(mentions_table.insert(), adds)
    # One upsert that adds each key's change to its count, then one delete of the keys
    # whose count fell to zero: two statements per flush instead of a read and a write
    # per entity key, which was most of a fold with many named entities.
    changed = [(k, c) for k, c in sorted(delta.items()) if c != 0]
    await _add_entity_counts.execute(
        conn, [(ns, key, displays.get((ns, key), key)[:300], c) for (ns, key), c in changed]
    )
    gone = [{"n": ns, "k": key} for (ns, key), c in changed if c < 0]
    if gone:
        e = entities_table.c
        await conn.execute(
            entities_table.delete().where(
                e.namespace == sa.bindparam("n"),
                e.entity_key == sa.bindparam("k"),
                e.doc_count <= 0,
            ),
            gone,
        )
