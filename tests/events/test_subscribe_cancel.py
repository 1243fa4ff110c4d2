"""A subscriber waiting for new commits stops when cancelled, also when the cancellation
races the commit that wakes it (Python 3.11's ``asyncio.wait_for`` used to swallow it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from events.store.base import NewEvent, StoredEvent
from events.store.contract import NS, message
from events.store.sqlite import SqliteEventStore

STOP_BOUND = 5.0
"""Seconds a cancelled subscriber may take to finish (it should take none)."""


async def _follow(store: SqliteEventStore, after: int, seen: list[StoredEvent]) -> None:
    async for stored in store.subscribe(after):
        seen.append(stored)


async def _settle() -> None:
    """Let a new subscriber read the (caught-up) log and settle into its wait."""
    await asyncio.sleep(0.05)


async def test_a_waiting_subscriber_stops_when_cancelled(tmp_path: Path) -> None:
    store = SqliteEventStore.in_data_dir(tmp_path)
    await store.open()
    try:
        seen: list[StoredEvent] = []
        task = asyncio.create_task(_follow(store, 0, seen))
        await _settle()
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=STOP_BOUND)
        assert task in done
        assert task.cancelled()
        assert seen == []
    finally:
        await store.close()


async def test_cancelling_as_a_commit_wakes_the_subscriber_stops_it(tmp_path: Path) -> None:
    """Cancel right after a commit, at every step of the wake-up: the task always ends."""
    store = SqliteEventStore.in_data_dir(tmp_path)
    await store.open()
    try:
        for steps in range(8):
            written = steps + 1
            seen: list[StoredEvent] = []
            task = asyncio.create_task(_follow(store, steps, seen))
            await _settle()
            await store.append(NS, [NewEvent(message("c", written))])
            for _ in range(steps):
                await asyncio.sleep(0)
            task.cancel()
            done, _ = await asyncio.wait([task], timeout=STOP_BOUND)
            assert task in done, f"the subscriber did not stop (cancelled {steps} steps in)"
            assert task.cancelled()
            assert [s.position for s in seen] in ([], [written])
    finally:
        await store.close()
