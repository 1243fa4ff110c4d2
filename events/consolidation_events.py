"""Events of consolidation: every run, plan, applied action and review decision is one of these.

Streams:

- ``consolidation-run:<run_id>``: ``ConsolidationRunStarted`` then ``ConsolidationRunCompleted``
  (what the run did). A run carries the fencing token of the lease it held.
- ``consolidation-lease:<namespace>``: one ``ConsolidationLeaseTaken`` per run, appended with
  the run's ``ConsolidationRunStarted``. Its version fences the run's final append (see
  :mod:`daemon.consolidation.service`).
- ``consolidation-plan:<plan_id>``: ``PlanCreated`` (the full plan: every item with its inputs
  and the fact versions it was based on) then at most one ``PlanApplied`` (appended with the
  plan stream's expected version, so a plan applies once).
- ``fact:<fact_id>``: ``FactArchived`` / ``FactRestored`` (hidden from search and queries that
  ask so, kept in the log, restorable), ``FactReinforced`` (a duplicate was seen again, or a
  recall), ``FactLinked``, ``FactCategorized``, ``ValidationRefused`` (the ingest gate refused a
  validation). Putting them in the fact's own stream lets a plan check a fact did not change.
- ``review:<item_id>``: ``ReviewItemQueued`` then ``ReviewItemApproved`` or
  ``ReviewItemRejected``.
- ``block:<name>``: ``BlockWritten``, each rewrite of a curated block (by the app or a run).
- ``profile``: ``ProfileWritten``, a model's wording of the profile (the facts it rested on).

The classes are listed in :data:`events.registry.EVENT_CLASSES`, which every codec registers.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal

from events.types import JSON, Event, fact_stream

Source = Literal["auto", "user"]
Phase = Literal["light", "standard", "deep"]


def run_stream(run_id: str) -> str:
    """Return the stream of one consolidation run."""
    return f"consolidation-run:{run_id}"


def lease_stream(namespace: str) -> str:
    """Return a namespace's consolidation fencing stream (advanced by each run's start)."""
    return f"consolidation-lease:{namespace}"


def plan_stream(plan_id: str) -> str:
    """Return the stream of one consolidation plan."""
    return f"consolidation-plan:{plan_id}"


def review_stream(item_id: str) -> str:
    """Return the stream of one review item."""
    return f"review:{item_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsolidationRunStarted(Event):
    """A consolidation run began (``trigger``: idle, schedule, retrospectives, manual)."""

    event_type: ClassVar[str] = "ConsolidationRunStarted"

    run_id: str
    phase: Phase
    trigger: str
    at: datetime
    tier: str = "free"
    lease_token: int = 0
    inputs: dict[str, JSON] = field(default_factory=dict)

    @property
    def stream_id(self) -> str:
        return run_stream(self.run_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsolidationRunCompleted(Event):
    """A run ended; ``actions`` lists what it did (``{action, fact_ids, ...}``)."""

    event_type: ClassVar[str] = "ConsolidationRunCompleted"

    run_id: str
    at: datetime
    outcome: Literal["completed", "failed", "lost_lease", "abandoned"] = "completed"
    actions: list[dict[str, JSON]] = field(default_factory=list)
    stats: dict[str, JSON] = field(default_factory=dict)
    lease_token: int = 0
    error: str | None = None

    @property
    def stream_id(self) -> str:
        return run_stream(self.run_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsolidationLeaseTaken(Event):
    """The holder of lease token ``lease_token`` took the namespace's turn for ``run_id``.

    Appended with the run's ``ConsolidationRunStarted`` at the stream's expected version; the
    run's last append expects the version this made, so a run whose turn another run took
    (after its lease expired) writes nothing more.
    """

    event_type: ClassVar[str] = "ConsolidationLeaseTaken"

    namespace: str
    run_id: str
    lease_token: int
    at: datetime

    @property
    def stream_id(self) -> str:
        return lease_stream(self.namespace)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanCreated(Event):
    """A reviewed plan was made (by analyze, or a run).

    ``items``: ``[{item_id, action, fact_ids, target?, merged_text?, confidence, reasoning,
    inputs}]``; ``based_on`` maps every fact id the plan touches to the version of its stream
    (counting only events that change the fact) the plan was computed from.
    """

    event_type: ClassVar[str] = "PlanCreated"

    plan_id: str
    at: datetime
    items: list[dict[str, JSON]] = field(default_factory=list)
    based_on: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, JSON] = field(default_factory=dict)
    source: Source = "user"
    model: str | None = None

    @property
    def stream_id(self) -> str:
        return plan_stream(self.plan_id)

    def redacted(self) -> PlanCreated:
        items = [{k: v for k, v in i.items() if k != "merged_text"} for i in self.items]
        return dataclasses.replace(self, items=items)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanApplied(Event):
    """A plan was applied: the item ids applied, and the refused ones with their reasons."""

    event_type: ClassVar[str] = "PlanApplied"

    plan_id: str
    at: datetime
    applied: list[str] = field(default_factory=list)
    refused: list[dict[str, JSON]] = field(default_factory=list)
    min_confidence: float | None = None
    source: Source = "user"
    results: dict[str, JSON] = field(default_factory=dict)
    """item id -> what it produced (for a merge: ``{"merged_fact_id": ...}``)."""
    purge: bool = False
    """Its deletions were purges (the facts' text erased), as the person applying it chose."""

    @property
    def stream_id(self) -> str:
        return plan_stream(self.plan_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactArchived(Event):
    """A fact left search and the default queries; it stays in the log and can be restored."""

    event_type: ClassVar[str] = "FactArchived"

    fact_id: str
    at: datetime
    reason: str
    plan_id: str | None = None
    run_id: str | None = None
    source: Source = "auto"
    salience: float | None = None

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactRestored(Event):
    """An archived fact came back."""

    event_type: ClassVar[str] = "FactRestored"

    fact_id: str
    at: datetime
    by: str = "api"

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactReinforced(Event):
    """A fact was seen again (a deduplicated write, or a recall): its strength rises."""

    event_type: ClassVar[str] = "FactReinforced"

    fact_id: str
    at: datetime
    reason: Literal["duplicate", "recall", "agent"] = "duplicate"
    similarity: float | None = None
    duplicate_text: str | None = None

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)

    def redacted(self) -> FactReinforced:
        return dataclasses.replace(self, duplicate_text=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactLinked(Event):
    """Two facts were linked (by an agent or a person)."""

    event_type: ClassVar[str] = "FactLinked"

    fact_id: str
    other_fact_id: str
    at: datetime
    strength: float = 1.0
    kind: str = "related"
    by: str = "agent"

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class FactCategorized(Event):
    """A fact was put in a category."""

    event_type: ClassVar[str] = "FactCategorized"

    fact_id: str
    category: str
    at: datetime
    by: str = "agent"

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationRefused(Event):
    """Validating a fact was refused because the ingest gate flagged it (not forced)."""

    event_type: ClassVar[str] = "ValidationRefused"

    fact_id: str
    at: datetime
    flags: list[str] = field(default_factory=list)
    by: str = "api"

    @property
    def stream_id(self) -> str:
        return fact_stream(self.fact_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewItemQueued(Event):
    """An agent's action that needs a person: ``action`` is the parsed action line."""

    event_type: ClassVar[str] = "ReviewItemQueued"

    item_id: str
    at: datetime
    agent: str
    action: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None
    based_on: dict[str, int] = field(default_factory=dict)

    @property
    def stream_id(self) -> str:
        return review_stream(self.item_id)

    def redacted(self) -> ReviewItemQueued:
        return dataclasses.replace(self, action={"verb": self.action.get("verb")})


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewItemApproved(Event):
    """A person approved a queued action; ``plan_id`` names the plan that carried it out."""

    event_type: ClassVar[str] = "ReviewItemApproved"

    item_id: str
    at: datetime
    by: str = "api"
    plan_id: str | None = None

    @property
    def stream_id(self) -> str:
        return review_stream(self.item_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewItemRejected(Event):
    """A person rejected a queued action."""

    event_type: ClassVar[str] = "ReviewItemRejected"

    item_id: str
    at: datetime
    by: str = "api"
    reason: str | None = None

    @property
    def stream_id(self) -> str:
        return review_stream(self.item_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class LearnedContextWritten(Event):
    """The curated ``learned_context`` block was rewritten from recent facts and insights.

    Written by older versions; now every rewrite is a :class:`BlockWritten` and this one is
    folded as a ``BlockWritten`` of ``learned_context`` so old logs replay the same."""

    event_type: ClassVar[str] = "LearnedContextWritten"

    at: datetime
    text: str
    fact_ids: list[str] = field(default_factory=list)
    run_id: str | None = None

    @property
    def stream_id(self) -> str:
        return "consolidation:learned-context"

    def redacted(self) -> LearnedContextWritten:
        return dataclasses.replace(self, text="")


def block_stream(name: str) -> str:
    """Return the stream of one curated block."""
    return f"block:{name}"


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockWritten(Event):
    """A curated block's text was written: by the app (``author`` ``app``) or by a
    consolidation run (``author`` the run id; ``how`` ``model`` or ``offline``).

    The inputs that decided it travel with it: the hash of the text it replaced and the facts,
    insights and episodes the rewrite was made from.
    """

    event_type: ClassVar[str] = "BlockWritten"

    name: str
    text: str
    at: datetime
    author: str
    how: Literal["app", "model", "offline"] = "app"
    previous_hash: str | None = None
    """sha256 of the text this one replaced (None: the block was empty)."""
    fact_ids: list[str] = field(default_factory=list)
    insight_ids: list[str] = field(default_factory=list)
    episode_ids: list[str] = field(default_factory=list)
    model: str | None = None

    @property
    def stream_id(self) -> str:
        return block_stream(self.name)

    def redacted(self) -> BlockWritten:
        return dataclasses.replace(self, text="")


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileWritten(Event):
    """A model worded the profile of some topics (one budgeted call of the deep phase).

    ``topics``: ``[{topic, lines: [{text, fact_ids}], rested_on: [fact ids]}]``; ``rested_on``
    is every fact id of the topic the model was shown. Once a topic's facts differ from it the
    model's lines are stale and the profile shows the topic's grouped facts instead.
    """

    event_type: ClassVar[str] = "ProfileWritten"

    at: datetime
    run_id: str
    topics: list[dict[str, JSON]] = field(default_factory=list)
    model: str | None = None

    @property
    def stream_id(self) -> str:
        return "profile"

    def redacted(self) -> ProfileWritten:
        return dataclasses.replace(self, topics=[])


CONSOLIDATION_EVENT_CLASSES: tuple[type[Event], ...] = (
    ConsolidationRunStarted,
    ConsolidationRunCompleted,
    ConsolidationLeaseTaken,
    PlanCreated,
    PlanApplied,
    FactArchived,
    FactRestored,
    FactReinforced,
    FactLinked,
    FactCategorized,
    ValidationRefused,
    ReviewItemQueued,
    ReviewItemApproved,
    ReviewItemRejected,
    LearnedContextWritten,
    BlockWritten,
    ProfileWritten,
)

SUBSTANTIVE_FACT_EVENTS: frozenset[str] = frozenset(
    {
        "FactWritten",
        "FactSuperseded",
        "FactValidated",
        "FactForgotten",
        "FactPurged",
        "FactArchived",
        "FactRestored",
    }
)
"""Event types in a fact's stream that change the fact (a plan made before them is stale)."""
