"""Episodes: ``EpisodeWritten`` adds one (quarantined), ``EpisodeValidated`` makes a
quarantined one active, ``ReflectionFired`` marks the episodes a reflection used (they no
longer count towards the next one), ``ConversationDeleted`` removes the episodes of the
conversation (what its messages said is gone for every reader, their summary too).

Reads return plain dicts: ``episode_id, conversation_id, message_ids, first_position,
last_position, started_at, ended_at, summary, importance, method, importance_inputs, status,
validated_by, validated_at, run_id, reflected_run_id, created_at, position`` (times as
timezone-aware datetimes; ``created_at`` is when the run formed it, ``position`` where).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import from_micros, to_micros
from events.episode_events import EpisodeValidated, EpisodeWritten, ReflectionFired
from events.store.base import StoredEvent
from events.types import ConversationDeleted
from projections.base import chunks, dumps, loads, upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on

episodes_table = sa.Table(
    "consolidation_episodes",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("episode_id", sa.String(100), primary_key=True),
    sa.Column("conversation_id", sa.String(300), nullable=False),
    sa.Column("message_ids_json", sa.Text, nullable=False),
    sa.Column("first_position", sa.BigInteger, nullable=False),
    sa.Column("last_position", sa.BigInteger, nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=False),
    sa.Column("ended_at", sa.BigInteger, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("importance", sa.Float, nullable=False),
    sa.Column("method", sa.String(20), nullable=False),
    sa.Column("importance_inputs_json", sa.Text, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("validated_by", sa.String(300)),
    sa.Column("validated_at", sa.BigInteger),
    sa.Column("run_id", sa.String(100)),
    sa.Column("reflected_run_id", sa.String(100)),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
)
sa.Index(
    "ix_consolidation_episodes_conversation",
    episodes_table.c.namespace,
    episodes_table.c.conversation_id,
    episodes_table.c.last_position,
)

_E = episodes_table.c
STATUSES = ("quarantined", "active")


async def _written(batch: Batch, stored: StoredEvent, event: EpisodeWritten) -> None:
    await batch.conn.execute(
        upsert(batch.conn, episodes_table, ["namespace", "episode_id"]),
        [
            {
                "namespace": stored.namespace,
                "episode_id": event.episode_id,
                "conversation_id": event.conversation_id,
                "message_ids_json": dumps(event.message_ids),
                "first_position": event.first_position,
                "last_position": event.last_position,
                "started_at": to_micros(event.started_at),
                "ended_at": to_micros(event.ended_at),
                "summary": event.summary,
                "importance": float(event.importance),
                "method": event.method,
                "importance_inputs_json": dumps(event.importance_inputs),
                "status": "quarantined",
                "validated_by": None,
                "validated_at": None,
                "run_id": event.run_id,
                "reflected_run_id": None,
                "created_at": to_micros(event.at),
                "position": stored.position,
            }
        ],
    )


async def _validated(batch: Batch, stored: StoredEvent, event: EpisodeValidated) -> None:
    await batch.conn.execute(
        sa.update(episodes_table)
        .where(
            _E.namespace == stored.namespace,
            _E.episode_id == event.episode_id,
            _E.status == "quarantined",
        )
        .values(status="active", validated_by=event.by, validated_at=to_micros(event.at))
    )


async def _reflected(batch: Batch, stored: StoredEvent, event: ReflectionFired) -> None:
    for ids in chunks(event.episode_ids):
        await batch.conn.execute(
            sa.update(episodes_table)
            .where(
                _E.namespace == stored.namespace,
                _E.episode_id.in_(list(ids)),
                _E.reflected_run_id.is_(None),
            )
            .values(reflected_run_id=event.run_id)
        )


async def _deleted(batch: Batch, stored: StoredEvent, event: ConversationDeleted) -> None:
    await batch.conn.execute(
        sa.delete(episodes_table).where(
            _E.namespace == stored.namespace, _E.conversation_id == event.conversation_id
        )
    )


FOLDS: tuple[EventFold, ...] = (
    on(EpisodeWritten, _written),
    on(ConversationDeleted, _deleted),
    on(EpisodeValidated, _validated),
    on(ReflectionFired, _reflected),
)


def _row(row: sa.Row[Any]) -> dict[str, Any]:
    def when(micros: int | None) -> Any:
        return None if micros is None else from_micros(int(micros))

    return {
        "episode_id": row.episode_id,
        "conversation_id": row.conversation_id,
        "message_ids": loads(row.message_ids_json),
        "first_position": int(row.first_position),
        "last_position": int(row.last_position),
        "started_at": when(row.started_at),
        "ended_at": when(row.ended_at),
        "summary": row.summary,
        "importance": float(row.importance),
        "method": row.method,
        "importance_inputs": loads(row.importance_inputs_json),
        "status": row.status,
        "validated_by": row.validated_by,
        "validated_at": when(row.validated_at),
        "run_id": row.run_id,
        "reflected_run_id": row.reflected_run_id,
        "created_at": when(row.created_at),
        "position": int(row.position),
    }


async def recent_episodes(
    conn: AsyncConnection,
    namespace: str,
    *,
    limit: int,
    include_quarantined: bool = True,
    conversation_id: str | None = None,
    status: str | None = None,
) -> list[dict[str, Any]]:
    """Return a namespace's episodes, newest first (the latest formed first)."""
    query = sa.select(episodes_table).where(_E.namespace == namespace)
    if not include_quarantined:
        query = query.where(_E.status != "quarantined")
    if conversation_id is not None:
        query = query.where(_E.conversation_id == conversation_id)
    if status is not None:
        query = query.where(_E.status == status)
    query = query.order_by(_E.position.desc(), _E.episode_id.desc()).limit(limit)
    return [_row(r) for r in await conn.execute(query)]


async def get_episode(
    conn: AsyncConnection, namespace: str, episode_id: str
) -> dict[str, Any] | None:
    """Return one episode, or None."""
    row = (
        await conn.execute(
            sa.select(episodes_table).where(_E.namespace == namespace, _E.episode_id == episode_id)
        )
    ).first()
    return None if row is None else _row(row)


async def last_episode_of(
    conn: AsyncConnection, namespace: str, conversation_id: str
) -> dict[str, Any] | None:
    """Return the episode of a conversation that reaches furthest (None: none yet)."""
    row = (
        await conn.execute(
            sa.select(episodes_table)
            .where(_E.namespace == namespace, _E.conversation_id == conversation_id)
            .order_by(_E.last_position.desc())
            .limit(1)
        )
    ).first()
    return None if row is None else _row(row)


async def unreflected_episodes(conn: AsyncConnection, namespace: str) -> list[dict[str, Any]]:
    """Return the episodes no reflection has used yet, oldest first."""
    query = (
        sa.select(episodes_table)
        .where(_E.namespace == namespace, _E.reflected_run_id.is_(None))
        .order_by(_E.position, _E.episode_id)
    )
    return [_row(r) for r in await conn.execute(query)]
