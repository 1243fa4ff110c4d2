"""The consolidation projection: plans, the consolidation log, runs, the review queue, and the
per-fact state consolidation keeps (archived, reinforcements, category, links, recall evidence).

Fold rules (pure: times come from event payloads and ``recorded_at``):

- ``PlanCreated`` stores the plan (``pending``); ``PlanApplied`` marks it ``applied`` and adds
  one log row per applied item (``source`` from the event) and per refused item
  (``action = refused``).
- ``FactArchived`` / ``FactRestored`` set and clear ``archived`` (and log a row each).
- ``FactReinforced`` counts reinforcements (and, for ``recall``, nothing else: recall counts
  come from ``RecallRecorded``). ``FactCategorized`` sets the category, ``FactLinked`` upserts a
  link (both directions are looked up by readers).
- ``RecallRecorded``: for every fact hit, ``recall_count`` + 1, the query's hash added to the
  distinct-query set (bounded at :data:`MAX_QUERY_HASHES`), first/last recall times.
- ``ConsolidationRunStarted`` / ``ConsolidationRunCompleted`` fill ``consolidation_runs``.
- ``ReviewItemQueued`` / ``Approved`` / ``Rejected`` fill ``review_items``.
- ``ValidationRefused`` logs a row. ``LearnedContextWritten`` keeps the latest block.
- ``FactPurged`` removes the fact's state and links.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.codec import parse_datetime
from events.consolidation_events import (
    CONSOLIDATION_EVENT_CLASSES,
    ConsolidationRunCompleted,
    ConsolidationRunStarted,
    FactArchived,
    FactCategorized,
    FactLinked,
    FactReinforced,
    FactRestored,
    LearnedContextWritten,
    PlanApplied,
    PlanCreated,
    ReviewItemApproved,
    ReviewItemQueued,
    ReviewItemRejected,
    ValidationRefused,
)
from events.recall_events import RecallRecorded
from events.retrospective_events import RetrospectiveSucceeded
from events.store.base import StoredEvent
from events.types import Event, FactPurged, FactWritten
from projections.base import Projection, dumps, loads, upsert
from projections.text import normalise

MAX_QUERY_HASHES = 50
"""Distinct query hashes kept per fact (enough for any promotion threshold)."""

metadata = sa.MetaData()

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

fact_state_table = sa.Table(
    "consolidation_fact_state",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("archived", sa.Boolean, nullable=False),
    sa.Column("archived_reason", sa.Text),
    sa.Column("reinforcements", sa.Integer, nullable=False),
    sa.Column("last_reinforced_at", sa.BigInteger),
    sa.Column("category", sa.String(200)),
    sa.Column("recall_count", sa.Integer, nullable=False),
    sa.Column("query_hashes_json", sa.Text, nullable=False),
    sa.Column("first_recalled_at", sa.BigInteger),
    sa.Column("last_recalled_at", sa.BigInteger),
    sa.Column("refused_validations", sa.Integer, nullable=False),
    sa.Column("text_hash", sa.String(32)),
)
sa.Index("ix_consolidation_text_hash", fact_state_table.c.namespace, fact_state_table.c.text_hash)

links_table = sa.Table(
    "consolidation_links",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("other_fact_id", sa.String(300), primary_key=True),
    sa.Column("strength", sa.Float, nullable=False),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
)

learned_table = sa.Table(
    "consolidation_learned_context",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("fact_ids_json", sa.Text, nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
)

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
)

_P = plans_table.c
_L = log_table.c
_R = runs_table.c
_Q = review_table.c
_S = fact_state_table.c
_K = links_table.c


def text_hash(text: str) -> str:
    """Return the hash of a fact's normalised text (exact duplicates share it)."""
    return hashlib.sha256(normalise(text).encode()).hexdigest()[:32]


def query_hash(query: str) -> str:
    """Return the short hash a query is counted by (case and spacing ignored)."""
    return hashlib.sha256(" ".join(query.lower().split()).encode()).hexdigest()[:16]


def _empty_state(namespace: str, fact_id: str) -> dict[str, Any]:
    return {
        "namespace": namespace,
        "fact_id": fact_id,
        "archived": False,
        "archived_reason": None,
        "reinforcements": 0,
        "last_reinforced_at": None,
        "category": None,
        "recall_count": 0,
        "query_hashes_json": "[]",
        "first_recalled_at": None,
        "last_recalled_at": None,
        "refused_validations": 0,
        "text_hash": None,
    }


