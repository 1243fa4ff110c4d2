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
- Changes to a fact that does not exist (never written, or purged) are ignored.

Every applicable event makes exactly one new version of each fact it changes, even when the
fields come out equal; a version's ``position`` is the position of that event.
"""

from __future__ import annotations

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

_close_version = (
    fact_versions_table.update()
    .where(
        _V.namespace == sa.bindparam("b_namespace"),
        _V.fact_id == sa.bindparam("b_fact_id"),
        _V.position == sa.bindparam("b_position"),
    )
    .values(recorded_to=sa.bindparam("b_recorded_to"))
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
    )


# -- fold ----------------------------------------------------------------------------------


class FactsProjection(Projection):
    """Folds fact events into ``fact_versions`` and ``fact_tags``."""

    name: ClassVar[str] = "facts"
    version: ClassVar[int] = 2
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
        else:
            self.closes.append(
                {
                    "b_namespace": ns,
                    "b_fact_id": fact_id,
                    "b_position": current["position"],
                    "b_recorded_to": when,
                }
            )
        row = dict(current)
        row.update(changes)
        row["position"] = stored.position
        row["recorded_from"] = when
        row["recorded_to"] = None
        self._insert(row)

    def _purge(self, ns: str, fact_id: str) -> None:
        if self.current.get((ns, fact_id)) is None:
            return
        key = (ns, fact_id)
        self.inserts = [r for r in self.inserts if (r["namespace"], r["fact_id"]) != key]
        self.tags = [r for r in self.tags if (r["namespace"], r["fact_id"]) != key]
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
        await execute_many(conn, fact_versions_table.insert(), self.inserts)
        await execute_many(conn, fact_tags_table.insert(), self.tags)


# -- reads ---------------------------------------------------------------------------------


def _believed_at(known_at: datetime | None) -> sa.ColumnElement[bool]:
    if known_at is None:
        return _V.recorded_to.is_(None)
    k = to_micros(known_at)
    return sa.and_(_V.recorded_from <= k, sa.or_(_V.recorded_to.is_(None), _V.recorded_to > k))


async def query_facts(
    conn: AsyncConnection,
    namespace: str,
    *,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
    status: str | None = None,
    tag: str | None = None,
    owner: str | None = None,
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
    if tag is not None:
        query = query.where(
            sa.select(sa.literal(1))
            .where(_G.namespace == namespace, _G.fact_id == _V.fact_id, _G.tag == clean(tag))
            .exists()
        )
    query = query.order_by(_V.written_position, _V.fact_id).limit(limit)
    return [_fact(r) for r in (await conn.execute(query)).all()]


async def get_fact(
    conn: AsyncConnection, namespace: str, fact_id: str, *, known_at: datetime | None = None
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
