"""Consolidation fencing and recovery: a worker whose lease expired mid-run writes nothing
(its final append expects the namespace's ``consolidation-lease`` stream version, which the
next holder advanced), and a run left unfinished is recorded as abandoned by the next run."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import CONSOLIDATION
from daemon.consolidation.service import LEASE_NAME, ConsolidationService
from events.consolidation_events import (
    ConsolidationRunCompleted,
    ConsolidationRunStarted,
    FactArchived,
    lease_stream,
    run_stream,
)
from events.store.base import NewEvent
from tests.api_fixtures import Api, api_client
from tests.consolidation_fixtures import sibling_worker

NS = "default"


async def _fact(api: Api, text: str, **extra: Any) -> str:
    status, body = await api.call("POST", "/v1/facts", {"text": text, "dedupe": False, **extra})
    assert status == 201, body
    fact_id: str = body["fact_id"]
    return fact_id


async def test_a_worker_that_lost_its_turn_writes_nothing(
    tmp_path: Path,
    gated_light: tuple[asyncio.Event, asyncio.Event],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entered, release = gated_light
    async with api_client(tmp_path) as api:
        old = await _fact(api, "The old fax machine is in the basement", importance=0.0)
        api.clock.advance(timedelta(days=150))
        stale: ConsolidationService = api.client.app[CONSOLIDATION]
        stale_run = asyncio.create_task(stale.run(NS))
        await entered.wait()
        # The stalled worker's lease runs out; another daemon takes it and runs.
        lease = await stale.leases.current(LEASE_NAME)
        assert lease is not None
        assert lease.holder == stale.holder
        assert await stale.leases.release(lease)
        fresh = await sibling_worker(stale, "other-daemon").run(NS)
        assert fresh["status"] == "completed", fresh
        stale_id = fresh["stats"]["abandoned_runs"][0]
        # The stale worker wakes inside the window between its lease check and its append:
        # the lease check passes, the store still refuses the append.
        monkeypatch.setattr(stale.leases, "is_current", _always_true)
        release.set()
        result = await stale_run
        assert result["status"] == "lost_lease"
        assert result["run_id"] == stale_id
        assert result["position"] is None

        stream = await stale.store.read_stream(NS, run_stream(stale_id))
        assert [type(e.event) for e in stream] == [
            ConsolidationRunStarted,
            ConsolidationRunCompleted,
        ]
        end = stream[1].event
        assert isinstance(end, ConsolidationRunCompleted)
        assert end.outcome == "abandoned"
        assert end.error is not None
        assert fresh["run_id"] in end.error
        archived = [
            e
            for e in await stale.store.read_stream(NS, f"fact:{old}")
            if isinstance(e.event, FactArchived)
        ]
        assert [e.event.run_id for e in archived if isinstance(e.event, FactArchived)] == [
            fresh["run_id"]
        ]
        assert await stale.store.stream_version(NS, lease_stream(NS)) == 2
        assert stale.sync is not None
        await stale.sync(await stale.store.head())  # the runs above appended directly
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        outcomes = {r["run_id"]: r["outcome"] for r in runs["runs"]}
        assert outcomes == {stale_id: "abandoned", fresh["run_id"]: "completed"}


async def _always_true(*_: object) -> bool:
    return True


async def test_a_killed_run_is_recorded_as_abandoned_by_the_next(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Pia collects stamps")
        service: ConsolidationService = api.client.app[CONSOLIDATION]
        # What a process killed after its first append leaves behind.
        dead = ConsolidationRunStarted(
            run_id="run-dead", phase="light", trigger="manual", at=api.clock.now(), lease_token=1
        )
        await service.store.append(NS, [NewEvent(dead)])
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        assert run["status"] == "completed"
        assert run["stats"]["abandoned_runs"] == ["run-dead"]
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        by_id = {r["run_id"]: r for r in runs["runs"]}
        assert by_id["run-dead"]["outcome"] == "abandoned"
        assert "interrupted" in by_id["run-dead"]["summary"]["error"]
        assert by_id[run["run_id"]]["outcome"] == "completed"
        # A second run finds nothing left to close.
        _, again = await api.call("POST", "/v1/consolidation/run", {})
        assert "abandoned_runs" not in again["stats"]
