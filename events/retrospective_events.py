"""Events of the retrospective scheduler and worker: every decision they take is one of these.

A run's life: ``RetrospectiveScheduled`` (why: the trigger and the inputs that decided it),
maybe ``RetrospectiveDeferred`` (the conversation was mid-turn, or the model budget paused),
then ``RetrospectiveStarted`` (one attempt, with the fork it reads through and the slice),
and one of ``RetrospectiveSucceeded`` / ``RetrospectiveFailed`` (with a retry time, or none
when it gives up) / ``RetrospectiveSkipped`` / ``RetrospectiveAbandoned``. The review cursor
moves only by ``RetrospectiveCursorAdvanced``. The sweep records each pass as
``RetrospectiveSweepCompleted``.

Run events live in the stream ``retrospective:<conversation id>`` of the conversation's
namespace, so appends can be checked against the version the scheduler saw. The classes are
listed in :data:`events.registry.EVENT_CLASSES`, which every codec registers.

``CompactionAnnounced`` (the ``pre_compaction`` trigger's input) is defined by the daemon's
API in :mod:`events.daemon_events`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal

from events.types import JSON, Event

Trigger = Literal["interval", "message_count", "pre_compaction", "sweep", "manual", "replay"]
TRIGGERS: tuple[str, ...] = (
    "interval",
    "message_count",
    "pre_compaction",
    "sweep",
    "manual",
    "replay",
)
SWEEP_STREAM = "retrospective-sweep"


def retrospective_stream(conversation_id: str) -> str:
    """Return the stream that holds one conversation's retrospective decisions."""
    return f"retrospective:{conversation_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class _RunEvent(Event):
    conversation_id: str
    run_id: str
    at: datetime
    """When the scheduler or worker took the decision (its clock)."""

    @property
    def stream_id(self) -> str:
        return retrospective_stream(self.conversation_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveScheduled(_RunEvent):
    """A run was enqueued, or (``merged``) a new trigger merged into the pending run.

    ``inputs`` holds what decided it (times, counts, thresholds). ``not_before`` is when it may
    start. A replay run carries the ``message_ids`` of the abandoned slice it re-runs.
    """

    event_type: ClassVar[str] = "RetrospectiveScheduled"

    trigger: Trigger
    inputs: dict[str, JSON] = field(default_factory=dict)
    not_before: datetime | None = None
    merged: bool = False
    replay_of: str | None = None
    message_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveDeferred(_RunEvent):
    """A pending run waits: ``mid_turn`` (an unfinalized message) or ``budget`` (paused).

    It is not an attempt. ``until`` is the latest it waits (None: until the condition ends).
    """

    event_type: ClassVar[str] = "RetrospectiveDeferred"

    reason: str
    until: datetime | None = None
    waiting_on: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveStarted(_RunEvent):
    """One attempt began, reading ``message_ids`` through the fork ``fork_id``."""

    event_type: ClassVar[str] = "RetrospectiveStarted"

    attempt: int
    fork_id: str
    after_message_id: str | None
    through_message_id: str
    message_ids: list[str] = field(default_factory=list)
    provider: str = ""
    model: str = ""
    thinking: int | None = None
    """The thinking budget asked for (the conversation's, when its profile is matched)."""
    effort: str | None = None
    """The reasoning effort asked for (the conversation's, when its profile is matched)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveSkipped(_RunEvent):
    """A run ended without calling the model, and without moving the cursor."""

    event_type: ClassVar[str] = "RetrospectiveSkipped"

    reason: str
    inputs: dict[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveSucceeded(_RunEvent):
    """An attempt succeeded on positive evidence; its facts were written in the same commit.

    ``remembered`` holds the texts added to the conversation's remembered log (the facts are
    redacted by their own purge; this copy is dropped by :meth:`redacted`).
    """

    event_type: ClassVar[str] = "RetrospectiveSucceeded"

    attempt: int
    fact_ids: list[str] = field(default_factory=list)
    """The facts written in the same commit (added, updated, or in conflict)."""
    reinforced: list[str] = field(default_factory=list)
    """Current facts the run's statements restated (deduplicated into them)."""
    remembered: list[str] = field(default_factory=list)
    outcome: Literal["remembered", "nothing_new"] = "remembered"
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    provider: str = ""
    model: str = ""
    chunks: int = 1
    truncated: list[dict[str, JSON]] = field(default_factory=list)
    rejected: list[dict[str, JSON]] = field(default_factory=list)
    gated: list[dict[str, JSON]] = field(default_factory=list)
    """Messages the ingest gate refused (``message_id``, ``reason``): never shown to the
    extractor."""

    def redacted(self) -> RetrospectiveSucceeded:
        return dataclasses.replace(self, remembered=[], rejected=[])


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveFailed(_RunEvent):
    """An attempt failed; ``retry_at`` is when it runs again (None: it is being abandoned)."""

    event_type: ClassVar[str] = "RetrospectiveFailed"

    attempt: int
    error_class: str
    message: str = ""
    retry_at: datetime | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveAbandoned(_RunEvent):
    """After too many failures the slice was given up; ``replay RUN`` re-runs it on demand."""

    event_type: ClassVar[str] = "RetrospectiveAbandoned"

    attempts: int
    message_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveCursorAdvanced(Event):
    """The conversation's review cursor moved past ``message_id`` (at log ``position``)."""

    event_type: ClassVar[str] = "RetrospectiveCursorAdvanced"

    conversation_id: str
    run_id: str
    message_id: str
    position: int
    reason: Literal["succeeded", "abandoned"]
    at: datetime

    @property
    def stream_id(self) -> str:
        return retrospective_stream(self.conversation_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrospectiveSweepCompleted(Event):
    """One sweep pass: what it enqueued and why the others were left (``seeded``: first pass)."""

    event_type: ClassVar[str] = "RetrospectiveSweepCompleted"

    at: datetime
    seeded: bool = False
    enqueued: int = 0
    skipped_pending: int = 0
    over_cap: int = 0
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def stream_id(self) -> str:
        return SWEEP_STREAM


RETROSPECTIVE_EVENT_CLASSES: tuple[type[Event], ...] = (
    RetrospectiveScheduled,
    RetrospectiveDeferred,
    RetrospectiveStarted,
    RetrospectiveSkipped,
    RetrospectiveSucceeded,
    RetrospectiveFailed,
    RetrospectiveAbandoned,
    RetrospectiveCursorAdvanced,
    RetrospectiveSweepCompleted,
)

RunEvent = (
    RetrospectiveScheduled
    | RetrospectiveDeferred
    | RetrospectiveStarted
    | RetrospectiveSkipped
    | RetrospectiveSucceeded
    | RetrospectiveFailed
    | RetrospectiveAbandoned
    | RetrospectiveCursorAdvanced
)
"""An event of a conversation's retrospective stream that moves its runs or its cursor."""

RUN_EVENT_CLASSES = (
    RetrospectiveScheduled,
    RetrospectiveDeferred,
    RetrospectiveStarted,
    RetrospectiveSkipped,
    RetrospectiveSucceeded,
    RetrospectiveFailed,
    RetrospectiveAbandoned,
    RetrospectiveCursorAdvanced,
)
"""The classes of :data:`RunEvent`, for ``isinstance`` (the one list: keep the two in step)."""
