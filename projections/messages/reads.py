"""Reading conversations and the messages they show (their own and, for a reference fork,
their ancestors'): every function takes an :class:`AsyncConnection` on the projection
database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import from_micros
from projections.base import clean, loads
from projections.messages.lineage import (
    Lineage,
    Segment,
    fetch_visible,
    find_visible,
    in_segment,
    read_lineage,
)
from projections.messages.tables import (
    ConversationRow,
    MessageRow,
    UnknownMessage,
    conversations_table,
    messages_table,
)

_C = conversations_table.c
_M = messages_table.c


def _message(row: sa.Row[Any], lineage: Lineage) -> MessageRow:
    holder = next(s.conversation_id for s in lineage.segments if s.key == row.conversation_key)
    return MessageRow(
        conversation_id=holder,
        message_id=row.message_id,
        role=row.role,
        name=row.name,
        content=loads(row.content_json),
        created_at=from_micros(row.created_at),
        metadata=loads(row.metadata_json),
        finalized=bool(row.finalized),
        position=int(row.position),
        updated_position=int(row.updated_position),
        namespace=lineage.row.namespace,
    )


async def count_visible(conn: AsyncConnection, segments: Sequence[Segment]) -> int:
    total = 0
    for depth, segment in enumerate(segments):
        query = sa.select(sa.func.count()).select_from(messages_table).where(in_segment(segment))
        if depth:
            nearer = messages_table.alias("nearer")
            hidden = (
                sa.select(sa.literal(1))
                .where(
                    nearer.c.message_id == _M.message_id,
                    sa.or_(
                        *(
                            sa.and_(
                                nearer.c.conversation_key == s.key,
                                sa.true() if s.upto is None else nearer.c.position <= s.upto,
                            )
                            for s in segments[:depth]
                        )
                    ),
                )
                .exists()
            )
            query = query.where(~hidden)
        total += int(await conn.scalar(query) or 0)
    return total


async def last_visible(conn: AsyncConnection, segments: Sequence[Segment]) -> sa.Row[Any] | None:
    best: sa.Row[Any] | None = None
    for segment in segments:
        row = (
            await conn.execute(
                sa.select(messages_table)
                .where(in_segment(segment))
                .order_by(_M.position.desc())
                .limit(1)
            )
        ).first()
        if row is not None and (best is None or row.position > best.position):
            best = row
    return best


async def get_conversation(
    conn: AsyncConnection, namespace: str, conversation_id: str
) -> ConversationRow | None:
    """Return a conversation (also a deleted one, flagged), or None if it never existed."""
    lineage = await read_lineage(conn, namespace, clean(conversation_id))
    if lineage is None:
        return None
    row = lineage.row
    deleted = bool(row.deleted)
    count = 0 if deleted else await count_visible(conn, lineage.segments)
    last = None if deleted else await last_visible(conn, lineage.segments)
    return ConversationRow(
        conversation_id=row.conversation_id,
        parent_conversation_id=row.parent_conversation_id,
        through_message_id=row.through_message_id,
        strategy=row.strategy,
        deleted=deleted,
        orphaned=lineage.orphaned,
        message_count=count,
        last_message_at=None if last is None else from_micros(last.created_at),
        created_position=int(row.created_position),
        through_position=None if row.through_position is None else int(row.through_position),
        deleted_position=None if row.deleted_position is None else int(row.deleted_position),
        lineage_truncated=lineage.truncated,
        namespace=row.namespace,
    )


async def list_messages(
    conn: AsyncConnection,
    namespace: str,
    conversation_id: str,
    *,
    after_message_id: str | None = None,
    limit: int = 100,
) -> list[MessageRow]:
    """Return a conversation's visible messages in order, after ``after_message_id``.

    An unknown or deleted conversation has no messages (``[]``); an ``after_message_id`` the
    conversation does not show raises :class:`UnknownMessage`.
    """
    lineage = await read_lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted or limit <= 0:
        return []
    after = 0
    if after_message_id is not None:
        found = await find_visible(conn, lineage.segments, clean(after_message_id))
        if found is None:
            raise UnknownMessage(
                f"message {after_message_id!r} is not in conversation {conversation_id!r}"
            )
        after = int(found.position)
    rows = await fetch_visible(conn, lineage.segments, after, None, limit)
    return [_message(r, lineage) for r in rows]


async def recent_messages(
    conn: AsyncConnection, namespace: str, conversation_id: str, *, limit: int
) -> list[MessageRow]:
    """Return the last ``limit`` visible messages of a conversation, in order (``[]`` for an
    unknown or deleted one)."""
    lineage = await read_lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted or limit <= 0:
        return []
    rows = await fetch_visible(conn, lineage.segments, 0, None, limit, last=True)
    return [_message(r, lineage) for r in rows]


async def list_messages_through(
    conn: AsyncConnection,
    namespace: str,
    conversation_id: str,
    message_id: str,
    *,
    limit: int,
) -> list[MessageRow]:
    """Return the last ``limit`` visible messages of a conversation up to and including
    ``message_id``, in order (what was said just before a point: a review's context).

    An unknown conversation or message has no messages before it (``[]``).
    """
    lineage = await read_lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted or limit <= 0:
        return []
    found = await find_visible(conn, lineage.segments, clean(message_id))
    if found is None:
        return []
    rows = await fetch_visible(conn, lineage.segments, 0, int(found.position), limit, last=True)
    return [_message(r, lineage) for r in rows]


async def get_message(
    conn: AsyncConnection, namespace: str, conversation_id: str, message_id: str
) -> MessageRow | None:
    """Return one visible message of a conversation, or None."""
    lineage = await read_lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted:
        return None
    row = await find_visible(conn, lineage.segments, clean(message_id))
    return None if row is None else _message(row, lineage)


async def list_conversations(
    conn: AsyncConnection,
    namespace: str,
    *,
    after_conversation_id: str | None = None,
    limit: int = 100,
    include_deleted: bool = False,
) -> list[str]:
    """Return conversation ids of a namespace in id order (for paging)."""
    query = sa.select(_C.conversation_id).where(_C.namespace == namespace)
    if after_conversation_id is not None:
        query = query.where(_C.conversation_id > after_conversation_id)
    if not include_deleted:
        query = query.where(_C.deleted.is_(False))
    result = await conn.execute(query.order_by(_C.conversation_id).limit(limit))
    return [r[0] for r in result]


async def latest_said_at(
    conn: AsyncConnection, namespace: str, message_ids: Sequence[str]
) -> datetime | None:
    """Return the latest ``created_at`` of the namespace's messages among ``message_ids``
    (when the last of them was said), or None when none is known."""
    if not message_ids:
        return None
    c = conversations_table.c
    latest = (
        await conn.execute(
            sa.select(sa.func.max(_M.created_at))
            .select_from(
                messages_table.join(conversations_table, _M.conversation_key == c.created_position)
            )
            .where(c.namespace == namespace, _M.message_id.in_(list(message_ids)[:IN_LIMIT]))
        )
    ).scalar()
    return None if latest is None else from_micros(int(latest))


IN_LIMIT = 1000
"""Most message ids one lookup takes."""
