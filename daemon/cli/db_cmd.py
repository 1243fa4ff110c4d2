"""``memoryd db upgrade|status``: migrate the event tables (alembic) on either backend.

SQLite data dirs are created at the current schema on first open, so ``make run`` needs no
set-up; an empty PostgreSQL database is too (under a lock). A database at an older schema is
refused by the store until ``memoryd db upgrade`` has migrated it.
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.backend import Backend
from daemon.cli import add_backend_options, backend_from_args, fail
from events.migrations import database_state, head_revision, revision_for, upgrade
from events.store.base import SchemaMismatch
from events.store.postgres import lock_for_migration, postgres_engine
from events.store.sqlite import EVENTS_FILE, sqlite_engine


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` command group."""
    db = subparsers.add_parser("db", help="schema migrations of the event log")
    commands = db.add_subparsers(dest="db_command", required=True, metavar="COMMAND")
    up = commands.add_parser("upgrade", help="migrate the event tables to this memoryd's schema")
    add_backend_options(up)
    up.set_defaults(handler=run_upgrade)
    status = commands.add_parser("status", help="show the event tables' schema revision")
    add_backend_options(status)
    status.set_defaults(handler=run_status)


@asynccontextmanager
async def migration_connection(backend: Backend) -> AsyncIterator[AsyncConnection]:
    """Yield a connection in a transaction that may change the event tables' schema."""
    if backend.is_postgres:
        assert backend.database_url is not None
        engine = postgres_engine(backend.database_url, pool_size=1, max_overflow=0)
    else:
        backend.data_dir.mkdir(parents=True, exist_ok=True)
        engine = sqlite_engine(backend.data_dir / EVENTS_FILE, write=True)
    try:
        async with engine.begin() as conn:
            if backend.is_postgres:
                await lock_for_migration(conn)
            yield conn
    finally:
        await engine.dispose()


def _where(backend: Backend) -> str:
    if backend.is_postgres:
        from sqlalchemy.engine import make_url

        assert backend.database_url is not None
        return make_url(backend.database_url).render_as_string(hide_password=True)
    return str(backend.data_dir / EVENTS_FILE)


async def run_upgrade(args: argparse.Namespace) -> int:
    """Migrate the event tables to the newest revision."""
    backend = backend_from_args(args)
    if backend.readonly:
        return fail(f"{backend.data_dir} is a read-only replay; it is never migrated")
    try:
        async with migration_connection(backend) as conn:
            result = await upgrade(conn)
    except SchemaMismatch as exc:
        return fail(str(exc))
    if result.before is None:
        print(f"{_where(backend)}: event tables created at {result.after}")
    elif result.changed:
        print(f"{_where(backend)}: event tables upgraded from {result.before} to {result.after}")
    else:
        print(f"{_where(backend)}: event tables already at {result.after}")
    return 0


async def run_status(args: argparse.Namespace) -> int:
    """Print the revision the event tables are at and the one this memoryd needs."""
    backend = backend_from_args(args)
    if not backend.is_postgres and not (backend.data_dir / EVENTS_FILE).exists():
        print(f"{_where(backend)}: no event log yet (created at {head_revision()} on first use)")
        return 0
    async with migration_connection(backend) as conn:
        state = await database_state(conn)
    head = head_revision()
    if state.empty:
        print(f"{_where(backend)}: no event tables yet (created at {head} on first use)")
        return 0
    # Tables made by the SQLite store's first open carry no alembic revision, only a version.
    revision = state.revision
    if revision is None and state.schema_version is not None:
        revision = revision_for(int(state.schema_version))
    print(f"{_where(backend)}: event tables at {revision}; this memoryd needs {head}")
    if revision == head:
        return 0
    print("run `memoryd db upgrade`")
    return 1
