"""Helpers shared by the consolidation worker tests: a second worker on the same log.

The stalled-phase fixture (``gated_light``) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from datetime import timedelta

from daemon.consolidation.service import LEASE_TTL, ConsolidationService
from events.leases import LeaseManager


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
