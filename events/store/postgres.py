"""The PostgreSQL backend: the log in a shared database that several memoryd processes use.

Positions. A position must reach every reader gapless and in commit order. A plain sequence
(or ``BIGSERIAL``) is not enough: transaction A takes position 10, transaction B takes 11, B
commits first, a tailing reader reads ``position > 9``, sees 11, remembers 11 and never looks
at 10 again when A commits a moment later. So every appending transaction first takes one
transaction-level advisory lock (``pg_advisory_xact_lock``) and only then reads the head and
assigns positions. PostgreSQL makes a commit visible (clog + proc array) before it releases the
transaction's locks, so the next writer reads a head that includes everything committed before
it, and positions commit strictly in order: a reader that sees position ``n`` has every
position below ``n`` visible too. The lock is held only for one group commit, whose single
round trip of inserts serves many appenders (see ``sql.py``), so serialising costs little. The
transactions run at READ COMMITTED: each statement after the lock takes a fresh snapshot.

Live following across processes. The appending transaction runs ``pg_notify`` on
``memoryd_events`` (in the statement that takes the lock); PostgreSQL delivers it only at
commit. Each store keeps one dedicated asyncpg connection that LISTENs; a notification makes
it re-read the head (one query however many notifications arrived meanwhile) and wake this
process's subscribers. If that connection drops it is reconnected (and the head re-read, to
catch what was committed in the meantime); a notification missed for any other reason is
bounded by the subscribers' fallback poll (``SqlEventStore.fallback_poll_seconds``).

Schema. An empty database is migrated to the current schema on first open (under an advisory
lock, so several daemons starting together do not race); a database at another schema version
is refused until ``memoryd db upgrade`` has run (see ``events/migrations``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncpg
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from events.clock import Clock
from events.codec import EventCodec
from events.migrations import upgrade_if_empty
from events.store.sql import SqlEventStore
from events.tasks import cancel_and_wait, raise_if_cancelling

log = logging.getLogger(__name__)

NOTIFY_CHANNEL = "memoryd_events"
"""The LISTEN/NOTIFY channel signalled by every commit that appends."""

APPEND_LOCK_KEY = 0x6D656D6F72796431
"""``pg_advisory_xact_lock`` key that serialises position assignment (b"memoryd1")."""

MIGRATION_LOCK_KEY = 0x6D656D6F72796432
"""``pg_advisory_xact_lock`` key taken while the schema is created or migrated (b"memoryd2")."""


def asyncpg_url(url: str) -> str:
    """Return ``url`` with the asyncpg driver (accepts ``postgres://``, ``postgresql://``)."""
    parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    if parsed.get_backend_name() != "postgresql":
        raise ValueError(f"not a PostgreSQL URL: {url}")
    return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def libpq_dsn(url: str) -> str:
    """Return the plain ``postgresql://`` DSN that ``asyncpg.connect`` takes."""
    parsed = make_url(asyncpg_url(url))
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def is_postgres_url(url: str | None) -> bool:
    """Return True if ``url`` names a PostgreSQL database."""
    return url is not None and url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


def postgres_engine(
    url: str, *, pool_size: int = 4, max_overflow: int = 8, readonly: bool = False
) -> AsyncEngine:
    """Create an asyncpg engine; ``readonly`` makes every transaction READ ONLY server-side."""
    connect_args: dict[str, Any] = {"server_settings": {"application_name": "memoryd"}}
    if readonly:
        connect_args["server_settings"]["default_transaction_read_only"] = "on"
    return create_async_engine(
        asyncpg_url(url),
        # Whatever the server's default: the write lock relies on each statement after it
        # taking a fresh snapshot (under REPEATABLE READ the head read after the lock would
        # still see the snapshot taken before it).
        isolation_level="READ COMMITTED",
        pool_size=pool_size,
        max_overflow=max_overflow,
        connect_args=connect_args,
        # An error's message must not carry the statement's values: users' message text.
        hide_parameters=True,
    )


async def lock_for_migration(conn: AsyncConnection) -> None:
    """Serialise schema changes across processes until ``conn``'s transaction ends."""
    await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK_KEY)))


def _setter(event: asyncio.Event) -> Callable[[Any], None]:
    return lambda _conn: event.set()


