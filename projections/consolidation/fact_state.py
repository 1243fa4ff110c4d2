"""What consolidation keeps per fact: archived, reinforcements, category, refused validations,
recall evidence, and the hash that finds exact duplicates.

Fold rules:

- ``FactWritten`` sets the text hash the first time a fact is seen.
- ``FactArchived`` / ``FactRestored`` set and clear ``archived`` (and log a row each).
- ``FactReinforced`` counts reinforcements (and, for ``recall``, nothing else: recall counts
  come from ``RecallRecorded``); a duplicate logs a row. ``FactCategorized`` sets the
  category, ``ValidationRefused`` counts a refusal (each logs a row).
- ``RecallRecorded``: for every fact hit, ``recall_count`` + 1, the query's hash added to the
  distinct-query set (bounded at :data:`MAX_QUERY_HASHES`), first/last recall times.
- ``FactPurged`` removes the fact's state.

A batch edits the rows in a :class:`FactStates` cache and writes them once at its end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.codec import parse_datetime
from events.consolidation_events import (
    FactArchived,
    FactCategorized,
    FactReinforced,
    FactRestored,
    ValidationRefused,
)
from events.recall_events import RecallRecorded
from events.store.base import StoredEvent
from events.types import FactPurged, FactWritten
from projections.base import dumps, loads, upsert
from projections.consolidation.fold import Batch, BatchCache, EventFold, metadata, on
from projections.consolidation.log import write_log
from projections.text import normalise

MAX_QUERY_HASHES = 50
"""Distinct query hashes kept per fact (enough for any promotion threshold)."""

fact_state_table = sa.Table(
    "consolidation_fact_state",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("archived", sa.Boolean, nullable=False),
    sa.Column("archived_reason", sa.Text),
    sa.Column("reinforcements", sa.Integer, nullable=False),
    sa.Column("last_reinforced_at", sa.BigInteger),
    sa.Column("category", sa.String(200)),
    sa.Column("recall_count", sa.Integer, nullable=False),
    sa.Column("query_hashes_json", sa.Text, nullable=False),
    sa.Column("first_recalled_at", sa.BigInteger),
    sa.Column("last_recalled_at", sa.BigInteger),
    sa.Column("refused_validations", sa.Integer, nullable=False),
    sa.Column("text_hash", sa.String(32)),
)
sa.Index("ix_consolidation_text_hash", fact_state_table.c.namespace, fact_state_table.c.text_hash)

_S = fact_state_table.c


def text_hash(text: str) -> str:
    """Return the hash of a fact's normalised text (exact duplicates share it)."""
    return hashlib.sha256(normalise(text).encode()).hexdigest()[:32]


def query_hash(query: str) -> str:
    """Return the short hash a query is counted by (case and spacing ignored)."""
    return hashlib.sha256(" ".join(query.lower().split()).encode()).hexdigest()[:16]


def _empty_state(namespace: str, fact_id: str) -> dict[str, Any]:
    return {
        "namespace": namespace,
        "fact_id": fact_id,
        "archived": False,
        "archived_reason": None,
        "reinforcements": 0,
        "last_reinforced_at": None,
        "category": None,
        "recall_count": 0,
        "query_hashes_json": "[]",
        "first_recalled_at": None,
        "last_recalled_at": None,
        "refused_validations": 0,
        "text_hash": None,
    }


