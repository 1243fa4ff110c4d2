"""The first event-log schema: ``events`` and ``store_meta``.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

A frozen copy of ``events/store/schema.py`` as it stood at schema version 1 (migrations never
import the live metadata, which moves on); ``tests/events/test_migrations.py`` checks that the head
revision and the live metadata agree.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the log and the meta table; record schema version 1."""
    op.create_table(
        "events",
        sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("event_id", sa.String(36), nullable=False),
        sa.Column("namespace", sa.String(200), nullable=False),
        sa.Column("stream_id", sa.String(300), nullable=False),
        sa.Column("stream_version", sa.Integer, nullable=False),
        sa.Column("event_type", sa.String(100), nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("recorded_at", sa.BigInteger, nullable=False),
        sa.Column("causation_id", sa.String(36)),
        sa.Column("correlation_id", sa.String(36)),
        sa.Column("idempotency_key", sa.String(300)),
        sa.UniqueConstraint("event_id", name="uq_events_event_id"),
        sa.UniqueConstraint("namespace", "stream_id", "stream_version", name="uq_events_stream"),
    )
    op.create_index(
        "ix_events_idempotency",
        "events",
        ["namespace", "idempotency_key"],
        unique=True,
        sqlite_where=sa.text("idempotency_key IS NOT NULL"),
        postgresql_where=sa.text("idempotency_key IS NOT NULL"),
    )
    meta = op.create_table(
        "store_meta",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.String(1000), nullable=False),
    )
    op.bulk_insert(meta, [{"key": "schema_version", "value": "1"}])


def downgrade() -> None:
    """Drop the log (alembic's inverse; memoryd's CLI never downgrades)."""
    op.drop_table("store_meta")
    op.drop_index("ix_events_idempotency", table_name="events")
    op.drop_table("events")
