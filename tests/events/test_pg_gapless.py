"""PostgreSQL: many writers in several processes, one tailing subscriber that misses nothing.

The hazard this guards against: with positions from a sequence, a transaction holding position
``n`` can commit after one holding ``n + 1``; a subscriber that read ``n + 1`` in between asks
for ``position > n + 1`` from then on and never sees ``n``. The store's advisory lock makes
positions commit in order; here ten writer connections (four of them in two other processes)
append at once while a subscriber on yet another store instance tails the log. It must see
every position exactly once, in order, and it is woken by NOTIFY alone (its fallback poll is an
hour long), so the test also shows cross-process live following.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter

import pytest

from events.store.base import NewEvent, StoredEvent
from events.store.contract import NS, message
from events.store.postgres import PostgresEventStore
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.postgres

IN_PROCESS_WRITERS = 6
CHILD_PROCESSES = 2
WRITERS_PER_CHILD = 2
APPENDS_PER_WRITER = 15


def batch_size(append: int) -> int:
    """Return how many events a writer's ``append``-th append carries (1 to 3)."""
    return 1 + append % 3


def events_per_writer() -> int:
    """Return how many events one writer appends in all."""
    return sum(batch_size(j) for j in range(APPENDS_PER_WRITER))


async def run_writer(url: str, writer: str) -> None:
    """Append this writer's events through its own store (own engine, own connections)."""
    store = PostgresEventStore(url)
    await store.open()
    try:
        n = 0
        for j in range(APPENDS_PER_WRITER):
            batch = []
            for _ in range(batch_size(j)):
                n += 1
                batch.append(NewEvent(message(writer, n)))
            await store.append(NS, batch)
    finally:
        await store.close()


async def run_child(url: str, child: int) -> None:
    """One writer process: several writer stores appending at once."""
    await asyncio.gather(*(run_writer(url, f"p{child}w{i}") for i in range(WRITERS_PER_CHILD)))


async def test_concurrent_writers_reach_a_subscriber_gapless_and_in_order(
    pg_url: str,
) -> None:
    writers = IN_PROCESS_WRITERS + CHILD_PROCESSES * WRITERS_PER_CHILD
    assert writers >= 8
    total = writers * events_per_writer()

    # Create the schema first, so that the writers do not all start on an empty database.
    subscriber_store = PostgresEventStore(pg_url)
    await subscriber_store.open()
    subscriber_store.fallback_poll_seconds = 3600.0
    seen: list[StoredEvent] = []

    async def follow() -> None:
        async for event in subscriber_store.subscribe():
            seen.append(event)
            if len(seen) == total:
                return

    try:
        follower = asyncio.create_task(follow())
        children = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.events.test_pg_gapless",
                pg_url,
                str(child),
                cwd=REPO_ROOT,
            )
            for child in range(CHILD_PROCESSES)
        ]
        await asyncio.gather(*(run_writer(pg_url, f"w{i}") for i in range(IN_PROCESS_WRITERS)))
        assert [await child.wait() for child in children] == [0] * CHILD_PROCESSES
        await asyncio.wait_for(follower, 120)

        positions = [e.position for e in seen]
        assert positions == list(range(1, total + 1))
        assert len({e.event_id for e in seen}) == total
        # Nothing was followed that the log does not hold, and the log holds nothing more.
        assert [(e.position, e.event_id) async for e in subscriber_store.read()] == [
            (e.position, e.event_id) for e in seen
        ]
        # Each writer's stream: versions 1..n in position order, messages in append order.
        by_stream: dict[str, list[StoredEvent]] = {}
        for event in seen:
            by_stream.setdefault(event.stream_id, []).append(event)
        assert len(by_stream) == writers
        assert Counter(len(stream) for stream in by_stream.values()) == {
            events_per_writer(): writers
        }
        for stream in by_stream.values():
            versions = [e.stream_version for e in stream]
            assert versions == list(range(1, len(stream) + 1))
            conversation = stream[0].stream_id.removeprefix("conversation:")
            expected = [message(conversation, v) for v in versions]
            assert [e.event for e in stream] == expected
    finally:
        await subscriber_store.close()


if __name__ == "__main__":
    asyncio.run(run_child(sys.argv[1], int(sys.argv[2])))
