"""Events of recall: which ids a search returned (consolidation promotes facts on this evidence).

Its class is listed in :data:`events.registry.EVENT_CLASSES`, which every codec registers.
Recalls are recorded in batches: one event holds many searches, in the stream ``recall:log``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from events.types import Event

RECALL_STREAM = "recall:log"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallRecorded(Event):
    """A batch of searches and what each returned.

    ``recalls`` holds one object per search: ``at`` (ISO time of the search), ``query``,
    ``conversation_id`` (or null), ``scope``, and ``hits``: ``[{kind, id, score}]`` in rank order;
    ``shadow`` (when present): the quarantined facts the search would have returned had they not
    been quarantined (their recall evidence).
    """

    event_type: ClassVar[str] = "RecallRecorded"

    recalls: list[dict[str, Any]] = field(default_factory=list)
    first_at: datetime
    last_at: datetime

    @property
    def stream_id(self) -> str:
        return RECALL_STREAM

    def redacted(self) -> RecallRecorded:
        return RecallRecorded(
            recalls=[{**r, "query": ""} for r in self.recalls],
            first_at=self.first_at,
            last_at=self.last_at,
        )


RECALL_EVENT_CLASSES: tuple[type[Event], ...] = (RecallRecorded,)
