"""A conversation's retrospective state, and the one transition both readers apply to it.

Fold rules (no clock; times come from events):

- ``MessageAppended`` to a conversation puts a new message on its unreviewed *tail* (in log
  position order; a repeat of a message id updates it in place, e.g. when it is finalized).
  A message at or before the cursor is already reviewed and is not tracked again. A message
  whose metadata names a ``model`` makes that the conversation's *profile* (the model a
  retrospective asks when ``match_conversation_profile`` is on); one naming ``thinking`` (true,
  false, a token budget, or ``{"budget_tokens": n}``) or ``effort`` (``reasoning_effort``)
  sets how that model is asked (:func:`profile_settings`).
- ``ConversationForked`` whose fork a ``RetrospectiveStarted`` names is a retrospective's
  reading fork: tracked under its conversation, never a conversation of its own.
  ``ConversationDeleted`` of such a fork marks it cleaned; of a conversation, stops tracking.
- Run events move a run through ``pending -> running -> succeeded | failed (awaiting retry)
  -> ... -> abandoned``, or to ``skipped``. There is at most one pending and one running run
  per conversation. ``Started`` sets ``last_attempt_at``; ``Succeeded`` sets
  ``last_success_at`` and grows the remembered log (100 entries / 8 KB, oldest dropped);
  ``CursorAdvanced`` moves the cursor and drops the reviewed messages from the tail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from events.retrospective_events import (
    RetrospectiveAbandoned,
    RetrospectiveCursorAdvanced,
    RetrospectiveDeferred,
    RetrospectiveFailed,
    RetrospectiveScheduled,
    RetrospectiveSkipped,
    RetrospectiveStarted,
    RetrospectiveSucceeded,
    RunEvent,
)

RunStatus = Literal["pending", "running", "succeeded", "failed", "skipped", "abandoned"]
TERMINAL: frozenset[str] = frozenset({"succeeded", "skipped", "abandoned"})

REMEMBERED_MAX_ENTRIES = 100
REMEMBERED_MAX_BYTES = 8 * 1024
REMEMBERED_ENTRY_MAX_BYTES = 1024
KEEP_TERMINAL_RUNS = 50
"""Finished runs the in-memory fold keeps per conversation (the table keeps all)."""


def has_user_content(role: str, content: Any) -> bool:
    """Return True for a user message with real text (a tool_result on a user row is not)."""
    if role != "user":
        return False
    if isinstance(content, str):
        return bool(content.strip())
    return any(
        isinstance(block, dict)
        and block.get("type") == "text"
        and bool(str(block.get("text", "")).strip())
        for block in content
    )


@dataclass(slots=True)
class TailMessage:
    """One unreviewed message: what the triggers need, not its content."""

    message_id: str
    position: int
    role: str
    user_content: bool
    finalized: bool
    created_at: datetime
    chars: int = 0


@dataclass(slots=True)
class RunState:
    """One run as the log tells it."""

    run_id: str
    trigger: str
    scheduled_at: datetime
    scheduled_position: int
    status: RunStatus = "pending"
    triggers: list[str] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    not_before: datetime | None = None
    attempt: int = 0
    facts_written: int = 0
    fact_ids: list[str] = field(default_factory=list)
    """The facts the run left current: written, or restated and reinforced."""
    error: str | None = None
    error_message: str | None = None
    retry_at: datetime | None = None
    fork_id: str | None = None
    message_ids: list[str] = field(default_factory=list)
    replay_of: str | None = None
    deferred_reason: str | None = None
    deferred_until: datetime | None = None
    deferred_on: str | None = None
    finished_at: datetime | None = None
    skip_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the API view of this run."""
        out: dict[str, Any] = {
            "run_id": self.run_id,
            "trigger": self.trigger,
            "status": self.status,
            "facts_written": self.facts_written,
            "fact_ids": self.fact_ids,
            "attempt": self.attempt,
            "scheduled_at": self.scheduled_at.isoformat(),
        }
        if self.error is not None:
            out["error"] = self.error
        if self.retry_at is not None and self.status == "failed":
            out["retry_at"] = self.retry_at.isoformat()
        if self.skip_reason is not None:
            out["reason"] = self.skip_reason
        if self.replay_of is not None:
            out["replay_of"] = self.replay_of
        return out


@dataclass(slots=True)
class ForkRecord:
    """A reading fork made by a run's attempt."""

    run_id: str
    succeeded: bool = False
    deleted: bool = False


