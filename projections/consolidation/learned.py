"""The learned_context block: ``LearnedContextWritten`` replaces a namespace's block."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import LearnedContextWritten
from events.store.base import StoredEvent
from projections.base import dumps, loads, upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on

learned_table = sa.Table(
    "consolidation_learned_context",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("fact_ids_json", sa.Text, nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
)


async def _written(batch: Batch, stored: StoredEvent, event: LearnedContextWritten) -> None:
    await batch.conn.execute(
        upsert(
            batch.conn,
            learned_table,
            ["namespace"],
            ["text", "fact_ids_json", "position", "at"],
        ),
        [
            {
                "namespace": stored.namespace,
                "text": event.text,
                "fact_ids_json": dumps(event.fact_ids),
                "position": stored.position,
                "at": to_micros(event.at),
            }
        ],
    )


FOLDS: tuple[EventFold, ...] = (on(LearnedContextWritten, _written),)


async def learned_context(conn: AsyncConnection, namespace: str) -> dict[str, Any] | None:
    """Return the current learned_context block."""
    row = (
        await conn.execute(sa.select(learned_table).where(learned_table.c.namespace == namespace))
    ).first()
    if row is None:
        return None
    return {"text": row.text, "fact_ids": loads(row.fact_ids_json), "at": row.at}
