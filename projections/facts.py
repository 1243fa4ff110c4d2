"""The bi-temporal ``facts`` projection.

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

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import from_micros, to_micros
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
from projections.base import Projection, chunks, clean, clean_opt, dumps, execute_many, loads

MAX_HISTORY = 1000
"""Most facts :func:`fact_history` walks in each direction."""

metadata = sa.MetaData()

fact_versions_table = sa.Table(
    "fact_versions",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    # The position of the event that made this version.
    sa.Column("position", sa.BigInteger, primary_key=True),
    sa.Column("written_position", sa.BigInteger, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("subject", sa.Text),
    # The subject as compared: lower case, "the user" and "user" one (filters and lookups).
    sa.Column("subject_key", sa.String(300)),
    sa.Column("predicate", sa.Text),
    sa.Column("object", sa.Text),
    sa.Column("tags_json", sa.Text, nullable=False),
    sa.Column("owner", sa.String(20), nullable=False),
    sa.Column("provenance", sa.String(20), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("importance", sa.Float, nullable=False),
    sa.Column("valid_from", sa.BigInteger, nullable=False),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("recorded_from", sa.BigInteger, nullable=False),
    sa.Column("recorded_to", sa.BigInteger),
    sa.Column("closed_position", sa.BigInteger),
    sa.Column("superseded_by", sa.String(300)),
    sa.Column("supersedes", sa.String(300)),
    sa.Column("forgotten", sa.Boolean, nullable=False),
    sa.Column("forgotten_reason", sa.Text),
    sa.Column("archived", sa.Boolean, nullable=False),
    sa.Column("source_message_ids_json", sa.Text, nullable=False),
    sa.Column("validated_by", sa.String(300)),
    sa.Column("validation_note", sa.Text),
)
sa.Index(
    "ix_fact_versions_belief",
    fact_versions_table.c.namespace,
    fact_versions_table.c.recorded_to,
    fact_versions_table.c.written_position,
)
sa.Index(
    "ix_fact_versions_fact",
    fact_versions_table.c.namespace,
    fact_versions_table.c.fact_id,
    fact_versions_table.c.recorded_to,
)

sa.Index(
    "ix_fact_versions_subject",
    fact_versions_table.c.namespace,
    fact_versions_table.c.subject_key,
    fact_versions_table.c.recorded_to,
)

fact_claims_table = sa.Table(
    "fact_claims",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("subject_key", sa.String(300), nullable=False),
    sa.Column("attribute", sa.String(200), nullable=False),
    sa.Column("value_key", sa.String(500), nullable=False),
    sa.Column("claim_json", sa.Text, nullable=False),
)
sa.Index(
    "ix_fact_claims_attribute",
    fact_claims_table.c.namespace,
    fact_claims_table.c.subject_key,
    fact_claims_table.c.attribute,
)
sa.Index(
    "ix_fact_claims_value",
    fact_claims_table.c.namespace,
    fact_claims_table.c.subject_key,
    fact_claims_table.c.value_key,
)

# Which facts each message is a source of: recall reads it to know a message whose every fact
# was replaced ("I live in Boston" once "I moved to Seattle" superseded it) is out of date.
fact_sources_table = sa.Table(
    "fact_sources",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("message_id", sa.String(300), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
)

fact_decisions_table = sa.Table(
    "fact_decisions",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("position", sa.BigInteger, primary_key=True),
    # written | superseded | conflict | deduplicated: what the decision did to this fact.
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("outcome", sa.String(20), nullable=False),
    sa.Column("decision_json", sa.Text, nullable=False),
)

fact_tags_table = sa.Table(
    "fact_tags",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("tag", sa.String(300), primary_key=True),
)
sa.Index("ix_fact_tags_tag", fact_tags_table.c.namespace, fact_tags_table.c.tag)

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


@dataclass(frozen=True, slots=True)
class FactRow:
    """One version of a fact (times are aware UTC datetimes)."""

    fact_id: str
    text: str
    subject: str | None
    predicate: str | None
    object: str | None
    tags: list[str]
    owner: str
    provenance: str
    status: str
    confidence: float
    importance: float
    valid_from: datetime
    valid_to: datetime | None
    recorded_from: datetime
    recorded_to: datetime | None
    superseded_by: str | None
    supersedes: str | None
    forgotten: bool
    source_message_ids: list[str]
    validated_by: str | None
    position: int
    """The position of the event that made this version."""
    written_position: int = 0
    """The position of the fact's ``FactWritten``."""
    validation_note: str | None = None
    forgotten_reason: str | None = None
    namespace: str = ""
    archived: bool = False
    closed_position: int | None = None


