"""Event classes: the vocabulary of the log.

Every event is a frozen dataclass with a stable ``event_type`` name and a ``schema_version``.
A class's fields are its current schema; older stored versions are upgraded on read by the
upcasters in :mod:`events.codec`. Times are timezone-aware UTC datetimes: *valid time*
(``created_at``, ``valid_from``, ``valid_to``, ``at``) lives in payloads, while *transaction
time* (``recorded_at``) is set by the store and lives on :class:`events.store.base.StoredEvent`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal, TypeAlias

JSON: TypeAlias = Any
"""A JSON-compatible value (what orjson can encode)."""

ContentBlock: TypeAlias = dict[str, Any]
"""One block of structured content: ``{"type": "text"|"tool_use"|"tool_result"|..., ...}``."""

Content: TypeAlias = str | list[ContentBlock]

Role = Literal["user", "assistant", "tool", "system"]
ForkStrategy = Literal["reference", "cloning"]
Owner = Literal["user", "agent", "shared"]
Provenance = Literal["user", "tool", "extraction", "reflection", "imported"]
FactStatus = Literal["active", "quarantined"]

ROLES: tuple[str, ...] = ("user", "assistant", "tool", "system")
FORK_STRATEGIES: tuple[str, ...] = ("reference", "cloning")
OWNERS: tuple[str, ...] = ("user", "agent", "shared")
PROVENANCES: tuple[str, ...] = ("user", "tool", "extraction", "reflection", "imported")
FACT_STATUSES: tuple[str, ...] = ("active", "quarantined")

REDACTED_TEXT = "[purged]"


def conversation_stream(conversation_id: str) -> str:
    """Return the stream id that holds one conversation's events."""
    return f"conversation:{conversation_id}"


