"""Leases with fencing tokens on SQLite and PostgreSQL, including a holder killed with -9."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from events.clock import ManualClock
from events.leases import Lease, LeaseKeeper, LeaseManager
from events.store.postgres import is_postgres_url, postgres_engine
from events.store.sqlite import sqlite_engine
from tests.paths import REPO_ROOT

TTL = timedelta(seconds=30)


def engine_for(location: str) -> AsyncEngine:
    """Return a writing engine on a PostgreSQL URL or an SQLite file path."""
    if is_postgres_url(location):
        return postgres_engine(location, pool_size=2)
    return sqlite_engine(Path(location), write=True)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the lease table lives, for each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "leases.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
async def engine(location: str) -> AsyncIterator[AsyncEngine]:
    engine = engine_for(location)
    try:
        yield engine
    finally:
        await engine.dispose()


async def test_lease_lifecycle_and_fencing_tokens(engine: AsyncEngine) -> None:
    clock = ManualClock()
    leases = LeaseManager(engine, clock=clock)
    await leases.setup()
    await leases.setup()  # idempotent

    a = await leases.acquire("retro", "a", TTL)
    assert a is not None
    assert a.token == 1
    assert await leases.acquire("retro", "b", TTL) is None
    assert await leases.current("retro") == a
    # Acquiring what we hold extends it and keeps the token.
    clock.advance(timedelta(seconds=10))
    again = await leases.acquire("retro", "a", TTL)
    assert again is not None
    assert again.token == 1
    assert again.expires_at > a.expires_at
    renewed = await leases.renew(again, TTL)
    assert renewed is not None
    assert await leases.is_current(renewed)

    # The holder stalls past expiry: the lease changes hands with a larger token, and the
    # old holder can neither renew nor pass the fencing check.
    clock.advance(TTL + timedelta(seconds=1))
    assert await leases.current("retro") is None
    b = await leases.acquire("retro", "b", TTL)
    assert b is not None
    assert b.token == 2
    assert not await leases.is_current(renewed)
    assert await leases.renew(renewed, TTL) is None
    assert not await leases.release(renewed)
    assert await leases.is_current(b)

    # A release frees it at once; the next holder (even the same one) gets a new token.
    assert await leases.release(b)
    assert await leases.current("retro") is None
    b2 = await leases.acquire("retro", "b", TTL)
    assert b2 is not None
    assert b2.token == 3
    # Names are independent.
    other = await leases.acquire("consolidation", "a", TTL)
    assert other is not None
    assert other.token == 1
    with pytest.raises(ValueError, match="positive ttl"):
        await leases.acquire("x", "a", timedelta(0))


async def test_concurrent_acquirers_one_winner(location: str) -> None:
    engines = [engine_for(location) for _ in range(8)]
    try:
        await LeaseManager(engines[0]).setup()
        managers = [LeaseManager(e) for e in engines]
        for round_ in range(3):
            got = await asyncio.gather(
                *(m.acquire(f"job{round_}", f"h{i}", TTL) for i, m in enumerate(managers))
            )
            winners = [lease for lease in got if lease is not None]
            assert len(winners) == 1
            assert winners[0].token == 1
    finally:
        for engine in engines:
            await engine.dispose()


async def test_keeper_holds_renews_and_hands_over(engine: AsyncEngine) -> None:
    leases = LeaseManager(engine)
    await leases.setup()
    seen: list[Lease | None] = []
    ttl = timedelta(seconds=3)
    first = LeaseKeeper(leases, "job", "first", ttl, on_change=seen.append)
    refused = RefusalCounter(engine)
    second = LeaseKeeper(refused, "job", "second", ttl)
    first.start()
    await wait_until(lambda: held(first) is not None)
    second.start()
    await wait_until(lambda: refused.refusals > 0)  # second has tried, and was refused
    assert held(second) is None
    await first.stop()  # releases: second need not wait for the expiry
    await wait_until(lambda: held(second) is not None)
    lease = held(second)
    assert lease is not None
    assert lease.token == 2
    assert held(first) is None
    assert [lease.token if lease else None for lease in seen] == [1, None]
    await second.stop()


class RefusalCounter(LeaseManager):
    """A lease manager that counts the acquisitions it refused (someone else holds it)."""

    refusals = 0

    async def acquire(self, name: str, holder: str, ttl: timedelta) -> Lease | None:
        lease = await super().acquire(name, holder, ttl)
        if lease is None:
            self.refusals += 1
        return lease


KEEPER_TTL = timedelta(seconds=3)
"""Paced at a second: a loaded machine's slow transaction is not taken for a stall."""