def _fact(row: sa.Row[Any]) -> FactRow:
    return FactRow(
        fact_id=row.fact_id,
        text=row.text,
        subject=row.subject,
        predicate=row.predicate,
        object=row.object,
        tags=loads(row.tags_json),
        owner=row.owner,
        provenance=row.provenance,
        status=row.status,
        confidence=float(row.confidence),
        importance=float(row.importance),
        valid_from=from_micros(row.valid_from),
        valid_to=None if row.valid_to is None else from_micros(row.valid_to),
        recorded_from=from_micros(row.recorded_from),
        recorded_to=None if row.recorded_to is None else from_micros(row.recorded_to),
        superseded_by=row.superseded_by,
        supersedes=row.supersedes,
        forgotten=bool(row.forgotten),
        source_message_ids=loads(row.source_message_ids_json),
        validated_by=row.validated_by,
        position=int(row.position),
        written_position=int(row.written_position),
        validation_note=row.validation_note,
        forgotten_reason=row.forgotten_reason,
        namespace=row.namespace,
        archived=bool(row.archived),
        closed_position=None if row.closed_position is None else int(row.closed_position),
    )


# -- fold ----------------------------------------------------------------------------------


class FactsProjection(Projection):
    """Folds fact events into ``fact_versions`` and ``fact_tags``."""

    name: ClassVar[str] = "facts"
    # 3: subject_key and closed_position columns; fact_claims and fact_decisions (FactReconciled).
    # 4: fact_sources (message -> fact), for recall to tell messages whose facts were replaced.
    version: ClassVar[int] = 4
    metadata: ClassVar[sa.MetaData] = metadata

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        fold = _FactFold(conn)
        await fold.load(events)
        for stored in events:
            fold.apply(stored)
        await fold.flush()


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


# -- reads ---------------------------------------------------------------------------------


Belief = datetime | int | None
"""When a belief is read: now (None), a moment (transaction time) or a log position."""


def _believed_at(known_at: Belief) -> sa.ColumnElement[bool]:
    if known_at is None:
        return _V.recorded_to.is_(None)
    if isinstance(known_at, int):
        return sa.and_(
            _V.position <= known_at,
            sa.or_(_V.closed_position.is_(None), _V.closed_position > known_at),
        )
    k = to_micros(known_at)
    return sa.and_(_V.recorded_from <= k, sa.or_(_V.recorded_to.is_(None), _V.recorded_to > k))


async def query_facts(
    conn: AsyncConnection,
    namespace: str,
    *,
    as_of: datetime | None = None,
    known_at: Belief = None,
    status: str | None = None,
    tag: str | None = None,
    owner: str | None = None,
    subject: str | None = None,
    include_quarantined: bool = False,
    include_superseded: bool = False,
    include_archived: bool = False,
    limit: int = 100,
) -> list[FactRow]:
    """Return facts as memoryd believes them (at ``known_at``), valid at ``as_of``.

    - no times: the current belief; superseded facts only with ``include_superseded``.
    - ``as_of=T``: facts valid at T (``valid_from <= T < valid_to``) under the current
      belief; a superseded fact is included when it was still valid at T.
    - ``known_at=K``: the versions believed at K (``recorded_from <= K < recorded_to``),
      without the facts superseded by then unless ``include_superseded``.
    - both: the belief at K, valid at T.
    - ``known_at`` may also be a log position P: the versions made at or before P and not
      replaced by then (exact within a commit).
    - ``subject``: facts about that subject (compared as :func:`subject_key` compares), by
      the fact's own subject or any claim read from it.

    Forgotten facts are never returned; archived ones (as believed at ``known_at``) only with
    ``include_archived``. Only ``active`` facts unless ``include_quarantined``
    or a ``status`` is named. Ordered by when the fact was written (``written_position``).
    """
    query = sa.select(fact_versions_table).where(
        _V.namespace == namespace, _believed_at(known_at), _V.forgotten.is_(False)
    )
    if as_of is not None:
        t = to_micros(as_of)
        query = query.where(_V.valid_from <= t, sa.or_(_V.valid_to.is_(None), _V.valid_to > t))
    elif not include_superseded:
        query = query.where(_V.superseded_by.is_(None))
    if status is not None:
        query = query.where(_V.status == status)
    elif not include_quarantined:
        query = query.where(_V.status == "active")
    if not include_archived:
        query = query.where(_V.archived.is_(False))
    if owner is not None:
        query = query.where(_V.owner == owner)
    if subject is not None:
        key = subject_key(subject)
        query = query.where(
            sa.or_(
                _V.subject_key == key,
                sa.select(sa.literal(1))
                .where(_C.namespace == namespace, _C.fact_id == _V.fact_id, _C.subject_key == key)
                .exists(),
            )
        )
    if tag is not None:
        query = query.where(
            sa.select(sa.literal(1))
            .where(_G.namespace == namespace, _G.fact_id == _V.fact_id, _G.tag == clean(tag))
            .exists()
        )
    query = query.order_by(_V.written_position, _V.fact_id).limit(limit)
    return [_fact(r) for r in (await conn.execute(query)).all()]


