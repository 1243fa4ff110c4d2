"""The consolidation run's lease: short, renewed in the background while a run works, so a
slow run keeps it past its TTL, while a worker that stops renewing (killed, frozen) loses it
about a TTL later and another worker runs (the dead run is recorded as abandoned)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import CONSOLIDATION
from daemon.consolidation.service import LEASE_NAME, ConsolidationService
from daemon.consolidation.triggers import to_micros_delta
from events.clock import SystemClock, to_micros
from events.leases import Lease, LeaseManager
from tests.api_fixtures import api_client
from tests.consolidation_fixtures import sibling_worker

NS = "default"
# Long enough that a pause of the test process (a collection, a busy machine) does not outlast
# it between two renewals; short enough that the file runs in seconds.
TTL = timedelta(seconds=1)


class _FrozenRenewals(LeaseManager):
    """A worker that stopped renewing its lease (its process is gone or frozen)."""

    async def renew(self, lease: Lease, ttl: timedelta) -> Lease | None:
        await asyncio.Event().wait()
        return None


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ConsolidationService]:
    async with api_client(tmp_path) as api:
        status, body = await api.call("POST", "/v1/facts", {"text": "Pia collects stamps"})
        assert status == 201, body
        found: ConsolidationService = api.client.app[CONSOLIDATION]
        yield found


def _now() -> int:
    return to_micros(SystemClock().now())


async def test_a_slow_run_keeps_its_lease_past_the_ttl(
    service: ConsolidationService,
    gated_light: tuple[asyncio.Event, asyncio.Event],
) -> None:
    entered, release = gated_light
    slow = sibling_worker(service, "slow-worker", lease_ttl=TTL)
    run = asyncio.create_task(slow.run(NS))
    await entered.wait()
    first = await slow.leases.current(LEASE_NAME)
    assert first is not None
    assert first.holder == "slow-worker"
    past = first.expires_at + to_micros_delta(TTL)  # well past the first expiry
    for _ in range(1000):
        if _now() > past:
            break
        await asyncio.sleep(0.02)
    assert _now() > past
    held = await slow.leases.current(LEASE_NAME)
    assert held is not None
    assert (held.holder, held.token) == ("slow-worker", first.token)
    assert held.expires_at > first.expires_at
    other = await sibling_worker(service, "other-worker", lease_ttl=TTL).run(NS)
    assert other["status"] == "busy"
    assert other["holder"] == "slow-worker"
    release.set()
    result = await run
    assert result["status"] == "completed", result
    assert await slow.leases.current(LEASE_NAME) is None  # released at the end


async def test_a_dead_holder_loses_the_lease_and_another_worker_runs(
    service: ConsolidationService,
    gated_light: tuple[asyncio.Event, asyncio.Event],
) -> None:
    entered, release = gated_light
    frozen = _FrozenRenewals(service.leases.engine)
    dead = sibling_worker(service, "dead-worker", leases=frozen, lease_ttl=TTL)
    stalled = asyncio.create_task(dead.run(NS))
    await entered.wait()
    taken = await dead.leases.current(LEASE_NAME)
    assert taken is not None
    assert taken.holder == "dead-worker"
    fresh = sibling_worker(service, "fresh-worker", lease_ttl=TTL)
    result: dict[str, Any] = {"status": "busy"}
    for _ in range(500):
        result = await fresh.run(NS)
        if result["status"] != "busy":
            break
        assert result["holder"] == "dead-worker", result
        await asyncio.sleep(0.02)
    assert result["status"] == "completed", result
    # The lease it took over had run out (not renewed), not been released.
    assert _now() > taken.expires_at
    [abandoned] = result["stats"]["abandoned_runs"]
    # The stalled worker wakes up: its effects are kept out of the log.
    release.set()
    late = await stalled
    assert late["status"] == "lost_lease"
    assert late["run_id"] == abandoned
    assert late["position"] is None


async def test_lock_wait_waits_for_the_holder_instead_of_answering_busy(
    service: ConsolidationService,
    gated_light: tuple[asyncio.Event, asyncio.Event],
) -> None:
    entered, release = gated_light
    first = sibling_worker(service, "first-worker")
    running = asyncio.create_task(first.run(NS))
    await entered.wait()
    waiting = sibling_worker(service, "waiting-worker")
    waiting.config = dataclasses.replace(waiting.config, lock_wait=timedelta(seconds=30))
    queued = asyncio.create_task(waiting.run(NS))
    await asyncio.sleep(0.5)
    assert not queued.done()  # still waiting for the lease, not answered busy
    release.set()
    assert (await running)["status"] == "completed"
    result = await queued
    assert result["status"] == "completed", result


async def test_lock_wait_gives_up_after_its_time(
    service: ConsolidationService,
    gated_light: tuple[asyncio.Event, asyncio.Event],
) -> None:
    entered, release = gated_light
    running = asyncio.create_task(sibling_worker(service, "first-worker").run(NS))
    await entered.wait()
    waiting = sibling_worker(service, "waiting-worker")
    waiting.config = dataclasses.replace(waiting.config, lock_wait=timedelta(milliseconds=300))
    result = await waiting.run(NS)
    assert (result["status"], result["holder"]) == ("busy", "first-worker")
    release.set()
    assert (await running)["status"] == "completed"
