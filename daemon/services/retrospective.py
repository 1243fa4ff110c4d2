"""Put the retrospective service into the running daemon.

:func:`install_retrospective` is called by the server on the freshly built application: it
stores a :class:`RetrospectiveHolder` under :data:`RETROSPECTIVE`, adds a ``cleanup_ctx`` that
starts the service once the store and the projection runner are up (in the background, so a
long log does not delay the sockets) and stops it before they close, subscribes to config
reloads (``[retrospective]`` and ``[llm]`` apply live), and registers the ``/metrics`` gauges.

The model: ``[llm] provider = "none"`` (the default) uses the extractor ``[retrospective]
extractor`` names (the offline statement extractor unless a plugin adds another);
``openai`` / ``anthropic`` build that plugin from the registry and wrap it in its daily budget.
A run's facts are reconciled by :func:`daemon.services.memory.writer_for` and their status set
by the ``[memory]`` trust policy.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from aiohttp import web

from daemon.api.keys import PLUGINS, RETROSPECTIVE, STATE
from daemon.api.state import AppState
from daemon.config import Config, LlmConfig
from daemon.consolidation.models import ModelChoice, model_for
from daemon.logging import get_logger
from daemon.reload import ConfigSource
from daemon.retrospective.service import ProjectionSliceReader, RetrospectiveService
from daemon.services.memory import writer_for
from events.tasks import cancel_and_wait
from plugins.llm.budget import BudgetedProvider, BudgetTracker
from plugins.llm.settings import LLMSettings
from plugins.llm.types import LLMProvider
from plugins.protocols import IngestGate
from plugins.registry import Plugins

log = get_logger(__name__)


@dataclass(slots=True)
class RetrospectiveHolder:
    """The service once started (None before, and when the daemon runs without it)."""

    service: RetrospectiveService | None = None
    task: asyncio.Task[None] | None = None
    error: str | None = None
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    fence: Callable[[], Awaitable[bool]] | None = None
    """Set when a leader lease decides where runs happen (see :class:`RetrospectiveLeader`)."""


class RetrospectiveLeader:
    """Make the service lead while this daemon holds the leader lease (daemon.leadership)."""

    name = "retrospective"

    def __init__(self, holder: RetrospectiveHolder) -> None:
        self.holder = holder

    async def lead(self) -> None:
        """Wait for the service to have folded the log, then recover and start running."""
        task = self.holder.task
        if task is not None and not task.done():
            await asyncio.wait([task])
        if self.holder.service is not None:
            await self.holder.service.lead()

    async def step_down(self) -> None:
        """Stop deciding and running; in-flight attempts are cancelled (the next leader
        recovers them)."""
        if self.holder.service is not None:
            await self.holder.service.step_down()


@dataclass(frozen=True, slots=True)
class ProviderChoice:
    """A built provider, its budget and its reply size."""

    provider: LLMProvider
    budget: BudgetTracker | None
    max_tokens: int | None


def build_provider(
    plugins: Plugins,
    llm: LlmConfig,
    now: Callable[[], datetime],
    extractor: str = "offline-extractor",
) -> ProviderChoice:
    """Build the model provider ``[llm]`` names (the ``extractor`` plugin for ``none``)."""
    mapping = llm.provider_settings()
    if mapping is None:
        return ProviderChoice(plugins.extractor(extractor), None, None)
    settings = LLMSettings.from_mapping(mapping)
    inner = plugins.llm_provider(llm.provider, mapping)
    tracker = BudgetTracker(settings.budget)
    return ProviderChoice(BudgetedProvider(inner, tracker, now), tracker, settings.max_tokens)


def _workspace(config: Config) -> Path:
    if config.source is not None:
        return config.source.parent
    return config.storage.data_dir


def install_retrospective(
    app: web.Application,
    watcher: ConfigSource,
    *,
    fence: Callable[[], Awaitable[bool]] | None = None,
) -> RetrospectiveHolder:
    """Wire the retrospective service into ``app`` (call before the app starts).

    With ``fence`` (several daemons: :mod:`daemon.leadership`) the service only folds and
    follows the log until :class:`RetrospectiveLeader` makes it lead, and checks ``fence``
    before each run starts; without it the service leads as soon as it has started.
    """
    holder = RetrospectiveHolder(fence=fence)
    app[RETROSPECTIVE] = holder
    app.cleanup_ctx.append(_retrospective_ctx(holder, watcher))
    watcher.subscribe(_reload_callback(holder, app[PLUGINS]))
    _register_gauges(app[STATE], holder)
    return holder


def _retrospective_ctx(
    holder: RetrospectiveHolder, watcher: ConfigSource
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def ctx(app: web.Application) -> AsyncIterator[None]:
        state = app[STATE]
        holder.task = asyncio.create_task(
            _start(holder, app, state, watcher.current), name="retrospective-start"
        )
        try:
            yield
        finally:
            if holder.task is not None and not holder.task.done():
                await cancel_and_wait(holder.task)
            if holder.service is not None:
                await holder.service.stop()
                holder.service = None

    return ctx


def _asking_its_model(choice: ProviderChoice, config: Config) -> LLMProvider:
    """A model provider asking the retrospective's model (``cheap_model`` or
    ``[consolidation.models] retrospective``); the offline extractor as it is."""
    if choice.budget is None:
        return choice.provider
    return ModelChoice(choice.provider, model_for(config.consolidation, "retrospective"))


def _ingest_gate(plugins: Plugins, config: Config) -> IngestGate | None:
    """The ``[consolidation] ingest_gate`` plugin (None, every message read, if it fails)."""
    section = config.consolidation
    try:
        return plugins.ingest_gate(section.ingest_gate, {"noise_filters": section.noise_filters})
    except Exception as exc:  # a bad plugin must not stop retrospectives
        log.error("retrospective.no_ingest_gate", gate=section.ingest_gate, error=str(exc))
        return None


async def _start(
    holder: RetrospectiveHolder, app: web.Application, state: AppState, config: Config
) -> None:
    store = state.require_store()
    if state.runner is None or state.read_engine is None:
        holder.error = "the daemon runs without projections"
        log.warning("retrospective.not_started", reason=holder.error)
        return
    try:
        choice = build_provider(
            app[PLUGINS], config.llm, state.clock.now, config.retrospective.extractor
        )
    except Exception as exc:  # a bad plugin must not take the daemon down
        holder.error = f"cannot build the [llm] provider: {exc}"
        log.error("retrospective.not_started", reason=holder.error)
        return
    service = RetrospectiveService(
        store,
        ProjectionSliceReader(state.read_engine, state.runner),
        _asking_its_model(choice, config),
        config.retrospective,
        clock=state.clock,
        budget=choice.budget,
        workspace=_workspace(config),
        max_tokens=choice.max_tokens,
        fence=holder.fence,
        auto_promote=config.retrospective.auto_promote,
        writer=lambda: writer_for(app),
        trust_user_statements=config.memory.trust_user_statements,
        ingest_gate=_ingest_gate(app[PLUGINS], config),
        noise_filters=config.consolidation.noise_filters,
    )
    await service.start(lead=holder.fence is None)
    holder.service = service


def _reload_callback(
    holder: RetrospectiveHolder, plugins: Plugins
) -> Callable[[Config, Config], Any]:
    async def apply(old: Config, new: Config) -> None:
        service = holder.service
        if service is None:
            return
        if new.retrospective != old.retrospective or new.memory != old.memory:
            service.workspace = _workspace(new)
            service.apply_config(
                new.retrospective,
                auto_promote=new.retrospective.auto_promote,
                trust_user_statements=new.memory.trust_user_statements,
            )
            log.info("retrospective.config_applied")
        if new.llm != old.llm or new.retrospective.extractor != old.retrospective.extractor:
            try:
                choice = build_provider(
                    plugins, new.llm, service.clock.now, new.retrospective.extractor
                )
            except Exception as exc:
                log.error("retrospective.llm_reload_failed", error=str(exc))
                return
            await service.set_provider(
                _asking_its_model(choice, new), choice.budget, choice.max_tokens
            )
            log.info("retrospective.llm_applied", provider=new.llm.provider)
        elif isinstance(service.provider, ModelChoice):
            service.provider.chosen = model_for(new.consolidation, "retrospective")
        gate_keys = ("ingest_gate", "noise_filters")
        if any(getattr(new.consolidation, k) != getattr(old.consolidation, k) for k in gate_keys):
            service.set_ingest(_ingest_gate(plugins, new), new.consolidation.noise_filters)

    return apply


def _register_gauges(state: AppState, holder: RetrospectiveHolder) -> None:
    def counter(name: str) -> Callable[[], float]:
        def read() -> float:
            service = holder.service
            return 0.0 if service is None else float(getattr(service.counters, name))

        return read

    def budget(index: int) -> Callable[[], float]:
        def read() -> float:
            service = holder.service
            if service is None or service.budget is None:
                return 0.0
            return float(service.budget.usage(service.clock.now())[index])

        return read

    def pending() -> float:
        service = holder.service
        return 0.0 if service is None else float(service.snapshot()["pending"])

    metrics = state.metrics
    for name, text in (
        ("scheduled", "Retrospective runs scheduled by this daemon."),
        ("started", "Retrospective attempts started."),
        ("succeeded", "Retrospective attempts that succeeded."),
        ("failed", "Retrospective attempts that failed."),
        ("abandoned", "Retrospective runs abandoned after max_retries."),
        ("skipped", "Retrospective runs skipped."),
        ("facts_written", "Facts written by retrospectives."),
        ("gated", "Messages the ingest gate kept from the extractor."),
        ("calls", "Model calls made by retrospectives."),
        ("input_tokens", "Prompt tokens reported by the model provider."),
        ("output_tokens", "Completion tokens reported by the model provider."),
    ):
        metrics.gauge(f"memoryd_retrospective_{name}_total", text, counter(name))
    metrics.gauge("memoryd_retrospective_pending", "Conversations with a pending run.", pending)
    metrics.gauge(
        "memoryd_llm_budget_calls", "Model calls counted in the current budget day.", budget(0)
    )
    metrics.gauge(
        "memoryd_llm_budget_tokens", "Model tokens counted in the current budget day.", budget(1)
    )