class ConsolidationProjection(Projection):
    """Folds consolidation, review and recall-evidence events."""

    name: ClassVar[str] = "consolidation"
    # 3: exact-duplicate keys use projections.text.normalise (apostrophes folded).
    version: ClassVar[int] = 3
    metadata: ClassVar[sa.MetaData] = metadata

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        fold = _Fold(conn)
        for stored in events:
            await fold.apply(stored)
        await fold.flush()
        await _fold_activity(conn, events)


_OWN_CLASSES: tuple[type[Event], ...] = (*CONSOLIDATION_EVENT_CLASSES, RecallRecorded)
_OWN_EVENTS = frozenset(cls.event_type for cls in _OWN_CLASSES)


async def _fold_activity(conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
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


class _Fold:
    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        self.states: dict[tuple[str, str], dict[str, Any]] = {}
        self.dirty: set[tuple[str, str]] = set()

    async def state(self, namespace: str, fact_id: str) -> dict[str, Any]:
        key = (namespace, fact_id)
        row = self.states.get(key)
        if row is None:
            found = (
                await self.conn.execute(
                    sa.select(fact_state_table).where(
                        _S.namespace == namespace, _S.fact_id == fact_id
                    )
                )
            ).first()
            row = dict(found._mapping) if found is not None else _empty_state(*key)
            self.states[key] = row
        self.dirty.add(key)
        return row

    async def log(
        self,
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
        await self.conn.execute(
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

    async def apply(self, stored: StoredEvent) -> None:
        event = stored.event
        ns = stored.namespace
        if isinstance(event, FactWritten):
            st = await self.state(ns, event.fact_id)
            if st["text_hash"] is None:
                st["text_hash"] = text_hash(event.text)
        elif isinstance(event, PlanCreated):
            await self.conn.execute(
                upsert(self.conn, plans_table, ["namespace", "plan_id"]),
                [
                    {
                        "namespace": ns,
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
        elif isinstance(event, PlanApplied):
            await self._plan_applied(stored, event)
        elif isinstance(event, FactArchived):
            st = await self.state(ns, event.fact_id)
            st["archived"] = True
            st["archived_reason"] = event.reason
            await self.log(
                stored,
                0,
                "archive",
                [event.fact_id],
                event.at,
                plan_id=event.plan_id,
                run_id=event.run_id,
                source=event.source,
                detail={"reason": event.reason, "salience": event.salience},
            )
        elif isinstance(event, FactRestored):
            st = await self.state(ns, event.fact_id)
            st["archived"] = False
            st["archived_reason"] = None
            await self.log(
                stored, 0, "restore", [event.fact_id], event.at, source="user", detail={}
            )
        elif isinstance(event, FactReinforced):
            st = await self.state(ns, event.fact_id)
            st["reinforcements"] += 1
            st["last_reinforced_at"] = to_micros(event.at)
            if event.reason == "duplicate":
                await self.log(
                    stored,
                    0,
                    "reinforce",
                    [event.fact_id],
                    event.at,
                    detail={"similarity": event.similarity},
                )
        elif isinstance(event, FactCategorized):
            st = await self.state(ns, event.fact_id)
            st["category"] = event.category
            await self.log(
                stored,
                0,
                "categorize",
                [event.fact_id],
                event.at,
                detail={"category": event.category, "by": event.by},
            )
        elif isinstance(event, FactLinked):
            await self.conn.execute(
                upsert(
                    self.conn,
                    links_table,
                    ["namespace", "fact_id", "other_fact_id"],
                    ["strength", "kind", "position"],
                ),
                [
                    {
                        "namespace": ns,
                        "fact_id": event.fact_id,
                        "other_fact_id": event.other_fact_id,
                        "strength": float(event.strength),
                        "kind": event.kind,
                        "position": stored.position,
                    }
                ],
            )
            await self.log(
                stored,
                0,
                "link",
                [event.fact_id, event.other_fact_id],
                event.at,
                detail={"strength": event.strength, "by": event.by},
            )
        elif isinstance(event, ValidationRefused):
            st = await self.state(ns, event.fact_id)
            st["refused_validations"] += 1
            await self.log(
                stored,
                0,
                "validation_refused",
                [event.fact_id],
                event.at,
                source="user",
                detail={"flags": event.flags, "by": event.by},
            )
        elif isinstance(event, RecallRecorded):
            await self._recalls(ns, event)
        elif isinstance(event, ConsolidationRunStarted):
            await self.conn.execute(
                upsert(self.conn, runs_table, ["namespace", "run_id"]),
                [
                    {
                        "namespace": ns,
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
        elif isinstance(event, ConsolidationRunCompleted):
            await self.conn.execute(
                runs_table.update()
                .where(_R.namespace == ns, _R.run_id == event.run_id)
                .values(
                    completed_at=to_micros(event.at),
                    outcome=event.outcome,
                    summary_json=dumps(
                        {"actions": event.actions, "stats": event.stats, "error": event.error}
                    ),
                )
            )
        elif isinstance(event, ReviewItemQueued):
            await self.conn.execute(
                upsert(self.conn, review_table, ["namespace", "item_id"]),
                [
                    {
                        "namespace": ns,
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
        elif isinstance(event, ReviewItemApproved | ReviewItemRejected):
            values: dict[str, Any] = {"decided_at": to_micros(event.at), "decided_by": event.by}
            if isinstance(event, ReviewItemApproved):
                values.update(status="approved", plan_id=event.plan_id)
            else:
                values.update(status="rejected", reason=event.reason)
            await self.conn.execute(
                review_table.update()
                .where(_Q.namespace == ns, _Q.item_id == event.item_id, _Q.status == "pending")
                .values(**values)
            )
        elif isinstance(event, LearnedContextWritten):
            await self.conn.execute(
                upsert(
                    self.conn,
                    learned_table,
                    ["namespace"],
                    ["text", "fact_ids_json", "position", "at"],
                ),
                [
                    {
                        "namespace": ns,
                        "text": event.text,
                        "fact_ids_json": dumps(event.fact_ids),
                        "position": stored.position,
                        "at": to_micros(event.at),
                    }
                ],
            )
        elif isinstance(event, FactPurged):
            await self.flush()
            self.states.pop((ns, event.fact_id), None)
            await self.conn.execute(
                fact_state_table.delete().where(_S.namespace == ns, _S.fact_id == event.fact_id)
            )
            await self.conn.execute(
                links_table.delete().where(
                    _K.namespace == ns,
                    sa.or_(_K.fact_id == event.fact_id, _K.other_fact_id == event.fact_id),
                )
            )

    async def _plan_applied(self, stored: StoredEvent, event: PlanApplied) -> None:
        ns = stored.namespace
        row = (
            await self.conn.execute(
                sa.select(_P.plan_json, _P.status).where(
                    _P.namespace == ns, _P.plan_id == event.plan_id
                )
            )
        ).first()
        if row is None or row.status != "pending":
            return
        await self.conn.execute(
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
            await self.log(
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
            await self.log(
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

    async def _recalls(self, ns: str, event: RecallRecorded) -> None:
        for recall in event.recalls:
            at_text = recall.get("at")
            at = to_micros(parse_datetime(at_text)) if isinstance(at_text, str) else None
            qhash = query_hash(str(recall.get("query", "")))
            seen: set[str] = set()
            # A quarantined fact a default search would have returned ("shadow") counts as a
            # recall: it is how a quarantined fact earns promotion from ordinary use.
            for hit in [*recall.get("hits", []), *recall.get("shadow", [])]:
                if not isinstance(hit, dict) or hit.get("kind") != "fact":
                    continue
                fact_id = str(hit.get("id"))
                if fact_id in seen:
                    continue
                seen.add(fact_id)
                st = await self.state(ns, fact_id)
                st["recall_count"] += 1
                hashes: list[str] = loads(st["query_hashes_json"])
                if qhash not in hashes and len(hashes) < MAX_QUERY_HASHES and recall.get("query"):
                    hashes.append(qhash)
                    st["query_hashes_json"] = dumps(sorted(hashes))
                if at is not None:
                    if st["first_recalled_at"] is None or at < st["first_recalled_at"]:
                        st["first_recalled_at"] = at
                    if st["last_recalled_at"] is None or at > st["last_recalled_at"]:
                        st["last_recalled_at"] = at

    async def flush(self) -> None:
        if not self.dirty:
            return
        rows = [self.states[k] for k in sorted(self.dirty) if k in self.states]
        self.dirty.clear()
        if rows:
            columns = [c.name for c in fact_state_table.columns]
            await self.conn.execute(
                upsert(
                    self.conn,
                    fact_state_table,
                    ["namespace", "fact_id"],
                    [c for c in columns if c not in ("namespace", "fact_id")],
                ),
                rows,
            )


# -- reads ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FactState:
    """What consolidation knows about one fact."""

    fact_id: str
    archived: bool = False
    archived_reason: str | None = None
    reinforcements: int = 0
    category: str | None = None
    recall_count: int = 0
    distinct_queries: int = 0
    first_recalled_at: int | None = None
    last_recalled_at: int | None = None
    last_reinforced_at: int | None = None


def _state(row: sa.Row[Any]) -> FactState:
    return FactState(
        fact_id=row.fact_id,
        archived=bool(row.archived),
        archived_reason=row.archived_reason,
        reinforcements=int(row.reinforcements),
        category=row.category,
        recall_count=int(row.recall_count),
        distinct_queries=len(loads(row.query_hashes_json)),
        first_recalled_at=row.first_recalled_at,
        last_recalled_at=row.last_recalled_at,
        last_reinforced_at=row.last_reinforced_at,
    )


async def fact_states(conn: AsyncConnection, namespace: str) -> dict[str, FactState]:
    """Return the consolidation state of every fact that has one."""
    result = await conn.execute(sa.select(fact_state_table).where(_S.namespace == namespace))
    return {r.fact_id: _state(r) for r in result}


async def fact_state(conn: AsyncConnection, namespace: str, fact_id: str) -> FactState | None:
    """Return one fact's consolidation state (recalls, reinforcements, category), if any."""
    row = (
        await conn.execute(
            sa.select(fact_state_table).where(_S.namespace == namespace, _S.fact_id == fact_id)
        )
    ).first()
    return None if row is None else _state(row)


async def same_text(conn: AsyncConnection, namespace: str, text: str) -> list[str]:
    """Return the ids of facts whose normalised text equals ``text``'s (any state)."""
    result = await conn.execute(
        sa.select(_S.fact_id)
        .where(_S.namespace == namespace, _S.text_hash == text_hash(text))
        .order_by(_S.fact_id)
    )
    return [r[0] for r in result]


async def archived_ids(
    conn: AsyncConnection, namespace: str, among: Sequence[str] | None = None
) -> set[str]:
    """Return the ids of the archived facts (``among`` those given)."""
    query = sa.select(_S.fact_id).where(_S.namespace == namespace, _S.archived.is_(True))
    if among is not None:
        query = query.where(_S.fact_id.in_(list(among)))
    return {r[0] for r in await conn.execute(query)}


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


async def review_items(
    conn: AsyncConnection, namespace: str, *, status: str | None = "pending", limit: int = 100
) -> list[dict[str, Any]]:
    """Return review items (pending by default), oldest first."""
    query = sa.select(review_table).where(_Q.namespace == namespace)
    if status is not None:
        query = query.where(_Q.status == status)
    result = await conn.execute(query.order_by(_Q.queued_position).limit(limit))
    return [_review(r) for r in result]


async def get_review_item(
    conn: AsyncConnection, namespace: str, item_id: str
) -> dict[str, Any] | None:
    """Return one review item."""
    row = (
        await conn.execute(
            sa.select(review_table).where(_Q.namespace == namespace, _Q.item_id == item_id)
        )
    ).first()
    return None if row is None else _review(row)


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


async def model_calls_since(conn: AsyncConnection, since: int) -> int:
    """Return the model calls recorded by runs and explained plans since ``since`` (micros)."""
    total = 0
    runs = await conn.execute(
        sa.select(_R.summary_json).where(_R.started_at >= since, _R.summary_json.is_not(None))
    )
    for (summary,) in runs:
        total += int(((loads(summary) or {}).get("stats") or {}).get("model_calls", 0))
    plans = await conn.execute(sa.select(_P.plan_json).where(_P.created_at >= since))
    for (plan,) in plans:
        total += int(((loads(plan) or {}).get("inputs") or {}).get("model_calls", 0))
    return total


async def links_of(conn: AsyncConnection, namespace: str, fact_id: str) -> list[dict[str, Any]]:
    """Return the links of a fact, either direction."""
    result = await conn.execute(
        sa.select(links_table).where(
            _K.namespace == namespace, sa.or_(_K.fact_id == fact_id, _K.other_fact_id == fact_id)
        )
    )
    return [
        {
            "fact_id": r.fact_id,
            "other_fact_id": r.other_fact_id,
            "strength": r.strength,
            "kind": r.kind,
        }
        for r in result
    ]


async def learned_context(conn: AsyncConnection, namespace: str) -> dict[str, Any] | None:
    """Return the current learned_context block."""
    row = (
        await conn.execute(sa.select(learned_table).where(learned_table.c.namespace == namespace))
    ).first()
    if row is None:
        return None
    return {"text": row.text, "fact_ids": loads(row.fact_ids_json), "at": row.at}
