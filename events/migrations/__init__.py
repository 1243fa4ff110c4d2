"""Schema migrations of the event tables (alembic), one code path for SQLite and PostgreSQL.

Revision ``NNNN`` brings the tables to store schema version N and writes N into
``store_meta.schema_version``, which is what a store checks when it opens (it refuses any other
version and names ``memoryd db upgrade``). Alembic records its own revision in
``memoryd_alembic_version``.

Migrations run on a connection memoryd hands over, inside its transaction (both backends have
transactional DDL), so a failed migration leaves nothing half-done; on PostgreSQL the caller
holds an advisory lock so that several processes never migrate at once. A database whose tables
were made by ``metadata.create_all`` (the SQLite store does so on first open) has no alembic
revision yet: :func:`upgrade` adopts it by stamping the revision matching its schema version.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.store.base import SchemaMismatch

if TYPE_CHECKING:
    from alembic.config import Config

VERSION_TABLE = "memoryd_alembic_version"
SCRIPT_LOCATION = Path(__file__).parent
EVENT_TABLES = ("events", "store_meta")


def revision_for(schema_version: int) -> str:
    """Return the alembic revision id that brings the tables to ``schema_version``."""
    return f"{schema_version:04d}"


def alembic_config(connection: sa.Connection | None = None) -> Config:
    """Return an alembic Config for memoryd's migrations, running on ``connection``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """Return the newest revision this memoryd knows."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError("memoryd ships no migrations")
    return head


@dataclass(frozen=True, slots=True)
class DatabaseState:
    """What a database holds of memoryd's event tables."""

    tables: frozenset[str]
    revision: str | None
    schema_version: str | None

    @property
    def empty(self) -> bool:
        """Return True when none of the event tables exist."""
        return not (self.tables & {*EVENT_TABLES, VERSION_TABLE})


def _state(conn: sa.Connection) -> DatabaseState:
    tables = frozenset(sa.inspect(conn).get_table_names())
    revision = None
    if VERSION_TABLE in tables:
        revision = conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
    version = None
    if "store_meta" in tables:
        version = conn.execute(
            sa.text("SELECT value FROM store_meta WHERE key = 'schema_version'")
        ).scalar()
    return DatabaseState(tables, revision, version)


def _upgrade(conn: sa.Connection, target: str) -> tuple[str | None, str]:
    from alembic import command
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    cfg = alembic_config(conn)
    script = ScriptDirectory.from_config(cfg)
    state = _state(conn)
    before = state.revision
    if before is None and state.schema_version is not None:
        adopt = revision_for(int(state.schema_version))
        if adopt not in {s.revision for s in script.walk_revisions()}:
            raise SchemaMismatch(
                f"the event tables record schema version {state.schema_version}, which this "
                "memoryd does not know (written by a newer memoryd?); upgrade memoryd"
            )
        command.stamp(cfg, adopt)
        before = adopt
    elif before is None and "events" in state.tables:
        raise SchemaMismatch(
            "an `events` table exists without memoryd's schema metadata; refusing to touch it"
        )
    try:
        command.upgrade(cfg, target)
    except CommandError as exc:
        raise SchemaMismatch(
            f"cannot upgrade the event tables from revision {before}: {exc} "
            "(written by a newer memoryd?)"
        ) from exc
    state = _state(conn)
    after = state.revision
    assert after is not None
    if state.schema_version is None or revision_for(int(state.schema_version)) != after:
        raise SchemaMismatch(
            f"the event tables record schema version {state.schema_version} but alembic "
            f"revision {after} (written by a newer memoryd?); upgrade memoryd"
        )
    return before, after


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    """The alembic revision before and after an upgrade."""

    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        """Return True if any migration ran (or the database was adopted)."""
        return self.before != self.after


async def database_state(conn: AsyncConnection) -> DatabaseState:
    """Return what ``conn``'s database holds of the event tables."""
    return await conn.run_sync(_state)


async def upgrade(conn: AsyncConnection, target: str = "head") -> UpgradeResult:
    """Migrate the event tables to ``target`` inside ``conn``'s transaction."""
    before, after = await conn.run_sync(_upgrade, target)
    return UpgradeResult(before, after)


async def upgrade_if_empty(conn: AsyncConnection) -> bool:
    """Create the current schema in a database holding none of it; return True if it did.

    A database that holds the tables is left alone, whatever their version: opening a store
    then checks the version and asks for ``memoryd db upgrade`` when it differs.
    """
    if not (await database_state(conn)).empty:
        return False
    await upgrade(conn)
    return True