@dataclass(slots=True)
class ConversationRetro:
    """One conversation's retrospective state."""

    namespace: str
    conversation_id: str
    stream_version: int = 0
    cursor_message_id: str | None = None
    cursor_position: int = 0
    last_attempt_at: datetime | None = None
    last_success_at: datetime | None = None
    last_message_at: datetime | None = None
    tail: list[TailMessage] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    runs: dict[str, RunState] = field(default_factory=dict)
    pending_run_id: str | None = None
    running_run_id: str | None = None
    remembered: list[str] = field(default_factory=list)
    forks: dict[str, ForkRecord] = field(default_factory=dict)
    deleted: bool = False
    profile: str | None = None
    """The model the conversation's latest message naming one (``metadata.model``) named."""
    thinking: int | None = None
    """The thinking budget its latest message naming one asked for (0: off)."""
    effort: str | None = None
    """The reasoning effort its latest message naming one asked for."""
    tail_unfinalized: int = 0
    """How many tail messages are not finalized (kept with every change of the tail)."""
    tail_user: int = 0
    """How many tail messages have user content (kept with every change of the tail)."""

    def note_profile(self, metadata: Mapping[str, Any]) -> None:
        """Take the model, thinking and effort a message's metadata names (each kept until a
        later message names it again)."""
        model = metadata.get("model")
        if isinstance(model, str) and model.strip():
            self.profile = model.strip()
        thinking, effort = profile_settings(metadata)
        if thinking is not None:
            self.thinking = thinking
        if effort is not None:
            self.effort = effort

    @property
    def key(self) -> tuple[str, str]:
        """Return ``(namespace, conversation_id)``."""
        return (self.namespace, self.conversation_id)

    @property
    def pending(self) -> RunState | None:
        """Return the pending run (also one awaiting a retry), if any."""
        return None if self.pending_run_id is None else self.runs.get(self.pending_run_id)

    @property
    def running(self) -> RunState | None:
        """Return the running run, if any."""
        return None if self.running_run_id is None else self.runs.get(self.running_run_id)

    def first_unfinalized(self) -> TailMessage | None:
        """Return the first unreviewed message not finalized yet (the conversation is mid-turn)."""
        if not self.tail_unfinalized:
            return None
        return next((m for m in self.tail if not m.finalized), None)

    def set_tail(self, tail: list[TailMessage]) -> None:
        """Replace the unreviewed tail (after a cursor advance, a delete)."""
        self.tail = tail
        self.tail_unfinalized = sum(not m.finalized for m in tail)
        self.tail_user = sum(m.user_content for m in tail)

    def count_in_tail(self, message: TailMessage, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) one tail message's share of the tail counts."""
        self.tail_unfinalized += sign * (not message.finalized)
        self.tail_user += sign * message.user_content

    def reviewable_count(self) -> int:
        """Return ``len(reviewable())``; constant time unless a message is mid-stream.

        The triggers ask after every appended message: a scan of the tail each time made a
        burst into one conversation quadratic."""
        return len(self.tail) if not self.tail_unfinalized else len(self.reviewable())

    def reviewable_user_activity(self) -> bool:
        """Return True if a reviewable message has user content (see :meth:`reviewable_count`)."""
        if not self.tail_unfinalized:
            return self.tail_user > 0
        return any(m.user_content for m in self.reviewable())

    def reviewable(self) -> list[TailMessage]:
        """Return the unreviewed messages up to (not including) the first unfinalized one."""
        out: list[TailMessage] = []
        for message in self.tail:
            if not message.finalized:
                break
            out.append(message)
        return out

    def remembered_bytes(self) -> int:
        """Return the size of the remembered log in UTF-8 bytes."""
        return sum(len(t.encode()) for t in self.remembered)

    def view(self) -> dict[str, Any]:
        """Return the API view: cursor, times, remembered log and runs (newest first)."""
        return {
            "conversation_id": self.conversation_id,
            "cursor": self.cursor_message_id,
            "last_attempt_at": _iso(self.last_attempt_at),
            "last_success_at": _iso(self.last_success_at),
            "remembered": list(self.remembered),
            "runs": [r.to_json() for r in reversed(self.runs.values())],
        }


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _cap_entry(text: str) -> str:
    raw = text.encode()
    if len(raw) <= REMEMBERED_ENTRY_MAX_BYTES:
        return text
    return raw[: REMEMBERED_ENTRY_MAX_BYTES - 3].decode(errors="ignore") + "..."


def bounded_remembered(existing: Sequence[str], added: Iterable[str]) -> list[str]:
    """Append to a remembered log, dropping the oldest past 100 entries or 8 KB."""
    log = list(existing) + [_cap_entry(t) for t in added if t]
    size = sum(len(t.encode()) for t in log)
    while log and (len(log) > REMEMBERED_MAX_ENTRIES or size > REMEMBERED_MAX_BYTES):
        size -= len(log.pop(0).encode())
    return log


def _end_run(conv: ConversationRetro, run: RunState, status: RunStatus, at: datetime) -> None:
    run.status = status
    run.finished_at = at
    if conv.pending_run_id == run.run_id:
        conv.pending_run_id = None
    if conv.running_run_id == run.run_id:
        conv.running_run_id = None


