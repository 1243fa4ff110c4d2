"""The review queue: ``ReviewItemQueued`` adds a pending item, ``ReviewItemApproved`` /
``ReviewItemRejected`` decide a pending one (a decided item stays as it was decided)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import ReviewItemApproved, ReviewItemQueued, ReviewItemRejected
from events.store.base import StoredEvent
from projections.base import dumps, loads, upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on

review_table = sa.Table(
    "review_items",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("item_id", sa.String(100), primary_key=True),
    sa.Column("queued_position", sa.BigInteger, nullable=False),
    sa.Column("queued_at", sa.BigInteger, nullable=False),
    sa.Column("agent", sa.String(100), nullable=False),
    sa.Column("verb", sa.String(20), nullable=False),
    sa.Column("action_json", sa.Text, nullable=False),
    sa.Column("based_on_json", sa.Text, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("decided_at", sa.BigInteger),
    sa.Column("decided_by", sa.String(300)),
    sa.Column("plan_id", sa.String(100)),
    sa.Column("reason", sa.Text),
)

_Q = review_table.c


async def _queued(batch: Batch, stored: StoredEvent, event: ReviewItemQueued) -> None:
    await batch.conn.execute(
        upsert(batch.conn, review_table, ["namespace", "item_id"]),
        [
            {
                "namespace": stored.namespace,
                "item_id": event.item_id,
                "queued_position": stored.position,
                "queued_at": to_micros(event.at),
                "agent": event.agent,
                "verb": str(event.action.get("verb", "")),
                "action_json": dumps(event.action),
                "based_on_json": dumps(event.based_on),
                "status": "pending",
                "decided_at": None,
                "decided_by": None,
                "plan_id": None,
                "reason": None,
            }
        ],
    )


async def _decide(
    batch: Batch,
    stored: StoredEvent,
    event: ReviewItemApproved | ReviewItemRejected,
    status: str,
    **values: Any,
) -> None:
    """Record the decision on a pending item (a decided item stays as it was decided)."""
    await batch.conn.execute(
        review_table.update()
        .where(
            _Q.namespace == stored.namespace, _Q.item_id == event.item_id, _Q.status == "pending"
        )
        .values(decided_at=to_micros(event.at), decided_by=event.by, status=status, **values)
    )


async def _approved(batch: Batch, stored: StoredEvent, event: ReviewItemApproved) -> None:
    await _decide(batch, stored, event, "approved", plan_id=event.plan_id)


async def _rejected(batch: Batch, stored: StoredEvent, event: ReviewItemRejected) -> None:
    await _decide(batch, stored, event, "rejected", reason=event.reason)


FOLDS: tuple[EventFold, ...] = (
    on(ReviewItemQueued, _queued),
    on(ReviewItemApproved, _approved),
    on(ReviewItemRejected, _rejected),
)


async def review_items(
    conn: AsyncConnection, namespace: str, *, status: str | None = "pending", limit: int = 100
) -> list[dict[str, Any]]:
    """Return review items (pending by default), oldest first."""
    query = sa.select(review_table).where(_Q.namespace == namespace)
    if status is not None:
        query = query.where(_Q.status == status)
    result = await conn.execute(query.order_by(_Q.queued_position).limit(limit))
    return [_review(r) for r in result]


def _review(r: sa.Row[Any]) -> dict[str, Any]:
    return {
        "item_id": r.item_id,
        "agent": r.agent,
        "verb": r.verb,
        "action": loads(r.action_json),
        "based_on": loads(r.based_on_json),
        "status": r.status,
        "queued_at": r.queued_at,
        "decided_at": r.decided_at,
        "decided_by": r.decided_by,
        "plan_id": r.plan_id,
        "reason": r.reason,
    }
