"""Run recall beside the API: the recall service (vector index, embedding cache, indexer),
the search recorder, and the model iterative recall may use.

:func:`recall_context` starts the service once the projections are open. :func:`install_recall`
follows configuration reloads: a new ``[recall] embedder`` switches the service to it
(re-embedding in the background), a new ``[llm]`` reaches the recall model.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

from aiohttp import web

from daemon.api.keys import MODEL, PLUGINS, RECALL, RECORDER, RETROSPECTIVE, SHADOWS, STATE
from daemon.config import Config
from daemon.logging import get_logger
from daemon.recall.model import RecallModel
from daemon.recall.recorder import RecallRecorder
from daemon.recall.service import RecallService, cache_engine
from daemon.reload import ConfigSource
from events.tasks import cancel_and_wait
from plugins.embedders.base import Embedder
from plugins.llm.budget import BudgetTracker
from plugins.llm.types import LLMProvider

log = get_logger("memoryd.recall")

FALLBACK_EMBEDDER = "hashed"
"""What compares texts while recall is not running (no projections): it needs no model."""


@dataclasses.dataclass
class ShadowSearches:
    """The shadow searches under way (recorded after a search's answer, off its path)."""

    tasks: set[asyncio.Task[None]] = dataclasses.field(default_factory=set)


def current_embedder(app: web.Application) -> Embedder:
    """Return the recall service's embedder (the hashed one when recall is not running)."""
    service = app.get(RECALL)
    if service is not None:
        return service.index.embedder
    return app[PLUGINS].embedder(FALLBACK_EMBEDDER)


async def recall_context(app: web.Application) -> AsyncIterator[None]:
    """Run the recall service (and the search recorder, on a writable store) with the app."""
    state = app[STATE]
    settings = state.settings
    if state.read_engine is None:
        yield
        return
    service = RecallService(
        state.read_engine,
        cache_engine(settings.backend),
        app[PLUGINS].embedder(settings.recall.embedder),
        state.clock,
        projection_position=state.projection_position,
    )
    await service.start()
    app[RECALL] = service
    state.metrics.gauge(
        "memoryd_recall_embedded_documents",
        "Live documents with a vector from the current embedder.",
        lambda: float(service.progress.embedded),
    )
    state.metrics.gauge(
        "memoryd_recall_documents",
        "Live documents in the search index.",
        lambda: float(service.progress.total),
    )
    recorder = None
    if state.store is not None and not state.store.readonly:
        recorder = RecallRecorder(state.store, state.clock)
        app[RECORDER] = recorder
    app[SHADOWS] = ShadowSearches()
    try:
        yield
    finally:
        for task in list(app[SHADOWS].tasks):
            await cancel_and_wait(task)
        if recorder is not None:
            await recorder.stop()
        await service.stop()


async def switch_embedder(app: web.Application, old: Config, new: Config) -> None:
    """Switch the recall service to the embedder a reload names (the log and the
    ``memoryd_recall_*`` gauges show the re-embedding's progress)."""
    wanted = new.recall.embedder
    service = app.get(RECALL)
    if wanted == old.recall.embedder or service is None:
        return
    try:
        embedder = app[PLUGINS].embedder(wanted)
    except Exception as exc:  # an unknown plugin or a missing extra: keep the old one
        log.error("cannot switch embedder", embedder=wanted, error=str(exc))
        return
    await service.switch_embedder(embedder)


def install_recall(app: web.Application, config: ConfigSource) -> None:
    """Make recall follow reloads and give iterative recall the model ``[llm]`` names (call
    before the app starts; without it, iterative recall is offline and the embedder stays)."""

    def shared() -> tuple[LLMProvider, BudgetTracker] | None:
        # The retrospective service's model, while it runs with one: one daily budget count.
        holder = app.get(RETROSPECTIVE)
        service = None if holder is None else holder.service
        if service is None or service.budget is None:
            return None
        return service.provider, service.budget

    async def on_reload(old: Config, new: Config) -> None:
        await switch_embedder(app, old, new)

    async def ctx(app: web.Application) -> AsyncIterator[None]:
        model = RecallModel(app[STATE].clock.now, shared)
        await model.apply(config.current.llm)
        config.subscribe(model.on_reload)
        app[MODEL] = model
        try:
            yield
        finally:
            await model.close()

    config.subscribe(on_reload)
    app.cleanup_ctx.append(ctx)
