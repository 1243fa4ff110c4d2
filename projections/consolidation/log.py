"""The consolidation log: one row for everything consolidation did or refused to a fact.

Rows are keyed by the event's position and a ``seq`` within it (a plan's application logs
one row per item). The groups whose events change facts write them through :func:`write_log`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.store.base import StoredEvent
from projections.base import dumps, loads
from projections.consolidation.fold import metadata

log_table = sa.Table(
    "consolidation_log",
    metadata,
    sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("namespace", sa.String(200), nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
    sa.Column("action", sa.String(40), nullable=False),
    sa.Column("fact_ids_json", sa.Text, nullable=False),
    sa.Column("plan_id", sa.String(100)),
    sa.Column("run_id", sa.String(100)),
    sa.Column("source", sa.String(20), nullable=False),
    sa.Column("detail_json", sa.Text, nullable=False),
)
sa.Index("ix_consolidation_log_ns", log_table.c.namespace, log_table.c.position)

_L = log_table.c


async def write_log(
    conn: AsyncConnection,
    stored: StoredEvent,
    seq: int,
    action: str,
    fact_ids: list[str],
    at: datetime,
    *,
    plan_id: str | None = None,
    run_id: str | None = None,
    source: str = "auto",
    detail: dict[str, Any] | None = None,
) -> None:
    """Log ``action`` on ``fact_ids`` as row ``seq`` of ``stored``."""
    await conn.execute(
        log_table.insert().values(
            position=stored.position,
            seq=seq,
            namespace=stored.namespace,
            at=to_micros(at),
            action=action,
            fact_ids_json=dumps(fact_ids),
            plan_id=plan_id,
            run_id=run_id,
            source=source,
            detail_json=dumps(detail or {}),
        )
    )


async def read_log(
    conn: AsyncConnection, namespace: str, *, after: int = 0, limit: int = 100
) -> list[dict[str, Any]]:
    """Return consolidation log rows after a position, oldest first."""
    result = await conn.execute(
        sa.select(log_table)
        .where(_L.namespace == namespace, _L.position > after)
        .order_by(_L.position, _L.seq)
        .limit(limit)
    )
    return [
        {
            "position": r.position,
            "seq": r.seq,
            "at": r.at,
            "action": r.action,
            "fact_ids": loads(r.fact_ids_json),
            "plan_id": r.plan_id,
            "run_id": r.run_id,
            "source": r.source,
            "detail": loads(r.detail_json),
        }
        for r in result
    ]
