"""The fold of the bi-temporal ``facts`` projection.

Two clocks, never mixed. *Valid time* (``valid_from``/``valid_to``, from payloads) says when a
fact was true in the world; *transaction time* (``recorded_from``/``recorded_to``, from
:attr:`StoredEvent.recorded_at`) says when memoryd believed a version of it. The table
``fact_versions`` holds one row per version: every change closes the current version
(``recorded_to = recorded_at`` of the changing event) and inserts a new one with
``recorded_from`` equal to it, so a fact's versions tile transaction time as half-open
intervals ``[recorded_from, recorded_to)``. Several changes in one commit share a
``recorded_at``: the earlier versions then have zero length and are never the answer to a
``known_at`` query, and the last one (highest position) is. Transaction time is clamped to
never run backwards within one fact (``max(recorded_at, previous recorded_from)``).

Fold rules:

- ``FactWritten`` inserts the first version. A second ``FactWritten`` for a fact that exists
  is ignored (first write wins; the API refuses it). After a purge the id is free again.
- ``FactSuperseded(old, new, at)``: a new version of *old* with ``valid_to = min(valid_to,
  at)`` and ``superseded_by = new``; if *new* exists, a new version of it with ``supersedes =
  old`` (the links are single: the latest supersede wins). Ignored if *old* does not exist or
  ``old == new``.
- ``FactValidated``: a new version with ``status = active``, ``validated_by``,
  ``validation_note``.
- ``FactForgotten``: a new version with ``forgotten = True`` (hidden from every query, still
  returned by :func:`get_fact` and :func:`fact_history` for audits).
- ``FactArchived`` / ``FactRestored`` (consolidation): a new version with ``archived`` set /
  cleared. An archived fact leaves the default queries (``include_archived`` shows it) and is
  still returned by :func:`get_fact` with the flag.
- ``FactPurged``: every row of the fact is deleted (the store redacts its earlier events in
  the same commit, so a rebuild reaches the same tables).
- ``FactReconciled`` (the decision of a write) makes no version: its claims go to
  ``fact_claims`` (what reconciliation of later writes looks facts up by) and the decision to
  ``fact_decisions``, once for each fact it names (written, superseded, in conflict,
  deduplicated into), so a fact's history says why it is here or gone.
- Changes to a fact that does not exist (never written, or purged) are ignored.

Every applicable event makes exactly one new version of each fact it changes, even when the
fields come out equal; a version's ``position`` is the position of that event and its
``closed_position`` the position of the event that replaced it, so the belief at a log
position is exact even inside one commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import FactArchived, FactRestored
from events.store.base import StoredEvent
from events.types import (
    FactForgotten,
    FactPurged,
    FactReconciled,
    FactSuperseded,
    FactValidated,
    FactWritten,
)
from projections.base import Projection, chunks, clean, clean_opt, dumps, execute_many
from projections.facts.profile import fold_model_profiles, groups_of, regroup
from projections.facts.tables import (
    fact_claims_table,
    fact_decisions_table,
    fact_sources_table,
    fact_tags_table,
    fact_versions_table,
    metadata,
    subject_key,
)

_V = fact_versions_table.c
_G = fact_tags_table.c
_C = fact_claims_table.c
_D = fact_decisions_table.c
_S = fact_sources_table.c

_close_version = (
    fact_versions_table.update()
    .where(
        _V.namespace == sa.bindparam("b_namespace"),
        _V.fact_id == sa.bindparam("b_fact_id"),
        _V.position == sa.bindparam("b_position"),
    )
    .values(
        recorded_to=sa.bindparam("b_recorded_to"),
        closed_position=sa.bindparam("b_closed_position"),
    )
)


class FactsProjection(Projection):
    """Folds fact events into ``fact_versions`` and ``fact_tags``, and regroups the profile
    lines of the facts each batch changed (:mod:`projections.facts.profile`)."""

    name: ClassVar[str] = "facts"
    # 3: subject_key and closed_position columns; fact_claims and fact_decisions (FactReconciled).
    # 4: fact_sources (message -> fact), for recall to tell messages whose facts were replaced.
    # 5: the profile (profile_lines, profile_model; see projections.facts.profile).
    version: ClassVar[int] = 5
    metadata: ClassVar[sa.MetaData] = metadata

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        fold = _FactFold(conn)
        await fold.load(events)
        touched = fold.touched()
        groups = {g for ns, ids in touched.items() for g in await groups_of(conn, ns, ids)}
        for stored in events:
            fold.apply(stored)
        await fold.flush()
        for ns, ids in touched.items():
            groups |= await groups_of(conn, ns, ids)
        await regroup(conn, groups)
        await fold_model_profiles(conn, events)


_FactKey = tuple[str, str]


def _fact_ids(event: object) -> tuple[str, ...]:
    if isinstance(event, FactSuperseded):
        return (clean(event.old_fact_id), clean(event.new_fact_id))
    if isinstance(
        event,
        FactWritten | FactValidated | FactForgotten | FactPurged | FactArchived | FactRestored,
    ):
        return (clean(event.fact_id),)
    if isinstance(event, FactReconciled):
        return (clean(event.fact_id),)
    return ()


class _FactFold:
    """One batch: the current version of each touched fact cached, writes buffered."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        self.current: dict[_FactKey, dict[str, Any] | None] = {}
        self.pending: set[tuple[str, str, int]] = set()
        self.inserts: list[dict[str, Any]] = []
        self.closes: list[dict[str, Any]] = []
        self.tags: list[dict[str, Any]] = []
        self.claims: list[dict[str, Any]] = []
        self.sources: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []
        self.purges: list[_FactKey] = []

    def touched(self) -> dict[str, set[str]]:
        """Return the facts this batch changes, by namespace (its groups are recomputed)."""
        out: dict[str, set[str]] = {}
        for namespace, fact_id in self.current:
            out.setdefault(namespace, set()).add(fact_id)
        return out

    async def load(self, events: Sequence[StoredEvent]) -> None:
        wanted: dict[str, set[str]] = {}
        for stored in events:
            ids = _fact_ids(stored.event)
            if ids:
                wanted.setdefault(stored.namespace, set()).update(ids)
        for namespace, fact_ids in wanted.items():
            for part in chunks(sorted(fact_ids)):
                result = await self.conn.execute(
                    sa.select(fact_versions_table).where(
                        _V.namespace == namespace,
                        _V.fact_id.in_(part),
                        _V.recorded_to.is_(None),
                    )
                )
                found = {r.fact_id: dict(r._mapping) for r in result}
                for fact_id in part:
                    self.current[(namespace, fact_id)] = found.get(fact_id)

    def apply(self, stored: StoredEvent) -> None:
        event = stored.event
        ns = stored.namespace
        if isinstance(event, FactWritten):
            self._write(stored, event)
        elif isinstance(event, FactSuperseded):
            old_id, new_id = _fact_ids(event)
            old = self.current.get((ns, old_id))
            if old is None or old_id == new_id:
                return
            at = to_micros(event.at)
            valid_to = at if old["valid_to"] is None else min(old["valid_to"], at)
            self._change(stored, old_id, valid_to=valid_to, superseded_by=new_id)
            self._change(stored, new_id, supersedes=old_id)
        elif isinstance(event, FactValidated):
            self._change(
                stored,
                clean(event.fact_id),
                status="active",
                validated_by=clean(event.by),
                validation_note=clean_opt(event.note),
            )
        elif isinstance(event, FactForgotten):
            self._change(
                stored,
                clean(event.fact_id),
                forgotten=True,
                forgotten_reason=clean_opt(event.reason),
            )
        elif isinstance(event, FactArchived | FactRestored):
            self._change(stored, clean(event.fact_id), archived=isinstance(event, FactArchived))
        elif isinstance(event, FactPurged):
            self._purge(ns, clean(event.fact_id))
        elif isinstance(event, FactReconciled):
            self._reconciled(stored, event)

    def _reconciled(self, stored: StoredEvent, event: FactReconciled) -> None:
        ns = stored.namespace
        fact_id = clean(event.fact_id)
        if self.current.get((ns, fact_id)) is None:
            return
        decision = dumps(
            {
                "position": stored.position,
                "fact_id": fact_id,
                "outcome": event.outcome,
                "at": event.at.isoformat(),
                "superseded": event.superseded,
                "conflicts_with": event.conflicts_with,
                "reason": event.reason,
                "confidence": event.confidence,
                "decided_by": event.decided_by,
                "provenance": event.provenance,
                "policy_threshold": event.policy_threshold,
                "gate_flags": event.gate_flags,
                "candidates": event.candidates,
            }
        )
        roles = [(fact_id, "deduplicated" if event.outcome == "deduplicated" else "written")]
        roles += [(clean(f), "superseded") for f in event.superseded]
        roles += [(clean(f), "conflict") for f in event.conflicts_with]
        for target, role in dict(roles).items():
            self.decisions.append(
                {
                    "namespace": ns,
                    "fact_id": target,
                    "position": stored.position,
                    "role": role,
                    "outcome": event.outcome,
                    "decision_json": decision,
                }
            )
        if event.outcome == "deduplicated":
            return
        for seq, claim in enumerate(event.claims):
            self.claims.append(
                {
                    "namespace": ns,
                    "fact_id": fact_id,
                    "seq": seq,
                    "subject_key": clean(str(claim.get("subject_key", "")))[:300],
                    "attribute": clean(str(claim.get("attribute", "")))[:200],
                    "value_key": clean(str(claim.get("value_key", "")))[:500],
                    "claim_json": dumps(claim),
                }
            )

    def _write(self, stored: StoredEvent, event: FactWritten) -> None:
        ns = stored.namespace
        fact_id = clean(event.fact_id)
        if self.current.get((ns, fact_id)) is not None:
            return
        row = {
            "namespace": ns,
            "fact_id": fact_id,
            "position": stored.position,
            "written_position": stored.position,
            "text": clean(event.text),
            "subject": clean_opt(event.subject),
            "subject_key": subject_key(event.subject),
            "predicate": clean_opt(event.predicate),
            "object": clean_opt(event.object),
            "tags_json": dumps(event.tags),
            "owner": clean(event.owner),
            "provenance": clean(event.provenance),
            "status": clean(event.status),
            "confidence": float(event.confidence),
            "importance": float(event.importance),
            "valid_from": to_micros(event.valid_from),
            "valid_to": None if event.valid_to is None else to_micros(event.valid_to),
            "recorded_from": to_micros(stored.recorded_at),
            "recorded_to": None,
            "closed_position": None,
            "superseded_by": None,
            "supersedes": None,
            "forgotten": False,
            "forgotten_reason": None,
            "archived": False,
            "source_message_ids_json": dumps(event.source_message_ids),
            "validated_by": None,
            "validation_note": None,
        }
        self._insert(row)
        for tag in sorted({clean(t) for t in event.tags}):
            self.tags.append({"namespace": ns, "fact_id": fact_id, "tag": tag})
        for message_id in sorted({clean(m) for m in event.source_message_ids}):
            self.sources.append({"namespace": ns, "message_id": message_id, "fact_id": fact_id})

    def _insert(self, row: dict[str, Any]) -> None:
        self.inserts.append(row)
        self.pending.add((row["namespace"], row["fact_id"], row["position"]))
        self.current[(row["namespace"], row["fact_id"])] = row

    def _change(self, stored: StoredEvent, fact_id: str, **changes: Any) -> None:
        ns = stored.namespace
        current = self.current.get((ns, fact_id))
        if current is None:
            return
        when = max(to_micros(stored.recorded_at), current["recorded_from"])
        if (ns, fact_id, current["position"]) in self.pending:
            current["recorded_to"] = when
            current["closed_position"] = stored.position
        else:
            self.closes.append(
                {
                    "b_namespace": ns,
                    "b_fact_id": fact_id,
                    "b_position": current["position"],
                    "b_recorded_to": when,
                    "b_closed_position": stored.position,
                }
            )
        row = dict(current)
        row.update(changes)
        row["position"] = stored.position
        row["recorded_from"] = when
        row["recorded_to"] = None
        row["closed_position"] = None
        self._insert(row)

    def _purge(self, ns: str, fact_id: str) -> None:
        if self.current.get((ns, fact_id)) is None:
            return
        key = (ns, fact_id)
        self.inserts = [r for r in self.inserts if (r["namespace"], r["fact_id"]) != key]
        self.tags = [r for r in self.tags if (r["namespace"], r["fact_id"]) != key]
        self.claims = [r for r in self.claims if (r["namespace"], r["fact_id"]) != key]
        self.sources = [r for r in self.sources if (r["namespace"], r["fact_id"]) != key]
        self.decisions = [r for r in self.decisions if (r["namespace"], r["fact_id"]) != key]
        self.purges.append(key)
        self.current[key] = None

    async def flush(self) -> None:
        conn = self.conn
        await execute_many(conn, _close_version, self.closes)
        for ns, fact_id in self.purges:
            await conn.execute(
                fact_versions_table.delete().where(_V.namespace == ns, _V.fact_id == fact_id)
            )
            await conn.execute(
                fact_tags_table.delete().where(_G.namespace == ns, _G.fact_id == fact_id)
            )
            await conn.execute(
                fact_claims_table.delete().where(_C.namespace == ns, _C.fact_id == fact_id)
            )
            await conn.execute(
                fact_decisions_table.delete().where(_D.namespace == ns, _D.fact_id == fact_id)
            )
            await conn.execute(
                fact_sources_table.delete().where(_S.namespace == ns, _S.fact_id == fact_id)
            )
        await execute_many(conn, fact_versions_table.insert(), self.inserts)
        await execute_many(conn, fact_tags_table.insert(), self.tags)
        await execute_many(conn, fact_claims_table.insert(), self.claims)
        await execute_many(conn, fact_sources_table.insert(), self.sources)
        await execute_many(conn, fact_decisions_table.insert(), self.decisions)