def fact_stream(fact_id: str) -> str:
    """Return the stream id that holds one fact's events."""
    return f"fact:{fact_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event class."""

    event_type: ClassVar[str] = ""
    schema_version: ClassVar[int] = 1

    @property
    def stream_id(self) -> str:
        """Return the stream this event belongs to."""
        raise NotImplementedError

    def redacted(self) -> Event:
        """Return this event with personal content removed (for a purge); default: unchanged."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageAppended(Event):
    """A message was said in a conversation.

    Version 2 replaced v1's ``author``/``text`` with ``role``/``content`` (text or blocks) and
    added ``finalized``; see the upcaster in :mod:`events.codec`.
    """

    event_type: ClassVar[str] = "MessageAppended"
    schema_version: ClassVar[int] = 2

    conversation_id: str
    message_id: str
    role: Role
    content: Content
    created_at: datetime
    name: str | None = None
    metadata: dict[str, JSON] = field(default_factory=dict)
    finalized: bool = True

    @property
    def stream_id(self) -> str:
        return conversation_stream(self.conversation_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationForked(Event):
    """A conversation was forked from a parent through one of its messages.

    A ``reference`` fork holds only its own messages and reads the parent's through
    ``through_message_id``; a ``cloning`` fork gets a copy of them.
    """

    event_type: ClassVar[str] = "ConversationForked"

    fork_id: str
    parent_conversation_id: str
    through_message_id: str | None
    strategy: ForkStrategy = "reference"

    @property
    def stream_id(self) -> str:
        return conversation_stream(self.fork_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationDeleted(Event):
    """A conversation and its own messages were deleted (forks that reference it survive)."""

    event_type: ClassVar[str] = "ConversationDeleted"

    conversation_id: str

    @property
    def stream_id(self) -> str:
        return conversation_stream(self.conversation_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactWritten(Event):
    """A fact entered memory."""

    event_type: ClassVar[str] = "FactWritten"

    fact_id: str
    text: str
    valid_from: datetime
    valid_to: datetime | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    tags: list[str] = field(default_factory=list)
    owner: Owner = "user"
    provenance: Provenance = "user"
    status: FactStatus = "active"
    confidence: float = 1.0
    importance: float = 0.5
    source_message_ids: list[str] = field(default_factory=list)

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)

    def redacted(self) -> FactWritten:
        return dataclasses.replace(
            self, text=REDACTED_TEXT, subject=None, predicate=None, object=None, tags=[]
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class FactReconciled(Event):
    """How a fact write was reconciled with what memory held: the decision and its inputs.

    Appended in the same commit as the decision's effects: with the ``FactWritten`` of
    ``fact_id`` for ``added``, ``updated`` (and a ``FactSuperseded`` per id in ``superseded``)
    and ``conflict`` (the new fact quarantined, a review item queued); for ``deduplicated``,
    ``fact_id`` is the current fact that already says it, reinforced instead of a new write, and
    ``proposed_text`` is what was not written.

    ``claims`` are what the text was read to say (subject, attribute, value, negated, past,
    change, previous, alternative, qualifier, when, and the comparison keys), ``candidates``
    how each current fact considered relates to it (``{fact_id, relation, rule,
    confidence}``), ``decided_by`` which rules or model decided.
    """

    event_type: ClassVar[str] = "FactReconciled"

    fact_id: str
    outcome: Literal["added", "updated", "deduplicated", "conflict"]
    at: datetime
    superseded: list[str] = field(default_factory=list)
    conflicts_with: list[str] = field(default_factory=list)
    reason: str = ""
    confidence: float = 1.0
    decided_by: str = ""
    provenance: str = "user"
    policy_threshold: float = 0.0
    gate_flags: list[str] = field(default_factory=list)
    claims: list[dict[str, JSON]] = field(default_factory=list)
    candidates: list[dict[str, JSON]] = field(default_factory=list)
    proposed_text: str | None = None

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)

    def redacted(self) -> FactReconciled:
        return dataclasses.replace(self, claims=[], proposed_text=None, reason="")


@dataclass(frozen=True, slots=True, kw_only=True)
class FactSuperseded(Event):
    """``new_fact_id`` replaced ``old_fact_id``; the old fact stopped being true at ``at``."""

    event_type: ClassVar[str] = "FactSuperseded"

    old_fact_id: str
    new_fact_id: str
    at: datetime

    @property
    def stream_id(self) -> str:
        return fact_stream(self.old_fact_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactValidated(Event):
    """Someone vouched for a fact; a quarantined fact becomes active."""

    event_type: ClassVar[str] = "FactValidated"

    fact_id: str
    by: str
    note: str | None = None
    evidence: dict[str, JSON] = field(default_factory=dict)
    """What earned it (a promotion: recall counts, distinct queries, the recalls' positions)."""

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)

    def redacted(self) -> FactValidated:
        return dataclasses.replace(self, note=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactForgotten(Event):
    """A fact was forgotten: hidden from now on, still in the log and in ``known_at`` history."""

    event_type: ClassVar[str] = "FactForgotten"

    fact_id: str
    reason: str | None = None

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)

    def redacted(self) -> FactForgotten:
        return dataclasses.replace(self, reason=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactPurged(Event):
    """A fact was erased: the store redacts the text of its earlier events in the same commit."""

    event_type: ClassVar[str] = "FactPurged"

    fact_id: str

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)


CORE_EVENT_CLASSES: tuple[type[Event], ...] = (
    MessageAppended,
    ConversationForked,
    ConversationDeleted,
    FactWritten,
    FactReconciled,
    FactSuperseded,
    FactValidated,
    FactForgotten,
    FactPurged,
)


def content_text(content: Content) -> str:
    """Flatten message content to plain text (for display and search)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "tool_result":
            inner = block.get("content", "")
            if isinstance(inner, list):
                parts.append(content_text(inner))
            else:
                parts.append(str(inner))
        elif kind == "tool_use":
            parts.append(f"[tool_use {block.get('name', '')}]")
    return "\n".join(p for p in parts if p)
