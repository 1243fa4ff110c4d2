"""Consolidation plans: ``PlanCreated`` stores a plan (``pending``); ``PlanApplied`` marks a
pending plan ``applied`` and logs one row per applied item (``source`` from the event) and
per refused item (``action = refused``)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import PlanApplied, PlanCreated
from events.store.base import StoredEvent
from projections.base import dumps, loads, upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on
from projections.consolidation.log import write_log

plans_table = sa.Table(
    "consolidation_plans",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("plan_id", sa.String(100), primary_key=True),
    sa.Column("created_position", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("source", sa.String(20), nullable=False),
    sa.Column("plan_json", sa.Text, nullable=False),
    sa.Column("applied_position", sa.BigInteger),
    sa.Column("result_json", sa.Text),
)

_P = plans_table.c


async def _created(batch: Batch, stored: StoredEvent, event: PlanCreated) -> None:
    await batch.conn.execute(
        upsert(batch.conn, plans_table, ["namespace", "plan_id"]),
        [
            {
                "namespace": stored.namespace,
                "plan_id": event.plan_id,
                "created_position": stored.position,
                "created_at": to_micros(event.at),
                "status": "pending",
                "source": event.source,
                "plan_json": dumps(
                    {
                        "items": event.items,
                        "based_on": event.based_on,
                        "inputs": event.inputs,
                        "model": event.model,
                    }
                ),
                "applied_position": None,
                "result_json": None,
            }
        ],
    )


async def _applied(batch: Batch, stored: StoredEvent, event: PlanApplied) -> None:
    ns = stored.namespace
    row = (
        await batch.conn.execute(
            sa.select(_P.plan_json, _P.status).where(
                _P.namespace == ns, _P.plan_id == event.plan_id
            )
        )
    ).first()
    if row is None or row.status != "pending":
        return
    await batch.conn.execute(
        plans_table.update()
        .where(_P.namespace == ns, _P.plan_id == event.plan_id)
        .values(
            status="applied",
            applied_position=stored.position,
            result_json=dumps(
                {
                    "applied": event.applied,
                    "refused": event.refused,
                    "results": event.results,
                    "min_confidence": event.min_confidence,
                }
            ),
        )
    )
    items = {i["item_id"]: i for i in loads(row.plan_json)["items"]}
    seq = 1
    for item_id in event.applied:
        item = items.get(item_id)
        if item is None:
            continue
        detail = {"item_id": item_id, "reasoning": item.get("reasoning", "")}
        result = event.results.get(item_id)
        if isinstance(result, dict):
            detail.update(result)
        await write_log(
            batch.conn,
            stored,
            seq,
            str(item["action"]),
            list(item["fact_ids"]),
            event.at,
            plan_id=event.plan_id,
            source=event.source,
            detail=detail,
        )
        seq += 1
    for refused in event.refused:
        item = items.get(str(refused.get("item_id")), {})
        await write_log(
            batch.conn,
            stored,
            seq,
            "refused",
            list(item.get("fact_ids", [])),
            event.at,
            plan_id=event.plan_id,
            source=event.source,
            detail=dict(refused),
        )
        seq += 1


FOLDS: tuple[EventFold, ...] = (on(PlanCreated, _created), on(PlanApplied, _applied))


async def get_plan(conn: AsyncConnection, namespace: str, plan_id: str) -> dict[str, Any] | None:
    """Return a stored plan with its status and result."""
    row = (
        await conn.execute(
            sa.select(plans_table).where(_P.namespace == namespace, _P.plan_id == plan_id)
        )
    ).first()
    if row is None:
        return None
    return {
        "plan_id": row.plan_id,
        "status": row.status,
        "source": row.source,
        "created_position": row.created_position,
        "created_at": row.created_at,
        **loads(row.plan_json),
        "result": loads(row.result_json),
    }


async def pending_items(conn: AsyncConnection, namespace: str) -> set[tuple[str, frozenset[str]]]:
    """Return ``(action, fact ids)`` of every item of the plans not applied yet."""
    result = await conn.execute(
        sa.select(_P.plan_json).where(_P.namespace == namespace, _P.status == "pending")
    )
    out: set[tuple[str, frozenset[str]]] = set()
    for (plan,) in result:
        for item in loads(plan).get("items", []):
            out.add((str(item.get("action")), frozenset(str(f) for f in item.get("fact_ids", []))))
    return out


async def plan_model_calls_since(conn: AsyncConnection, since: int) -> list[tuple[int, int]]:
    """Return ``(created_at, model calls)`` of the plans created since ``since`` (micros)."""
    plans = await conn.execute(sa.select(_P.created_at, _P.plan_json).where(_P.created_at >= since))
    return [
        (int(at), int(((loads(plan) or {}).get("inputs") or {}).get("model_calls", 0)))
        for at, plan in plans
    ]
