"""Review before destruction: preview -> analyze -> apply.

- :func:`preview` finds duplicates, stale facts, low-salience facts and orphans; no model, no
  writes.
- :func:`analyze` turns a preview into a plan of recommendations (exact and near duplicates
  merge, stale and low-salience facts archive, contradicting pairs are kept and flagged) and
  appends it as ``PlanCreated`` with the version of every fact it was based on. A model, when
  given, may add its reasoning to the items (it never changes what the plan does).
- :func:`apply_plan` applies exactly the stored plan (nothing recomputed). An item whose facts
  changed since the plan (another version of the fact's stream), or that are gone, is refused
  and listed; items under ``min_confidence`` are refused as such. Every effect and the
  ``PlanApplied`` record go in *one* append, checked against the plan stream (a plan applies
  once) and every touched fact's stream version (a change that lands between the check and the
  append makes the whole append fail, and the check runs again), so after a crash either the
  whole application or nothing of it is in the log.

Merge writes one merged fact (the earliest ``valid_from`` of its sources, the union of their
tags and sources, the highest importance and confidence) and supersedes every source with it;
archive appends ``FactArchived`` (restorable); delete appends ``FactForgotten``. Nothing is
destroyed: each source stays in the log and in the facts' history.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.consolidation.facts_view import (
    FactView,
    current_facts,
    embed,
    similar_pairs,
    stream_versions,
)
from daemon.consolidation.rules import judge_pair, normalise, salience
from daemon.memory.reconcile import contradiction
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
from plugins.embedders.base import Embedder
from projections.consolidation import links_of
from projections.facts import decisions_of

DAY_MICROS = 86_400 * 1_000_000
Explainer = Callable[[dict[str, Any], list[str]], Awaitable[str | None]]
ACTIONS = ("merge", "keep", "delete", "archive", "supersede", "link", "categorize", "write")


class PlanError(Exception):
    """A plan cannot be applied (unknown, already applied); ``code`` names why."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


@dataclass(frozen=True, slots=True)
class PreviewSettings:
    """What preview and analyze look for."""

    stale_days: float = 90.0
    min_score: float = 0.1
    tau_days: float = 30.0
    near_duplicate: float = 0.95
    conflict_floor: float = 0.3
    """Pairs below this cosine are not compared for conflicts (cheap pre-filter)."""


@dataclass(slots=True)
class Preview:
    """What consolidation would look at."""

    duplicates: list[dict[str, Any]] = field(default_factory=list)
    stale: list[dict[str, Any]] = field(default_factory=list)
    low_score: list[dict[str, Any]] = field(default_factory=list)
    orphans: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "duplicates": self.duplicates,
            "stale": self.stale,
            "low_score": self.low_score,
            "orphans": self.orphans,
            "conflicts": self.conflicts,
        }


def fact_salience(view: FactView, now_micros: int, tau_days: float) -> float:
    """Return a fact's salience now (time since its last activity decays it)."""
    row, st = view.row, view.state
    last = max(
        int(row.recorded_from.timestamp() * 1_000_000),
        st.last_recalled_at or 0,
        st.last_reinforced_at or 0,
    )
    return salience(
        days=(now_micros - last) / DAY_MICROS,
        tau_days=tau_days,
        recalls=st.recall_count,
        reinforcements=st.reinforcements,
        importance=row.importance,
        provenance=row.provenance,
        status=row.status,
        confidence=row.confidence,
    )


def _last_active(view: FactView) -> int:
    return max(
        int(view.row.recorded_from.timestamp() * 1_000_000),
        view.state.last_recalled_at or 0,
        view.state.last_reinforced_at or 0,
    )


