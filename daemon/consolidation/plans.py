"""Consolidation plans: review before destruction (preview -> analyze -> apply).

:func:`analyze` turns a preview (:mod:`daemon.consolidation.preview`) into a plan of
recommendations and appends it as ``PlanCreated`` with the version of every fact it was
based on. A model, when given, decides each item: merge (with the merged text), keep them all,
delete or archive, with its reasoning (:func:`model_decision`); the rule's proposal, the
model's answer and who decided stay in the item. An answer that decides nothing usable leaves
the rule's action and only words the reasoning. :func:`load_plan` reads a plan back for
:mod:`daemon.consolidation.apply`, which applies exactly what was stored.
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
from plugins.llm.types import Completion

Decider = Callable[[dict[str, Any], list[str]], Awaitable[Completion | None]]
"""Asks a model about a plan item and its facts' texts; its answer (None: no model or budget)."""

DECISIONS = {"MERGE": "merge", "KEEP": "keep", "DELETE": "delete", "ARCHIVE": "archive"}


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


def model_decision(item: dict[str, Any], answer: str, model: str | None = None) -> dict[str, Any]:
    """Return ``item`` as the model decided it (``DECISION:``, ``TEXT:`` for a merge,
    ``REASON:`` lines), keeping what the rule proposed, what the model said and which model
    said it."""
    fields: dict[str, str] = {}
    for line in answer.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().upper() in ("DECISION", "TEXT", "REASON"):
            fields.setdefault(key.strip().upper(), value.strip())
    inputs = {
        **item.get("inputs", {}),
        "rule_action": item["action"],
        "model_answer": answer[:2000],
        **({"model": model} if model else {}),
    }
    decided = {**item, "inputs": inputs, "decided_by": "rules"}
    verb = fields.get("DECISION", "").split(" ")[0].upper()
    action = DECISIONS.get(verb)
    reasoning = fields.get("REASON") or answer.strip()
    if action is None:
        # No decision in it: the rule's action stands, worded by the model.
        decided["reasoning"] = reasoning[:2000]
        if verb:
            inputs["model_error"] = f"unknown decision {verb!r}"
        return decided
    if action == "merge" and len(item["fact_ids"]) < 2:
        inputs["model_error"] = "a merge needs two facts or more"
        return decided
    decided.update(action=action, reasoning=reasoning[:2000], decided_by="model")
    if action == "merge":
        decided["merged_text"] = (fields.get("TEXT") or item.get("merged_text") or "")[:2000]
    else:
        decided.pop("merged_text", None)
        decided.pop("target", None)
    return decided


async def analyze(
    store: EventStore,
    conn: AsyncConnection,
    namespace: str,
    embedder: Embedder,
    now: datetime,
    settings: PreviewSettings,
    *,
    source: Source = "user",
    decide: Decider | None = None,
) -> tuple[PlanCreated, int]:
    """Preview, recommend, and store the plan.

    ``decide`` (a model, when there is one) decides each item (:func:`model_decision`); the
    facts an item is about are the rule's, whatever the model says.
    """
    result = await preview(conn, namespace, embedder, now, settings)
    views = {v.fact_id: v for v in await current_facts(conn, namespace)}
    items = recommendations(result, views)
    model: str | None = None
    calls = 0
    if decide is not None:
        for k, item in enumerate(items):
            texts = [views[f].row.text for f in item["fact_ids"] if f in views]
            completion = await decide(item, texts)
            answer = "" if completion is None else completion.text.strip()
            if completion is not None and answer:
                calls += 1
                items[k] = model_decision(item, answer, completion.model)
                model = completion.model or "decided"
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
