"""Events of episodes: what a slice of a conversation was about, and when reflection used them.

Streams:

- ``episode:<episode_id>``: ``EpisodeWritten`` (the standard phase summarised one slice of a
  conversation; the episode starts quarantined) then at most one ``EpisodeValidated`` (a
  person through the API, or promotion once a fact drawn from the slice is active).
- ``consolidation:reflections``: one ``ReflectionFired`` per reflection of the deep phase,
  naming the episodes whose importance made it due (they no longer count for the next one).

The classes are listed in :data:`events.registry.EVENT_CLASSES`, which every codec registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar, Literal

from events.types import JSON, Event

EpisodeMethod = Literal["model", "extractive"]
REFLECTIONS_STREAM = "consolidation:reflections"


def episode_stream(episode_id: str) -> str:
    """Return the stream of one episode."""
    return f"episode:{episode_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeWritten(Event):
    """One slice of a conversation, summarised, with its importance in [0, 1].

    ``message_ids`` are the slice's messages in order, ``first_position``/``last_position``
    the log positions of its first and last message; ``started_at``/``ended_at`` when they
    were said (valid time). ``method`` says how the summary was made (one model call, or
    extractive offline), ``importance_inputs`` what decided the importance (the scoring, and
    the signals of the heuristic or the model's answer).
    """

    event_type: ClassVar[str] = "EpisodeWritten"

    episode_id: str
    conversation_id: str
    message_ids: list[str] = field(default_factory=list)
    first_position: int
    last_position: int
    started_at: datetime
    ended_at: datetime
    summary: str
    importance: float
    method: EpisodeMethod
    importance_inputs: dict[str, JSON] = field(default_factory=dict)
    run_id: str | None = None
    at: datetime

    @property
    def stream_id(self) -> str:
        return episode_stream(self.episode_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeValidated(Event):
    """A quarantined episode became active: ``by`` a person (``api``) or promotion, with the
    evidence (for promotion: the active facts drawn from the slice)."""

    event_type: ClassVar[str] = "EpisodeValidated"

    episode_id: str
    at: datetime
    by: str = "api"
    note: str | None = None
    evidence: dict[str, JSON] = field(default_factory=dict)

    @property
    def stream_id(self) -> str:
        return episode_stream(self.episode_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReflectionFired(Event):
    """The deep phase reflected: the episodes formed since the last reflection and the sum of
    their importance against ``threshold`` (``reason``: ``threshold``, or ``asked`` when a
    person asked for insights whatever the sum)."""

    event_type: ClassVar[str] = "ReflectionFired"

    run_id: str
    at: datetime
    episode_ids: list[str] = field(default_factory=list)
    importance_sum: float = 0.0
    threshold: float = 0.0
    reason: Literal["threshold", "asked"] = "threshold"

    @property
    def stream_id(self) -> str:
        return REFLECTIONS_STREAM


EPISODE_EVENT_CLASSES: tuple[type[Event], ...] = (
    EpisodeWritten,
    EpisodeValidated,
    ReflectionFired,
)
