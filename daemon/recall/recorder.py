"""Record searches as events, in batches (one ``RecallRecorded`` per flush).

A search adds its entry to a buffer; the buffer is appended when it holds ``max_batch``
entries or ``interval`` seconds after its first entry, and on stop. Appends go to the
searched namespace; a failed append is logged and the entries are kept for the next flush.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from events.clock import Clock
from events.recall_events import RecallRecorded
from events.store.base import EventStore, NewEvent
from events.tasks import cancel_and_wait


class RecallRecorder:
    """Buffers recall entries per namespace and appends them as events."""

    def __init__(
        self, store: EventStore, clock: Clock, *, max_batch: int = 200, interval: float = 2.0
    ) -> None:
        self.store = store
        self.clock = clock
        self.max_batch = max_batch
        self.interval = interval
        self._buffers: dict[str, list[dict[str, Any]]] = {}
        self._times: dict[str, list[datetime]] = {}
        self._timer: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.failures = 0

    def record(
        self,
        namespace: str,
        query: str,
        conversation_id: str | None,
        scope: Sequence[str],
        hits: Sequence[tuple[str, str, float]],
        shadow: Sequence[tuple[str, str, float]] = (),
    ) -> None:
        """Buffer one search: ``hits`` are ``(kind, id, score)`` in rank order; ``shadow`` the
        quarantined facts it would have returned had they not been quarantined."""
        now = self.clock.now()
        entry: dict[str, Any] = {
            "at": now.isoformat(),
            "query": query,
            "conversation_id": conversation_id,
            "scope": list(scope),
            "hits": [{"kind": k, "id": i, "score": s} for k, i, s in hits],
        }
        if shadow:
            entry["shadow"] = [{"kind": k, "id": i, "score": s} for k, i, s in shadow]
        self._buffers.setdefault(namespace, []).append(entry)
        self._times.setdefault(namespace, []).append(now)
        if len(self._buffers[namespace]) >= self.max_batch:
            self._schedule(0.0)
        elif self._timer is None:
            self._schedule(self.interval)

    def _schedule(self, delay: float) -> None:
        if self._timer is not None and not self._timer.done():
            if delay > 0:
                return
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().create_task(self._flush_later(delay))

    async def _flush_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timer = None
        await self.flush()

    async def flush(self) -> int:
        """Append every buffered entry now; return how many were written."""
        async with self._lock:
            written = 0
            for namespace in sorted(self._buffers):
                entries = self._buffers.pop(namespace)
                times = self._times.pop(namespace)
                if not entries:
                    continue
                event = RecallRecorded(recalls=entries, first_at=min(times), last_at=max(times))
                try:
                    await self.store.append(namespace, [NewEvent(event)])
                except Exception:
                    self.failures += 1
                    self._buffers.setdefault(namespace, [])[:0] = entries
                    self._times.setdefault(namespace, [])[:0] = times
                    continue
                written += len(entries)
            return written

    async def stop(self) -> None:
        """Flush what is buffered and stop the timer."""
        if self._timer is not None:
            await cancel_and_wait(self._timer)
            self._timer = None
        await self.flush()
