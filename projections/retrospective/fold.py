"""The scheduler's reader: every conversation's retrospective state folded in memory from the
whole log, with the unreviewed tail the triggers need (rules in :mod:`.state`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from events.retrospective_events import (
    RUN_EVENT_CLASSES,
    RetrospectiveStarted,
    RetrospectiveSweepCompleted,
)
from events.store.base import StoredEvent
from events.types import (
    ConversationDeleted,
    ConversationForked,
    Event,
    MessageAppended,
    content_text,
)
from projections.retrospective.state import (
    ConversationRetro,
    TailMessage,
    apply_run_event,
    has_user_content,
)


class RetrospectiveFold:
    """Every conversation's retrospective state, folded from the whole log in memory."""

    def __init__(self) -> None:
        self.conversations: dict[tuple[str, str], ConversationRetro] = {}
        self.fork_owner: dict[tuple[str, str], str] = {}
        """``(namespace, fork id) -> conversation id`` of every retrospective reading fork."""
        self.position = 0
        self.last_sweep_at: datetime | None = None
        self.sweeps = 0

    def get(self, namespace: str, conversation_id: str) -> ConversationRetro | None:
        """Return a conversation's state, if the log knows it."""
        return self.conversations.get((namespace, conversation_id))

    def _conv(self, namespace: str, conversation_id: str) -> ConversationRetro:
        key = (namespace, conversation_id)
        conv = self.conversations.get(key)
        if conv is None:
            conv = ConversationRetro(namespace=namespace, conversation_id=conversation_id)
            self.conversations[key] = conv
        return conv

    def apply_all(self, events: Iterable[StoredEvent]) -> None:
        """Fold events in order."""
        for stored in events:
            self.apply(stored)

    def apply(self, stored: StoredEvent) -> ConversationRetro | None:
        """Fold one event; return the conversation it changed, if any."""
        if stored.position <= self.position:
            return None
        self.position = stored.position
        event: Event = stored.event
        ns = stored.namespace
        if isinstance(event, MessageAppended):
            if (ns, event.conversation_id) in self.fork_owner:
                return None
            conv = self._conv(ns, event.conversation_id)
            if conv.deleted:
                return None
            self._message(conv, event, stored.position)
            return conv
        if isinstance(event, RUN_EVENT_CLASSES):
            conv = self._conv(ns, event.conversation_id)
            conv.stream_version = stored.stream_version
            if isinstance(event, RetrospectiveStarted):
                self.fork_owner[(ns, event.fork_id)] = event.conversation_id
            apply_run_event(conv, event, stored.position)
            return conv
        if isinstance(event, ConversationDeleted):
            owner = self.fork_owner.get((ns, event.conversation_id))
            if owner is not None:
                owner_conv = self._conv(ns, owner)
                record = owner_conv.forks.get(event.conversation_id)
                if record is not None:
                    record.deleted = True
                return owner_conv
            gone = self.conversations.get((ns, event.conversation_id))
            if gone is not None:
                gone.deleted = True
                gone.set_tail([])
            return gone
        if isinstance(event, ConversationForked):
            return None
        if isinstance(event, RetrospectiveSweepCompleted):
            self.last_sweep_at = event.at
            self.sweeps += 1
        return None

    @staticmethod
    def _message(conv: ConversationRetro, event: MessageAppended, position: int) -> None:
        if conv.last_message_at is None or event.created_at > conv.last_message_at:
            conv.last_message_at = event.created_at
        conv.note_profile(event.metadata)
        user = has_user_content(event.role, event.content)
        chars = len(content_text(event.content))
        if event.message_id in conv.seen:
            for message in reversed(conv.tail):  # an update is mostly of a recent message
                if message.message_id == event.message_id:
                    conv.count_in_tail(message, -1)
                    message.role = event.role
                    message.user_content = user
                    message.finalized = event.finalized
                    message.chars = chars
                    message.created_at = event.created_at
                    conv.count_in_tail(message, 1)
                    break
            return
        conv.seen.add(event.message_id)
        message = TailMessage(
            message_id=event.message_id,
            position=position,
            role=event.role,
            user_content=user,
            finalized=event.finalized,
            created_at=event.created_at,
            chars=chars,
        )
        conv.tail.append(message)
        conv.count_in_tail(message, 1)
