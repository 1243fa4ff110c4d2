"""The retrospective service: its parts composed, started, led and stopped.

It never acts on a whim the log cannot show: every decision is appended first, and acted on
once folded back. The parts, one job each:

- :mod:`~daemon.retrospective.follower` folds the whole log at start-up (so the state is
  exactly what a replay gives), then follows new commits and hands live triggers on;
- :mod:`~daemon.retrospective.triggers` and :mod:`~daemon.retrospective.decisions` decide,
  as pure functions, whether a run happens and what the log records about it;
- :mod:`~daemon.retrospective.scheduler` appends those decisions (the *decider*), sweeps and
  dispatches ready runs (the *ticker*);
- :mod:`~daemon.retrospective.runner` carries one run through an attempt to its closing
  commit, which :mod:`~daemon.retrospective.closing` decides;
- :mod:`~daemon.retrospective.recovery` fails what a crash interrupted.

Every append names the version of the conversation's retrospective stream it decided on
(:mod:`~daemon.retrospective.appender`), so a decision taken on stale state is refused (and
re-taken on fresh state), also between several daemons.

Several daemons on one database: every instance folds and follows the log (status and the
``manual`` trigger work everywhere; a manual request only appends a decision), but only the
instance holding the leader lease (:mod:`daemon.leadership`) decides, sweeps, recovers and runs:
``start(lead=False)`` then :meth:`RetrospectiveService.lead` / :meth:`step_down`. Recovery
happens in :meth:`lead`: a run still "running" then belonged to a previous leader, whose lease
is gone. A stale leader that has not noticed yet is stopped by the stream versions above (and
the lease is re-checked before each run starts, see ``fence``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from daemon.config import RetrospectiveConfig
from daemon.logging import get_logger
from daemon.memory.writes import MemoryWriter
from daemon.retrospective import triggers
from daemon.retrospective.appender import APPEND_ATTEMPTS, DecisionAppender
from daemon.retrospective.decisions import (
    RequestResult,
    RetrospectiveError,
    decision_events,
    fork_id_for,
    new_run_id,
    replay_event,
)
from daemon.retrospective.follower import FOLLOW_DELAY, LogFollower
from daemon.retrospective.prompt import load_prompt
from daemon.retrospective.recovery import recover
from daemon.retrospective.runner import RunWorker
from daemon.retrospective.scheduler import Scheduler
from daemon.retrospective.slices import ProjectionSliceReader, SliceReader, SliceUnavailable
from daemon.retrospective.state import Counters, Settings
from events.clock import Clock
from events.retrospective_events import retrospective_stream
from events.store.base import EventStore
from events.types import conversation_stream
from plugins.llm.budget import BudgetTracker
from plugins.llm.types import LLMProvider
from plugins.protocols import IngestGate
from projections.retrospective import TERMINAL, ConversationRetro, RetrospectiveFold, RunState

__all__ = [
    "Counters",
    "ProjectionSliceReader",
    "RequestResult",
    "RetrospectiveError",
    "RetrospectiveService",
    "SliceReader",
    "SliceUnavailable",
    "decision_events",
    "fold_conversation",
    "fork_id_for",
    "new_run_id",
    "replay_event",
]

log = get_logger(__name__)

RUN_POLL = 0.05
"""Seconds between looks at a run someone waits for."""


def union_fact_ids(fact_ids: list[str], run: RunState | None) -> list[str]:
    """Return ``fact_ids`` followed by the run's facts not among them."""
    return list(dict.fromkeys([*fact_ids, *([] if run is None else run.fact_ids)]))


async def fold_conversation(
    store: EventStore, namespace: str, conversation_id: str
) -> RetrospectiveFold:
    """Fold one conversation's message and retrospective streams (for the CLI)."""
    streams = [
        await store.read_stream(namespace, conversation_stream(conversation_id)),
        await store.read_stream(namespace, retrospective_stream(conversation_id)),
    ]
    fold = RetrospectiveFold()
    fold.apply_all(sorted((e for s in streams for e in s), key=lambda e: e.position))
    return fold


