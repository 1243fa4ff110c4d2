"""The API's JSON answers as TypedDicts, field for field (``GET /v1/openapi.json``).

Keys the API sends only sometimes are ``NotRequired``. Times stay as the ISO strings the API
sends. Answers the OpenAPI document leaves as a free-form object (retrospective state,
consolidation, review) are :data:`JSONObject`.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

JSONObject = dict[str, Any]
"""A JSON object the API documents as free-form."""

Role = Literal["user", "assistant", "tool", "system"]
Owner = Literal["user", "agent", "shared"]
Provenance = Literal["user", "tool", "extraction", "reflection", "imported"]
Outcome = Literal["added", "updated", "deduplicated", "conflict"]
Scope = Literal["facts", "messages"]


class MessageIn(TypedDict):
    """One message of a ``messages:batch`` request."""

    role: Role
    content: str | list[JSONObject]
    name: NotRequired[str | None]
    created_at: NotRequired[str]
    metadata: NotRequired[JSONObject]
    idempotency_key: NotRequired[str]


class MessageWritten(TypedDict):
    message_id: str
    position: int


class BatchWritten(TypedDict):
    results: list[MessageWritten]


class Message(TypedDict):
    message_id: str
    conversation_id: str
    role: str
    name: str | None
    content: str | list[JSONObject]
    created_at: str
    metadata: JSONObject
    position: int


class Messages(TypedDict):
    messages: list[Message]


class Forked(TypedDict):
    conversation_id: str
    position: int


class FactWritten(TypedDict):
    fact_id: str
    position: int


class FactWriteOutcome(TypedDict):
    """What ``POST /v1/facts`` (and supersede) did with the fact: its reconciliation."""

    fact_id: str
    outcome: Outcome
    superseded: list[str]
    deduplicated: bool
    position: int
    conflicts_with: NotRequired[list[str]]
    similarity: NotRequired[float]
    reason: NotRequired[str]
    gate_flags: NotRequired[list[str]]


class Fact(TypedDict):
    fact_id: str
    text: str
    status: str
    provenance: str
    tags: list[str]
    owner: str
    valid_from: str
    valid_to: str | None
    subject: NotRequired[str | None]
    predicate: NotRequired[str | None]
    object: NotRequired[str | None]
    confidence: NotRequired[float]
    importance: NotRequired[float]
    recorded_from: NotRequired[str]
    recorded_to: NotRequired[str | None]
    superseded_by: NotRequired[str | None]
    supersedes: NotRequired[str | None]
    forgotten: NotRequired[bool]
    forgotten_reason: NotRequired[str | None]
    archived: NotRequired[bool]
    source_message_ids: NotRequired[list[str]]
    validated_by: NotRequired[str | None]
    validation_note: NotRequired[str | None]
    position: NotRequired[int]
    written_position: NotRequired[int]
    gate_flags: NotRequired[list[str]]
    reconciliation: NotRequired[JSONObject | None]


class Facts(TypedDict):
    facts: list[Fact]


class FactHistory(TypedDict):
    fact_id: str
    chain: list[Fact]
    versions: list[Fact]
    decisions: list[JSONObject]


class Decay(TypedDict):
    tau_days: float


class Fusion(TypedDict, total=False):
    strategy: Literal["rrf", "weighted"]
    weights: dict[str, float]


class Iterative(TypedDict, total=False):
    """Iterative recall (``docs/api.md``); ``{}`` takes the defaults."""

    max_iterations: int
    difficulty_threshold: float
    force_hard: bool


class Hit(TypedDict):
    """One search result: a fact or a message."""

    kind: str
    id: str
    text: str
    score: float
    created_at: str
    conversation_id: str | None
    metadata: JSONObject
    signals: NotRequired[JSONObject]


class SearchResult(TypedDict):
    hits: list[Hit]
    abstain: NotRequired[bool]
    """Iterative recall only: the model found the hits insufficient."""
    iterative: NotRequired[JSONObject]
    model_passes: NotRequired[JSONObject]


class ContextFact(TypedDict):
    fact_id: str
    text: str
    valid_from: str
    score: float
    why: NotRequired[JSONObject]


class ContextMessage(TypedDict):
    message_id: str
    conversation_id: str | None
    text: str
    created_at: str
    score: float
    why: NotRequired[JSONObject]


class LearnedContext(TypedDict):
    text: str
    fact_ids: list[str]
    at: str | None
    why: NotRequired[str]


class Context(TypedDict):
    """``POST /v1/context``: what to put in the prompt for a conversation's next turn."""

    conversation_id: str
    query: str
    query_source: Literal["query", "recent_turns", "none"]
    position: int
    learned_context: LearnedContext | None
    profile: list[JSONObject]
    facts: list[ContextFact]
    messages: list[ContextMessage]
    left_out: int
    text: str
    """The items rendered for a prompt, within ``max_chars``."""


class Event(TypedDict):
    position: int
    event_id: str
    stream_id: str
    stream_version: int
    event_type: str
    recorded_at: str
    data: JSONObject
    causation_id: NotRequired[str | None]
    correlation_id: NotRequired[str | None]
    idempotency_key: NotRequired[str | None]


class Events(TypedDict):
    events: list[Event]
    last_position: int


class Progress(TypedDict):
    position: int
    projection_position: int
    behind: int
    done: bool


class Health(TypedDict):
    status: Literal["ok", "degraded", "starting"]
    last_position: int
    projection_position: int
    projection_lag: int
    version: str
    reason: NotRequired[str]
    problems: NotRequired[dict[str, str]]