async def get_fact(
    conn: AsyncConnection, namespace: str, fact_id: str, *, known_at: Belief = None
) -> FactRow | None:
    """Return the version of a fact believed now (or at ``known_at``), flags included."""
    row = (
        await conn.execute(
            sa.select(fact_versions_table).where(
                _V.namespace == namespace, _V.fact_id == clean(fact_id), _believed_at(known_at)
            )
        )
    ).first()
    return None if row is None else _fact(row)


async def fact_versions(conn: AsyncConnection, namespace: str, fact_id: str) -> list[FactRow]:
    """Return every stored version of a fact, oldest first (zero-length ones included)."""
    result = await conn.execute(
        sa.select(fact_versions_table)
        .where(_V.namespace == namespace, _V.fact_id == clean(fact_id))
        .order_by(_V.position)
    )
    return [_fact(r) for r in result.all()]


async def _walk(
    conn: AsyncConnection,
    namespace: str,
    start: FactRow,
    link: Callable[[FactRow], str | None],
    seen: set[str],
) -> list[FactRow]:
    """Follow ``link`` from ``start`` while it names a present fact not yet in ``seen``."""
    out: list[FactRow] = []
    cursor = start
    while (next_id := link(cursor)) is not None and len(out) < MAX_HISTORY:
        found = await get_fact(conn, namespace, next_id)
        if found is None or found.fact_id in seen:
            break
        seen.add(found.fact_id)
        out.append(found)
        cursor = found
    return out


async def fact_history(conn: AsyncConnection, namespace: str, fact_id: str) -> list[FactRow]:
    """Return the supersede chain through a fact, oldest first (current versions).

    Walks ``supersedes`` back and ``superseded_by`` forward from the fact, stopping at a fact
    that is gone (purged), at a fact already on the chain, or after :data:`MAX_HISTORY`.
    """
    start = await get_fact(conn, namespace, fact_id)
    if start is None:
        return []
    seen = {start.fact_id}
    back = await _walk(conn, namespace, start, lambda f: f.supersedes, seen)
    forward = await _walk(conn, namespace, start, lambda f: f.superseded_by, seen)
    return [*reversed(back), start, *forward]


# -- reconciliation's reads -----------------------------------------------------------------


def subject_key(subject: str | None) -> str:
    """Return the comparison key of a subject: "The user", "user" and no subject are "user"."""
    if not subject:
        return "user"
    key = " ".join(unicodedata.normalize("NFKC", subject).casefold().split())
    if key in ("i", "me", "myself", "we", "us"):
        return "user"
    return clean(re.sub(r"^(?:the\s+)?users?\b", "user", key))[:300]


@dataclass(frozen=True, slots=True)
class KnownClaims:
    """A current fact's text, status and the claims read from it when it was written."""

    fact_id: str
    text: str
    status: str
    claims: list[dict[str, Any]]
    valid_from: datetime | None = None


