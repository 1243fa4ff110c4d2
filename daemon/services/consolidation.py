"""Run the consolidation worker beside the API: its lease table, its model and its lifetime.

:func:`consolidation_context` starts the worker once the store and the projections are open
(not on a read-only store); :func:`install_consolidation` gives it ``[consolidation]`` and the
``[llm]`` model and applies reloads of either live.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.keys import (
    CONSOLIDATION,
    CONSOLIDATION_SETUP,
    PLUGINS,
    RECALL,
    RETROSPECTIVE,
    STATE,
)
from daemon.api.state import AppState
from daemon.backend import Backend
from daemon.config import Config, ConsolidationConfig, LlmConfig
from daemon.consolidation.extraction import request_retrospectives
from daemon.consolidation.service import ConsolidationService
from daemon.logging import get_logger
from daemon.recall.query import Filters, SearchRequest
from daemon.reload import ConfigSource
from daemon.services.recall import current_embedder
from daemon.services.retrospective import build_provider
from events.leases import LeaseManager
from plugins.llm.types import LLMProvider
from plugins.registry import Plugins

log = get_logger("memoryd.consolidation")

LEASES_FILE = "leases.sqlite3"


LEASE_BUSY_TIMEOUT = 2.0
"""Seconds a lease statement waits for another's lock on SQLite. Lease work runs to deadlines
of a few seconds (a renewal has a third of the TTL); a statement that waited the default 30 s
outlived them, and the connection its cancelled caller gave up could not close meanwhile, so
a stuck lease transaction stalled the daemon's shutdown behind it."""


def lease_engine(backend: Backend) -> AsyncEngine:
    """Return the engine the lease table lives on (a file beside the log; the PG database)."""
    return backend.side_engine(LEASES_FILE, busy_timeout=LEASE_BUSY_TIMEOUT)


@dataclass(slots=True)
class ConsolidationSetup:
    """What the server tells consolidation: its config section and the model (or none)."""

    config: ConsolidationConfig
    provider: LLMProvider | None = None


def consolidation_provider(
    plugins: Plugins, llm: LlmConfig, now: Callable[[], datetime]
) -> LLMProvider | None:
    """Build the ``[llm]`` provider in its daily budget; None for ``provider = "none"``."""
    if llm.provider_settings() is None:
        return None
    return build_provider(plugins, llm, now).provider


def consolidation_config(app: web.Application) -> ConsolidationConfig:
    """Return the ``[consolidation]`` section in force (the default one when none was given)."""
    service = app.get(CONSOLIDATION)
    if service is not None:
        return service.config
    setup = app.get(CONSOLIDATION_SETUP)
    return setup.config if setup is not None else ConsolidationConfig()


def install_consolidation(app: web.Application, watcher: ConfigSource) -> ConsolidationSetup:
    """Give the consolidation worker ``[consolidation]`` and the ``[llm]`` model (call before
    the app starts); reloads of either apply live. Without this call the worker runs with the
    default section and no model."""
    state = app[STATE]
    config = watcher.current
    try:
        provider = consolidation_provider(app[PLUGINS], config.llm, state.clock.now)
    except Exception as exc:  # a bad plugin must not take the daemon down
        log.error("consolidation.no_model", reason=str(exc))
        provider = None
    setup = ConsolidationSetup(config.consolidation, provider)
    app[CONSOLIDATION_SETUP] = setup

    async def reload(old: Config, new: Config) -> None:
        setup.config = new.consolidation
        if new.llm != old.llm:
            try:
                setup.provider = consolidation_provider(app[PLUGINS], new.llm, state.clock.now)
            except Exception as exc:
                log.error("consolidation.no_model", reason=str(exc))
                setup.provider = None
        service = app.get(CONSOLIDATION)
        if service is not None:
            service.config = setup.config
            if service.provider is not setup.provider:
                service.provider = setup.provider
                await service.seed_provider_budget()

    watcher.subscribe(reload)
    return setup


def build_service(
    app: web.Application, state: AppState
) -> tuple[ConsolidationService, AsyncEngine]:
    """Build the consolidation service for a running app (no model unless one is set)."""
    settings = state.settings
    setup = app.get(CONSOLIDATION_SETUP)
    config = setup.config if setup is not None else ConsolidationConfig()
    leases = lease_engine(settings.backend)
    store = state.require_store()
    engine = state.require_reads()
    runner = state.runner

    async def sync(position: int) -> None:
        if runner is not None:
            state.fold_now.set()
            await runner.wait_for(position, timeout=settings.read_your_writes_timeout)

    async def retrospect(namespace: str) -> list[dict[str, Any]]:
        holder = app.get(RETROSPECTIVE)
        if holder is None or holder.service is None:
            return []
        return await request_retrospectives(holder.service, namespace)

    async def search(namespace: str, query: str, k: int) -> list[str]:
        recall = app.get(RECALL)
        if recall is None:
            return []
        filters = Filters(namespace=namespace, scope=("facts",), include_quarantined=True)
        hits = await recall.engine.search(SearchRequest(query=query, filters=filters, top_k=k))
        return [h.id for h in hits]

    service = ConsolidationService(
        store,
        engine,
        LeaseManager(leases, clock=None),
        state.clock,
        config,
        lambda: current_embedder(app),
        provider=None if setup is None else setup.provider,
        sync=sync,
        search=search,
        retrospect=retrospect,
        plugins=app[PLUGINS],
    )
    return service, leases


async def consolidation_context(app: web.Application) -> AsyncIterator[None]:
    state = app[STATE]
    if state.read_engine is None or state.store is None or state.store.readonly:
        yield
        return
    service, leases = build_service(app, state)
    await service.start()
    app[CONSOLIDATION] = service
    try:
        yield
    finally:
        await service.stop()
        await leases.dispose()
