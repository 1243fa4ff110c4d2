"""The retrospective scheduler and worker, driving the store.

The service folds the whole log into a :class:`RetrospectiveFold` at start-up (so its state
is exactly what a replay of the log gives), then follows new commits. It never acts on a
whim the log cannot show: every decision is appended first, and acted on once folded back.

- A *decider* task evaluates the message and ``pre_compaction`` triggers after each live
  event and appends ``RetrospectiveScheduled`` (or a merge, or a skip).
- A *ticker* runs the sweep when due and dispatches pending runs whose time has come, at
  most ``llm_concurrency`` at once and never two of one conversation.
- A *run* defers (mid-turn, budget), skips (disabled, nothing to review, no user activity),
  or starts: ``RetrospectiveStarted`` + a ``ConversationForked`` reading fork in one commit,
  then reads the slice through the fork, calls the model per chunk, and ends with one commit:
  the facts + ``RetrospectiveSucceeded`` + ``RetrospectiveCursorAdvanced`` + cleanup of the
  superseded fork, or ``RetrospectiveFailed`` (with the retry time) + cleanup, or after
  ``max_retries`` also ``RetrospectiveAbandoned`` and a forced cursor advance.

Every append names the version of the conversation's retrospective stream it decided on,
so a decision taken on stale state is refused (and re-taken on fresh state), also between
several daemons. At start-up, a run the log shows as running was interrupted by a crash: it
is failed as ``interrupted`` (and retried), and reading forks left behind are cleaned.

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
import contextlib
import dataclasses
import random
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.config import RetrospectiveConfig
from daemon.logging import get_logger
from daemon.memory import trust
from daemon.memory.writes import Draft, MemoryWriter, Planned
from daemon.retrospective import triggers
from daemon.retrospective.prompt import PromptSource, load_prompt
from daemon.retrospective.review import (
    Judgement,
    NoUsableOutput,
    Remembered,
    SliceMessage,
    Transcript,
    build_request,
    fit_transcript,
    judge,
)
from events.clock import Clock
from events.daemon_events import CompactionAnnounced
from events.retrospective_events import (
    RetrospectiveAbandoned,
    RetrospectiveCursorAdvanced,
    RetrospectiveDeferred,
    RetrospectiveFailed,
    RetrospectiveScheduled,
    RetrospectiveSkipped,
    RetrospectiveStarted,
    RetrospectiveSucceeded,
    RetrospectiveSweepCompleted,
    retrospective_stream,
)
from events.store.base import ConcurrencyError, EventStore, NewEvent, StoredEvent
from events.types import (
    ConversationDeleted,
    ConversationForked,
    Event,
    MessageAppended,
    content_text,
    conversation_stream,
)
from plugins.extractors.claims import when_offset
from plugins.llm.budget import BudgetTracker
from plugins.llm.types import LLMError, LLMProvider
from projections.base import cooperate
from projections.messages import UnknownMessage, list_messages, list_messages_through
from projections.retrospective import TERMINAL, ConversationRetro, RetrospectiveFold, RunState
from projections.text import normalise

log = get_logger(__name__)

SWEEP_NAMESPACE = "default"
"""Where sweep passes are recorded (the runs they enqueue live in their own namespaces)."""
APPEND_ATTEMPTS = 5
READ_PAGE = 500
CONTEXT_MESSAGES = 6
"""Messages before a slice given to its review as context: enough for the turn that named
the person a "she" means, or the question a short answer answers."""
FOLLOW_CHUNK = 1000
"""Events the scheduler reads from the log at a time."""
FOLLOW_DELAY = 0.05
"""Seconds a wake-up waits for more commits before the scheduler reads the log."""
USAGE_MEMORY = timedelta(days=2)
RUN_POLL = 0.05
"""Seconds between looks at a run someone waits for."""
RETROSPECTIVE_TAG = "retrospective"
INJECTION_TAG = "injection-suspect"


class RetrospectiveError(Exception):
    """A request the service cannot honour; ``code`` is a stable machine-readable reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class SliceUnavailable(Exception):
    """None of the slice's messages could be read through the fork."""


class SliceReader(Protocol):
    """Read a slice's messages through a reading fork."""

    async def read(
        self,
        namespace: str,
        fork_id: str,
        after_message_id: str | None,
        message_ids: Sequence[str],
        position: int,
    ) -> list[SliceMessage]:
        """Return the named messages as the fork shows them, in order."""
        ...


class _RunnerLike(Protocol):
    async def wait_for(self, position: int, timeout: float | None = None) -> bool:
        """Wait until the projections hold ``position``."""
        ...


class ProjectionSliceReader:
    """Read through the ``messages`` projection (which resolves reference forks)."""

    def __init__(self, engine: AsyncEngine, runner: _RunnerLike, timeout: float = 30.0) -> None:
        self.engine = engine
        self.runner = runner
        self.timeout = timeout

    async def read(
        self,
        namespace: str,
        fork_id: str,
        after_message_id: str | None,
        message_ids: Sequence[str],
        position: int,
    ) -> list[SliceMessage]:
        """Page through the fork after ``after_message_id`` and keep the named messages."""
        if not await self.runner.wait_for(position, timeout=self.timeout):
            raise SliceUnavailable(f"the projections did not reach position {position}")
        wanted = set(message_ids)
        out: list[SliceMessage] = []
        async with self.engine.connect() as conn:
            after = after_message_id
            while len(out) < len(wanted):
                try:
                    rows = await list_messages(
                        conn, namespace, fork_id, after_message_id=after, limit=READ_PAGE
                    )
                except UnknownMessage:
                    after = None
                    continue
                out.extend(
                    SliceMessage(r.message_id, r.role, content_text(r.content), r.created_at)
                    for r in rows
                    if r.message_id in wanted
                )
                if len(rows) < READ_PAGE:
                    break
                after = rows[-1].message_id
            if out and after_message_id is not None:
                before = await list_messages_through(
                    conn, namespace, fork_id, after_message_id, limit=CONTEXT_MESSAGES
                )
                context = [
                    SliceMessage(
                        r.message_id, r.role, content_text(r.content), r.created_at, context=True
                    )
                    for r in before
                ]
                out = context + out
        return out


