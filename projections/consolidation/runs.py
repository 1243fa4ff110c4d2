"""Consolidation runs: ``ConsolidationRunStarted`` adds a run, ``ConsolidationRunCompleted``
records its outcome and summary."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import ConsolidationRunCompleted, ConsolidationRunStarted
from events.store.base import StoredEvent
from projections.base import dumps, loads, upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on
from projections.consolidation.plans import plan_model_calls_since

runs_table = sa.Table(
    "consolidation_runs",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("run_id", sa.String(100), primary_key=True),
    sa.Column("phase", sa.String(20), nullable=False),
    sa.Column("trigger", sa.String(40), nullable=False),
    sa.Column("tier", sa.String(20), nullable=False),
    sa.Column("lease_token", sa.BigInteger, nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=False),
    sa.Column("completed_at", sa.BigInteger),
    sa.Column("outcome", sa.String(20)),
    sa.Column("summary_json", sa.Text),
    sa.Column("inputs_json", sa.Text, nullable=False),
)

_R = runs_table.c


async def _started(batch: Batch, stored: StoredEvent, event: ConsolidationRunStarted) -> None:
    await batch.conn.execute(
        upsert(batch.conn, runs_table, ["namespace", "run_id"]),
        [
            {
                "namespace": stored.namespace,
                "run_id": event.run_id,
                "phase": event.phase,
                "trigger": event.trigger,
                "tier": event.tier,
                "lease_token": event.lease_token,
                "started_at": to_micros(event.at),
                "completed_at": None,
                "outcome": None,
                "summary_json": None,
                "inputs_json": dumps(event.inputs),
            }
        ],
    )


async def _completed(batch: Batch, stored: StoredEvent, event: ConsolidationRunCompleted) -> None:
    await batch.conn.execute(
        runs_table.update()
        .where(_R.namespace == stored.namespace, _R.run_id == event.run_id)
        .values(
            completed_at=to_micros(event.at),
            outcome=event.outcome,
            summary_json=dumps(
                {"actions": event.actions, "stats": event.stats, "error": event.error}
            ),
        )
    )


FOLDS: tuple[EventFold, ...] = (
    on(ConsolidationRunStarted, _started),
    on(ConsolidationRunCompleted, _completed),
)


async def list_runs(conn: AsyncConnection, namespace: str, limit: int = 50) -> list[dict[str, Any]]:
    """Return the latest runs, newest first."""
    result = await conn.execute(
        sa.select(runs_table)
        .where(_R.namespace == namespace)
        .order_by(_R.started_at.desc(), _R.run_id)
        .limit(limit)
    )
    return [
        {
            "run_id": r.run_id,
            "phase": r.phase,
            "trigger": r.trigger,
            "tier": r.tier,
            "lease_token": r.lease_token,
            "started_at": r.started_at,
            "completed_at": r.completed_at,
            "outcome": r.outcome,
            "summary": loads(r.summary_json),
            "inputs": loads(r.inputs_json),
        }
        for r in result
    ]


async def unfinished_runs(conn: AsyncConnection, namespace: str) -> list[str]:
    """Return the ids of the runs that started and never completed, oldest first."""
    result = await conn.execute(
        sa.select(_R.run_id)
        .where(_R.namespace == namespace, _R.completed_at.is_(None))
        .order_by(_R.started_at, _R.run_id)
    )
    return [str(r[0]) for r in result]


async def model_use_since(conn: AsyncConnection, since: int) -> list[tuple[int, int, int]]:
    """Return ``(at, model calls, tokens)`` of the runs and explained plans since ``since``
    (micros), oldest first (plans record no tokens)."""
    runs = await conn.execute(
        sa.select(_R.started_at, _R.summary_json).where(
            _R.started_at >= since, _R.summary_json.is_not(None)
        )
    )
    use = []
    for at, summary in runs:
        stats = (loads(summary) or {}).get("stats") or {}
        use.append((int(at), int(stats.get("model_calls", 0)), int(stats.get("model_tokens", 0))))
    use.extend((at, calls, 0) for at, calls in await plan_model_calls_since(conn, since))
    return sorted(use)


async def model_calls_since(conn: AsyncConnection, since: int) -> int:
    """Return the model calls recorded by runs and explained plans since ``since`` (micros)."""
    return sum(calls for _, calls, _ in await model_use_since(conn, since))


async def model_tokens_since(conn: AsyncConnection, since: int) -> int:
    """Return the tokens the runs started since ``since`` (micros) recorded using."""
    return sum(tokens for _, _, tokens in await model_use_since(conn, since))
