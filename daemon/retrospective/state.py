"""What the retrospective service's parts share: the settings in force, the counters, and
the model usage a daily budget is seeded from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from daemon.config import RetrospectiveConfig
from daemon.retrospective.prompt import PromptSource
from events.retrospective_events import RetrospectiveFailed, RetrospectiveSucceeded
from events.types import Event
from plugins.llm.budget import BudgetTracker
from plugins.llm.types import LLMProvider
from plugins.protocols import IngestGate

USAGE_MEMORY = timedelta(days=2)


@dataclass(slots=True)
class Settings:
    """The configuration and model in force; one object, swapped in place on a reload."""

    config: RetrospectiveConfig
    provider: LLMProvider
    budget: BudgetTracker | None
    prompt: PromptSource
    auto_promote: bool
    max_tokens: int | None
    trust_user_statements: bool = True
    ingest_gate: IngestGate | None = None
    """Asked about every message before the extractor sees it (None: all pass)."""
    noise_filters: str = "none"
    """Remembered texts that are only noise under these filters are not written."""


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
    gated: int = 0
    """Messages the ingest gate kept from the extractor."""
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    refused_appends: int = 0


@dataclass(slots=True)
class Usage:
    """The model calls of one attempt."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""


@dataclass(slots=True)
class UsageLog:
    """Model calls (time, tokens) of the last two days, from the log: budgets survive a
    restart and a provider swap."""

    entries: list[tuple[datetime, int]] = field(default_factory=list)

    def note(self, event: Event, now: datetime) -> None:
        """Record the calls a folded run event reports, if recent enough to count."""
        if not isinstance(event, RetrospectiveSucceeded | RetrospectiveFailed) or not event.calls:
            return
        if now - event.at > USAGE_MEMORY:
            return
        tokens = event.input_tokens + event.output_tokens
        self.entries.extend([(event.at, 0)] * (event.calls - 1) + [(event.at, tokens)])

    def count(self, usage: Usage, now: datetime) -> None:
        """Record an attempt's calls as they end, forgetting what is past the memory."""
        if not usage.calls:
            return
        tokens = usage.input_tokens + usage.output_tokens
        self.entries.extend([(now, 0)] * (usage.calls - 1) + [(now, tokens)])
        horizon = now - USAGE_MEMORY
        self.entries = [e for e in self.entries if e[0] >= horizon]

    def recent(self, now: datetime) -> list[tuple[datetime, int]]:
        """Return the calls within the memory."""
        horizon = now - USAGE_MEMORY
        return [e for e in self.entries if e[0] >= horizon]