@dataclass(slots=True)
class Counters:
    """What the service did since it started (for ``/metrics`` and ``memoryd status``)."""

    scheduled: int = 0
    started: int = 0
    succeeded: int = 0
    failed: int = 0
    abandoned: int = 0
    skipped: int = 0
    deferred: int = 0
    facts_written: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    refused_appends: int = 0


@dataclass(slots=True)
class _Usage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""


@dataclass(slots=True)
class _Review:
    judgement: Judgement
    transcript: Transcript
    usage: _Usage


@dataclass(frozen=True, slots=True)
class RequestResult:
    """The answer to a manual run or replay request."""

    action: str
    run_id: str | None
    reason: str
    not_before: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the API view."""
        return {
            "action": self.action,
            "run_id": self.run_id,
            "reason": self.reason,
            "not_before": None if self.not_before is None else self.not_before.isoformat(),
        }


@dataclass(slots=True)
class _Settings:
    config: RetrospectiveConfig
    provider: LLMProvider
    budget: BudgetTracker | None
    prompt: PromptSource
    auto_promote: bool
    max_tokens: int | None
    trust_user_statements: bool = True


def _union(fact_ids: list[str], run: RunState | None) -> list[str]:
    return list(dict.fromkeys([*fact_ids, *([] if run is None else run.fact_ids)]))


@dataclass(frozen=True, slots=True)
class _Closing:
    """The closing commit of an attempt: its events and the fact streams they change."""

    events: list[Event]
    expected: dict[str, int]


def _conv_key(stored: StoredEvent) -> tuple[str, str]:
    event = stored.event
    assert isinstance(event, MessageAppended | CompactionAnnounced)
    return (stored.namespace, event.conversation_id)


def new_run_id() -> str:
    """Return a fresh run id."""
    return uuid.uuid4().hex


def fork_id_for(run_id: str, attempt: int) -> str:
    """Return the reading fork's conversation id for one attempt of a run."""
    return f"retro~{run_id}~{attempt}"


def decision_events(
    conv: ConversationRetro, decision: triggers.Decision, now: datetime
) -> tuple[str, list[Event]]:
    """Return the run id and the events that record a schedule, merge or skip decision."""
    trigger: Any = decision.trigger
    if decision.action == "merge":
        run_id = decision.run_id or ""
        merged = RetrospectiveScheduled(
            conversation_id=conv.conversation_id,
            run_id=run_id,
            at=now,
            trigger=trigger,
            inputs=decision.inputs,
            not_before=decision.not_before,
            merged=True,
        )
        return run_id, [merged]
    run_id = new_run_id()
    events: list[Event] = [
        RetrospectiveScheduled(
            conversation_id=conv.conversation_id,
            run_id=run_id,
            at=now,
            trigger=trigger,
            inputs=decision.inputs,
            not_before=decision.not_before,
        )
    ]
    if decision.action == "skip":
        events.append(
            RetrospectiveSkipped(
                conversation_id=conv.conversation_id,
                run_id=run_id,
                at=now,
                reason=decision.reason,
                inputs=decision.inputs,
            )
        )
    return run_id, events


