"""Applying a stored plan: exactly what it holds, nothing recomputed.

An item whose facts changed since the plan (another version of the fact's stream), or that
are gone, is refused and listed; items under ``min_confidence`` are refused as such. Every
effect and the ``PlanApplied`` record go in *one* append, checked against the plan stream (a
plan applies once) and every touched fact's stream version (a change that lands between the
check and the append makes the whole append fail, and the check runs again), so after a crash
either the whole application or nothing of it is in the log.

Merge writes one merged fact (the earliest ``valid_from`` of its sources, the union of their
tags and sources, the highest importance and confidence) and supersedes every source with it;
archive appends ``FactArchived`` (restorable); delete appends ``FactForgotten``, or with
``purge`` (a person's choice when applying) ``FactPurged``, which erases the fact's text from
the log. Short of a purge nothing is destroyed: each source stays in the log and in the facts'
history. A merge of facts linked
``distinct`` (an approved ``DIFFERENTIATE``: different things) is refused as ``distinct``.
:func:`restore_fact` brings an archived fact back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from daemon.consolidation.facts_view import stream_versions
from daemon.consolidation.plans import PlanError, load_plan
from daemon.memory.writes import recorded_decision
from events.consolidation_events import (
    FactArchived,
    FactCategorized,
    FactLinked,
    FactRestored,
    PlanApplied,
    PlanCreated,
    Source,
    plan_stream,
)
from events.store.base import ConcurrencyError, EventStore, NewEvent, StoredEvent
from events.types import (
    Event,
    FactForgotten,
    FactPurged,
    FactSuperseded,
    FactValidated,
    FactWritten,
    fact_stream,
)


@dataclass(slots=True)
class _FactNow:
    substantive: int
    version: int
    written: FactWritten | None
    gone: str | None
    archived: bool
    distinct_from: frozenset[str]


def _fact_now(substantive: int, version: int, events: list[StoredEvent]) -> _FactNow:
    written: FactWritten | None = None
    gone: str | None = None
    archived = False
    distinct: set[str] = set()
    for stored in events:
        e = stored.event
        if isinstance(e, FactLinked) and e.kind == "distinct":
            distinct.add(e.other_fact_id)
        elif isinstance(e, FactWritten):
            written, gone = e, None
        elif isinstance(e, FactPurged):
            written, gone = None, "purged"
        elif isinstance(e, FactForgotten):
            gone = "forgotten"
        elif isinstance(e, FactSuperseded) and e.old_fact_id != e.new_fact_id:
            gone = "superseded"
        elif isinstance(e, FactArchived):
            archived = True
        elif isinstance(e, FactRestored):
            archived = False
    if written is None and gone is None:
        gone = "unknown"
    return _FactNow(substantive, version, written, gone, archived, frozenset(distinct))


def _distinct_pairs(ids: list[str], facts: dict[str, _FactNow]) -> list[list[str]]:
    """The pairs of ``ids`` a person said are different things (a ``distinct`` link either way)."""
    return [
        [a, b]
        for k, a in enumerate(ids)
        for b in ids[k + 1 :]
        if b in facts[a].distinct_from or a in facts[b].distinct_from
    ]


def _merge_fact(plan: PlanCreated, item: dict[str, Any], sources: list[FactWritten]) -> FactWritten:
    merged_id = f"{plan.plan_id}-{item['item_id']}"
    return FactWritten(
        fact_id=merged_id,
        text=str(item.get("merged_text") or sources[0].text),
        valid_from=min(s.valid_from for s in sources),
        valid_to=None,
        subject=next((s.subject for s in sources if s.subject), None),
        predicate=next((s.predicate for s in sources if s.predicate), None),
        object=next((s.object for s in sources if s.object), None),
        tags=sorted({t for s in sources for t in s.tags}),
        owner=sources[0].owner,
        provenance="user" if all(s.provenance == "user" for s in sources) else "extraction",
        status="active" if all(s.status == "active" for s in sources) else "quarantined",
        confidence=max(s.confidence for s in sources),
        importance=max(s.importance for s in sources),
        source_message_ids=sorted({m for s in sources for m in s.source_message_ids}),
    )


@dataclass(slots=True)
class ApplyResult:
    plan_id: str
    applied: list[str]
    refused: list[dict[str, Any]]
    results: dict[str, Any]
    position: int

    def to_json(self) -> dict[str, Any]:
        return {
            "plan_id": self.plan_id,
            "applied": self.applied,
            "refused": self.refused,
            "results": self.results,
            "position": self.position,
        }


def _build(
    plan: PlanCreated,
    facts: dict[str, _FactNow],
    now: datetime,
    min_confidence: float | None,
    source: Source,
    purge: bool,
) -> tuple[list[Event], list[str], list[dict[str, Any]], dict[str, Any], set[str]]:
    effects: list[Event] = []
    applied: list[str] = []
    refused: list[dict[str, Any]] = []
    results: dict[str, Any] = {}
    touched: set[str] = set()
    for item in plan.items:
        item_id = str(item["item_id"])
        ids = [str(f) for f in item["fact_ids"]]
        action = str(item["action"])
        if min_confidence is not None and float(item.get("confidence", 0)) < min_confidence:
            refused.append({"item_id": item_id, "reason": "below_min_confidence"})
            continue
        changed = [f for f in ids if facts[f].substantive != plan.based_on.get(f, -1)]
        if changed:
            refused.append({"item_id": item_id, "reason": "changed", "fact_ids": changed})
            continue
        gone = {f: facts[f].gone for f in ids if facts[f].gone is not None}
        if gone:
            refused.append({"item_id": item_id, "reason": "gone", "facts": gone})
            continue
        clash = [f for f in ids if f in touched]
        if clash:
            refused.append(
                {"item_id": item_id, "reason": "touched_by_earlier_item", "fact_ids": clash}
            )
            continue
        distinct = _distinct_pairs(ids, facts) if action == "merge" else []
        if distinct:
            refused.append(
                {
                    "item_id": item_id,
                    "reason": "distinct",
                    "fact_ids": sorted({f for pair in distinct for f in pair}),
                    "pairs": distinct,
                }
            )
            continue
        if action == "merge":
            sources = [w for w in (facts[f].written for f in ids) if w is not None]
            merged = _merge_fact(plan, item, sources)
            effects.append(merged)
            effects.append(
                recorded_decision(
                    merged,
                    at=now,
                    decided_by=f"plan:{plan.plan_id}",
                    reason=f"merged by plan {plan.plan_id} ({item_id})",
                    superseded=ids,
                )
            )
            effects.extend(
                FactSuperseded(old_fact_id=f, new_fact_id=merged.fact_id, at=now) for f in ids
            )
            results[item_id] = {"merged_fact_id": merged.fact_id}
        elif action == "archive":
            effects.extend(
                FactArchived(
                    fact_id=f,
                    at=now,
                    reason=str(item.get("reasoning", "")),
                    plan_id=plan.plan_id,
                    source=source,
                )
                for f in ids
                if not facts[f].archived
            )
        elif action == "delete" and purge:
            effects.extend(FactPurged(fact_id=f) for f in ids)
        elif action == "delete":
            effects.extend(
                FactForgotten(fact_id=f, reason=f"consolidation plan {plan.plan_id}: {item_id}")
                for f in ids
            )
        elif action == "supersede":
            # The last id replaces every one before it; with "validate" the replacement (a
            # write reconciliation held for a person) also becomes active.
            *old_ids, new_id = ids
            newer = facts[new_id].written
            at = newer.valid_from if newer is not None else now
            effects.extend(
                FactSuperseded(old_fact_id=old_id, new_fact_id=new_id, at=at) for old_id in old_ids
            )
            if item.get("validate") and newer is not None and newer.status == "quarantined":
                effects.append(
                    FactValidated(fact_id=new_id, by=source, note=f"plan {plan.plan_id}: {item_id}")
                )
        elif action == "link":
            effects.append(
                FactLinked(
                    fact_id=ids[0],
                    other_fact_id=ids[1],
                    at=now,
                    strength=float(item.get("strength") or 1.0),
                    kind=str(item.get("kind", "related")),
                    by=source,
                )
            )
        elif action == "categorize":
            effects.extend(
                FactCategorized(fact_id=f, category=str(item["category"]), at=now, by=source)
                for f in ids
            )
        elif action == "write":
            written = FactWritten(
                fact_id=f"{plan.plan_id}-{item_id}",
                text=str(item["text"]),
                valid_from=now,
                tags=[str(t) for t in item.get("tags", [])],
                provenance="reflection",
                status="quarantined",
                importance=0.6,
            )
            effects.append(written)
            effects.append(
                recorded_decision(
                    written,
                    at=now,
                    decided_by=f"plan:{plan.plan_id}",
                    reason=f"written by plan {plan.plan_id} ({item_id})",
                )
            )
            effects.extend(
                FactLinked(
                    fact_id=written.fact_id, other_fact_id=f, at=now, kind="cites", by=source
                )
                for f in ids
            )
            results[item_id] = {"fact_id": written.fact_id}
        elif action != "keep":
            refused.append({"item_id": item_id, "reason": f"unknown action {action!r}"})
            continue
        touched.update(ids)
        applied.append(item_id)
    return effects, applied, refused, results, touched


async def apply_plan(
    store: EventStore,
    namespace: str,
    plan_id: str,
    now: datetime,
    *,
    min_confidence: float | None = None,
    source: Source = "user",
    purge: bool = False,
    retries: int = 5,
    extra: Sequence[Event] = (),
    extra_expected: dict[str, int] | None = None,
) -> ApplyResult:
    """Apply exactly the stored plan in one append (see the module docstring)."""
    for _ in range(retries):
        plan, plan_version = await load_plan(store, namespace, plan_id)
        fact_ids = {f for item in plan.items for f in item["fact_ids"]}
        versions = await stream_versions(store, namespace, fact_ids)
        facts = {f: _fact_now(*versions[f]) for f in fact_ids}
        effects, applied, refused, results, touched = _build(
            plan, facts, now, min_confidence, source, purge
        )
        record = PlanApplied(
            plan_id=plan_id,
            at=now,
            applied=applied,
            refused=refused,
            min_confidence=min_confidence,
            source=source,
            results=results,
            purge=purge,
        )
        expected = {plan_stream(plan_id): plan_version}
        expected.update({fact_stream(f): facts[f].version for f in touched})
        expected.update(extra_expected or {})
        try:
            positions = await store.append(
                namespace,
                [NewEvent(e) for e in [*effects, record, *(extra if applied else ())]],
                expected_versions=expected if applied else without(expected, extra_expected),
            )
        except ConcurrencyError:
            continue  # something changed between the check and the append: check again
        return ApplyResult(plan_id, applied, refused, results, positions[-1])
    raise PlanError("busy", f"plan {plan_id!r}: its facts kept changing; try again", 503)


def without(expected: dict[str, int], drop: dict[str, int] | None) -> dict[str, int]:
    """Return ``expected`` without the streams in ``drop``."""
    return {k: v for k, v in expected.items() if k not in (drop or {})}


async def restore_fact(
    store: EventStore, namespace: str, fact_id: str, now: datetime, by: str
) -> int:
    """Bring an archived fact back; refuse one that is not archived or is gone."""
    versions = await stream_versions(store, namespace, [fact_id])
    state = _fact_now(*versions[fact_id])
    if state.gone in ("unknown", "purged"):
        raise PlanError("not_found", f"no fact {fact_id!r}", 404)
    if state.gone == "forgotten":
        raise PlanError("fact_forgotten", f"fact {fact_id!r} was forgotten")
    if not state.archived:
        raise PlanError("not_archived", f"fact {fact_id!r} is not archived")
    [position] = await store.append(
        namespace,
        [NewEvent(FactRestored(fact_id=fact_id, at=now, by=by))],
        expected_versions={fact_stream(fact_id): state.version},
    )
    return position
