"""One leader per database: background work that must run exactly once cluster-wide.

Any number of ``memoryd serve`` processes may share one PostgreSQL database (or one SQLite
data dir). All of them serve reads and writes; only the *leader* runs the background work: the
retrospective scheduler and worker, and the consolidation ticker. The leader is whoever holds
the lease :data:`LEADER_LEASE` in the lease table (:mod:`events.leases`; on PostgreSQL in the
same database as the log, on SQLite in ``leases.sqlite3`` beside it).

:class:`Leadership` tries to take the lease every ``ttl / 3`` and, once it has it, renews it
at the same pace. Each database call is bounded by that pace, so a leader whose database is
slow or gone gives up leading (stops its services) before its lease can expire and another
instance take over. When the leader dies (``kill -9``) its lease expires and another instance
takes it over within ``ttl`` plus one pace (10 s + 3.3 s by default).

Fencing: a lease only tells a process it *was* the leader when it last asked. A leader that
stalls (GC pause, frozen VM, slow disk) past its lease's expiry wakes up believing it still
leads, so leadership alone cannot keep a stale leader's effects out of the log. What does:

- Every effect the retrospective service appends names the version of its conversation's
  retrospective stream it decided on (``expected_versions`` in the append's transaction).
  The new leader's first act is recovery, which appends to the stream of every run left
  "running" (failing it as ``interrupted``); from then on every append of the stale leader for
  that conversation names an old version and the store refuses it, in the same transaction
  that would have written it. A run therefore starts (``RetrospectiveStarted``, one per
  attempt) and ends (one ``Succeeded``/``Failed``, one cursor advance) at most once, whichever
  process believes it leads. The stream version works as a per-conversation fencing token
  that every decision carries.
- Before a run starts, the service re-checks the lease in the database (:meth:`Leadership.
  fence`): a leader that lost its lease does not start new work even on conversations the new
  leader has not touched yet.
- Consolidation runs take their own lease (``consolidation``) per run, short and renewed in
  the background while the run works (:mod:`daemon.consolidation.service`); the leader only
  decides *when* to tick. The fence is the namespace's ``consolidation-lease:<namespace>``
  stream: a run's first append advances it (V to V+1) and its single effects append expects
  V+1, so once another holder took the namespace's turn (V+2) the stale run's append is
  refused by the store inside the transaction that would have written it. The lease re-check
  before that append is only an early exit.

Recovery happens only when leadership is gained: a run still "running" then belonged to a
previous leader whose lease is gone (expired or released), never to a live instance.
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Protocol

from daemon.logging import get_logger
from events.leases import Lease, LeaseKeeper, LeaseManager
from events.tasks import raise_if_cancelling

log = get_logger("memoryd.leadership")

LEADER_LEASE = "leader"
LEADER_TTL = timedelta(seconds=10)
STOP_SECONDS = 10.0
"""How long stopping waits for the lease and service tasks to end after cancelling them."""


class LeaderService(Protocol):
    """Background work that runs only on the leader."""

    name: str

    async def lead(self) -> None:
        """Start the work (this instance just became the leader)."""
        ...

    async def step_down(self) -> None:
        """Stop the work (the lease is lost, or the daemon stops)."""
        ...


def holder_id() -> str:
    """Name this process in the lease table: host, pid and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Leadership:
    """Keep trying to lead; start the services when leading, stop them when not."""

    def __init__(
        self,
        manager: LeaseManager,
        services: Sequence[LeaderService],
        *,
        holder: str | None = None,
        ttl: timedelta = LEADER_TTL,
        name: str = LEADER_LEASE,
    ) -> None:
        self.manager = manager
        self.services = list(services)
        self.holder = holder or holder_id()
        self.ttl = ttl
        self.name = name
        self.keeper = LeaseKeeper(manager, name, self.holder, ttl, on_change=self._on_change)
        """Takes and renews the leader lease; a failed or stalled renewal counts as lost."""
        self.active: Lease | None = None
        """The lease the services were started under (None: they are stopped)."""
        self.terms = 0
        """How many times this instance became the leader."""
        self._changed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def pace(self) -> float:
        """Seconds between two attempts to take or renew the lease."""
        return self.keeper.pace

    @property
    def lease(self) -> Lease | None:
        """The lease as last confirmed by the database (None: not the leader)."""
        return self.keeper.lease

    async def start(self) -> None:
        """Create the lease table if needed and start campaigning in the background.

        Every service is stopped first: nothing runs here until this instance leads.
        """
        for service in self.services:
            await service.step_down()
        await self.manager.setup()
        self.keeper.start()
        self._tasks = [asyncio.create_task(self._apply(), name="memoryd-leadership-services")]

    async def stop(self) -> None:
        """Stop the services, then release the lease so another instance leads at once.

        The lease is renewed while the services stop, so no other instance starts the work
        before this one has ended it."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            # Bounded: a task that swallowed its cancellation (Python 3.11's wait_for did, in
            # a service's lead(); a database call can return it as an error, which _apply
            # re-raises) would otherwise hold the daemon's shutdown forever.
            done, stuck = await asyncio.wait(self._tasks, timeout=STOP_SECONDS)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log.error(
                        "leadership.task_failed", task=task.get_name(), error=repr(task.exception())
                    )
            for task in stuck:
                log.error("leadership.task_stuck", task=task.get_name(), seconds=STOP_SECONDS)
        self._tasks = []
        await self._step_down()
        await self.keeper.stop()

    async def fence(self) -> bool:
        """Return True if the database confirms this instance still holds the lease."""
        lease = self.lease
        if lease is None or self.active is None or lease.token != self.active.token:
            return False
        try:
            async with asyncio.timeout(self.pace):
                return await self.manager.is_current(lease)
        except Exception as exc:
            log.warning("leadership.fence_failed", error=repr(exc))
            return False

    def _on_change(self, lease: Lease | None) -> None:
        log.info(
            "leadership.changed", leading=lease is not None, token=_token(lease), holder=self.holder
        )
        self._changed.set()

    async def _apply(self) -> None:
        """Bring the services in line with the lease, one transition at a time."""
        while True:
            await self._changed.wait()
            self._changed.clear()
            want = self.lease
            if self.active is not None and _token(want) != self.active.token:
                await self._step_down()
            if want is not None and self.active is None:
                self.active = want
                self.terms += 1
                for service in self.services:
                    if self.lease is None:
                        break  # lost again meanwhile: the next round stops what started
                    try:
                        await service.lead()
                    except Exception:
                        raise_if_cancelling()
                        log.exception("leadership.lead_failed", service=service.name)

    async def _step_down(self) -> None:
        if self.active is None:
            return
        self.active = None
        for service in reversed(self.services):
            try:
                await service.step_down()
            except Exception:
                log.exception("leadership.step_down_failed", service=service.name)


def _token(lease: Lease | None) -> int | None:
    return None if lease is None else lease.token
