"""Scheduling retrospectives while this instance leads.

- A *decider* evaluates the message and ``pre_compaction`` triggers after each live event
  and appends ``RetrospectiveScheduled`` (or a merge, or a skip).
- A *ticker* runs the sweep when due and dispatches pending runs whose time has come, at
  most ``llm_concurrency`` at once and never two of one conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime

from daemon.logging import get_logger
from daemon.retrospective import decisions, triggers
from daemon.retrospective.appender import APPEND_ATTEMPTS, DecisionAppender
from daemon.retrospective.decisions import RequestResult
from daemon.retrospective.follower import ConvKey, LogFollower
from daemon.retrospective.runner import RunWorker
from daemon.retrospective.state import Counters, Settings
from events.clock import Clock
from events.daemon_events import CompactionAnnounced
from events.retrospective_events import RetrospectiveSweepCompleted
from events.store.base import NewEvent, StoredEvent
from events.tasks import raise_if_cancelling
from events.types import MessageAppended
from projections.retrospective import ConversationRetro

log = get_logger(__name__)

SWEEP_NAMESPACE = "default"
"""Where sweep passes are recorded (the runs they enqueue live in their own namespaces)."""


class Scheduler:
    """Decides on live triggers and sweeps, and dispatches ready runs to the worker."""

    def __init__(
        self,
        follower: LogFollower,
        appender: DecisionAppender,
        worker: RunWorker,
        settings: Settings,
        counters: Counters,
        *,
        clock: Clock,
        poll_interval: float,
    ) -> None:
        self.follower = follower
        self.appender = appender
        self.worker = worker
        self.settings = settings
        self.counters = counters
        self.clock = clock
        self.poll_interval = poll_interval
        self.inflight: dict[str, asyncio.Task[None]] = {}
        """Runs under way, by run id."""
        self._busy: set[ConvKey] = set()
        self._sem = asyncio.Semaphore(settings.config.llm_concurrency)
        self._sweep_lock = asyncio.Lock()
        self._last_sweep: datetime | None = None
        self._seeded = False

    def set_concurrency(self, llm_concurrency: int) -> None:
        """Allow this many runs at once from the next dispatch on."""
        self._sem = asyncio.Semaphore(llm_concurrency)

    def forget_inflight(self) -> None:
        """Forget the runs under way (their tasks were cancelled)."""
        self.inflight.clear()
        self._busy.clear()

    # -- deciding on live triggers -----------------------------------------------------------

    async def decider(self) -> None:
        """Decide on each live trigger event the follower hands on, until stopped."""
        reactions = self.follower.reactions
        while not self.follower.stopping:
            try:
                async with asyncio.timeout(self.poll_interval):
                    stored = await reactions.get()
            except TimeoutError:
                continue
            try:
                await self._react(stored)
            except asyncio.CancelledError:
                raise
            except Exception:
                raise_if_cancelling()
                log.exception("retrospective.decide_failed", position=stored.position)

    async def _react(self, stored: StoredEvent) -> None:
        event = stored.event
        namespace = stored.namespace
        fold = self.follower.fold
        for _ in range(APPEND_ATTEMPTS):
            config = self.settings.config
            if isinstance(event, MessageAppended):
                conv = fold.get(namespace, event.conversation_id)
                if conv is None:
                    return
                decision = triggers.after_message(config, conv, self.clock.now())
            elif isinstance(event, CompactionAnnounced):
                conv = fold.get(namespace, event.conversation_id)
                if conv is None:
                    return
                decision = triggers.pre_compaction(config, conv, self.clock.now())
                decision.inputs["through_message_id"] = event.through_message_id
            else:
                return
            if decision.action == "none":
                return
            if await self.decide(conv, decision) is not None:
                return
            await self.follower.sync()

    async def decide(
        self, conv: ConversationRetro, decision: triggers.Decision
    ) -> RequestResult | None:
        """Append one decision; None if it was refused because the state had moved on."""
        run_id, events = decisions.decision_events(conv, decision, self.clock.now())
        positions = await self.appender.append(conv, events)
        if positions is None:
            return None
        # Decide the next thing on a state that holds this decision (fewer refused appends;
        # the caller is never the follow loop, which is what folds it).
        await self.follower.wait_folded(positions[-1], 30.0)
        if decision.action == "schedule":
            self.counters.scheduled += 1
        elif decision.action == "skip":
            self.counters.skipped += 1
        log.debug(
            "retrospective.decided",
            namespace=conv.namespace,
            conversation_id=conv.conversation_id,
            action=decision.action,
            trigger=decision.trigger,
            reason=decision.reason,
            run_id=run_id,
        )
        return RequestResult(decision.action, run_id, decision.reason, decision.not_before)

    # -- ticking: sweep and dispatch ---------------------------------------------------------

    async def ticker(self) -> None:
        """Tick at every wake-up, at least every ``poll_interval``, until stopped."""
        wake = self.follower.wake
        while not self.follower.stopping:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                raise_if_cancelling()
                log.exception("retrospective.tick_failed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_interval):
                    await wake.wait()
            wake.clear()

    async def tick(self) -> None:
        """Sweep if due, then start the runs whose time has come."""
        await self.sweep_if_due()
        self.dispatch()

    async def sweep_if_due(self) -> None:
        """Run one sweep pass if one is due (the first of a process only seeds)."""
        async with self._sweep_lock:
            if triggers.sweep_due(self.settings.config, self._last_sweep, self.clock.now()):
                await self._sweep(self.clock.now())

    async def _sweep(self, now: datetime) -> None:
        await self.follower.sync()
        plan = triggers.plan_sweep(
            self.settings.config,
            list(self.follower.fold.conversations.values()),
            now,
            seeding=not self._seeded,
        )
        enqueued = 0
        refused = 0
        for conv, inputs in plan.enqueue:
            decision = triggers.Decision("schedule", "sweep", "sweep", inputs, now)
            if await self.decide(conv, decision) is None:
                refused += 1
            else:
                enqueued += 1
        summary = RetrospectiveSweepCompleted(
            at=now,
            seeded=plan.seeded,
            enqueued=enqueued,
            skipped_pending=plan.skipped_pending + refused,
            over_cap=plan.over_cap,
            inputs=plan.inputs,
        )
        if enqueued or summary.skipped_pending or plan.over_cap:
            # A pass that found nothing to do (or only seeded) decided nothing: log only.
            await self.appender.store.append(SWEEP_NAMESPACE, [NewEvent(summary)])
        if plan.inputs.get("lookback_clamped"):
            log.warning(
                "retrospective.sweep_lookback_clamped",
                sweep_lookback_s=plan.inputs["sweep_lookback_s"],
            )
        self._seeded = True
        self._last_sweep = now
        log.debug(
            "retrospective.sweep",
            seeded=plan.seeded,
            enqueued=enqueued,
            skipped_pending=summary.skipped_pending,
            over_cap=plan.over_cap,
        )

    def dispatch(self) -> list[str]:
        """Start every ready run (one per conversation); return the run ids started."""
        now = self.clock.now()
        started: list[str] = []
        for key in sorted(self.follower.pending_keys):
            conv = self.follower.fold.conversations.get(key)
            if conv is None or key in self._busy:
                continue
            run = triggers.ready_run(conv, now)
            if run is None or run.run_id in self.inflight:
                continue
            if not decisions.dispatchable(self.settings.config, conv, run, now):
                continue
            self._busy.add(key)
            task = asyncio.create_task(self._execute(key, run.run_id), name=f"retro-{run.run_id}")
            self.inflight[run.run_id] = task
            started.append(run.run_id)
        return started

    async def _execute(self, key: ConvKey, run_id: str) -> None:
        try:
            async with self._sem:
                await self.worker.run_once(key, run_id)
            await self._recheck(key)
        except asyncio.CancelledError:
            raise
        except Exception:
            raise_if_cancelling()
            log.exception("retrospective.run_crashed", run_id=run_id)
        finally:
            self.inflight.pop(run_id, None)
            self._busy.discard(key)
            self.follower.wake.set()

    async def _recheck(self, key: ConvKey) -> None:
        """Evaluate the message triggers again once a run has ended.

        A message folded while the run was still pending was absorbed by it ("pending"),
        but the run may have chosen its slice before that message arrived: without this,
        such a message waited for the next message or the sweep.
        """
        await self.follower.sync()
        conv = self.follower.fold.conversations.get(key)
        if conv is None or not conv.tail:
            return
        decision = triggers.after_message(self.settings.config, conv, self.clock.now())
        if decision.action != "none":
            await self.decide(conv, decision)
