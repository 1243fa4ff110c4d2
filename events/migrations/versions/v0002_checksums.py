"""Per-event checksums and request fingerprints.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

``checksum`` (a CRC-32 of the whole row, checked wherever a row is read) is filled in for the
rows already there; ``request_hash`` (what the request that wrote a keyed event asked for, so a
retry with the same key but another body is refused) stays empty for them: they were written
before it existed and are compared by stream and type as before.
"""

from __future__ import annotations

import zlib
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_CHUNK = 5000
_NONE = "\x00"


def _checksum(row: Any) -> int:
    # A frozen copy of events.store.checksum.event_checksum as it stands at schema version 2.
    envelope = "\x1f".join(
        (
            str(row.position),
            row.event_id,
            row.namespace,
            row.stream_id,
            str(row.stream_version),
            row.event_type,
            str(row.schema_version),
            str(row.recorded_at),
            _NONE if row.causation_id is None else row.causation_id,
            _NONE if row.correlation_id is None else row.correlation_id,
            _NONE if row.idempotency_key is None else row.idempotency_key,
            _NONE,
        )
    )
    return zlib.crc32(bytes(row.payload), zlib.crc32(envelope.encode("utf-8", "surrogateescape")))


def upgrade() -> None:
    """Add the two columns, checksum every row, record schema version 2."""
    op.add_column("events", sa.Column("request_hash", sa.String(64)))
    op.add_column("events", sa.Column("checksum", sa.BigInteger))
    events = sa.table(
        "events",
        *(
            sa.column(name)
            for name in (
                "position",
                "event_id",
                "namespace",
                "stream_id",
                "stream_version",
                "event_type",
                "schema_version",
                "payload",
                "recorded_at",
                "causation_id",
                "correlation_id",
                "idempotency_key",
                "checksum",
            )
        ),
    )
    conn = op.get_bind()
    after = 0
    while True:
        rows = conn.execute(
            sa.select(events)
            .where(events.c.position > after)
            .order_by(events.c.position)
            .limit(_CHUNK)
        ).all()
        if not rows:
            break
        conn.execute(
            events.update()
            .where(events.c.position == sa.bindparam("p"))
            .values(checksum=sa.bindparam("c")),
            [{"p": row.position, "c": _checksum(row)} for row in rows],
        )
        after = rows[-1].position
    op.execute("UPDATE store_meta SET value = '2' WHERE key = 'schema_version'")


def downgrade() -> None:
    """Drop the two columns (alembic's inverse; memoryd's CLI never downgrades)."""
    op.execute("UPDATE store_meta SET value = '1' WHERE key = 'schema_version'")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("checksum")
        batch.drop_column("request_hash")
