"""Consolidation plans: review before destruction (preview -> analyze -> apply).

:func:`analyze` turns a preview (:mod:`daemon.consolidation.preview`) into a plan of
recommendations and appends it as ``PlanCreated`` with the version of every fact it was
based on. A model, when given, may add its reasoning to the items (it never changes what the
plan does). :func:`load_plan` reads a plan back for :mod:`daemon.consolidation.apply`, which
applies exactly what was stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.consolidation.facts_view import current_facts, stream_versions
from daemon.consolidation.preview import PreviewSettings, preview, recommendations
from events.consolidation_events import PlanApplied, PlanCreated, Source, plan_stream
from events.store.base import EventStore, NewEvent
from plugins.embedders.base import Embedder

Explainer = Callable[[dict[str, Any], list[str]], Awaitable[str | None]]


class PlanError(Exception):
    """A plan cannot be applied (unknown, already applied); ``code`` names why."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def new_plan_id() -> str:
    return f"plan-{uuid.uuid4().hex[:16]}"


async def build_plan(
    store: EventStore,
    namespace: str,
    items: list[dict[str, Any]],
    now: datetime,
    *,
    inputs: dict[str, Any] | None = None,
    source: Source = "user",
    model: str | None = None,
    plan_id: str | None = None,
    based_on: dict[str, int] | None = None,
) -> PlanCreated:
    """Return a plan with the versions of every fact it touches (not appended).

    ``based_on`` gives versions seen earlier (a queued review item's); the others are read now.
    """
    fact_ids = {f for item in items for f in item["fact_ids"]}
    versions = await stream_versions(store, namespace, fact_ids)
    seen = {f: v[0] for f, v in versions.items()}
    seen.update({f: v for f, v in (based_on or {}).items() if f in seen})
    return PlanCreated(
        plan_id=plan_id or new_plan_id(),
        at=now,
        items=items,
        based_on=seen,
        inputs=inputs or {},
        source=source,
        model=model,
    )


async def append_plan(store: EventStore, namespace: str, plan: PlanCreated) -> int:
    """Append a built plan (a plan id is used once); return its position."""
    [position] = await store.append(
        namespace, [NewEvent(plan)], expected_versions={plan.stream_id: 0}
    )
    return position


async def analyze(
    store: EventStore,
    conn: AsyncConnection,
    namespace: str,
    embedder: Embedder,
    now: datetime,
    settings: PreviewSettings,
    *,
    source: Source = "user",
    explain: Explainer | None = None,
) -> tuple[PlanCreated, int]:
    """Preview, recommend, and store the plan.

    ``explain`` (a model, when there is one) is asked for its reasoning on each item; its
    answer replaces the rule's reasoning but never changes the action or the facts.
    """
    result = await preview(conn, namespace, embedder, now, settings)
    views = {v.fact_id: v for v in await current_facts(conn, namespace)}
    items = recommendations(result, views)
    model: str | None = None
    calls = 0
    if explain is not None:
        for item in items:
            texts = [views[f].row.text for f in item["fact_ids"] if f in views]
            reasoning = await explain(item, texts)
            if reasoning:
                calls += 1
                item["reasoning"] = reasoning[:2000]
                model = "explained"
    plan = await build_plan(
        store,
        namespace,
        items,
        now,
        inputs={
            "stale_days": settings.stale_days,
            "min_score": settings.min_score,
            "tau_days": settings.tau_days,
            "near_duplicate": settings.near_duplicate,
            "model_calls": calls,
        },
        source=source,
        model=model,
    )
    return plan, await append_plan(store, namespace, plan)


async def load_plan(store: EventStore, namespace: str, plan_id: str) -> tuple[PlanCreated, int]:
    """Return a plan and its stream version; refuse an unknown or applied plan."""
    events = await store.read_stream(namespace, plan_stream(plan_id))
    plan = next((e.event for e in events if isinstance(e.event, PlanCreated)), None)
    if plan is None:
        raise PlanError("not_found", f"no plan {plan_id!r}", 404)
    if any(isinstance(e.event, PlanApplied) for e in events):
        raise PlanError("plan_applied", f"plan {plan_id!r} was already applied")
    return plan, events[-1].stream_version
