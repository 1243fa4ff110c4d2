"""PostgreSQL for tests: a scratch database per test session, wiped before every test.

``MEMORYD_TEST_PG_URL`` names a server and a database we may connect to (``.ci/run`` creates a
fresh one per run). The session creates its own scratch database there, so parallel runs and
whatever else lives on that server stay apart, and drops it at the end. Each test gets the
scratch database with an empty ``public`` schema.

Without the variable the PostgreSQL tests skip, except under CI (``CI=true``) where they fail:
CI must never pass by skipping the second backend. The fixtures (``pg_scratch``, ``pg_url``) are
declared in ``tests/conftest.py``: a test takes ``pg_url`` as an argument, nothing to import.
"""

from __future__ import annotations

import os
import uuid

import asyncpg
import pytest

from events.store.postgres import asyncpg_url, libpq_dsn

PG_ENV = "MEMORYD_TEST_PG_URL"


def under_ci() -> bool:
    """Return True when running in CI, where the PostgreSQL tests must not skip."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_pg_server() -> str:
    """Return the test server's URL, or skip (fail under CI) when none is configured."""
    url = os.environ.get(PG_ENV)
    if not url:
        if under_ci():
            pytest.fail(f"{PG_ENV} is not set under CI: the PostgreSQL tests must run")
        pytest.skip(f"{PG_ENV} is not set (e.g. postgresql+asyncpg://postgres@127.0.0.1/test)")
    return url


async def pg_execute(url: str, *statements: str) -> None:
    """Run statements on ``url``'s database over a fresh connection."""
    conn = await asyncpg.connect(libpq_dsn(url), timeout=10)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


def _with_database(url: str, database: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(asyncpg_url(url)).set(database=database).render_as_string(hide_password=False)


RESET_STATEMENTS = (
    # A store a failed test left open must not keep locks on the tables we drop.
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE datname = current_database() AND pid <> pg_backend_pid()",
    "DROP SCHEMA public CASCADE",
    "CREATE SCHEMA public",
)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PgScratch:
    """This session's scratch databases on the test server."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.prefix = f"memoryd_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        self.created: list[str] = []

    async def create(self, suffix: str) -> str:
        """Create (once) the scratch database ``<prefix>_<suffix>`` and return its URL."""
        name = f"{self.prefix}_{suffix}"
        if name not in self.created:
            await pg_execute(self.server, f'CREATE DATABASE "{name}"')
            self.created.append(name)
        return _with_database(self.server, name)

    async def fresh(self, suffix: str = "a") -> str:
        """Return the URL of scratch database ``suffix``, emptied of every table."""
        url = await self.create(suffix)
        await pg_execute(url, *RESET_STATEMENTS)
        return url

    async def drop_stale(self) -> None:
        """Drop scratch databases left by killed local sessions (their pid is gone)."""
        from sqlalchemy.engine import make_url

        if make_url(asyncpg_url(self.server)).host not in ("127.0.0.1", "localhost", "::1"):
            return  # another host's sessions: we cannot tell whether they are alive
        conn = await asyncpg.connect(libpq_dsn(self.server), timeout=10)
        try:
            names = [
                r[0]
                for r in await conn.fetch(
                    "SELECT datname FROM pg_database WHERE datname LIKE 'memoryd\\_test\\_%'"
                )
            ]
        finally:
            await conn.close()
        for name in names:
            pid = name.split("_")[2]
            if pid.isdigit() and not _pid_alive(int(pid)):
                await pg_execute(self.server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    async def drop_all(self) -> None:
        """Drop every scratch database this session created."""
        for name in self.created:
            await pg_execute(self.server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
