"""Following the log: the fold the retrospective service decides on, kept current.

At start-up the whole log is folded (so the state is exactly what a replay gives); then new
commits are read as they land. Live trigger events (a message, an announced compaction) go
to the decider while this instance leads, and are kept (the latest per conversation and
kind) while it does not, to be re-evaluated when it starts to lead.
"""

from __future__ import annotations

import asyncio
import contextlib

from daemon.retrospective.state import UsageLog
from events.clock import Clock
from events.daemon_events import CompactionAnnounced
from events.store.base import EventStore, StoredEvent
from events.types import MessageAppended
from projections.base import cooperate
from projections.retrospective import ConversationRetro, RetrospectiveFold

FOLLOW_CHUNK = 1000
"""Events the scheduler reads from the log at a time."""
FOLLOW_DELAY = 0.05
"""Seconds a wake-up waits for more commits before the scheduler reads the log."""

ConvKey = tuple[str, str]
"""(namespace, conversation id)"""


def _conv_key(stored: StoredEvent) -> ConvKey:
    event = stored.event
    assert isinstance(event, MessageAppended | CompactionAnnounced)
    return (stored.namespace, event.conversation_id)


class LogFollower:
    """Folds the log into a :class:`RetrospectiveFold` and hands live triggers on."""

    def __init__(
        self,
        store: EventStore,
        clock: Clock,
        *,
        poll_interval: float,
        follow_delay: float,
    ) -> None:
        self.store = store
        self.clock = clock
        self.poll_interval = poll_interval
        self.follow_delay = follow_delay
        """How long a wake-up lets further commits gather before the log is read."""
        self.fold = RetrospectiveFold()
        self.usage = UsageLog()
        self.pending_keys: set[ConvKey] = set()
        """Conversations with a run pending."""
        self.reactions: asyncio.Queue[StoredEvent] = asyncio.Queue()
        """Live trigger events for the decider (while leading)."""
        self.leading = False
        self.stopping = False
        self.hurry = asyncio.Event()
        """Set when the service waits for its own events: read the log without delay."""
        self.wake = asyncio.Event()
        """Set when something changed that the ticker should look at."""
        self._live_after = 0
        self._folded = asyncio.Condition()
        self._missed: dict[tuple[ConvKey, type], StoredEvent] = {}
        """While not leading: the latest live trigger event per conversation (and kind)."""

    async def catch_up(self) -> None:
        """Fold the log up to its head; what follows is live."""
        head = await self.store.head()
        now = self.clock.now()
        async for stored in self.store.read(0, until=head):
            self._apply(stored)
            self.usage.note(stored.event, now)
        self._live_after = head

    def _apply(self, stored: StoredEvent) -> ConversationRetro | None:
        conv = self.fold.apply(stored)
        if conv is not None:
            if conv.pending_run_id is not None:
                self.pending_keys.add(conv.key)
            else:
                self.pending_keys.discard(conv.key)
        return conv

    def start_leading(self) -> None:
        """Route live triggers to the decider, first those that arrived while not leading
        (re-evaluated on the current state: a decision already taken makes them ``none``)."""
        self.leading = True
        missed = sorted(self._missed.values(), key=lambda s: s.position)
        self._missed.clear()
        for stored in missed:
            self.reactions.put_nowait(stored)

    def stop_leading(self) -> None:
        """Keep live triggers for later, with those the decider had not taken yet."""
        self.leading = False
        while not self.reactions.empty():
            self._keep(self.reactions.get_nowait())

    def _keep(self, stored: StoredEvent) -> None:
        self._missed[(_conv_key(stored), type(stored.event))] = stored

    async def follow(self) -> None:
        """Read new commits until stopped."""
        # Reads and waits in bounded steps (not ``store.subscribe``) so that a stop request is
        # seen within ``poll_interval`` even if a cancellation is swallowed on the way.
        while not self.stopping:
            i = 0
            async for stored in self.store.read(self.fold.position, limit=FOLLOW_CHUNK):
                await cooperate(i)  # the HTTP server shares this loop
                i += 1
                self._apply(stored)
                if stored.position > self._live_after and isinstance(
                    stored.event, MessageAppended | CompactionAnnounced
                ):
                    if self.leading:
                        self.reactions.put_nowait(stored)
                    else:
                        self._keep(stored)
            if i:
                async with self._folded:
                    self._folded.notify_all()
                self.wake.set()
                if i == FOLLOW_CHUNK:
                    continue
            # A short read means the log was read to its end: no second read to learn that.
            woken = await self.store.wait_for_head(
                self.fold.position + 1, timeout=self.poll_interval
            )
            if woken and self.follow_delay > 0 and not self.hurry.is_set():
                # Under a stream of small commits, reading after each one costs more than the
                # folding; a retrospective trigger can wait a few milliseconds. The service's
                # own decisions and runs are folded at once (it waits for them, and its state
                # is what the API shows).
                # ``asyncio.timeout``: Python 3.11's ``wait_for`` can swallow a cancellation.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.follow_delay):
                        await self.hurry.wait()
            self.hurry.clear()

    async def sync(self, timeout: float | None = 30.0) -> None:
        """Wait until the fold holds everything committed so far."""
        head = await self.store.head()
        await self.wait_folded(head, timeout)

    async def wait_folded(self, position: int, timeout: float | None) -> None:
        """Wait until the fold holds ``position``."""
        self.hurry.set()
        async with self._folded, asyncio.timeout(timeout):
            await self._folded.wait_for(lambda: self.fold.position >= position)