def replay_event(
    config: RetrospectiveConfig, conv: ConversationRetro, run: RunState, now: datetime
) -> tuple[str, RetrospectiveScheduled]:
    """Return the event scheduling a re-run of an abandoned run's slice, or raise."""
    if run.status != "abandoned":
        raise RetrospectiveError(
            "not_abandoned", f"run {run.run_id!r} is {run.status}; only abandoned runs replay"
        )
    if conv.pending is not None:
        raise RetrospectiveError(
            "pending", f"run {conv.pending_run_id} is pending for this conversation"
        )
    new_id = new_run_id()
    inputs = {**triggers.base_inputs(config, conv, now), "replay_of": run.run_id}
    return new_id, RetrospectiveScheduled(
        conversation_id=conv.conversation_id,
        run_id=new_id,
        at=now,
        trigger="replay",
        inputs=inputs,
        not_before=now,
        replay_of=run.run_id,
        message_ids=list(run.message_ids),
    )


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
    ) -> None:
        self.store = store
        self.writer = writer
        """Builds the writer that reconciles a run's facts (none: written as they are)."""
        self.follow_delay = follow_delay
        """How long a wake-up lets further commits gather before the log is read."""
        self.fence = fence
        """Checked before a run starts: False means this instance no longer leads."""
        self.reader = reader
        self.clock = clock
        self.rng = rng or random.Random()
        self.workspace = workspace
        self.poll_interval = poll_interval
        self._settings = _Settings(
            config=config,
            provider=provider,
            budget=budget,
            prompt=load_prompt(config.prompt_path, workspace),
            auto_promote=auto_promote,
            max_tokens=max_tokens,
            trust_user_statements=trust_user_statements,
        )
        self.fold = RetrospectiveFold()
        self.counters = Counters()
        self._live_after = 0
        self._folded = asyncio.Condition()
        self._hurry = asyncio.Event()
        """Set when this service waits for its own events: read the log without delay."""
        self._wake = asyncio.Event()
        self._reactions: asyncio.Queue[StoredEvent] = asyncio.Queue()
        self._pending_keys: set[tuple[str, str]] = set()
        self._inflight: dict[str, asyncio.Task[None]] = {}
        self._busy: set[tuple[str, str]] = set()
        self._sem = asyncio.Semaphore(config.llm_concurrency)
        self._tasks: list[asyncio.Task[None]] = []
        self._seeded = False
        self._sweep_lock = asyncio.Lock()
        self._last_sweep: datetime | None = None
        self._started = False
        self._stopping = False
        self._leading = False
        self._lead_tasks: list[asyncio.Task[None]] = []
        self._missed: dict[tuple[tuple[str, str], type], StoredEvent] = {}
        """While not leading: the latest live trigger event per conversation (and kind)."""
        self._usage_log: list[tuple[datetime, int]] = []
        """Model calls (time, tokens) of the last two days, from the log: budgets survive."""

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
            self._sem = asyncio.Semaphore(config.llm_concurrency)
        if config.prompt_path != old.prompt_path:
            self._settings.prompt = load_prompt(config.prompt_path, self.workspace)
        self._wake.set()

    def _note_usage(self, event: Event) -> None:
        if not isinstance(event, RetrospectiveSucceeded | RetrospectiveFailed) or not event.calls:
            return
        if self.clock.now() - event.at > USAGE_MEMORY:
            return
        tokens = event.input_tokens + event.output_tokens
        self._usage_log.extend([(event.at, 0)] * (event.calls - 1) + [(event.at, tokens)])

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
            horizon = self.clock.now() - USAGE_MEMORY
            budget.seed(e for e in self._usage_log if e[0] >= horizon)
        self._settings.max_tokens = max_tokens
        if old is not provider:
            await old.aclose()

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self, *, lead: bool = True) -> None:
        """Fold the log and follow it; with ``lead``, also :meth:`lead` at once."""
        head = await self.store.head()
        async for stored in self.store.read(0, until=head):
            self._apply(stored)
            self._note_usage(stored.event)
        self._live_after = head
        if self.budget is not None:
            self.budget.seed(self._usage_log)
        self._tasks.append(asyncio.create_task(self._follow(), name="retrospective-follow"))
        self._started = True
        log.debug(
            "retrospective.started",
            position=self.fold.position,
            conversations=len(self.fold.conversations),
            pending=len(self._pending_keys),
            enabled=self.config.enabled,
        )
        if lead:
            await self.lead()

    @property
    def leading(self) -> bool:
        """Return True while this instance decides and runs retrospectives."""
        return self._leading

    async def lead(self) -> None:
        """Start deciding and running: recover what a previous leader left, then tick.

        Live triggers that arrived while another instance led are re-evaluated on the current
        state (a decision the old leader already took makes them ``none``).
        """
        if self._leading or self._stopping:
            return
        self._leading = True
        missed = sorted(self._missed.values(), key=lambda s: s.position)
        self._missed.clear()
        for stored in missed:
            self._reactions.put_nowait(stored)
        self._lead_tasks.append(asyncio.create_task(self._decider(), name="retrospective-decide"))
        await self.recover()
        self._lead_tasks.append(asyncio.create_task(self._ticker(), name="retrospective-tick"))
        log.info("retrospective.leading", position=self.fold.position)

    async def step_down(self) -> None:
        """Stop deciding and running (the lease is lost); attempts in flight are cancelled."""
        if not self._leading:
            return
        self._leading = False
        tasks = [*self._lead_tasks, *self._inflight.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=max(5.0, 2 * self.poll_interval))
        self._lead_tasks.clear()
        self._inflight.clear()
        self._busy.clear()
        while not self._reactions.empty():
            stored = self._reactions.get_nowait()
            self._missed[(_conv_key(stored), type(stored.event))] = stored
        log.info("retrospective.stepped_down", position=self.fold.position)

    async def stop(self) -> None:
        """Stop the background tasks; running attempts are cancelled (and recovered later)."""
        self._stopping = True
        self._leading = False
        tasks = [*self._tasks, *self._lead_tasks, *self._inflight.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=max(5.0, 2 * self.poll_interval))
        for task in tasks:
            if not task.done():
                log.warning("retrospective.task_did_not_stop", task=task.get_name())
        self._tasks.clear()
        self._lead_tasks.clear()
        self._inflight.clear()
        self._busy.clear()
        await self._settings.provider.aclose()

    async def sync(self, timeout: float | None = 30.0) -> None:
        """Wait until the fold holds everything committed so far."""
        head = await self.store.head()
        await self._wait_folded(head, timeout)

    async def _wait_folded(self, position: int, timeout: float | None) -> None:
        self._hurry.set()
        async with self._folded, asyncio.timeout(timeout):
            await self._folded.wait_for(lambda: self.fold.position >= position)

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait until no run is in flight and the fold is current (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await self.sync(timeout=max(0.1, deadline - loop.time()))
            tasks = list(self._inflight.values())
            if not tasks and self._reactions.empty():
                return
            if loop.time() > deadline:
                raise TimeoutError("retrospective runs did not finish in time")
            if tasks:
                await asyncio.wait(tasks, timeout=max(0.01, deadline - loop.time()))
            else:
                await asyncio.sleep(0.01)

    # -- folding and reacting ----------------------------------------------------------------

    def _apply(self, stored: StoredEvent) -> ConversationRetro | None:
        conv = self.fold.apply(stored)
        if conv is not None:
            if conv.pending_run_id is not None:
                self._pending_keys.add(conv.key)
            else:
                self._pending_keys.discard(conv.key)
        return conv

    async def _follow(self) -> None:
        # Reads and waits in bounded steps (not ``store.subscribe``) so that a stop request is
        # seen within ``poll_interval`` even if a cancellation is swallowed on the way.
        while not self._stopping:
            i = 0
            async for stored in self.store.read(self.fold.position, limit=FOLLOW_CHUNK):
                await cooperate(i)  # the HTTP server shares this loop
                i += 1
                self._apply(stored)
                if stored.position > self._live_after and isinstance(
                    stored.event, MessageAppended | CompactionAnnounced
                ):
                    if self._leading:
                        self._reactions.put_nowait(stored)
                    else:
                        self._missed[(_conv_key(stored), type(stored.event))] = stored
            if i:
                async with self._folded:
                    self._folded.notify_all()
                self._wake.set()
                if i == FOLLOW_CHUNK:
                    continue
            # A short read means the log was read to its end: no second read to learn that.
            woken = await self.store.wait_for_head(
                self.fold.position + 1, timeout=self.poll_interval
            )
            if woken and self.follow_delay > 0 and not self._hurry.is_set():
                # Under a stream of small commits, reading after each one costs more than the
                # folding; a retrospective trigger can wait a few milliseconds. The service's
                # own decisions and runs are folded at once (it waits for them, and its state
                # is what the API shows).
                # ``asyncio.timeout``: Python 3.11's ``wait_for`` can swallow a cancellation.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.follow_delay):
                        await self._hurry.wait()
            self._hurry.clear()

    async def _decider(self) -> None:
        while not self._stopping:
            try:
                async with asyncio.timeout(self.poll_interval):
                    stored = await self._reactions.get()
            except TimeoutError:
                continue
            try:
                await self._react(stored)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("retrospective.decide_failed", position=stored.position)

    async def _react(self, stored: StoredEvent) -> None:
        event = stored.event
        namespace = stored.namespace
        for _ in range(APPEND_ATTEMPTS):
            if isinstance(event, MessageAppended):
                conv = self.fold.get(namespace, event.conversation_id)
                if conv is None:
                    return
                decision = triggers.after_message(self.config, conv, self.clock.now())
            elif isinstance(event, CompactionAnnounced):
                conv = self.fold.get(namespace, event.conversation_id)
                if conv is None:
                    return
                decision = triggers.pre_compaction(self.config, conv, self.clock.now())
                decision.inputs["through_message_id"] = event.through_message_id
            else:
                return
            if decision.action == "none":
                return
            if await self._decide(conv, decision) is not None:
                return
            await self.sync()

    async def _decide(
        self, conv: ConversationRetro, decision: triggers.Decision
    ) -> RequestResult | None:
        """Append one decision; None if it was refused because the state had moved on."""
        run_id, events = decision_events(conv, decision, self.clock.now())
        positions = await self._append(conv, events)
        if positions is None:
            return None
        # Decide the next thing on a state that holds this decision (fewer refused appends;
        # the caller is never the follow loop, which is what folds it).
        await self._wait_folded(positions[-1], 30.0)
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

    async def _append(
        self,
        conv: ConversationRetro,
        events: Sequence[Event],
        *,
        keys: Sequence[str] = (),
        also_expect: Mapping[str, int] | None = None,
    ) -> list[int] | None:
        """Append decision events checked against the retrospective stream's version (and the
        versions of any fact streams the events change)."""
        stream = retrospective_stream(conv.conversation_id)
        new = [
            NewEvent(e, idempotency_key=keys[i] if i < len(keys) else None)
            for i, e in enumerate(events)
        ]
        self._hurry.set()
        try:
            positions = await self.store.append(
                conv.namespace,
                new,
                expected_versions={**(also_expect or {}), stream: conv.stream_version},
            )
        except ConcurrencyError:
            self.counters.refused_appends += 1
            log.debug("retrospective.append_refused", conversation_id=conv.conversation_id)
            return None
        self._wake.set()
        return positions

    # -- requests (API, CLI) ----------------------------------------------------------------

    async def request_run(
        self, namespace: str, conversation_id: str, *, immediate: bool = False
    ) -> RequestResult:
        """Handle a ``manual`` request; raise :class:`RetrospectiveError` if it cannot be."""
        for _ in range(APPEND_ATTEMPTS):
            await self.sync()
            conv = self.fold.get(namespace, conversation_id)
            if conv is None or conv.deleted:
                raise RetrospectiveError(
                    "unknown_conversation", f"no conversation {conversation_id!r} in {namespace!r}"
                )
            decision = triggers.manual(self.config, conv, self.clock.now(), immediate=immediate)
            if decision.action == "none":
                raise RetrospectiveError(decision.reason, f"retrospectives are {decision.reason}")
            result = await self._decide(conv, decision)
            if result is not None:
                return result
        raise RetrospectiveError("busy", "the conversation kept changing; try again")

    async def request_replay(self, namespace: str, run_id: str) -> RequestResult:
        """Schedule a re-run of an abandoned run's slice."""
        if not self.config.enabled:
            raise RetrospectiveError("disabled", "retrospectives are disabled")
        for _ in range(APPEND_ATTEMPTS):
            await self.sync()
            found = self._find_run(namespace, run_id)
            if found is None:
                raise RetrospectiveError("unknown_run", f"no run {run_id!r} in {namespace!r}")
            conv, run = found
            now = self.clock.now()
            new_id, event = replay_event(self.config, conv, run, now)
            if await self._append(conv, [event]) is not None:
                self.counters.scheduled += 1
                return RequestResult("schedule", new_id, "replay", now)
        raise RetrospectiveError("busy", "the conversation kept changing; try again")

    def _find_run(self, namespace: str, run_id: str) -> tuple[ConversationRetro, RunState] | None:
        for (ns, _), conv in self.fold.conversations.items():
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
            conv = self.fold.get(namespace, conversation_id)
            run = None if conv is None else conv.runs.get(run_id)
            if run is None or run.status in TERMINAL or run.status == "failed":
                return run
            remaining = deadline - loop.time()
            if remaining <= 0:
                return run
            self._wake.set()
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
            conv = self.fold.get(namespace, conversation_id)
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
                    fact_ids = _union(fact_ids, under_way)
            result = await self.request_run(namespace, conversation_id, immediate=True)
            first = first or result
            if result.run_id is None or result.action == "skip":
                latest = self._latest_success(namespace, conversation_id)
                return first, latest or run, _union(fact_ids, latest)
            run = await self.wait_for_run(
                namespace, conversation_id, result.run_id, max(0.0, deadline - loop.time())
            )
            if run is not None and run.status == "skipped":
                # Another run reviewed everything first: its success is the answer.
                latest = self._latest_success(namespace, conversation_id)
                return first, latest or run, _union(fact_ids, latest)
            if run is None or run.status != "succeeded":
                return first, run, fact_ids
            fact_ids.extend(f for f in run.fact_ids if f not in fact_ids)
            conv = self.fold.get(namespace, conversation_id)
            if conv is None or not conv.tail or loop.time() >= deadline:
                return first, run, fact_ids

    def _latest_success(self, namespace: str, conversation_id: str) -> RunState | None:
        conv = self.fold.get(namespace, conversation_id)
        done = [] if conv is None else [r for r in conv.runs.values() if r.status == "succeeded"]
        return max(done, key=lambda r: r.scheduled_position, default=None)

    def status(self, namespace: str, conversation_id: str) -> dict[str, Any] | None:
        """Return the conversation's retrospective view from the fold."""
        conv = self.fold.get(namespace, conversation_id)
        return None if conv is None else conv.view()

    def snapshot(self) -> dict[str, Any]:
        """Return counters, queue sizes and the model budget."""
        now = self.clock.now()
        running = sum(1 for c in self.fold.conversations.values() if c.running_run_id)
        out: dict[str, Any] = {
            "enabled": self.config.enabled,
            "provider": self.provider.name,
            "model": self.provider.model,
            "pending": len(self._pending_keys),
            "running": running,
            "in_flight": len(self._inflight),
            "leading": self._leading,
            "counters": dataclasses.asdict(self.counters),
        }
        if self.budget is not None:
            out["budget"] = self.budget.snapshot(now)
        return out

    # -- recovery ----------------------------------------------------------------------------

    async def recover(self) -> None:
        """Fail runs a crash interrupted and clean reading forks left behind."""
        await self.sync()
        for conv in list(self.fold.conversations.values()):
            run = conv.running
            if run is not None:
                log.warning(
                    "retrospective.interrupted_run",
                    conversation_id=conv.conversation_id,
                    run_id=run.run_id,
                    attempt=run.attempt,
                )
                await self._end_failed(
                    conv.key,
                    run.run_id,
                    run.attempt,
                    run.message_ids,
                    "interrupted",
                    "the daemon stopped during this attempt",
                    None,
                    _Usage(),
                )
        await self.sync()
        for conv in list(self.fold.conversations.values()):
            orphans = self._orphan_forks(conv, None)
            if orphans:
                events = [ConversationDeleted(conversation_id=f) for f in orphans]
                await self.store.append(conv.namespace, [NewEvent(e) for e in events])
                log.info(
                    "retrospective.forks_cleaned",
                    conversation_id=conv.conversation_id,
                    forks=orphans,
                )
        await self.sync()

    def _orphan_forks(self, conv: ConversationRetro, current: str | None) -> list[str]:
        """Return the reading forks to clean.

        Kept: the running attempt's fork, ``current`` (the fork of a run succeeding in this
        commit, which becomes the newest successful one), the newest successful fork, and
        with ``keep_superseded_runs`` every successful one. Forks of failed, abandoned or
        interrupted attempts are always cleaned.
        """
        running = conv.running
        live = {current, None if running is None else running.fork_id}
        succeeded = [f for f, r in conv.forks.items() if r.succeeded and not r.deleted]
        newest = current if current is not None else (succeeded[-1] if succeeded else None)
        out: list[str] = []
        for fork_id, record in conv.forks.items():
            if record.deleted or fork_id in live:
                continue
            if record.succeeded and (self.config.keep_superseded_runs or fork_id == newest):
                continue
            out.append(fork_id)
        return out

    # -- ticking: sweep and dispatch ---------------------------------------------------------

    async def _ticker(self) -> None:
        while not self._stopping:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("retrospective.tick_failed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_interval):
                    await self._wake.wait()
            self._wake.clear()

    async def tick(self) -> None:
        """Sweep if due, then start the runs whose time has come."""
        await self.sweep_if_due()
        self.dispatch()

    async def sweep_if_due(self) -> None:
        """Run one sweep pass if one is due (the first of a process only seeds)."""
        async with self._sweep_lock:
            if triggers.sweep_due(self.config, self._last_sweep, self.clock.now()):
                await self._sweep(self.clock.now())

    async def _sweep(self, now: datetime) -> None:
        await self.sync()
        plan = triggers.plan_sweep(
            self.config, list(self.fold.conversations.values()), now, seeding=not self._seeded
        )
        enqueued = 0
        refused = 0
        for conv, inputs in plan.enqueue:
            decision = triggers.Decision("schedule", "sweep", "sweep", inputs, now)
            if await self._decide(conv, decision) is None:
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
            await self.store.append(SWEEP_NAMESPACE, [NewEvent(summary)])
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
        for key in sorted(self._pending_keys):
            conv = self.fold.conversations.get(key)
            if conv is None or key in self._busy:
                continue
            run = triggers.ready_run(conv, now)
            if run is None or run.run_id in self._inflight:
                continue
            if self.config.enabled:
                wait = triggers.mid_turn(self.config, conv, run, now)
                if wait.wait and not wait.record:
                    continue
                if (
                    run.deferred_reason == "budget"
                    and run.deferred_until is not None
                    and run.deferred_until > now
                ):
                    continue
            self._busy.add(key)
            task = asyncio.create_task(self._execute(key, run.run_id), name=f"retro-{run.run_id}")
            self._inflight[run.run_id] = task
            started.append(run.run_id)
        return started

    async def _execute(self, key: tuple[str, str], run_id: str) -> None:
        try:
            async with self._sem:
                await self._run_once(key, run_id)
            await self._recheck(key)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("retrospective.run_crashed", run_id=run_id)
        finally:
            self._inflight.pop(run_id, None)
            self._busy.discard(key)
            self._wake.set()

    async def _recheck(self, key: tuple[str, str]) -> None:
        """Evaluate the message triggers again once a run has ended.

        A message folded while the run was still pending was absorbed by it ("pending"),
        but the run may have chosen its slice before that message arrived: without this,
        such a message waited for the next message or the sweep.
        """
        await self.sync()
        conv = self.fold.conversations.get(key)
        if conv is None or not conv.tail:
            return
        decision = triggers.after_message(self.config, conv, self.clock.now())
        if decision.action != "none":
            await self._decide(conv, decision)

    # -- one run -----------------------------------------------------------------------------

    def _slice(self, conv: ConversationRetro, run: RunState) -> list[tuple[str, int]]:
        """Return ``(message id, position)`` of the messages this attempt reviews."""
        if run.replay_of is not None:
            return [(m, 0) for m in run.message_ids]
        return [(m.message_id, m.position) for m in conv.reviewable()]

    async def _run_once(self, key: tuple[str, str], run_id: str) -> None:
        await self.sync()
        conv = self.fold.conversations.get(key)
        now = self.clock.now()
        if conv is None:
            return
        run = triggers.ready_run(conv, now)
        if run is None or run.run_id != run_id:
            return
        cfg = self.config

        async def skip(reason: str) -> None:
            event = RetrospectiveSkipped(
                conversation_id=conv.conversation_id, run_id=run_id, at=now, reason=reason
            )
            if await self._append(conv, [event]) is not None:
                self.counters.skipped += 1

        if conv.deleted:
            await skip("conversation_deleted")
            return
        if not cfg.enabled:
            await skip("disabled")
            return
        wait = triggers.mid_turn(cfg, conv, run, now)
        if wait.wait:
            if wait.record:
                deferred = RetrospectiveDeferred(
                    conversation_id=conv.conversation_id,
                    run_id=run_id,
                    at=now,
                    reason="mid_turn",
                    until=wait.until,
                    waiting_on=wait.waiting_on,
                )
                if await self._append(conv, [deferred]) is not None:
                    self.counters.deferred += 1
            return
        chosen = self._slice(conv, run)
        if not chosen:
            await skip("nothing_unreviewed")
            return
        if run.replay_of is None and cfg.require_user_activity and not triggers.user_activity(conv):
            await skip("no_user_activity")
            return
        budget = self.budget
        if budget is not None and budget.settings.on_exceed == "pause":
            check = budget.check(now)
            if check.exceeded:
                if run.deferred_reason != "budget" or run.deferred_until != check.resume_at:
                    deferred = RetrospectiveDeferred(
                        conversation_id=conv.conversation_id,
                        run_id=run_id,
                        at=now,
                        reason="budget",
                        until=check.resume_at,
                    )
                    if await self._append(conv, [deferred]) is not None:
                        self.counters.deferred += 1
                return
        await self._attempt(conv, run, chosen, now)

    async def _attempt(
        self,
        conv: ConversationRetro,
        run: RunState,
        chosen: list[tuple[str, int]],
        now: datetime,
    ) -> None:
        attempt = run.attempt + 1
        fork_id = fork_id_for(run.run_id, attempt)
        ids = [m for m, _ in chosen]
        through_id, through_position = chosen[-1]
        replay = run.replay_of is not None
        provider = self.provider
        # The model asked is part of the decision the log records: the conversation's own
        # (the last model its messages named) when configured so, else the provider's.
        profile = conv.profile if self.config.match_conversation_profile else None
        started = RetrospectiveStarted(
            conversation_id=conv.conversation_id,
            run_id=run.run_id,
            at=now,
            attempt=attempt,
            fork_id=fork_id,
            after_message_id=None if replay else conv.cursor_message_id,
            through_message_id=through_id,
            message_ids=ids,
            provider=provider.name,
            model=profile or provider.model,
        )
        fork = ConversationForked(
            fork_id=fork_id,
            parent_conversation_id=conv.conversation_id,
            through_message_id=through_id,
            strategy="cloning" if self.config.fork_strategy == "cloning" else "reference",
        )
        if not self._leading or (self.fence is not None and not await self.fence()):
            log.warning("retrospective.not_leading", run_id=run.run_id)
            return
        positions = await self._append(conv, [started, fork])
        if positions is None:
            return
        self.counters.started += 1
        usage = _Usage()
        key = conv.key
        try:
            messages = await self.reader.read(
                conv.namespace, fork_id, started.after_message_id, ids, positions[-1]
            )
            context = [m for m in messages if m.context]
            messages = [m for m in messages if not m.context]
            if not messages:
                raise SliceUnavailable("no message of the slice is readable through the fork")
            review = await self._review(conv, messages, usage, profile, context)
        except LLMError as exc:
            await self._end_failed(
                key, run.run_id, attempt, ids, exc.kind, exc.message, exc.retry_after, usage
            )
        except NoUsableOutput as exc:
            await self._end_failed(
                key, run.run_id, attempt, ids, "no_usable_output", str(exc), None, usage
            )
        except SliceUnavailable as exc:
            await self._end_failed(
                key, run.run_id, attempt, ids, "slice_unavailable", str(exc), None, usage
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("retrospective.attempt_crashed", run_id=run.run_id)
            await self._end_failed(
                key, run.run_id, attempt, ids, "internal", type(exc).__name__, None, usage
            )
        else:
            await self._end_succeeded(
                key,
                run.run_id,
                attempt,
                messages,
                review,
                None if replay else (through_id, through_position),
            )

    async def _review(
        self,
        conv: ConversationRetro,
        messages: list[SliceMessage],
        usage: _Usage,
        model: str | None = None,
        context: Sequence[SliceMessage] = (),
    ) -> _Review:
        transcript = fit_transcript(messages, self.config.max_transcript_chars)
        judgement = Judgement()
        seen = {normalise(t) for t in conv.remembered}
        parts = len(transcript.chunks)
        for index, chunk in enumerate(transcript.chunks, start=1):
            request = build_request(
                self._settings.prompt.template,
                conv.conversation_id,
                chunk,
                index,
                parts,
                [*conv.remembered, *(r.text for r in judgement.accepted)],
                self._settings.max_tokens,
                model,
                context,
            )
            context = chunk[-CONTEXT_MESSAGES:]  # the next part reads on from this one
            completion = await self.provider.complete(request)
            usage.calls += 1
            usage.input_tokens += completion.usage.input_tokens
            usage.output_tokens += completion.usage.output_tokens
            usage.model = completion.model or model or self.provider.model
            if not judge(completion, seen, judgement):
                raise NoUsableOutput(
                    f"part {index} of {parts}: no valid remember call and not the exact reply"
                )
        return _Review(judgement, transcript, usage)

    def _count_usage(self, usage: _Usage) -> None:
        if usage.calls:
            now = self.clock.now()
            tokens = usage.input_tokens + usage.output_tokens
            self._usage_log.extend([(now, 0)] * (usage.calls - 1) + [(now, tokens)])
            horizon = now - USAGE_MEMORY
            self._usage_log = [e for e in self._usage_log if e[0] >= horizon]
        self.counters.calls += usage.calls
        self.counters.input_tokens += usage.input_tokens
        self.counters.output_tokens += usage.output_tokens

    async def _final_append(
        self,
        key: tuple[str, str],
        run_id: str,
        attempt: int,
        build: Callable[[ConversationRetro, RunState], Awaitable[_Closing]],
    ) -> bool:
        """Append the closing commit of an attempt, re-checking the run on fresh state (and
        re-deciding its facts: another write may have changed what they reconcile with)."""
        for _ in range(APPEND_ATTEMPTS):
            await self.sync()
            conv = self.fold.conversations.get(key)
            run = None if conv is None else conv.runs.get(run_id)
            if conv is None or run is None or run.status != "running" or run.attempt != attempt:
                log.warning("retrospective.run_moved_on", run_id=run_id, attempt=attempt)
                return False
            closing = await build(conv, run)
            keys = [f"retro:{run_id}:{attempt}:end:{i}" for i in range(len(closing.events))]
            if (
                await self._append(conv, closing.events, keys=keys, also_expect=closing.expected)
                is not None
            ):
                return True
        log.error("retrospective.final_append_gave_up", run_id=run_id, attempt=attempt)
        return False

    async def _end_succeeded(
        self,
        key: tuple[str, str],
        run_id: str,
        attempt: int,
        messages: list[SliceMessage],
        review: _Review,
        cursor: tuple[str, int] | None,
    ) -> None:
        now = self.clock.now()
        judgement = review.judgement
        ids = [m.message_id for m in messages]
        drafts = self._drafts(judgement.accepted, messages)
        usage = review.usage
        written: list[str] = []
        reinforced: list[str] = []

        async def build(conv: ConversationRetro, run: RunState) -> _Closing:
            planned = await self._plan(conv.namespace, drafts)
            events: list[Event] = [e for p in planned for e in p.events]
            expected: dict[str, int] = {}
            for p in planned:
                expected.update(p.expected)
            written[:] = [p.draft.fact_id for p in planned if p.verdict.outcome != "deduplicated"]
            reinforced[:] = [p.fact_id for p in planned if p.verdict.outcome == "deduplicated"]
            events.append(
                RetrospectiveSucceeded(
                    conversation_id=conv.conversation_id,
                    run_id=run_id,
                    at=now,
                    attempt=attempt,
                    fact_ids=list(written),
                    reinforced=list(dict.fromkeys(reinforced)),
                    remembered=[d.text for d in drafts],
                    outcome="remembered"
                    if judgement.accepted or judgement.duplicates
                    else "nothing_new",
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    calls=usage.calls,
                    provider=self.provider.name,
                    model=usage.model,
                    chunks=len(review.transcript.chunks),
                    truncated=review.transcript.truncated,
                    rejected=judgement.rejected,
                )
            )
            if cursor is not None:
                events.append(
                    RetrospectiveCursorAdvanced(
                        conversation_id=conv.conversation_id,
                        run_id=run_id,
                        message_id=cursor[0],
                        position=cursor[1],
                        reason="succeeded",
                        at=now,
                    )
                )
            for fork_id in self._orphan_forks(conv, run.fork_id):
                events.append(ConversationDeleted(conversation_id=fork_id))
            return _Closing(events, expected)

        if await self._final_append(key, run_id, attempt, build):
            self.counters.succeeded += 1
            self.counters.facts_written += len(written)
            self._count_usage(usage)
            log.debug(
                "retrospective.succeeded",
                run_id=run_id,
                attempt=attempt,
                facts=len(written),
                reinforced=len(reinforced),
                duplicates=judgement.duplicates,
                rejected=len(judgement.rejected),
                chunks=len(review.transcript.chunks),
                truncated=len(review.transcript.truncated),
                messages=len(ids),
            )

    def _drafts(
        self, accepted: Sequence[Remembered], messages: Sequence[SliceMessage]
    ) -> list[Draft]:
        """One draft per remembered fact: its status from the trust policy, its valid time from
        the messages it cites (when it was said), in the order it was said."""
        by_id = {m.message_id: m for m in messages}
        order = {m.message_id: i for i, m in enumerate(messages)}
        latest = max(m.created_at for m in messages)
        drafts: list[tuple[int, int, Draft]] = []
        for i, r in enumerate(accepted):
            cited = [by_id[m] for m in r.source_message_ids if m in by_id]
            verdict = trust.decide(
                [trust.SourceMessage(m.message_id, m.role, m.text) for m in cited],
                injection=r.injection,
                trust_user_statements=self._settings.trust_user_statements,
                auto_promote=self._settings.auto_promote,
            )
            tags = {*r.tags, RETROSPECTIVE_TAG}
            if r.injection:
                tags.add(INJECTION_TAG)
            if verdict.user_stated:
                tags.add(trust.USER_STATED_TAG)
            said = max((m.created_at for m in cited), default=latest)
            # "I moved to Lisbon last month": true from about a month before it was said.
            said -= when_offset(r.when) or timedelta(0)
            draft = Draft(
                fact_id=uuid.uuid4().hex,
                text=r.text,
                valid_from=said,
                subject=r.subject,
                predicate=r.predicate,
                object=r.object,
                tags=tuple(sorted(tags)),
                owner="user",
                provenance="extraction",
                status=verdict.status,
                importance=r.importance,
                source_message_ids=tuple(m.message_id for m in cited)
                or tuple(m.message_id for m in messages),
                flags=verdict.flags,
            )
            position = max((order[m.message_id] for m in cited), default=len(messages))
            drafts.append((position, i, draft))
        return [d for _, _, d in sorted(drafts, key=lambda t: (t[0], t[1]))]

    async def _plan(self, namespace: str, drafts: Sequence[Draft]) -> list[Planned]:
        if self.writer is None:
            raise RetrospectiveError("no_writer", "the service has no memory writer")
        return await self.writer().plan(namespace, drafts)

    async def _end_failed(
        self,
        key: tuple[str, str],
        run_id: str,
        attempt: int,
        message_ids: list[str],
        error_class: str,
        message: str,
        retry_after: float | None,
        usage: _Usage,
    ) -> None:
        now = self.clock.now()
        cfg = self.config
        abandon = triggers.should_abandon(cfg, attempt)
        retry_at = (
            None if abandon else now + triggers.retry_delay(cfg, attempt, self.rng, retry_after)
        )

        async def build(conv: ConversationRetro, run: RunState) -> _Closing:
            events: list[Event] = [
                RetrospectiveFailed(
                    conversation_id=conv.conversation_id,
                    run_id=run_id,
                    at=now,
                    attempt=attempt,
                    error_class=error_class,
                    message=message[:500],
                    retry_at=retry_at,
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    calls=usage.calls,
                )
            ]
            if abandon:
                events.append(
                    RetrospectiveAbandoned(
                        conversation_id=conv.conversation_id,
                        run_id=run_id,
                        at=now,
                        attempts=attempt,
                        message_ids=list(message_ids),
                    )
                )
                if run.replay_of is None and message_ids:
                    last = message_ids[-1]
                    position = next((m.position for m in conv.tail if m.message_id == last), None)
                    if position is not None:
                        events.append(
                            RetrospectiveCursorAdvanced(
                                conversation_id=conv.conversation_id,
                                run_id=run_id,
                                message_id=last,
                                position=position,
                                reason="abandoned",
                                at=now,
                            )
                        )
            record = None if run.fork_id is None else conv.forks.get(run.fork_id)
            if run.fork_id is not None and (record is None or not record.deleted):
                events.append(ConversationDeleted(conversation_id=run.fork_id))
            return _Closing(events, {})

        if await self._final_append(key, run_id, attempt, build):
            self.counters.failed += 1
            if abandon:
                self.counters.abandoned += 1
            self._count_usage(usage)
            log.warning(
                "retrospective.failed",
                run_id=run_id,
                attempt=attempt,
                error_class=error_class,
                retry_at=None if retry_at is None else retry_at.isoformat(),
                abandoned=abandon,
            )