def _trim_runs(conv: ConversationRetro) -> None:
    finished = [r for r in conv.runs.values() if r.status in TERMINAL]
    for run in finished[: max(0, len(finished) - KEEP_TERMINAL_RUNS)]:
        del conv.runs[run.run_id]


def apply_run_event(
    conv: ConversationRetro, event: RunEvent, position: int, *, trim: bool = True
) -> None:
    """Apply one retrospective run event to a conversation's state (the shared transition)."""
    if isinstance(event, RetrospectiveCursorAdvanced):
        if event.position >= conv.cursor_position:
            conv.cursor_message_id = event.message_id
            conv.cursor_position = event.position
            conv.set_tail([m for m in conv.tail if m.position > event.position])
        return
    if isinstance(event, RetrospectiveScheduled):
        run = conv.runs.get(event.run_id)
        if event.merged and run is not None:
            run.triggers.append(event.trigger)
            if event.not_before is not None:
                run.not_before = event.not_before
                if run.retry_at is not None:
                    run.retry_at = min(run.retry_at, event.not_before)
            return
        if run is not None:
            return  # a duplicate: the first scheduling wins
        conv.runs[event.run_id] = RunState(
            run_id=event.run_id,
            trigger=event.trigger,
            triggers=[event.trigger],
            scheduled_at=event.at,
            scheduled_position=position,
            inputs=dict(event.inputs),
            not_before=event.not_before,
            message_ids=list(event.message_ids),
            replay_of=event.replay_of,
        )
        conv.pending_run_id = event.run_id
        return
    run = conv.runs.get(event.run_id)
    if run is None:
        return
    if isinstance(event, RetrospectiveDeferred):
        run.deferred_reason = event.reason
        run.deferred_until = event.until
        run.deferred_on = event.waiting_on
    elif isinstance(event, RetrospectiveStarted):
        run.status = "running"
        run.attempt = event.attempt
        run.fork_id = event.fork_id
        run.deferred_reason = run.deferred_until = run.deferred_on = None
        if not run.message_ids or run.replay_of is None:
            run.message_ids = list(event.message_ids)
        conv.last_attempt_at = event.at
        if conv.pending_run_id == run.run_id:
            conv.pending_run_id = None
        conv.running_run_id = run.run_id
        conv.forks[event.fork_id] = ForkRecord(run_id=run.run_id)
    elif isinstance(event, RetrospectiveSkipped):
        run.skip_reason = event.reason
        _end_run(conv, run, "skipped", event.at)
    elif isinstance(event, RetrospectiveSucceeded):
        run.facts_written = len(event.fact_ids)
        run.fact_ids = list(dict.fromkeys([*event.fact_ids, *event.reinforced]))
        run.error = None
        run.retry_at = None
        conv.last_success_at = event.at
        conv.remembered = bounded_remembered(conv.remembered, event.remembered)
        if run.fork_id is not None and run.fork_id in conv.forks:
            conv.forks[run.fork_id].succeeded = True
        _end_run(conv, run, "succeeded", event.at)
    elif isinstance(event, RetrospectiveFailed):
        run.error = event.error_class
        run.error_message = event.message
        run.attempt = event.attempt
        run.status = "failed"
        run.retry_at = event.retry_at
        if conv.running_run_id == run.run_id:
            conv.running_run_id = None
        if event.retry_at is not None:
            run.not_before = event.retry_at
            conv.pending_run_id = run.run_id
        elif conv.pending_run_id == run.run_id:
            conv.pending_run_id = None
    elif isinstance(event, RetrospectiveAbandoned):
        run.message_ids = list(event.message_ids)
        _end_run(conv, run, "abandoned", event.at)
    if trim:
        _trim_runs(conv)


DEFAULT_THINKING_BUDGET = 1024
"""The budget of a bare ``thinking: true`` (the smallest the Anthropic API accepts)."""


def profile_settings(metadata: Mapping[str, Any]) -> tuple[int | None, str | None]:
    """Return the thinking budget (0: off) and effort a message's metadata names (None: not
    named, or not in a form a provider could be sent)."""
    raw = metadata.get("thinking")
    if isinstance(raw, Mapping):
        raw = raw.get("budget_tokens", raw.get("type") == "enabled")
    thinking: int | None = None
    if isinstance(raw, bool):
        thinking = DEFAULT_THINKING_BUDGET if raw else 0
    elif isinstance(raw, int) and raw >= 0:
        thinking = raw
    effort = metadata.get("effort", metadata.get("reasoning_effort"))
    if not isinstance(effort, str) or not effort.strip() or len(effort) > 32:
        return thinking, None
    return thinking, effort.strip().lower()