class FaultyRenewals(LeaseManager):
    """A lease manager whose renewals fail (``"raise"``) or stall past any pace
    (``"stall"``) while ``fault`` is set."""

    fault: str | None = None
    renewals = 0

    async def renew(self, lease: Lease, ttl: timedelta) -> Lease | None:
        self.renewals += 1
        if self.fault == "raise":
            raise OSError("the lease database is away")
        if self.fault == "stall":
            await asyncio.Event().wait()
        return await super().renew(lease, ttl)


@pytest.mark.parametrize("fault", ["raise", "stall"])
async def test_a_renewal_the_database_does_not_confirm_counts_as_lost(
    engine: AsyncEngine, fault: str
) -> None:
    """A renewal that fails, or outlasts the pace, drops the lease at once (nothing proves it
    is still held); the keeper takes it again once the database answers."""
    leases = FaultyRenewals(engine)
    await leases.setup()
    seen: list[Lease | None] = []
    keeper = LeaseKeeper(leases, "job", "me", KEEPER_TTL, on_change=seen.append)
    keeper.start()
    try:
        await wait_until(lambda: held(keeper) is not None)
        leases.fault = fault
        # Watch the changes, not the state: a lost lease is taken again at once (its pace
        # already spent on the failed renewal), so a poll can miss the moment it is not held.
        await wait_until(lambda: None in seen)
        leases.fault = None
        await wait_until(lambda: held(keeper) is not None)
    finally:
        await keeper.stop()
    # Held, lost, (taken and lost again while renewals still fail,) held, released.
    flags = [lease is not None for lease in seen]
    assert flags[:2] == [True, False]
    assert flags[-2:] == [True, False]
    assert all(a != b for a, b in itertools.pairwise(flags))


class CancellationAsError(LeaseManager):
    """A lease manager whose renewals, once ``renewing`` is set, wait until cancelled and
    answer the cancellation with an ordinary error, as SQLAlchemy does when a cancellation
    lands inside a transaction (it closes the connection and raises PendingRollbackError)."""

    renewing: asyncio.Event

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self.renewing = asyncio.Event()

    async def renew(self, lease: Lease, ttl: timedelta) -> Lease | None:
        self.renewing.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise sa.exc.PendingRollbackError("invalid transaction", None, None) from None
        raise AssertionError("unreachable")


async def test_a_stop_that_comes_back_as_the_renewal_s_error_still_stops_the_keeper(
    engine: AsyncEngine,
) -> None:
    """The keeper counts a failed renewal as a lost lease and tries again, but a failure that
    is its own stop arriving must end it: a keeper that went on renewing held the daemon's
    shutdown for ever (CI hung at test_connections)."""
    leases = CancellationAsError(engine)
    await leases.setup()
    keeper = LeaseKeeper(leases, "job", "me", KEEPER_TTL)
    keeper.start()
    await asyncio.wait_for(leases.renewing.wait(), 10)  # stop while a renewal waits
    async with asyncio.timeout(10):  # never ending was the fault
        await keeper.stop()
    assert not keeper.running


async def test_a_run_keeper_renews_the_lease_it_was_handed_and_never_retakes_it(
    engine: AsyncEngine,
) -> None:
    leases = FaultyRenewals(engine)
    await leases.setup()
    taken = await leases.acquire("run", "me", KEEPER_TTL)
    assert taken is not None
    keeper = LeaseKeeper(leases, "run", "me", KEEPER_TTL, reacquire=False)
    keeper.start(taken)
    try:
        await wait_until(lambda: leases.renewals >= 2)
        renewed = held(keeper)
        assert renewed is not None
        assert renewed.token == taken.token  # renewed, not taken anew
        assert renewed.expires_at > taken.expires_at
        leases.fault = "raise"
        await wait_until(lambda: held(keeper) is None)
        leases.fault = None
        await wait_until(lambda: not keeper.running)  # it stopped trying
        assert held(keeper) is None
    finally:
        await keeper.stop()


