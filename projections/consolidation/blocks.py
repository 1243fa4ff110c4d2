"""Curated blocks: each ``BlockWritten`` replaces a namespace's block of that name and adds a
row to its history. ``LearnedContextWritten`` (what older versions wrote) is folded as a
``BlockWritten`` of ``learned_context`` by consolidation, so old logs replay the same.

A block's ``inputs`` are what its rewrite was made from: the hash of the text it replaced and
the facts, insights and episodes it read.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import BlockWritten, LearnedContextWritten
from events.store.base import StoredEvent
from projections.base import dumps, loads, upsert
from projections.consolidation.fold import Batch, EventFold, metadata, on

LEARNED_CONTEXT = "learned_context"
"""The block consolidation always keeps (the built-in one)."""


def _columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("how", sa.String(20), nullable=False),
        sa.Column("fact_ids_json", sa.Text, nullable=False),
        sa.Column("inputs_json", sa.Text, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
    ]


blocks_table = sa.Table(
    "consolidation_blocks",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
    *_columns(),
)
block_history_table = sa.Table(
    "consolidation_block_history",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
    *_columns(),
)
_B = blocks_table.c
_H = block_history_table.c


async def _write(batch: Batch, stored: StoredEvent, event: BlockWritten) -> None:
    row = {
        "namespace": stored.namespace,
        "name": event.name,
        "position": stored.position,
        "text": event.text,
        "author": event.author,
        "how": event.how,
        "fact_ids_json": dumps(event.fact_ids),
        "inputs_json": dumps(
            {
                "previous_hash": event.previous_hash,
                "insight_ids": event.insight_ids,
                "episode_ids": event.episode_ids,
                "model": event.model,
            }
        ),
        "at": to_micros(event.at),
    }
    updated = [k for k in row if k not in ("namespace", "name")]
    await batch.conn.execute(
        upsert(batch.conn, blocks_table, ["namespace", "name"], updated), [row]
    )
    await batch.conn.execute(block_history_table.insert(), [row])


async def _legacy(batch: Batch, stored: StoredEvent, event: LearnedContextWritten) -> None:
    as_block = BlockWritten(
        name=LEARNED_CONTEXT,
        text=event.text,
        at=event.at,
        author=event.run_id or "consolidation",
        how="offline",
        fact_ids=event.fact_ids,
    )
    await _write(batch, stored, as_block)


FOLDS: tuple[EventFold, ...] = (on(BlockWritten, _write), on(LearnedContextWritten, _legacy))


def _block(row: sa.Row[Any]) -> dict[str, Any]:
    inputs = loads(row.inputs_json)
    return {
        "name": row.name,
        "text": row.text,
        "author": row.author,
        "how": row.how,
        "fact_ids": loads(row.fact_ids_json),
        "insight_ids": inputs["insight_ids"],
        "episode_ids": inputs["episode_ids"],
        "previous_hash": inputs["previous_hash"],
        "model": inputs["model"],
        "position": row.position,
        "at": row.at,
    }


async def current_blocks(conn: AsyncConnection, namespace: str) -> dict[str, dict[str, Any]]:
    """Return every written block of a namespace by name (``at`` in microseconds)."""
    rows = await conn.execute(sa.select(blocks_table).where(_B.namespace == namespace))
    return {row.name: _block(row) for row in rows}


async def one_block(conn: AsyncConnection, namespace: str, name: str) -> dict[str, Any] | None:
    """Return a block as last written (None: never written)."""
    row = (
        await conn.execute(
            sa.select(blocks_table).where(_B.namespace == namespace, _B.name == name)
        )
    ).first()
    return None if row is None else _block(row)


async def block_history(
    conn: AsyncConnection, namespace: str, name: str, *, limit: int = 50
) -> list[dict[str, Any]]:
    """Return a block's writes, newest first."""
    rows = await conn.execute(
        sa.select(block_history_table)
        .where(_H.namespace == namespace, _H.name == name)
        .order_by(_H.position.desc())
        .limit(limit)
    )
    return [_block(row) for row in rows]


async def learned_context(conn: AsyncConnection, namespace: str) -> dict[str, Any] | None:
    """Return the current learned_context block as ``{text, fact_ids, at}``."""
    block = await one_block(conn, namespace, LEARNED_CONTEXT)
    if block is None:
        return None
    return {"text": block["text"], "fact_ids": block["fact_ids"], "at": block["at"]}
