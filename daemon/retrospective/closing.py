"""The closing commit of an attempt, decided: pure functions from what the attempt found to
the events that end it (the facts, success or failure, the cursor, reading forks to clean)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from daemon.memory import trust
from daemon.memory.writes import Draft, Planned
from daemon.retrospective.review import Judgement, Remembered, SliceMessage, Transcript
from daemon.retrospective.state import Usage
from events.retrospective_events import (
    RetrospectiveAbandoned,
    RetrospectiveCursorAdvanced,
    RetrospectiveFailed,
    RetrospectiveSucceeded,
)
from events.types import ConversationDeleted, Event
from plugins.extractors.claims import when_offset
from projections.retrospective import ConversationRetro, RunState

RETROSPECTIVE_TAG = "retrospective"
INJECTION_TAG = "injection-suspect"


@dataclass(frozen=True, slots=True)
class Closing:
    """The closing commit of an attempt: its events and the fact streams they change."""

    events: list[Event]
    expected: dict[str, int]


@dataclass(slots=True)
class Review:
    """What the model made of a slice."""

    judgement: Judgement
    transcript: Transcript
    usage: Usage


def orphan_forks(
    conv: ConversationRetro, current: str | None, keep_superseded_runs: bool
) -> list[str]:
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
        if record.succeeded and (keep_superseded_runs or fork_id == newest):
            continue
        out.append(fork_id)
    return out


def drafts(
    accepted: Sequence[Remembered],
    messages: Sequence[SliceMessage],
    *,
    trust_user_statements: bool,
    auto_promote: bool,
) -> list[Draft]:
    """One draft per remembered fact: its status from the trust policy, its valid time from
    the messages it cites (when it was said), in the order it was said."""
    if not accepted:  # nothing to write (the ingest gate may have refused every message)
        return []
    by_id = {m.message_id: m for m in messages}
    order = {m.message_id: i for i, m in enumerate(messages)}
    latest = max(m.created_at for m in messages)
    out: list[tuple[int, int, Draft]] = []
    for i, r in enumerate(accepted):
        cited = [by_id[m] for m in r.source_message_ids if m in by_id]
        verdict = trust.decide(
            [trust.SourceMessage(m.message_id, m.role, m.text) for m in cited],
            injection=r.injection,
            trust_user_statements=trust_user_statements,
            auto_promote=auto_promote,
            fact_text=r.text,
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
            replaces=r.replaces,
            change=r.change,
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
        out.append((position, i, draft))
    return [d for _, _, d in sorted(out, key=lambda t: (t[0], t[1]))]


def _advance(
    conv: ConversationRetro,
    run: RunState,
    cursor: tuple[str, int],
    reason: Literal["succeeded", "abandoned"],
    now: datetime,
) -> RetrospectiveCursorAdvanced:
    return RetrospectiveCursorAdvanced(
        conversation_id=conv.conversation_id,
        run_id=run.run_id,
        message_id=cursor[0],
        position=cursor[1],
        reason=reason,
        at=now,
    )


@dataclass(frozen=True, slots=True)
class Succeeded:
    """The closing commit of a successful attempt, and which facts it wrote or reinforced."""

    closing: Closing
    written: list[str]
    reinforced: list[str]


def succeeded(
    conv: ConversationRetro,
    run: RunState,
    *,
    attempt: int,
    now: datetime,
    review: Review,
    remembered: Sequence[Draft],
    planned: Sequence[Planned],
    provider: str,
    cursor: tuple[str, int] | None,
    keep_superseded_runs: bool,
) -> Succeeded:
    """Return the facts, ``RetrospectiveSucceeded``, the cursor's advance (none for a
    replay) and the clean-up of superseded forks."""
    judgement = review.judgement
    usage = review.usage
    events: list[Event] = [e for p in planned for e in p.events]
    expected: dict[str, int] = {}
    for p in planned:
        expected.update(p.expected)
    written = [p.draft.fact_id for p in planned if p.verdict.outcome != "deduplicated"]
    reinforced = [p.fact_id for p in planned if p.verdict.outcome == "deduplicated"]
    events.append(
        RetrospectiveSucceeded(
            conversation_id=conv.conversation_id,
            run_id=run.run_id,
            at=now,
            attempt=attempt,
            fact_ids=list(written),
            reinforced=list(dict.fromkeys(reinforced)),
            remembered=[d.text for d in remembered],
            outcome="remembered" if judgement.accepted or judgement.duplicates else "nothing_new",
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            calls=usage.calls,
            provider=provider,
            model=usage.model,
            chunks=len(review.transcript.chunks),
            truncated=review.transcript.truncated,
            rejected=judgement.rejected,
            gated=judgement.gated,
        )
    )
    if cursor is not None:
        events.append(_advance(conv, run, cursor, "succeeded", now))
    for fork_id in orphan_forks(conv, run.fork_id, keep_superseded_runs):
        events.append(ConversationDeleted(conversation_id=fork_id))
    return Succeeded(Closing(events, expected), written, reinforced)


@dataclass(frozen=True, slots=True)
class Failure:
    """Why an attempt failed, and when it may be retried (none: it is abandoned)."""

    error_class: str
    message: str
    retry_at: datetime | None
    abandon: bool


def failed(
    conv: ConversationRetro,
    run: RunState,
    *,
    attempt: int,
    now: datetime,
    failure: Failure,
    message_ids: Sequence[str],
    usage: Usage,
) -> Closing:
    """Return ``RetrospectiveFailed``, on abandonment also ``RetrospectiveAbandoned`` and a
    forced cursor advance past the slice (none for a replay), and the clean-up of the
    attempt's fork."""
    events: list[Event] = [
        RetrospectiveFailed(
            conversation_id=conv.conversation_id,
            run_id=run.run_id,
            at=now,
            attempt=attempt,
            error_class=failure.error_class,
            message=failure.message[:500],
            retry_at=failure.retry_at,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            calls=usage.calls,
        )
    ]
    if failure.abandon:
        events.append(
            RetrospectiveAbandoned(
                conversation_id=conv.conversation_id,
                run_id=run.run_id,
                at=now,
                attempts=attempt,
                message_ids=list(message_ids),
            )
        )
        if run.replay_of is None and message_ids:
            last = message_ids[-1]
            position = next((m.position for m in conv.tail if m.message_id == last), None)
            if position is not None:
                events.append(_advance(conv, run, (last, position), "abandoned", now))
    record = None if run.fork_id is None else conv.forks.get(run.fork_id)
    if run.fork_id is not None and (record is None or not record.deleted):
        events.append(ConversationDeleted(conversation_id=run.fork_id))
    return Closing(events, {})
