"""Running one retrospective: from a ready run to its closing commit.

A run defers (mid-turn, budget), skips (disabled and not asked for by a person, a sweep's
conversation gone quiet, nothing to review, no user activity), or starts:
``RetrospectiveStarted`` + a ``ConversationForked`` reading fork in one commit, then reads the
slice through the fork, calls the model per chunk, and ends with one commit: the
facts + ``RetrospectiveSucceeded`` + ``RetrospectiveCursorAdvanced`` + cleanup of the
superseded fork, or ``RetrospectiveFailed`` (with the retry time) + cleanup, or after
``max_retries`` also ``RetrospectiveAbandoned`` and a forced cursor advance.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from daemon.logging import get_logger
from daemon.memory.writes import Draft, MemoryWriter, Planned
from daemon.retrospective import closing, decisions, triggers
from daemon.retrospective.appender import APPEND_ATTEMPTS, DecisionAppender
from daemon.retrospective.closing import Closing, Failure, Review
from daemon.retrospective.decisions import RetrospectiveError
from daemon.retrospective.follower import ConvKey, LogFollower
from daemon.retrospective.review import (
    Judgement,
    NoUsableOutput,
    Profile,
    SliceMessage,
    build_request,
    fit_transcript,
    judge,
)
from daemon.retrospective.slices import (
    CONTEXT_MESSAGES,
    SliceReader,
    SliceUnavailable,
    gate_messages,
)
from daemon.retrospective.state import Counters, Settings, Usage
from events.clock import Clock
from events.retrospective_events import RetrospectiveStarted
from events.tasks import raise_if_cancelling
from events.types import ConversationForked
from plugins.llm.types import LLMError
from projections.retrospective import ConversationRetro, RunState
from projections.text import normalise

log = get_logger(__name__)


class RunWorker:
    """Carries a ready run through one attempt."""

    def __init__(
        self,
        follower: LogFollower,
        appender: DecisionAppender,
        settings: Settings,
        counters: Counters,
        reader: SliceReader,
        *,
        clock: Clock,
        rng: random.Random,
        fence: Callable[[], Awaitable[bool]] | None,
        writer: Callable[[], MemoryWriter] | None,
    ) -> None:
        self.follower = follower
        self.appender = appender
        self.settings = settings
        self.counters = counters
        self.reader = reader
        self.clock = clock
        self.rng = rng
        self.fence = fence
        """Checked before a run starts: False means this instance no longer leads."""
        self.writer = writer
        """Builds the writer that reconciles a run's facts (none: written as they are)."""

    async def run_once(self, key: ConvKey, run_id: str) -> None:
        """Skip, defer or attempt the run if it is still the conversation's ready run."""
        await self.follower.sync()
        conv = self.follower.fold.conversations.get(key)
        now = self.clock.now()
        if conv is None:
            return
        run = triggers.ready_run(conv, now)
        if run is None or run.run_id != run_id:
            return
        budget = self.settings.budget
        check = (
            budget.check(now)
            if budget is not None and budget.settings.on_exceed == "pause"
            else None
        )
        gate = decisions.before_run(self.settings.config, conv, run, now, check)
        if gate.action == "attempt":
            await self._attempt(conv, run, list(gate.chosen), now)
        elif gate.event is not None and await self.appender.append(conv, [gate.event]) is not None:
            if gate.action == "skip":
                self.counters.skipped += 1
            else:
                self.counters.deferred += 1

    async def _attempt(
        self,
        conv: ConversationRetro,
        run: RunState,
        chosen: list[tuple[str, int]],
        now: datetime,
    ) -> None:
        attempt = run.attempt + 1
        fork_id = decisions.fork_id_for(run.run_id, attempt)
        ids = [m for m, _ in chosen]
        through_id, through_position = chosen[-1]
        replay = run.replay_of is not None
        provider = self.settings.provider
        config = self.settings.config
        # How the model is asked is part of the decision the log records: the conversation's
        # own model, thinking and effort (the last its messages named) when configured so,
        # else the provider's.
        matched = config.match_conversation_profile
        profile = Profile(
            conv.profile if matched else None,
            conv.thinking if matched else None,
            conv.effort if matched else None,
        )
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
            model=profile.model or provider.model,
            thinking=profile.thinking,
            effort=profile.effort,
        )
        fork = ConversationForked(
            fork_id=fork_id,
            parent_conversation_id=conv.conversation_id,
            through_message_id=through_id,
            strategy="cloning" if config.fork_strategy == "cloning" else "reference",
        )
        if not self.follower.leading or (self.fence is not None and not await self.fence()):
            log.warning("retrospective.not_leading", run_id=run.run_id)
            return
        positions = await self.appender.append(conv, [started, fork])
        if positions is None:
            return
        self.counters.started += 1
        usage = Usage()
        key = conv.key

        async def fail(error_class: str, message: str, retry_after: float | None) -> None:
            await self.end_failed(
                key, run.run_id, attempt, ids, error_class, message, retry_after, usage
            )

        try:
            messages = await self.reader.read(
                conv.namespace, fork_id, started.after_message_id, ids, positions[-1]
            )
            if not messages:
                raise SliceUnavailable("no message of the slice is readable through the fork")
            messages, gated = await gate_messages(self.settings.ingest_gate, messages)
            context = [m for m in messages if m.context]
            messages = [m for m in messages if not m.context]
            if messages:
                review = await self._review(conv, messages, usage, profile, context)
            else:  # the gate refused the whole slice: nothing for the extractor to read
                review = Review(Judgement(), fit_transcript([], 1), usage)
            review.judgement.gated.extend(gated)
            self.counters.gated += len(gated)
        except LLMError as exc:
            await fail(exc.kind, exc.message, exc.retry_after)
        except NoUsableOutput as exc:
            await fail("no_usable_output", str(exc), None)
        except SliceUnavailable as exc:
            await fail("slice_unavailable", str(exc), None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise_if_cancelling()
            log.exception("retrospective.attempt_crashed", run_id=run.run_id)
            await fail("internal", type(exc).__name__, None)
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
        usage: Usage,
        profile: Profile,
        context: Sequence[SliceMessage] = (),
    ) -> Review:
        settings = self.settings
        transcript = fit_transcript(messages, settings.config.max_transcript_chars)
        judgement = Judgement()
        seen = {normalise(t) for t in conv.remembered}
        parts = len(transcript.chunks)
        for index, chunk in enumerate(transcript.chunks, start=1):
            request = build_request(
                settings.prompt.template,
                conv.conversation_id,
                chunk,
                index,
                parts,
                [*conv.remembered, *(r.text for r in judgement.accepted)],
                settings.max_tokens,
                profile,
                context,
            )
            context = chunk[-CONTEXT_MESSAGES:]  # the next part reads on from this one
            completion = await settings.provider.complete(request)
            usage.calls += 1
            usage.input_tokens += completion.usage.input_tokens
            usage.output_tokens += completion.usage.output_tokens
            usage.model = completion.model or profile.model or settings.provider.model
            if not judge(completion, seen, judgement, settings.noise_filters):
                raise NoUsableOutput(
                    f"part {index} of {parts}: no valid remember call and not the exact reply"
                )
        return Review(judgement, transcript, usage)

    def _count_usage(self, usage: Usage) -> None:
        self.follower.usage.count(usage, self.clock.now())
        self.counters.calls += usage.calls
        self.counters.input_tokens += usage.input_tokens
        self.counters.output_tokens += usage.output_tokens

    async def _final_append(
        self,
        key: ConvKey,
        run_id: str,
        attempt: int,
        build: Callable[[ConversationRetro, RunState], Awaitable[Closing]],
    ) -> bool:
        """Append the closing commit of an attempt, re-checking the run on fresh state (and
        re-deciding its facts: another write may have changed what they reconcile with)."""
        for _ in range(APPEND_ATTEMPTS):
            await self.follower.sync()
            conv = self.follower.fold.conversations.get(key)
            run = None if conv is None else conv.runs.get(run_id)
            if conv is None or run is None or run.status != "running" or run.attempt != attempt:
                log.warning("retrospective.run_moved_on", run_id=run_id, attempt=attempt)
                return False
            ending = await build(conv, run)
            keys = [f"retro:{run_id}:{attempt}:end:{i}" for i in range(len(ending.events))]
            if (
                await self.appender.append(
                    conv, ending.events, keys=keys, also_expect=ending.expected
                )
                is not None
            ):
                return True
        log.error("retrospective.final_append_gave_up", run_id=run_id, attempt=attempt)
        return False

    async def _end_succeeded(
        self,
        key: ConvKey,
        run_id: str,
        attempt: int,
        messages: list[SliceMessage],
        review: Review,
        cursor: tuple[str, int] | None,
    ) -> None:
        now = self.clock.now()
        judgement = review.judgement
        settings = self.settings
        remembered = closing.drafts(
            judgement.accepted,
            messages,
            trust_user_statements=settings.trust_user_statements,
            auto_promote=settings.auto_promote,
        )
        ended: list[closing.Succeeded] = []

        async def build(conv: ConversationRetro, run: RunState) -> Closing:
            outcome = closing.succeeded(
                conv,
                run,
                attempt=attempt,
                now=now,
                review=review,
                remembered=remembered,
                planned=await self._plan(conv.namespace, remembered),
                provider=settings.provider.name,
                cursor=cursor,
                keep_superseded_runs=settings.config.keep_superseded_runs,
            )
            ended[:] = [outcome]
            return outcome.closing

        if await self._final_append(key, run_id, attempt, build):
            written, reinforced = ended[0].written, ended[0].reinforced
            self.counters.succeeded += 1
            self.counters.facts_written += len(written)
            self._count_usage(review.usage)
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
                messages=len(messages),
            )

    async def _plan(self, namespace: str, drafts: Sequence[Draft]) -> list[Planned]:
        if self.writer is None:
            raise RetrospectiveError("no_writer", "the service has no memory writer")
        return await self.writer().plan(namespace, drafts)

    async def end_failed(
        self,
        key: ConvKey,
        run_id: str,
        attempt: int,
        message_ids: list[str],
        error_class: str,
        message: str,
        retry_after: float | None,
        usage: Usage,
    ) -> None:
        """End an attempt as failed: retried later, or abandoned past ``max_retries``."""
        now = self.clock.now()
        cfg = self.settings.config
        abandon = triggers.should_abandon(cfg, attempt)
        retry_at = (
            None if abandon else now + triggers.retry_delay(cfg, attempt, self.rng, retry_after)
        )
        failure = Failure(error_class, message, retry_at, abandon)

        async def build(conv: ConversationRetro, run: RunState) -> Closing:
            return closing.failed(
                conv,
                run,
                attempt=attempt,
                now=now,
                failure=failure,
                message_ids=message_ids,
                usage=usage,
            )

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
