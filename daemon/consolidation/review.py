"""Approving and rejecting queued agent actions.

Approving turns the action into a one-item plan (``PlanCreated``, source user, based on the
fact versions the agent saw when the item was queued) and applies it like any plan, with
``ReviewItemApproved`` in the same append as the effects; if the facts changed since the
agent saw them, the item is refused (and stays pending):

- ``MERGE a b "text"`` merges a and b into a fact with that text (sources superseded);
- ``COMPRESS a "summary"`` replaces a by the summary (a superseded);
- ``CONFLICT a b "why"`` resolves by superseding the older by the newer (valid time closed at
  the newer fact's ``valid_from``);
- ``DIFFERENTIATE a b "how"`` links them as ``distinct`` (never to be merged);
- ``EXTRACT a topic section`` categorizes a as ``topic/section``;
- ``DIGEST "title" "content"`` writes a quarantined reflection fact citing the batch it was
  written from (every fact the agent was shown);
- ``LINK`` / ``CATEGORIZE`` apply as they are.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from daemon.consolidation.apply import ApplyResult, apply_plan
from daemon.consolidation.facts_view import stream_versions
from daemon.consolidation.plans import PlanError, append_plan, build_plan
from events.consolidation_events import (
    ReviewItemApproved,
    ReviewItemQueued,
    ReviewItemRejected,
    review_stream,
)
from events.store.base import EventStore, NewEvent
from events.types import FactWritten


async def _pending(store: EventStore, namespace: str, item_id: str) -> tuple[ReviewItemQueued, int]:
    events = await store.read_stream(namespace, review_stream(item_id))
    queued = next((e.event for e in events if isinstance(e.event, ReviewItemQueued)), None)
    if queued is None:
        raise PlanError("not_found", f"no review item {item_id!r}", 404)
    if len(events) > 1:
        raise PlanError("already_decided", f"review item {item_id!r} was already decided")
    return queued, events[-1].stream_version


async def plan_item(store: EventStore, namespace: str, action: dict[str, Any]) -> dict[str, Any]:
    """Return the plan item that carries out an approved action."""
    verb = str(action.get("verb"))
    ids = [str(f) for f in action.get("fact_ids", [])]
    texts = [str(t) for t in action.get("texts", [])]
    item: dict[str, Any] = {"item_id": "i1", "fact_ids": ids, "confidence": 1.0}
    reasoning = f"approved {verb}"
    if verb == "MERGE" or verb == "COMPRESS":
        item.update(action="merge", merged_text=texts[0])
    elif verb == "CONFLICT" and action.get("validate"):
        # Held by reconciliation: the new write replaces what it contradicts, once approved.
        new_id = str(action["validate"])
        olds = [f for f in ids if f != new_id]
        item.update(action="supersede", fact_ids=[*olds, new_id], validate=True)
    elif verb == "CONFLICT":
        versions = await stream_versions(store, namespace, ids)
        written: list[tuple[datetime, int, str]] = []
        for fact_id in ids:
            events = versions[fact_id][2]
            w = next((e for e in events if isinstance(e.event, FactWritten)), None)
            if w is None or not isinstance(w.event, FactWritten):
                raise PlanError("gone", f"fact {fact_id!r} is gone")
            written.append((w.event.valid_from, w.position, fact_id))
        written.sort()
        item.update(action="supersede", fact_ids=[written[0][2], written[-1][2]])
    elif verb == "DIFFERENTIATE":
        item.update(action="link", kind="distinct")
    elif verb == "EXTRACT":
        item.update(action="categorize", category=f"{texts[0]}/{texts[1]}")
    elif verb == "DIGEST":
        item.update(action="write", text=f"{texts[0]}: {texts[1]}", tags=["digest"])
    elif verb == "LINK":
        item.update(action="link", strength=action.get("strength"))
    elif verb == "CATEGORIZE":
        item.update(action="categorize", category=texts[0])
    else:
        raise PlanError("unknown_action", f"cannot carry out {verb!r}", 422)
    item["reasoning"] = reasoning
    return item


async def approve(
    store: EventStore, namespace: str, item_id: str, now: datetime, by: str
) -> ApplyResult:
    """Carry out a queued action as a one-item plan; record the approval in the same append."""
    queued, version = await _pending(store, namespace, item_id)
    item = await plan_item(store, namespace, queued.action)
    plan = await build_plan(
        store,
        namespace,
        [item],
        now,
        inputs={"review_item": item_id},
        source="user",
        based_on=queued.based_on,
    )
    await append_plan(store, namespace, plan)
    return await apply_plan(
        store,
        namespace,
        plan.plan_id,
        now,
        source="user",
        extra=[ReviewItemApproved(item_id=item_id, at=now, by=by, plan_id=plan.plan_id)],
        extra_expected={review_stream(item_id): version},
    )


async def reject(
    store: EventStore, namespace: str, item_id: str, now: datetime, by: str, reason: str | None
) -> int:
    """Record a rejection."""
    _, version = await _pending(store, namespace, item_id)
    [position] = await store.append(
        namespace,
        [NewEvent(ReviewItemRejected(item_id=item_id, at=now, by=by, reason=reason))],
        expected_versions={review_stream(item_id): version},
    )
    return position