async def facts_about(
    conn: AsyncConnection,
    namespace: str,
    subject_keys: Sequence[str],
    attributes: Sequence[str],
    value_keys: Sequence[str] = (),
    *,
    any_attribute: bool = False,
    limit: int = 200,
) -> list[KnownClaims]:
    """Return current facts (not superseded, forgotten or archived) with a claim about one of
    ``subject_keys`` and one of ``attributes`` (any, with ``any_attribute``) or one of
    ``value_keys``, newest first, with their claims."""
    if not subject_keys or not (attributes or value_keys or any_attribute):
        return []
    match = sa.or_(
        sa.true() if any_attribute else sa.false(),
        _C.attribute.in_(list(attributes)) if attributes else sa.false(),
        _C.value_key.in_(list(value_keys)) if value_keys else sa.false(),
    )
    ids_query = (
        sa.select(_C.fact_id)
        .where(_C.namespace == namespace, _C.subject_key.in_(list(subject_keys)), match)
        .distinct()
        .subquery()
    )
    rows = (
        await conn.execute(
            sa.select(_V.fact_id, _V.text, _V.status, _V.valid_from)
            .where(
                _V.namespace == namespace,
                _V.fact_id.in_(sa.select(ids_query.c.fact_id)),
                _V.recorded_to.is_(None),
                _V.superseded_by.is_(None),
                _V.forgotten.is_(False),
                _V.archived.is_(False),
            )
            .order_by(_V.written_position.desc())
            .limit(limit)
        )
    ).all()
    return await _with_claims(
        conn, namespace, [(r.fact_id, r.text, r.status, r.valid_from) for r in rows]
    )


_FactKeyRow = tuple[str, str, str, int]
"""``(fact_id, text, status, valid_from micros)``."""


async def claims_of_facts(
    conn: AsyncConnection, namespace: str, facts: Sequence[_FactKeyRow]
) -> list[KnownClaims]:
    """Attach their stored claims to ``(fact_id, text, status, valid_from)`` rows."""
    return await _with_claims(conn, namespace, facts)


async def _with_claims(
    conn: AsyncConnection, namespace: str, facts: Sequence[_FactKeyRow]
) -> list[KnownClaims]:
    claims: dict[str, list[dict[str, Any]]] = {}
    for part in chunks([f[0] for f in facts]):
        result = await conn.execute(
            sa.select(_C.fact_id, _C.claim_json)
            .where(_C.namespace == namespace, _C.fact_id.in_(part))
            .order_by(_C.fact_id, _C.seq)
        )
        for row in result:
            claims.setdefault(row.fact_id, []).append(loads(row.claim_json))
    return [
        KnownClaims(f, text, status, claims.get(f, []), from_micros(valid_from))
        for f, text, status, valid_from in facts
    ]


async def replaced_sources(
    conn: AsyncConnection, namespace: str, message_ids: Sequence[str]
) -> set[str]:
    """Return the messages among ``message_ids`` whose facts have all been replaced: each was a
    source of at least one superseded fact and of no fact that is still current."""
    # Two lookups, not a join: joined, SQLite may walk every current fact version to find the
    # few that the messages cite (19-39 ms at 100k facts, more than the search itself).
    cited: dict[str, list[str]] = {}
    for part in chunks(list(dict.fromkeys(message_ids))):
        query = sa.select(_S.message_id, _S.fact_id).where(
            _S.namespace == namespace, _S.message_id.in_(part)
        )
        for row in await conn.execute(query):
            cited.setdefault(row.fact_id, []).append(row.message_id)
    facts: dict[str, list[tuple[bool, bool]]] = {}
    for part in chunks(list(cited)):
        versions = sa.select(_V.fact_id, _V.superseded_by, _V.forgotten, _V.archived).where(
            _V.namespace == namespace, _V.fact_id.in_(part), _V.recorded_to.is_(None)
        )
        for version in await conn.execute(versions):
            replaced = version.superseded_by is not None
            current = not replaced and not version.forgotten and not version.archived
            for message_id in cited[version.fact_id]:
                facts.setdefault(message_id, []).append((replaced, current))
    return {
        message_id
        for message_id, states in facts.items()
        if any(replaced for replaced, _ in states) and not any(current for _, current in states)
    }


async def decisions_of(
    conn: AsyncConnection, namespace: str, fact_ids: Sequence[str], *, roles: Sequence[str] = ()
) -> dict[str, list[dict[str, Any]]]:
    """Return the reconciliation decisions that name each fact, oldest first, with the role
    the fact played in each (``written``, ``superseded``, ``conflict``, ``deduplicated``)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for part in chunks(list(dict.fromkeys(fact_ids))):
        query = sa.select(_D.fact_id, _D.role, _D.decision_json).where(
            _D.namespace == namespace, _D.fact_id.in_(part)
        )
        if roles:
            query = query.where(_D.role.in_(list(roles)))
        for row in await conn.execute(query.order_by(_D.fact_id, _D.position)):
            out.setdefault(row.fact_id, []).append({"role": row.role, **loads(row.decision_json)})
    return out