async def find_pairs(
    views: Sequence[FactView], embedder: Embedder, settings: PreviewSettings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return (duplicate groups/pairs, conflicting pairs) among ``views`` (no model)."""
    duplicates: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    groups: dict[str, list[str]] = {}
    for v in views:
        groups.setdefault(normalise(v.row.text), []).append(v.fact_id)
    exact_members: set[str] = set()
    for ids in groups.values():
        if len(ids) > 1:
            duplicates.append({"fact_ids": ids, "similarity": 1.0, "kind": "exact"})
            exact_members.update(ids[1:])
    vectors = await embed(embedder, [v.row.text for v in views])
    floor = min(settings.conflict_floor, settings.near_duplicate)
    for i, j, cosine in similar_pairs(vectors, floor):
        a, b = views[i], views[j]
        if a.fact_id in exact_members or b.fact_id in exact_members:
            continue
        if normalise(a.row.text) == normalise(b.row.text):
            continue
        # The grammar knows which attributes hold one value at a time: "speaks Spanish" and
        # "speaks German" are both true, "lives in Boston" and "lives in Berlin" are not.
        read = contradiction(a.row.text, b.row.text)
        verdict = judge_pair(
            a.row.text,
            b.row.text,
            cosine,
            duplicate_cosine=settings.near_duplicate,
            triple_a=(a.row.subject, a.row.predicate, a.row.object) if read is None else _NO_TRIPLE,
            triple_b=(b.row.subject, b.row.predicate, b.row.object) if read is None else _NO_TRIPLE,
        )
        conflict, reason = (
            (verdict.conflict, verdict.reason) if read is None else (bool(read), read)
        )
        pair = [a.fact_id, b.fact_id]
        if verdict.duplicate and not conflict:
            duplicates.append({"fact_ids": pair, "similarity": round(cosine, 6), "kind": "near"})
        elif conflict:
            conflicts.append({"fact_ids": pair, "similarity": round(cosine, 6), "reason": reason})
    return duplicates, conflicts


async def preview(
    conn: AsyncConnection,
    namespace: str,
    embedder: Embedder,
    now: datetime,
    settings: PreviewSettings,
) -> Preview:
    """Return duplicates, stale, low-score facts, orphans and conflicts (no writes)."""
    views = await current_facts(conn, namespace)
    out = Preview()
    out.duplicates, out.conflicts = await find_pairs(views, embedder, settings)
    out.conflicts += await _reconciliation_conflicts(
        conn, namespace, views, out.conflicts, embedder
    )
    now_us = int(now.timestamp() * 1_000_000)
    for v in views:
        idle_days = (now_us - _last_active(v)) / DAY_MICROS
        if idle_days >= settings.stale_days:
            out.stale.append({"fact_id": v.fact_id, "days": round(idle_days, 3)})
        score = fact_salience(v, now_us, settings.tau_days)
        if score < settings.min_score:
            out.low_score.append({"fact_id": v.fact_id, "score": round(score, 6)})
        if (
            not v.row.tags
            and not v.row.source_message_ids
            and v.state.recall_count == 0
            and v.state.category is None
            and v.row.supersedes is None
            and not await links_of(conn, namespace, v.fact_id)
        ):
            out.orphans.append({"fact_id": v.fact_id})
    return out


_NO_TRIPLE: tuple[None, None, None] = (None, None, None)


async def _reconciliation_conflicts(
    conn: AsyncConnection,
    namespace: str,
    views: Sequence[FactView],
    found: Sequence[dict[str, Any]],
    embedder: Embedder,
) -> list[dict[str, Any]]:
    """Conflicts a write's reconciliation queued for a person whose facts are both still
    current: preview shows every open contradiction, not only those the text rules see."""
    current = {v.fact_id: v for v in views}
    seen = {frozenset(c["fact_ids"]) for c in found}
    decisions = await decisions_of(conn, namespace, list(current), roles=("written",))
    out: list[dict[str, Any]] = []
    for fact_id, made in decisions.items():
        for decision in made:
            if decision["outcome"] != "conflict":
                continue
            for other in decision["conflicts_with"]:
                pair = frozenset((other, fact_id))
                if other not in current or pair in seen:
                    continue
                seen.add(pair)
                vectors = await embed(
                    embedder, [current[other].row.text, current[fact_id].row.text]
                )
                out.append(
                    {
                        "fact_ids": [other, fact_id],
                        "similarity": round(float(vectors[0] @ vectors[1]), 6),
                        "reason": f"reconciliation: {decision['reason']}",
                    }
                )
    return out


def recommendations(result: Preview, views: dict[str, FactView]) -> list[dict[str, Any]]:
    """Turn a preview into plan items with the deterministic rules."""
    items: list[dict[str, Any]] = []
    claimed: set[str] = set()

    def add(
        action: str, fact_ids: list[str], confidence: float, reasoning: str, **extra: Any
    ) -> None:
        items.append(
            {
                "item_id": f"i{len(items) + 1}",
                "action": action,
                "fact_ids": fact_ids,
                "confidence": round(confidence, 6),
                "reasoning": reasoning,
                **extra,
            }
        )

    for dup in sorted(result.duplicates, key=lambda d: -float(d["similarity"])):
        ids = [i for i in dup["fact_ids"] if i not in claimed]
        if len(ids) < 2:
            continue
        claimed.update(ids)
        rows = [views[i].row for i in ids]
        best = max(rows, key=lambda r: (len(r.text), r.importance, -r.written_position))
        kind = dup.get("kind", "near")
        add(
            "merge",
            ids,
            float(dup["similarity"]),
            f"{kind} duplicates (similarity {dup['similarity']}); keep the fullest text",
            target=best.fact_id,
            merged_text=best.text,
            inputs={"similarity": dup["similarity"], "kind": kind},
        )
    for conflict in result.conflicts:
        ids = [i for i in conflict["fact_ids"] if i not in claimed]
        if len(ids) < 2:
            continue
        claimed.update(ids)
        add(
            "keep",
            ids,
            0.5,
            f"possible contradiction ({conflict['reason']}); needs a judge or a person",
            inputs=conflict,
        )
    for stale in result.stale:
        if stale["fact_id"] in claimed:
            continue
        claimed.add(stale["fact_id"])
        add(
            "archive",
            [stale["fact_id"]],
            0.8,
            f"no activity for {stale['days']} days",
            inputs=stale,
        )
    for low in result.low_score:
        if low["fact_id"] in claimed:
            continue
        claimed.add(low["fact_id"])
        add(
            "archive", [low["fact_id"]], 0.6, f"salience {low['score']} below the floor", inputs=low
        )
    return items


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


async def create_plan(
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
) -> tuple[PlanCreated, int]:
    """Append a plan with the versions of every fact it touches; return it and its position."""
    plan = await build_plan(
        store,
        namespace,
        items,
        now,
        inputs=inputs,
        source=source,
        model=model,
        plan_id=plan_id,
        based_on=based_on,
    )
    [position] = await store.append(
        namespace, [NewEvent(plan)], expected_versions={plan.stream_id: 0}
    )
    return plan, position


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
    return await create_plan(
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


# -- apply -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _FactNow:
    substantive: int
    version: int
    written: FactWritten | None
    gone: str | None
    archived: bool


def _fact_now(substantive: int, version: int, events: list[StoredEvent]) -> _FactNow:
    written: FactWritten | None = None
    gone: str | None = None
    archived = False
    for stored in events:
        e = stored.event
        if isinstance(e, FactWritten):
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
    return _FactNow(substantive, version, written, gone, archived)


async def load_plan(store: EventStore, namespace: str, plan_id: str) -> tuple[PlanCreated, int]:
    """Return a plan and its stream version; refuse an unknown or applied plan."""
    events = await store.read_stream(namespace, plan_stream(plan_id))
    plan = next((e.event for e in events if isinstance(e.event, PlanCreated)), None)
    if plan is None:
        raise PlanError("not_found", f"no plan {plan_id!r}", 404)
    if any(isinstance(e.event, PlanApplied) for e in events):
        raise PlanError("plan_applied", f"plan {plan_id!r} was already applied")
    return plan, events[-1].stream_version


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
            plan, facts, now, min_confidence, source
        )
        record = PlanApplied(
            plan_id=plan_id,
            at=now,
            applied=applied,
            refused=refused,
            min_confidence=min_confidence,
            source=source,
            results=results,
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
