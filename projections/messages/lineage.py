"""Fork lineage: what a conversation shows of its ancestors, by the rules of
:mod:`projections.messages` (one recursive query up the chain, :func:`climb` over its rows),
and the messages visible through a lineage's segments."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from projections.messages.tables import conversations_table, messages_table

_C = conversations_table.c
_M = messages_table.c

MAX_FORK_DEPTH = 32
"""Most ancestors a reference fork reads through."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One conversation on a lineage and the highest position readable from it."""

    conversation_id: str
    key: int
    upto: int | None


@dataclass(frozen=True, slots=True)
class Lineage:
    """A conversation's row and the segments it reads through, nearest first."""

    row: sa.Row[Any]
    segments: list[Segment]
    orphaned: bool
    truncated: bool


LINEAGE_CHAIN = sa.text(
    """
    WITH RECURSIVE chain(conversation_id, parent_conversation_id, through_position, strategy,
                         deleted, created_position, depth)
    AS (
        SELECT conversation_id, parent_conversation_id, through_position, strategy, deleted,
               created_position, 0
        FROM conversations WHERE namespace = :ns AND conversation_id = :cid
        UNION ALL
        SELECT c.conversation_id, c.parent_conversation_id, c.through_position, c.strategy,
               c.deleted, c.created_position, chain.depth + 1
        FROM chain JOIN conversations c
          ON c.namespace = :ns AND c.conversation_id = chain.parent_conversation_id
        WHERE chain.strategy IN ('reference', 'cloning') AND chain.depth <= :max_depth
    )
    SELECT conversation_id, parent_conversation_id, through_position, strategy, deleted,
           created_position
    FROM chain ORDER BY depth
    """
)
"""A conversation and the ancestors its fork links reach, nearest first, in one query (a
cycle repeats until the depth bound); binds ``ns``, ``cid`` and ``max_depth``."""

_MESSAGES_FOLLOW = frozenset({"reference"})
"""The forks whose parents the messages projection reads (a cloning fork holds copies)."""


@dataclass(frozen=True, slots=True)
class Ancestry:
    """The ancestors a conversation reads through, nearest first."""

    ancestors: list[tuple[Any, int]]
    """Each ancestor's chain row and the last position inherited from it."""
    orphaned: bool
    """The walk met a deleted or unknown parent."""
    truncated: bool
    """The walk stopped at :data:`MAX_FORK_DEPTH` ancestors or at a conversation met twice."""


def climb(chain: Sequence[Any], follow: Collection[str]) -> Ancestry:
    """Walk up from ``chain[0]`` through the rows of :data:`LINEAGE_CHAIN` by the lineage
    rules of :mod:`projections.messages`, following forks whose strategy is in ``follow``.

    The one place these rules are written: the messages projection follows reference forks,
    search (:mod:`daemon.recall.lineage`) follows cloning forks too.
    """
    by_id = {row.conversation_id: row for row in chain[1:]}
    current = chain[0]
    seen = {current.conversation_id}
    ancestors: list[tuple[Any, int]] = []
    bound: int | None = None
    while current.strategy in follow and current.parent_conversation_id is not None:
        parent_id = current.parent_conversation_id
        if parent_id in seen or len(ancestors) >= MAX_FORK_DEPTH:
            return Ancestry(ancestors, orphaned=False, truncated=True)
        parent = by_id.get(parent_id)
        if parent is None or parent.deleted:
            return Ancestry(ancestors, orphaned=True, truncated=False)
        through = int(current.through_position or 0)
        bound = through if bound is None else min(bound, through)
        ancestors.append((parent, bound))
        seen.add(parent_id)
        current = parent
    return Ancestry(ancestors, orphaned=False, truncated=False)


async def conversation_row(conn: AsyncConnection, namespace: str, cid: str) -> sa.Row[Any] | None:
    result = await conn.execute(
        sa.select(conversations_table).where(_C.namespace == namespace, _C.conversation_id == cid)
    )
    return result.first()


async def read_lineage(conn: AsyncConnection, namespace: str, cid: str) -> Lineage | None:
    """Walk a conversation's reference ancestry; None if the conversation is unknown."""
    row = await conversation_row(conn, namespace, cid)
    if row is None:
        return None
    chain: Sequence[Any] = [row]
    if row.strategy in _MESSAGES_FOLLOW:
        params = {"ns": namespace, "cid": cid, "max_depth": MAX_FORK_DEPTH}
        chain = (await conn.execute(LINEAGE_CHAIN, params)).all()
    ancestry = climb(chain, _MESSAGES_FOLLOW)
    segments = [Segment(cid, int(row.created_position), None)]
    segments += [
        Segment(parent.conversation_id, int(parent.created_position), upto)
        for parent, upto in ancestry.ancestors
    ]
    return Lineage(row, segments, ancestry.orphaned, ancestry.truncated)


def in_segment(segment: Segment) -> sa.ColumnElement[bool]:
    cond = _M.conversation_key == segment.key
    if segment.upto is not None:
        cond = sa.and_(cond, _M.position <= segment.upto)
    return cond


async def find_visible(
    conn: AsyncConnection, segments: Sequence[Segment], message_id: str
) -> sa.Row[Any] | None:
    """Return the row a lineage shows for ``message_id`` (nearest segment first)."""
    for segment in segments:
        row = (
            await conn.execute(
                sa.select(messages_table).where(_M.message_id == message_id, in_segment(segment))
            )
        ).first()
        if row is not None:
            return row
    return None


async def fetch_visible(
    conn: AsyncConnection,
    segments: Sequence[Segment],
    after: int,
    upto: int | None,
    limit: int | None,
    *,
    last: bool = False,
) -> list[sa.Row[Any]]:
    """Return the visible rows with ``after < position <= upto`` in order, at most ``limit``
    (the first ones, or with ``last`` the last ones).

    Each segment contributes at most ``limit`` rows: a row hidden by a nearer segment is
    matched there by a row at the same position, so the first (or last) ``limit`` visible
    rows are always among them.
    """
    rows: list[tuple[int, int, sa.Row[Any]]] = []
    for depth, segment in enumerate(segments):
        query = sa.select(messages_table).where(in_segment(segment), _M.position > after)
        if upto is not None:
            query = query.where(_M.position <= upto)
        query = query.order_by(_M.position.desc() if last else _M.position)
        if limit is not None:
            query = query.limit(limit)
        rows.extend((int(r.position), depth, r) for r in (await conn.execute(query)).all())
    if len(segments) == 1:
        found = [r for _, _, r in rows]
        return found[::-1] if last else found
    rows.sort(key=lambda item: (item[1], item[0]))
    seen: set[str] = set()
    out: list[sa.Row[Any]] = []
    for _, _, row in rows:
        if row.message_id not in seen:
            seen.add(row.message_id)
            out.append(row)
    out.sort(key=lambda r: int(r.position))
    if limit is None:
        return out
    return out[-limit:] if last else out[:limit]
