"""Run the leader-only work on one daemon of several: the leadership's lifetime, its fence,
and the consolidation ticker as a leader service (see :mod:`daemon.leadership`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import timedelta

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.keys import CONSOLIDATION, LEADERSHIP, STATE
from daemon.consolidation.service import ConsolidationService
from daemon.leadership import LEADER_TTL, LeaderService, Leadership
from daemon.services.consolidation import lease_engine
from events.leases import LeaseManager


def leader_fence(app: web.Application) -> Callable[[], Awaitable[bool]]:
    """Return a check of ``app``'s leader lease (False until the leadership has started)."""

    async def fence() -> bool:
        leadership = app.get(LEADERSHIP)
        return leadership is not None and await leadership.fence()

    return fence


class ConsolidationLeader:
    """The consolidation ticker, on the leader only (manual runs work everywhere)."""

    name = "consolidation"

    def __init__(self, app: web.Application) -> None:
        self.app = app

    def _service(self) -> ConsolidationService | None:
        return self.app.get(CONSOLIDATION)

    async def lead(self) -> None:
        """Start the ticker."""
        service = self._service()
        if service is not None:
            await service.start()

    async def step_down(self) -> None:
        """Stop the ticker (also the one the service's own context started)."""
        service = self._service()
        if service is not None:
            await service.stop()


def install_leadership(
    app: web.Application,
    services: Sequence[LeaderService] | Callable[[web.Application], Sequence[LeaderService]],
    *,
    ttl: timedelta = LEADER_TTL,
) -> None:
    """Run ``services`` only while this daemon leads (call after the services' own setup).

    ``services`` may be a function of the started app (for services built at start-up).
    The context is added last, so it stops the services before their own contexts close.
    """

    async def ctx(app: web.Application) -> AsyncIterator[None]:
        state = app[STATE]
        if state.store is None or state.store.readonly:
            yield
            return
        engine: AsyncEngine = lease_engine(state.settings.backend)
        chosen = list(services(app) if callable(services) else services)
        leadership = Leadership(LeaseManager(engine), chosen, ttl=ttl)
        app[LEADERSHIP] = leadership
        state.metrics.gauge(
            "memoryd_leader",
            "1 while this daemon holds the leader lease and runs the background work.",
            lambda: 0.0 if leadership.active is None else 1.0,
        )
        state.metrics.gauge(
            "memoryd_leader_terms_total",
            "Times this daemon became the leader.",
            lambda: float(leadership.terms),
        )
        try:
            await leadership.start()
            yield
        finally:
            await leadership.stop()
            await engine.dispose()

    app.cleanup_ctx.append(ctx)
