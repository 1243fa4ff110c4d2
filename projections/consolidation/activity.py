"""Activity counters per namespace, what decides when consolidation runs: the last event that
is not consolidation's or recall's own, the retrospectives that succeeded, the facts
written with the sum of their importance, and the turns (user and assistant messages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import CONSOLIDATION_EVENT_CLASSES
from events.episode_events import EPISODE_EVENT_CLASSES
from events.recall_events import RecallRecorded
from events.retrospective_events import RetrospectiveSucceeded
from events.store.base import StoredEvent
from events.types import Event, FactWritten, MessageAppended
from projections.base import upsert
from projections.consolidation.fold import metadata

activity_table = sa.Table(
    "consolidation_activity",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    # The last event that is not consolidation's or recall's own (the idle trigger's input).
    sa.Column("last_position", sa.BigInteger, nullable=False),
    sa.Column("last_at", sa.BigInteger, nullable=False),
    sa.Column("retrospectives_succeeded", sa.Integer, nullable=False),
    sa.Column("facts_written", sa.Integer, nullable=False),
    sa.Column("importance_sum", sa.Float, nullable=False),
    sa.Column("turns", sa.BigInteger, nullable=False),
)

_OWN_CLASSES: tuple[type[Event], ...] = (
    *CONSOLIDATION_EVENT_CLASSES,
    *EPISODE_EVENT_CLASSES,
    RecallRecorded,
)
_OWN_EVENTS = frozenset(cls.event_type for cls in _OWN_CLASSES)


async def fold_activity(conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
    """Count the activity of one batch."""
    touched: dict[str, dict[str, Any]] = {}
    for stored in events:
        if stored.event.event_type in _OWN_EVENTS:
            continue
        ns = stored.namespace
        row = touched.get(ns)
        if row is None:
            found = (
                await conn.execute(
                    sa.select(activity_table).where(activity_table.c.namespace == ns)
                )
            ).first()
            row = (
                dict(found._mapping)
                if found is not None
                else {
                    "namespace": ns,
                    "last_position": 0,
                    "last_at": 0,
                    "retrospectives_succeeded": 0,
                    "facts_written": 0,
                    "importance_sum": 0.0,
                    "turns": 0,
                }
            )
            touched[ns] = row
        row["last_position"] = stored.position
        row["last_at"] = max(row["last_at"], to_micros(stored.recorded_at))
        event = stored.event
        if isinstance(event, RetrospectiveSucceeded):
            row["retrospectives_succeeded"] += 1
        elif isinstance(event, FactWritten):
            row["facts_written"] += 1
            row["importance_sum"] += float(event.importance)
        elif isinstance(event, MessageAppended) and event.role in ("user", "assistant"):
            row["turns"] += 1
    if touched:
        await conn.execute(
            upsert(
                conn,
                activity_table,
                ["namespace"],
                [
                    "last_position",
                    "last_at",
                    "retrospectives_succeeded",
                    "facts_written",
                    "importance_sum",
                    "turns",
                ],
            ),
            [touched[k] for k in sorted(touched)],
        )


async def activity(conn: AsyncConnection, namespace: str | None = None) -> list[dict[str, Any]]:
    """Return the activity counters of one namespace (or all)."""
    query = sa.select(activity_table)
    if namespace is not None:
        query = query.where(activity_table.c.namespace == namespace)
    return [
        dict(r._mapping) for r in await conn.execute(query.order_by(activity_table.c.namespace))
    ]
