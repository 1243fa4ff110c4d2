"""Fixtures shared by the consolidation worker tests: a second worker, a stalled phase."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta

import pytest

from daemon.consolidation import phases
from daemon.consolidation.service import LEASE_TTL, ConsolidationService, RunContext
from events.leases import LeaseManager
from plugins.protocols import Agent


def sibling_worker(
    service: ConsolidationService,
    holder: str,
    *,
    leases: LeaseManager | None = None,
    lease_ttl: timedelta = LEASE_TTL,
) -> ConsolidationService:
    """Return another daemon's worker on the same log and lease table."""
    return ConsolidationService(
        service.store,
        service.engine,
        leases or service.leases,
        service.clock,
        service.config,
        service.embedder,
        sync=service.sync,
        holder=holder,
        lease_ttl=lease_ttl,
    )


@pytest.fixture
def gated_light(monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, asyncio.Event]:
    """Make the first light phase wait until released (a stalled or slow worker)."""
    entered, release = asyncio.Event(), asyncio.Event()
    original = phases.PHASES["light"]
    calls = 0

    async def light(ctx: RunContext, agents: Sequence[Agent]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            entered.set()
            await release.wait()
        await original(ctx, agents)

    monkeypatch.setitem(phases.PHASES, "light", light)
    return entered, release