def held(keeper: LeaseKeeper) -> Lease | None:
    """Return the lease a keeper holds right now."""
    return keeper.lease


async def wait_until(condition: object, seconds: float = 30) -> None:
    """Poll ``condition()`` until true (a generous bound; no timing is asserted)."""
    assert callable(condition)
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


# -- a holder killed with SIGKILL --------------------------------------------------------

jobs = sa.Table(
    "lease_test_jobs",
    sa.MetaData(),
    sa.Column("job", sa.Integer, primary_key=True),
    sa.Column("token", sa.BigInteger, nullable=False),
    sa.Column("holder", sa.String(100), nullable=False),
)


async def worker(location: str, holder: str) -> None:
    """Hold the lease when possible and run numbered jobs, each fenced by the token.

    The fencing check and the job's effect are one transaction: the INSERT happens only if
    the lease row still carries this holder and token and has not expired, and no one can
    take the lease over before that transaction ends.
    """
    engine = engine_for(location)
    leases = LeaseManager(engine)
    keeper = LeaseKeeper(leases, "jobs", holder, timedelta(seconds=1))
    keeper.start()
    try:
        while True:
            lease = keeper.lease
            if lease is not None:
                async with engine.begin() as conn:
                    if await leases.fence(conn, lease):
                        following = sa.select(sa.func.coalesce(sa.func.max(jobs.c.job), 0) + 1)
                        job = (await conn.execute(following)).scalar_one()
                        await conn.execute(
                            jobs.insert().values(job=job, token=lease.token, holder=holder)
                        )
            await asyncio.sleep(0.01)
    finally:
        await keeper.stop()
        await engine.dispose()


async def test_killed_holder_is_replaced_and_no_job_runs_twice(location: str) -> None:
    engine = engine_for(location)
    leases = LeaseManager(engine)
    await leases.setup()
    async with engine.begin() as conn:
        await conn.run_sync(jobs.metadata.create_all)

    async def job_rows() -> list[tuple[int, int, str]]:
        async with engine.connect() as conn:
            rows = await conn.execute(sa.select(jobs.c.job, jobs.c.token, jobs.c.holder))
            return [(int(j), int(t), str(h)) for j, t, h in rows]

    children = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.events.test_leases", location, f"w{i}", cwd=REPO_ROOT
        )
        for i in range(3)
    ]
    by_holder = {f"w{i}": child for i, child in enumerate(children)}
    try:
        first = None
        for _ in range(1500):
            first = await leases.current("jobs")
            if first is not None and len(await job_rows()) >= 5:
                break
            await asyncio.sleep(0.02)
        assert first is not None
        victim = by_holder[first.holder]
        os.kill(victim.pid, signal.SIGKILL)
        await victim.wait()
        done_before = len(await job_rows())

        second = None
        for _ in range(1500):
            second = await leases.current("jobs")
            if second is not None and second.holder != first.holder:
                rows = await job_rows()
                if len(rows) >= done_before + 5:
                    break
            await asyncio.sleep(0.02)
        assert second is not None
        assert second.holder != first.holder
        assert second.token > first.token
    finally:
        for child in children:
            if child.returncode is None:
                child.terminate()
                await child.wait()

    rows = sorted(await job_rows())
    try:
        # Every job ran once (contiguous numbers, the primary key forbids repeats), and in
        # token order: no holder ran a job after a later holder had started.
        assert [job for job, _, _ in rows] == list(range(1, len(rows) + 1))
        tokens = [token for _, token, _ in rows]
        assert tokens == sorted(tokens)
        holders_by_token: dict[int, set[str]] = {}
        for _, token, holder in rows:
            holders_by_token.setdefault(token, set()).add(holder)
        assert all(len(h) == 1 for h in holders_by_token.values())
        assert len(holders_by_token) >= 2
    finally:
        await engine.dispose()


if __name__ == "__main__":
    asyncio.run(worker(sys.argv[1], sys.argv[2]))