class FactStates(BatchCache):
    """The fact state rows one batch edits."""

    def __init__(self, conn: AsyncConnection) -> None:
        super().__init__(conn)
        self.states: dict[tuple[str, str], dict[str, Any]] = {}
        self.dirty: set[tuple[str, str]] = set()

    async def state(self, namespace: str, fact_id: str) -> dict[str, Any]:
        """Return the row of a fact (a fresh one if it has none) to edit; it will be written."""
        key = (namespace, fact_id)
        row = self.states.get(key)
        if row is None:
            found = (
                await self.conn.execute(
                    sa.select(fact_state_table).where(
                        _S.namespace == namespace, _S.fact_id == fact_id
                    )
                )
            ).first()
            row = dict(found._mapping) if found is not None else _empty_state(*key)
            self.states[key] = row
        self.dirty.add(key)
        return row

    async def delete(self, namespace: str, fact_id: str) -> None:
        """Delete a fact's row, after writing every other edited row."""
        await self.flush()
        self.states.pop((namespace, fact_id), None)
        await self.conn.execute(
            fact_state_table.delete().where(_S.namespace == namespace, _S.fact_id == fact_id)
        )

    async def flush(self) -> None:
        """Write every row edited since the last flush, in key order."""
        if not self.dirty:
            return
        rows = [self.states[k] for k in sorted(self.dirty) if k in self.states]
        self.dirty.clear()
        if rows:
            columns = [c.name for c in fact_state_table.columns]
            await self.conn.execute(
                upsert(
                    self.conn,
                    fact_state_table,
                    ["namespace", "fact_id"],
                    [c for c in columns if c not in ("namespace", "fact_id")],
                ),
                rows,
            )


async def _state(batch: Batch, stored: StoredEvent, fact_id: str) -> dict[str, Any]:
    return await batch.cache(FactStates).state(stored.namespace, fact_id)


async def _written(batch: Batch, stored: StoredEvent, event: FactWritten) -> None:
    st = await _state(batch, stored, event.fact_id)
    if st["text_hash"] is None:
        st["text_hash"] = text_hash(event.text)


async def _archived(batch: Batch, stored: StoredEvent, event: FactArchived) -> None:
    st = await _state(batch, stored, event.fact_id)
    st["archived"] = True
    st["archived_reason"] = event.reason
    await write_log(
        batch.conn,
        stored,
        0,
        "archive",
        [event.fact_id],
        event.at,
        plan_id=event.plan_id,
        run_id=event.run_id,
        source=event.source,
        detail={"reason": event.reason, "salience": event.salience},
    )


async def _restored(batch: Batch, stored: StoredEvent, event: FactRestored) -> None:
    st = await _state(batch, stored, event.fact_id)
    st["archived"] = False
    st["archived_reason"] = None
    await write_log(batch.conn, stored, 0, "restore", [event.fact_id], event.at, source="user")


async def _reinforced(batch: Batch, stored: StoredEvent, event: FactReinforced) -> None:
    st = await _state(batch, stored, event.fact_id)
    st["reinforcements"] += 1
    st["last_reinforced_at"] = to_micros(event.at)
    if event.reason == "duplicate":
        await write_log(
            batch.conn,
            stored,
            0,
            "reinforce",
            [event.fact_id],
            event.at,
            detail={"similarity": event.similarity},
        )


async def _categorized(batch: Batch, stored: StoredEvent, event: FactCategorized) -> None:
    st = await _state(batch, stored, event.fact_id)
    st["category"] = event.category
    await write_log(
        batch.conn,
        stored,
        0,
        "categorize",
        [event.fact_id],
        event.at,
        detail={"category": event.category, "by": event.by},
    )


async def _validation_refused(batch: Batch, stored: StoredEvent, event: ValidationRefused) -> None:
    st = await _state(batch, stored, event.fact_id)
    st["refused_validations"] += 1
    await write_log(
        batch.conn,
        stored,
        0,
        "validation_refused",
        [event.fact_id],
        event.at,
        source="user",
        detail={"flags": event.flags, "by": event.by},
    )


