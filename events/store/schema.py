"""The event log's tables, dialect-neutral SQLAlchemy Core (SQLite and PostgreSQL)."""

from __future__ import annotations

import sqlalchemy as sa

STORE_SCHEMA_VERSION = 2
"""Bumped with every migration of the event tables; a store refuses a version it does not know."""

metadata = sa.MetaData()

events_table = sa.Table(
    "events",
    metadata,
    # Gapless and strictly increasing in commit order; assigned by the store under its write
    # lock, never by an autoincrement (see the store modules for why).
    sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("event_id", sa.String(36), nullable=False),
    sa.Column("namespace", sa.String(200), nullable=False),
    sa.Column("stream_id", sa.String(300), nullable=False),
    sa.Column("stream_version", sa.Integer, nullable=False),
    sa.Column("event_type", sa.String(100), nullable=False),
    sa.Column("schema_version", sa.Integer, nullable=False),
    sa.Column("payload", sa.LargeBinary, nullable=False),
    # Transaction time, microseconds since the epoch (UTC), set by the store.
    sa.Column("recorded_at", sa.BigInteger, nullable=False),
    sa.Column("causation_id", sa.String(36)),
    sa.Column("correlation_id", sa.String(36)),
    sa.Column("idempotency_key", sa.String(300)),
    # What the request that wrote a keyed event asked for (sha256, hex): a retry must match it.
    sa.Column("request_hash", sa.String(64)),
    # CRC-32 of the whole row (events.store.checksum), written at append, checked on read.
    sa.Column("checksum", sa.BigInteger),
    sa.UniqueConstraint("event_id", name="uq_events_event_id"),
    sa.UniqueConstraint("namespace", "stream_id", "stream_version", name="uq_events_stream"),
)

sa.Index(
    "ix_events_idempotency",
    events_table.c.namespace,
    events_table.c.idempotency_key,
    unique=True,
    sqlite_where=events_table.c.idempotency_key.isnot(None),
    postgresql_where=events_table.c.idempotency_key.isnot(None),
)

store_meta_table = sa.Table(
    "store_meta",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("value", sa.String(1000), nullable=False),
)
