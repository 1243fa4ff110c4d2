"""Leases with fencing tokens: background work that runs once cluster-wide.

Several daemons on one PostgreSQL database (or several processes on one SQLite file) must not
run the same background job at once. A *lease* is a row in ``memoryd_leases``: a name, the
holder, an expiry and a *fencing token*. Whoever holds an unexpired lease may do the work;
a holder that dies stops renewing, the lease expires, and another process takes it over at
most ``ttl`` later. Expiry alone cannot stop a holder that merely stalled (a long GC pause, a
frozen VM) and wakes up believing it still holds the lease, so every change of holder gets a
strictly larger token: the holder stamps its effects with its token (for example in the events
it appends), and whatever consumes those effects ignores a token lower than one it has seen.
:meth:`LeaseManager.is_current` lets a holder check before it acts, and
:meth:`LeaseManager.fence` makes the check part of the transaction that writes the effects
when they live in the same database.

Every operation is one short transaction of single-row statements whose WHERE clauses carry
the whole decision, so concurrent acquirers race safely on both backends: on PostgreSQL the
loser's UPDATE waits for the winner's row lock and then re-checks its WHERE against the new
row (it no longer matches); on SQLite writers are serialised anyway.

Time comes from the injected :class:`~events.clock.Clock` or, by default, from the database
server on PostgreSQL (so daemons on hosts with skewed clocks agree) and the system clock on
SQLite (one host).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from events.clock import Clock, SystemClock, to_micros
from events.tasks import cancel_and_wait, raise_if_cancelling

log = logging.getLogger(__name__)

leases_metadata = sa.MetaData()

leases_table = sa.Table(
    "memoryd_leases",
    leases_metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("holder", sa.String(200), nullable=False),
    # Strictly increasing per name over every change of holder (and every re-acquisition
    # after an expiry); never reset, also not by a release.
    sa.Column("token", sa.BigInteger, nullable=False),
    # Microseconds since the epoch; a lease with expires_at <= now is free.
    sa.Column("expires_at", sa.BigInteger, nullable=False),
    sa.Column("acquired_at", sa.BigInteger, nullable=False),
)
_L = leases_table.c

SETUP_LOCK_KEY = 0x6D656D6F72796433
"""``pg_advisory_xact_lock`` key for creating the lease table (b"memoryd3")."""


@dataclass(frozen=True, slots=True)
class Lease:
    """A lease as its holder last saw it."""

    name: str
    holder: str
    token: int
    expires_at: int
    """Microseconds since the epoch (by the lease manager's time source)."""


class LeaseManager:
    """Acquire, renew, release and check leases in one database."""

    def __init__(self, engine: AsyncEngine, *, clock: Clock | None = None) -> None:
        self.engine = engine
        self.clock = clock

    async def setup(self) -> None:
        """Create the lease table if it does not exist (safe with concurrent callers)."""
        async with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(SETUP_LOCK_KEY)))
            await conn.run_sync(leases_metadata.create_all)

    async def _now(self, conn: AsyncConnection) -> int:
        if self.clock is not None:
            return to_micros(self.clock.now())
        if conn.dialect.name == "postgresql":
            value = await conn.scalar(
                sa.text("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)")
            )
            return int(value)
        return to_micros(SystemClock().now())

    async def acquire(self, name: str, holder: str, ttl: timedelta) -> Lease | None:
        """Take the lease if it is free or already ours; return it, or None if held.

        Taking a free lease (never held, released or expired) gives a new, larger token;
        acquiring one that ``holder`` still holds extends it and keeps its token.
        """
        async with self.engine.begin() as conn:
            now = await self._now(conn)
            expires = now + _micros(ttl)
            insert = _insert_ignoring_conflict(conn, name)
            await conn.execute(insert)
            ours = sa.and_(_L.holder == holder, _L.expires_at > now)
            result = await conn.execute(
                leases_table.update()
                .where(_L.name == name, sa.or_(_L.expires_at <= now, ours))
                .values(
                    token=sa.case((ours, _L.token), else_=_L.token + 1),
                    holder=holder,
                    expires_at=expires,
                    acquired_at=sa.case((ours, _L.acquired_at), else_=now),
                )
            )
            if result.rowcount != 1:
                return None
            token = (await conn.execute(sa.select(_L.token).where(_L.name == name))).scalar_one()
        return Lease(name, holder, int(token), expires)

    async def renew(self, lease: Lease, ttl: timedelta) -> Lease | None:
        """Extend a lease we hold; None if it expired or changed hands meanwhile."""
        async with self.engine.begin() as conn:
            now = await self._now(conn)
            expires = now + _micros(ttl)
            result = await conn.execute(
                leases_table.update().where(*_is_held(lease, now)).values(expires_at=expires)
            )
            if result.rowcount != 1:
                return None
        return Lease(lease.name, lease.holder, lease.token, expires)

    async def release(self, lease: Lease) -> bool:
        """Give a lease up at once (the next acquirer gets a new token); False if lost."""
        async with self.engine.begin() as conn:
            now = await self._now(conn)
            result = await conn.execute(
                leases_table.update().where(*_is_held(lease, now)).values(expires_at=now)
            )
            return result.rowcount == 1

    async def is_current(self, lease: Lease) -> bool:
        """Return True if ``lease`` is still held, unexpired, with the same token."""
        async with self.engine.connect() as conn:
            now = await self._now(conn)
            found = await conn.scalar(sa.select(sa.func.count()).where(*_is_held(lease, now)))
        return bool(found)

    async def fence(self, conn: AsyncConnection, lease: Lease) -> bool:
        """Check ``lease`` inside the caller's transaction and hold it there until commit.

        For effects written to the lease's own database: call this first in the transaction
        that writes them and write only if it returns True. On PostgreSQL the lease row is
        locked (``FOR UPDATE``), so no one can take the lease over before this transaction
        ends; on SQLite the writing transaction already excludes every other writer.
        """
        now = await self._now(conn)
        found = await conn.execute(
            sa.select(_L.token).where(*_is_held(lease, now)).with_for_update()
        )
        return found.first() is not None

    async def current(self, name: str) -> Lease | None:
        """Return the unexpired lease on ``name``, whoever holds it."""
        async with self.engine.connect() as conn:
            now = await self._now(conn)
            row = (
                await conn.execute(
                    sa.select(_L.holder, _L.token, _L.expires_at).where(
                        _L.name == name, _L.expires_at > now
                    )
                )
            ).first()
        return None if row is None else Lease(name, row[0], int(row[1]), int(row[2]))


