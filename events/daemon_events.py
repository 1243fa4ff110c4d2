"""Events recorded by the daemon's API beyond the core vocabulary of :mod:`events.types`.

Importing this module registers the classes with :data:`events.codec.default_codec`, so every
store opened with the default codec can decode them; ``daemon/__init__.py`` imports it, which
covers the daemon and every ``memoryd`` command.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from events.codec import EventCodec, default_codec
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


def register(codec: EventCodec) -> None:
    """Register the daemon's event classes with ``codec`` (idempotent)."""
    for cls in DAEMON_EVENT_CLASSES:
        codec.register(cls)


register(default_codec)
