"""Reading facts at a point of both clocks: :func:`query_facts` (as of a valid time, as known
at a transaction time), one fact (:func:`get_fact`), every version of it
(:func:`fact_versions`) and its supersede chain (:func:`fact_history`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from projections.base import clean
from projections.facts.tables import (
    FactRow,
    fact_claims_table,
    fact_row,
    fact_tags_table,
    fact_versions_table,
    subject_key,
)

_V = fact_versions_table.c
_G = fact_tags_table.c
_C = fact_claims_table.c

MAX_HISTORY = 1000
"""Most facts :func:`fact_history` walks in each direction."""

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
    return [fact_row(r) for r in (await conn.execute(query)).all()]


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
    return None if row is None else fact_row(row)


async def fact_versions(conn: AsyncConnection, namespace: str, fact_id: str) -> list[FactRow]:
    """Return every stored version of a fact, oldest first (zero-length ones included)."""
    result = await conn.execute(
        sa.select(fact_versions_table)
        .where(_V.namespace == namespace, _V.fact_id == clean(fact_id))
        .order_by(_V.position)
    )
    return [fact_row(r) for r in result.all()]


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