class PostgresEventStore(SqlEventStore):
    """The event log in a PostgreSQL database (``postgresql+asyncpg://user@host:port/db``)."""

    listener_check_seconds: float = 30.0
    """How often the LISTEN connection is pinged, to notice a connection that died silently."""

    def __init__(
        self,
        url: str,
        *,
        codec: EventCodec | None = None,
        clock: Clock | None = None,
        readonly: bool = False,
        max_group_events: int = 20_000,
        read_pool_size: int = 4,
    ) -> None:
        super().__init__(
            codec=codec, clock=clock, readonly=readonly, max_group_events=max_group_events
        )
        self.url = asyncpg_url(url)
        self._read_pool_size = read_pool_size
        self._listener_task: asyncio.Task[None] | None = None
        self._listener: asyncpg.Connection[Any] | None = None
        self._head_stale = asyncio.Event()
        self._refresh_task: asyncio.Task[None] | None = None

    async def _create_engines(self) -> tuple[AsyncEngine, AsyncEngine]:
        # One writer task per store uses the write engine (import_records shares it under the
        # same in-process lock), so one connection suffices.
        write = postgres_engine(self.url, pool_size=1, max_overflow=1, readonly=self.readonly)
        read = postgres_engine(
            self.url, pool_size=self._read_pool_size, max_overflow=8, readonly=self.readonly
        )
        return write, read

    async def _prepare_schema(self, conn: AsyncConnection) -> None:
        await lock_for_migration(conn)
        await upgrade_if_empty(conn)

    async def _lock_for_write(self, conn: AsyncConnection) -> None:
        # See the module docstring: without this lock a later position could commit before an
        # earlier one and a tailing reader would skip the earlier one forever.
        #
        # The NOTIFY rides on the same statement, one round trip less on the hot path: it is
        # queued now and delivered only if and when this transaction commits (never for a
        # rollback). The head is not known yet, so it carries none; listeners read it.
        await conn.execute(
            sa.select(
                sa.func.pg_advisory_xact_lock(APPEND_LOCK_KEY),
                sa.func.pg_notify(NOTIFY_CHANNEL, ""),
            )
        )

    # -- cross-process wake-up -------------------------------------------------------------

    async def _start_listening(self) -> None:
        started = asyncio.Event()
        self._refresh_task = asyncio.create_task(self._refresh_loop(), name="memoryd-pg-head")
        self._listener_task = asyncio.create_task(
            self._listen_loop(started), name="memoryd-pg-listener"
        )
        # Wait for the first LISTEN so that a commit right after open() wakes us; if it cannot
        # connect, go on: the loop keeps retrying and the fallback poll covers the meantime.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(15):
                await started.wait()

    async def _stop_listening(self) -> None:
        for task in (self._listener_task, self._refresh_task):
            if task is not None:
                await cancel_and_wait(task)
        self._listener_task = self._refresh_task = None

    def listener_pid(self) -> int | None:
        """Return the server process id of the LISTEN connection (for tests and diagnostics)."""
        if self._listener is None or self._listener.is_closed():
            return None
        pid: int = self._listener.get_server_pid()
        return pid

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, _payload: object) -> None:
        self._head_stale.set()

    async def _refresh_loop(self) -> None:
        """Re-read the head after notifications and wake the subscribers."""
        while True:
            await self._head_stale.wait()
            self._head_stale.clear()
            try:
                head = await self.head()
            except Exception as exc:  # the database is away; the listener reconnects
                raise_if_cancelling()
                log.warning("cannot read the head after a notification (%s); retrying", exc)
                self._head_stale.set()
                await asyncio.sleep(0.5)
                continue
            await self._advance_head(head)

    async def _listen_loop(self, started: asyncio.Event) -> None:
        """Hold a LISTEN connection open, reconnecting with back-off when it drops."""
        delay = 0.1
        dsn = libpq_dsn(self.url)
        while True:
            try:
                conn = await asyncpg.connect(dsn, timeout=10)
            except Exception as exc:  # the server is down, restarting, refusing us...
                log.warning("LISTEN connection failed (%s); retrying in %.1fs", exc, delay)
                started.set()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            lost = asyncio.Event()
            conn.add_termination_listener(_setter(lost))
            self._listener = conn
            try:
                await conn.add_listener(NOTIFY_CHANNEL, self._on_notify)
                started.set()
                delay = 0.1
                # Whatever committed while nobody listened (a reconnect, or a failed start).
                self._head_stale.set()
                await self._watch(conn, lost)
            except Exception as exc:  # whatever broke the connection, start a new one
                raise_if_cancelling()
                log.warning("LISTEN connection lost (%s); reconnecting", exc)
            finally:
                self._listener = None
                conn.terminate()

    async def _watch(self, conn: asyncpg.Connection[Any], lost: asyncio.Event) -> None:
        """Return when ``conn`` is lost; ping it now and then to notice a silent death."""
        while not lost.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.listener_check_seconds):
                    await lost.wait()
            if not lost.is_set():
                await conn.execute("SELECT 1", timeout=10)
        log.warning("LISTEN connection closed; reconnecting")
