"""Alembic environment for memoryd's event tables.

Migrations always run on a connection that memoryd hands over (``events.migrations.upgrade``):
inside its transaction, under its lock, on either backend. There is no offline mode.
"""

from __future__ import annotations

from alembic import context

from events.migrations import VERSION_TABLE

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("memoryd's migrations run through `memoryd db upgrade`, not bare alembic")

context.configure(
    connection=connection,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
