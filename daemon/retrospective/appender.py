"""Appending the service's decisions, each checked against the state it was decided on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from daemon.logging import get_logger
from daemon.retrospective.follower import LogFollower
from daemon.retrospective.state import Counters
from events.retrospective_events import retrospective_stream
from events.store.base import ConcurrencyError, EventStore, NewEvent
from events.types import Event
from projections.retrospective import ConversationRetro

log = get_logger(__name__)

APPEND_ATTEMPTS = 5
"""How often a decision refused on moved-on state is re-taken before giving up."""


class DecisionAppender:
    """Appends events naming the version of the conversation's retrospective stream they
    were decided on, so a decision on stale state is refused (also between daemons)."""

    def __init__(self, store: EventStore, follower: LogFollower, counters: Counters) -> None:
        self.store = store
        self.follower = follower
        self.counters = counters

    async def append(
        self,
        conv: ConversationRetro,
        events: Sequence[Event],
        *,
        keys: Sequence[str] = (),
        also_expect: Mapping[str, int] | None = None,
    ) -> list[int] | None:
        """Append decision events checked against the retrospective stream's version (and the
        versions of any fact streams the events change); None if refused."""
        stream = retrospective_stream(conv.conversation_id)
        new = [
            NewEvent(e, idempotency_key=keys[i] if i < len(keys) else None)
            for i, e in enumerate(events)
        ]
        self.follower.hurry.set()
        try:
            positions = await self.store.append(
                conv.namespace,
                new,
                expected_versions={**(also_expect or {}), stream: conv.stream_version},
            )
        except ConcurrencyError:
            self.counters.refused_appends += 1
            log.debug("retrospective.append_refused", conversation_id=conv.conversation_id)
            return None
        self.follower.wake.set()
        return positions