class RetrospectiveService:
    """Schedules and runs retrospectives; see the module docstring."""

    def __init__(
        self,
        store: EventStore,
        reader: SliceReader,
        provider: LLMProvider,
        config: RetrospectiveConfig,
        *,
        clock: Clock,
        budget: BudgetTracker | None = None,
        rng: random.Random | None = None,
        auto_promote: bool = False,
        workspace: Path | None = None,
        max_tokens: int | None = None,
        poll_interval: float = 1.0,
        follow_delay: float = FOLLOW_DELAY,
        fence: Callable[[], Awaitable[bool]] | None = None,
        writer: Callable[[], MemoryWriter] | None = None,
        trust_user_statements: bool = True,
        ingest_gate: IngestGate | None = None,
        noise_filters: str = "none",
    ) -> None:
        self.store = store
        self.clock = clock
        self.workspace = workspace
        self.poll_interval = poll_interval
        self._settings = Settings(
            config=config,
            provider=provider,
            budget=budget,
            prompt=load_prompt(config.prompt_path, workspace),
            auto_promote=auto_promote,
            max_tokens=max_tokens,
            trust_user_statements=trust_user_statements,
            ingest_gate=ingest_gate,
            noise_filters=noise_filters,
        )
        self.counters = Counters()
        self.follower = LogFollower(
            store, clock, poll_interval=poll_interval, follow_delay=follow_delay
        )
        self.appender = DecisionAppender(store, self.follower, self.counters)
        self.worker = RunWorker(
            self.follower,
            self.appender,
            self._settings,
            self.counters,
            reader,
            clock=clock,
            rng=rng or random.Random(),
            fence=fence,
            writer=writer,
        )
        self.scheduler = Scheduler(
            self.follower,
            self.appender,
            self.worker,
            self._settings,
            self.counters,
            clock=clock,
            poll_interval=poll_interval,
        )
        self._tasks: list[asyncio.Task[None]] = []
        self._lead_tasks: list[asyncio.Task[None]] = []
        self._stopping = False

    @property
    def fold(self) -> RetrospectiveFold:
        """Return the fold of the log the service decides on."""
        return self.follower.fold

    # -- configuration -----------------------------------------------------------------------

    @property
    def config(self) -> RetrospectiveConfig:
        """Return the configuration in force."""
        return self._settings.config

    @property
    def provider(self) -> LLMProvider:
        """Return the model provider in use."""
        return self._settings.provider

    @property
    def uses_model(self) -> bool:
        """Return True when the provider is a model (the daemon wraps every model in a daily
        budget; the offline extractor has none)."""
        return self._settings.budget is not None

    @property
    def budget(self) -> BudgetTracker | None:
        """Return the budget tracker, if the provider has one."""
        return self._settings.budget

    def apply_config(
        self,
        config: RetrospectiveConfig,
        *,
        auto_promote: bool | None = None,
        trust_user_statements: bool | None = None,
    ) -> None:
        """Switch to a new ``[retrospective]`` configuration (live reload)."""
        old = self._settings.config
        self._settings.config = config
        if auto_promote is not None:
            self._settings.auto_promote = auto_promote
        if trust_user_statements is not None:
            self._settings.trust_user_statements = trust_user_statements
        if config.llm_concurrency != old.llm_concurrency:
            self.scheduler.set_concurrency(config.llm_concurrency)
        if config.prompt_path != old.prompt_path:
            self._settings.prompt = load_prompt(config.prompt_path, self.workspace)
        self.follower.wake.set()

    def set_ingest(self, gate: IngestGate | None, noise_filters: str) -> None:
        """Switch the ingest gate and the noise filters (live reload of ``[consolidation]``)."""
        self._settings.ingest_gate = gate
        self._settings.noise_filters = noise_filters

    async def set_provider(
        self,
        provider: LLMProvider,
        budget: BudgetTracker | None,
        max_tokens: int | None = None,
    ) -> None:
        """Swap the model provider (live reload of ``[llm]``); the old one is closed."""
        old = self._settings.provider
        self._settings.provider = provider
        self._settings.budget = budget
        if budget is not None:
            budget.seed(self.follower.usage.recent(self.clock.now()))
        self._settings.max_tokens = max_tokens
        if old is not provider:
            await old.aclose()

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self, *, lead: bool = True) -> None:
        """Fold the log and follow it; with ``lead``, also :meth:`lead` at once."""
        await self.follower.catch_up()
        if self.budget is not None:
            self.budget.seed(self.follower.usage.entries)
        self._tasks.append(asyncio.create_task(self.follower.follow(), name="retrospective-follow"))
        log.debug(
            "retrospective.started",
            position=self.fold.position,
            conversations=len(self.fold.conversations),
            pending=len(self.follower.pending_keys),
            enabled=self.config.enabled,
        )
        if lead:
            await self.lead()

    @property
    def leading(self) -> bool:
        """Return True while this instance decides and runs retrospectives."""
        return self.follower.leading

    async def lead(self) -> None:
        """Start deciding and running: recover what a previous leader left, then tick.

        Live triggers that arrived while another instance led are re-evaluated on the current
        state (a decision the old leader already took makes them ``none``).
        """
        if self.follower.leading or self._stopping:
            return
        self.follower.start_leading()
        self._lead_tasks.append(
            asyncio.create_task(self.scheduler.decider(), name="retrospective-decide")
        )
        await self.recover()
        self._lead_tasks.append(
            asyncio.create_task(self.scheduler.ticker(), name="retrospective-tick")
        )
        log.info("retrospective.leading", position=self.fold.position)

    async def step_down(self) -> None:
        """Stop deciding and running (the lease is lost); attempts in flight are cancelled."""
        if not self.follower.leading:
            return
        self.follower.leading = False
        tasks = [*self._lead_tasks, *self.scheduler.inflight.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=max(5.0, 2 * self.poll_interval))
        self._lead_tasks.clear()
        self.scheduler.forget_inflight()
        self.follower.stop_leading()
        log.info("retrospective.stepped_down", position=self.fold.position)

    async def stop(self) -> None:
        """Stop the background tasks; running attempts are cancelled (and recovered later)."""
        self._stopping = True
        self.follower.stopping = True
        self.follower.leading = False
        tasks = [*self._tasks, *self._lead_tasks, *self.scheduler.inflight.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=max(5.0, 2 * self.poll_interval))
        for task in tasks:
            if not task.done():
                log.warning("retrospective.task_did_not_stop", task=task.get_name())
        self._tasks.clear()
        self._lead_tasks.clear()
        self.scheduler.forget_inflight()
        await self._settings.provider.aclose()

    async def sync(self, timeout: float | None = 30.0) -> None:
        """Wait until the fold holds everything committed so far."""
        await self.follower.sync(timeout)

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait until no run is in flight and the fold is current (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await self.sync(timeout=max(0.1, deadline - loop.time()))
            tasks = list(self.scheduler.inflight.values())
            if not tasks and self.follower.reactions.empty():
                return
            if loop.time() > deadline:
                raise TimeoutError("retrospective runs did not finish in time")
            if tasks:
                await asyncio.wait(tasks, timeout=max(0.01, deadline - loop.time()))
            else:
                await asyncio.sleep(0.01)

    async def recover(self) -> None:
        """Fail runs a crash interrupted and clean reading forks left behind."""
        await recover(self.follower, self.worker)

    async def tick(self) -> None:
        """Sweep if due, then start the runs whose time has come."""
        await self.scheduler.tick()

    async def sweep_if_due(self) -> None:
        """Run one sweep pass if one is due (the first of a process only seeds)."""
        await self.scheduler.sweep_if_due()

    def dispatch(self) -> list[str]:
        """Start every ready run (one per conversation); return the run ids started."""
        return self.scheduler.dispatch()

    # -- requests (API, CLI) ----------------------------------------------------------------

    async def request_run(
        self, namespace: str, conversation_id: str, *, immediate: bool = False
    ) -> RequestResult:
        """Handle a ``manual`` request; raise :class:`RetrospectiveError` if it cannot be."""
        for _ in range(APPEND_ATTEMPTS):
            await self.sync()
            conv = self.follower.fold.get(namespace, conversation_id)
            if conv is None or conv.deleted:
                raise RetrospectiveError(
                    "unknown_conversation", f"no conversation {conversation_id!r} in {namespace!r}"
                )
            decision = triggers.manual(self.config, conv, self.clock.now(), immediate=immediate)
            if decision.action == "none":
                raise RetrospectiveError(decision.reason, f"retrospectives are {decision.reason}")
            result = await self.scheduler.decide(conv, decision)
            if result is not None:
                return result
        raise RetrospectiveError("busy", "the conversation kept changing; try again")

    async def request_replay(self, namespace: str, run_id: str) -> RequestResult:
        """Schedule a re-run of an abandoned run's slice (with the switch off too: a person
        asked for it)."""
        for _ in range(APPEND_ATTEMPTS):
            await self.sync()
            found = self._find_run(namespace, run_id)
            if found is None:
                raise RetrospectiveError("unknown_run", f"no run {run_id!r} in {namespace!r}")
            conv, run = found
            now = self.clock.now()
            new_id, event = replay_event(self.config, conv, run, now)
            if await self.appender.append(conv, [event]) is not None:
                self.counters.scheduled += 1
                return RequestResult("schedule", new_id, "replay", now)
        raise RetrospectiveError("busy", "the conversation kept changing; try again")

    def _find_run(self, namespace: str, run_id: str) -> tuple[ConversationRetro, RunState] | None:
        for (ns, _), conv in self.follower.fold.conversations.items():
            if ns == namespace and run_id in conv.runs:
                return conv, conv.runs[run_id]
        return None

    async def wait_for_run(
        self, namespace: str, conversation_id: str, run_id: str, timeout: float
    ) -> RunState | None:
        """Wait until a run ends (or an attempt fails) or ``timeout`` seconds pass; return the
        run as it stands then (None: no such run)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await self.sync()
            conv = self.follower.fold.get(namespace, conversation_id)
            run = None if conv is None else conv.runs.get(run_id)
            if run is None or run.status in TERMINAL or run.status == "failed":
                return run
            remaining = deadline - loop.time()
            if remaining <= 0:
                return run
            self.follower.wake.set()
            await asyncio.sleep(min(RUN_POLL, remaining))

    async def run_now(
        self, namespace: str, conversation_id: str, timeout: float
    ) -> tuple[RequestResult, RunState | None, list[str]]:
        """Run a retrospective over everything unreviewed now and wait for it.

        A run already pending covers the messages that had arrived when it was scheduled; if
        messages remain unreviewed when it ends, another run is requested for them, until none
        remain, a run does not succeed, or ``timeout`` seconds pass. Returns the first request's
        answer, the last run and the ids of the facts every run left current.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        first: RequestResult | None = None
        fact_ids: list[str] = []
        run: RunState | None = None
        while True:
            conv = self.follower.fold.get(namespace, conversation_id)
            if conv is not None and conv.running_run_id is not None:
                # A run under way covers part of the tail: let it end first (what it wrote is
                # part of the answer).
                under_way = await self.wait_for_run(
                    namespace,
                    conversation_id,
                    conv.running_run_id,
                    max(0.0, deadline - loop.time()),
                )
                if under_way is not None and under_way.status == "succeeded":
                    fact_ids = union_fact_ids(fact_ids, under_way)
            result = await self.request_run(namespace, conversation_id, immediate=True)
            first = first or result
            if result.run_id is None or result.action == "skip":
                latest = self._latest_success(namespace, conversation_id)
                return first, latest or run, union_fact_ids(fact_ids, latest)
            run = await self.wait_for_run(
                namespace, conversation_id, result.run_id, max(0.0, deadline - loop.time())
            )
            if run is not None and run.status == "skipped":
                # Another run reviewed everything first: its success is the answer.
                latest = self._latest_success(namespace, conversation_id)
                return first, latest or run, union_fact_ids(fact_ids, latest)
            if run is None or run.status != "succeeded":
                return first, run, fact_ids
            fact_ids.extend(f for f in run.fact_ids if f not in fact_ids)
            conv = self.follower.fold.get(namespace, conversation_id)
            if conv is None or not conv.tail or loop.time() >= deadline:
                return first, run, fact_ids

    def _latest_success(self, namespace: str, conversation_id: str) -> RunState | None:
        conv = self.follower.fold.get(namespace, conversation_id)
        done = [] if conv is None else [r for r in conv.runs.values() if r.status == "succeeded"]
        return max(done, key=lambda r: r.scheduled_position, default=None)

    def status(self, namespace: str, conversation_id: str) -> dict[str, Any] | None:
        """Return the conversation's retrospective view from the fold."""
        conv = self.follower.fold.get(namespace, conversation_id)
        return None if conv is None else conv.view()

    def snapshot(self) -> dict[str, Any]:
        """Return counters, queue sizes and the model budget."""
        now = self.clock.now()
        running = sum(1 for c in self.follower.fold.conversations.values() if c.running_run_id)
        out: dict[str, Any] = {
            "enabled": self.config.enabled,
            "provider": self.provider.name,
            "model": self.provider.model,
            "pending": len(self.follower.pending_keys),
            "running": running,
            "in_flight": len(self.scheduler.inflight),
            "leading": self.follower.leading,
            "counters": dataclasses.asdict(self.counters),
        }
        if self.budget is not None:
            out["budget"] = self.budget.snapshot(now)
        return out