async def _recalled(batch: Batch, stored: StoredEvent, event: RecallRecorded) -> None:
    for recall in event.recalls:
        at_text = recall.get("at")
        at = to_micros(parse_datetime(at_text)) if isinstance(at_text, str) else None
        qhash = query_hash(str(recall.get("query", "")))
        seen: set[str] = set()
        # A quarantined fact a default search would have returned ("shadow") counts as a
        # recall: it is how a quarantined fact earns promotion from ordinary use.
        for hit in [*recall.get("hits", []), *recall.get("shadow", [])]:
            if not isinstance(hit, dict) or hit.get("kind") != "fact":
                continue
            fact_id = str(hit.get("id"))
            if fact_id in seen:
                continue
            seen.add(fact_id)
            st = await _state(batch, stored, fact_id)
            st["recall_count"] += 1
            hashes: list[str] = loads(st["query_hashes_json"])
            if qhash not in hashes and len(hashes) < MAX_QUERY_HASHES and recall.get("query"):
                hashes.append(qhash)
                st["query_hashes_json"] = dumps(sorted(hashes))
            if at is not None:
                if st["first_recalled_at"] is None or at < st["first_recalled_at"]:
                    st["first_recalled_at"] = at
                if st["last_recalled_at"] is None or at > st["last_recalled_at"]:
                    st["last_recalled_at"] = at


async def _purged(batch: Batch, stored: StoredEvent, event: FactPurged) -> None:
    await batch.cache(FactStates).delete(stored.namespace, event.fact_id)


FOLDS: tuple[EventFold, ...] = (
    on(FactWritten, _written),
    on(FactArchived, _archived),
    on(FactRestored, _restored),
    on(FactReinforced, _reinforced),
    on(FactCategorized, _categorized),
    on(ValidationRefused, _validation_refused),
    on(RecallRecorded, _recalled),
    on(FactPurged, _purged),
)


# -- reads ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FactState:
    """What consolidation knows about one fact."""

    fact_id: str
    archived: bool = False
    archived_reason: str | None = None
    reinforcements: int = 0
    category: str | None = None
    recall_count: int = 0
    distinct_queries: int = 0
    first_recalled_at: int | None = None
    last_recalled_at: int | None = None
    last_reinforced_at: int | None = None


def _fact_state(row: sa.Row[Any]) -> FactState:
    return FactState(
        fact_id=row.fact_id,
        archived=bool(row.archived),
        archived_reason=row.archived_reason,
        reinforcements=int(row.reinforcements),
        category=row.category,
        recall_count=int(row.recall_count),
        distinct_queries=len(loads(row.query_hashes_json)),
        first_recalled_at=row.first_recalled_at,
        last_recalled_at=row.last_recalled_at,
        last_reinforced_at=row.last_reinforced_at,
    )


async def fact_states(conn: AsyncConnection, namespace: str) -> dict[str, FactState]:
    """Return the consolidation state of every fact that has one."""
    result = await conn.execute(sa.select(fact_state_table).where(_S.namespace == namespace))
    return {r.fact_id: _fact_state(r) for r in result}


async def one_fact_state(conn: AsyncConnection, namespace: str, fact_id: str) -> FactState | None:
    """Return one fact's consolidation state (recalls, reinforcements, category), if any."""
    row = (
        await conn.execute(
            sa.select(fact_state_table).where(_S.namespace == namespace, _S.fact_id == fact_id)
        )
    ).first()
    return None if row is None else _fact_state(row)


async def same_text(conn: AsyncConnection, namespace: str, text: str) -> list[str]:
    """Return the ids of facts whose normalised text equals ``text``'s (any state)."""
    result = await conn.execute(
        sa.select(_S.fact_id)
        .where(_S.namespace == namespace, _S.text_hash == text_hash(text))
        .order_by(_S.fact_id)
    )
    return [r[0] for r in result]


async def archived_ids(
    conn: AsyncConnection, namespace: str, among: Sequence[str] | None = None
) -> set[str]:
    """Return the ids of the archived facts (``among`` those given)."""
    query = sa.select(_S.fact_id).where(_S.namespace == namespace, _S.archived.is_(True))
    if among is not None:
        query = query.where(_S.fact_id.in_(list(among)))
    return {r[0] for r in await conn.execute(query)}