def _micros(ttl: timedelta) -> int:
    micros = ttl // timedelta(microseconds=1)
    if micros <= 0:
        raise ValueError(f"a lease needs a positive ttl, not {ttl}")
    return micros


def _is_held(lease: Lease, now: int) -> tuple[sa.ColumnElement[bool], ...]:
    return (
        _L.name == lease.name,
        _L.holder == lease.holder,
        _L.token == lease.token,
        _L.expires_at > now,
    )


def _insert_ignoring_conflict(conn: AsyncConnection, name: str) -> sa.Executable:
    """INSERT a free row (token 0) for ``name`` unless one exists."""
    values = {"name": name, "holder": "", "token": 0, "expires_at": 0, "acquired_at": 0}
    if conn.dialect.name == "postgresql":
        return postgresql.insert(leases_table).values(values).on_conflict_do_nothing()
    if conn.dialect.name == "sqlite":
        return sqlite.insert(leases_table).values(values).on_conflict_do_nothing()
    raise NotImplementedError(f"leases are not implemented for {conn.dialect.name!r}")


class LeaseKeeper:
    """Keep a lease: take it (unless handed one), renew it every ``ttl / 3``, and count it
    lost the moment the database does not confirm it.

    Errors are strict: an attempt that fails, or a renewal still unanswered when the lease it
    renews could have expired (the database is away or stalled), counts as the lease lost,
    because nothing then proves this process still holds it, and believing so could let two
    processes act as holder. A renewal confirmed at an attempt that began at ``t`` holds the
    lease until at least ``t + ttl`` on any clock, so a slow answer within that (a loaded
    machine) keeps it; the keeper gives up a sixth of the TTL before. The pace runs from the
    start of one attempt to the next, so a slow database does not stretch it toward the TTL.

    ``reacquire`` False (a lease taken for one run): once lost the keeper stops trying; the
    run's own fence check ends the run. ``lease`` is the lease held now (None: not held);
    ``on_change`` is called with every change of it.
    """

    def __init__(
        self,
        manager: LeaseManager,
        name: str,
        holder: str,
        ttl: timedelta,
        *,
        on_change: Callable[[Lease | None], None] | None = None,
        reacquire: bool = True,
    ) -> None:
        self.manager = manager
        self.name = name
        self.holder = holder
        self.ttl = ttl
        self.lease: Lease | None = None
        self._on_change = on_change
        self._reacquire = reacquire
        self._task: asyncio.Task[None] | None = None
        self._confirmed_at: float | None = None
        """Loop time at which the attempt that last confirmed the lease began."""

    @property
    def pace(self) -> float:
        """Seconds between two attempts to take or renew the lease."""
        return self.ttl.total_seconds() / 3

    @property
    def running(self) -> bool:
        """Whether it still keeps the lease, or tries to take it."""
        return self._task is not None and not self._task.done()

    def start(self, lease: Lease | None = None) -> None:
        """Start keeping the lease in the background (``lease``: one taken already)."""
        self.lease = lease
        self._task = asyncio.create_task(self._run(), name=f"memoryd-lease-{self.name}")

    async def stop(self, *, release: bool = True) -> None:
        """Stop renewing; release the lease so another process need not wait for its expiry."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        lease = self.lease
        if release and lease is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(self.pace):
                    await self.manager.release(lease)
            self._set(None)

    def _set(self, lease: Lease | None) -> None:
        changed = (None if lease is None else lease.token) != (
            None if self.lease is None else self.lease.token
        )
        self.lease = lease
        if changed and self._on_change is not None:
            self._on_change(lease)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        if self.lease is None:
            await self._attempt()
        while self.lease is not None or self._reacquire:
            await asyncio.sleep(max(0.0, self.pace - (loop.time() - began)))
            began = loop.time()
            await self._attempt()

    def _patience(self, held: Lease | None, began: float) -> float:
        """Seconds an attempt beginning at ``began`` may take before it counts as failed."""
        if held is None or self._confirmed_at is None:
            return self.pace
        valid_until = self._confirmed_at + self.ttl.total_seconds() * 5 / 6
        return max(0.0, valid_until - began)

    async def _attempt(self) -> None:
        held = self.lease
        began = asyncio.get_running_loop().time()
        try:
            async with asyncio.timeout(self._patience(held, began)):
                if held is None:
                    lease = await self.manager.acquire(self.name, self.holder, self.ttl)
                else:
                    lease = await self.manager.renew(held, self.ttl)
        except Exception as exc:  # the database is away or stalled: nothing proves we hold it
            raise_if_cancelling()  # a stop that came back as the call's error is still a stop
            log.warning("lease %s: %s", self.name, exc)
            lease = None
        if held is not None and lease is None:
            log.warning("lease %s lost (token %s)", self.name, held.token)
        self._confirmed_at = began if lease is not None else None
        self._set(lease)
