"""Events recorded by the daemon's API beyond the core vocabulary of :mod:`events.types`.

Its classes are listed in :data:`events.registry.EVENT_CLASSES`, which every codec registers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from events.types import Event, conversation_stream


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionAnnounced(Event):
    """The chat app announced it is about to compact (summarise away) a conversation.

    ``through_message_id`` is the last message the compaction will cover (None: all of them so
    far); ``at`` is when the app announced it. The retrospective scheduler reacts to this.
    """

    event_type: ClassVar[str] = "CompactionAnnounced"

    conversation_id: str
    at: datetime
    through_message_id: str | None = None
    reason: str | None = None

    @property
    def stream_id(self) -> str:
        return conversation_stream(self.conversation_id)

    def redacted(self) -> CompactionAnnounced:
        return CompactionAnnounced(
            conversation_id=self.conversation_id,
            at=self.at,
            through_message_id=self.through_message_id,
            reason=None,
        )


DAEMON_EVENT_CLASSES: tuple[type[Event], ...] = (CompactionAnnounced,)
