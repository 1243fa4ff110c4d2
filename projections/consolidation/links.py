"""Links between facts: ``FactLinked`` upserts one (and logs it), ``FactPurged`` drops every
link the fact is on. Readers look a link up from either end."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.consolidation_events import FactLinked
from events.store.base import StoredEvent
from events.types import FactPurged
from projections.base import upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on
from projections.consolidation.log import write_log

links_table = sa.Table(
    "consolidation_links",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("other_fact_id", sa.String(300), primary_key=True),
    sa.Column("strength", sa.Float, nullable=False),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
)

_K = links_table.c


async def _linked(batch: Batch, stored: StoredEvent, event: FactLinked) -> None:
    await batch.conn.execute(
        upsert(
            batch.conn,
            links_table,
            ["namespace", "fact_id", "other_fact_id"],
            ["strength", "kind", "position"],
        ),
        [
            {
                "namespace": stored.namespace,
                "fact_id": event.fact_id,
                "other_fact_id": event.other_fact_id,
                "strength": float(event.strength),
                "kind": event.kind,
                "position": stored.position,
            }
        ],
    )
    await write_log(
        batch.conn,
        stored,
        0,
        "link",
        [event.fact_id, event.other_fact_id],
        event.at,
        detail={"strength": event.strength, "by": event.by},
    )


async def _purged(batch: Batch, stored: StoredEvent, event: FactPurged) -> None:
    await batch.conn.execute(
        links_table.delete().where(
            _K.namespace == stored.namespace,
            sa.or_(_K.fact_id == event.fact_id, _K.other_fact_id == event.fact_id),
        )
    )


FOLDS: tuple[EventFold, ...] = (on(FactLinked, _linked), on(FactPurged, _purged))


async def links_of(conn: AsyncConnection, namespace: str, fact_id: str) -> list[dict[str, Any]]:
    """Return the links of a fact, either direction."""
    result = await conn.execute(
        sa.select(links_table).where(
            _K.namespace == namespace, sa.or_(_K.fact_id == fact_id, _K.other_fact_id == fact_id)
        )
    )
    return [
        {
            "fact_id": r.fact_id,
            "other_fact_id": r.other_fact_id,
            "strength": r.strength,
            "kind": r.kind,
        }
        for r in result
    ]


async def all_links(conn: AsyncConnection, namespace: str) -> list[dict[str, Any]]:
    """Return every link of a namespace, in a stable order (by log position, then ids)."""
    result = await conn.execute(
        sa.select(links_table)
        .where(_K.namespace == namespace)
        .order_by(_K.position, _K.fact_id, _K.other_fact_id)
    )
    return [
        {
            "fact_id": r.fact_id,
            "other_fact_id": r.other_fact_id,
            "strength": r.strength,
            "kind": r.kind,
        }
        for r in result
    ]
