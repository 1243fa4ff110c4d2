"""The child of the crash test: append forever until SIGKILLed, reporting each acknowledgement.

Usage: ``python -m tests.crash_child DATA_DIR TRIAL``. Four concurrent tasks append single
events and batches (so group commits mix several requests) of messages and facts, while the
projection runner follows the log into the data dir's projection database, as the daemon
does. Each event's idempotency key names its batch, its index and the batch size
(``<batch id>/<i>/<size>``), so the parent can tell a whole batch from a partial one. After an
append returns, the child prints ``ack <batch id> <first position> <size>`` and flushes: from
that moment the parent may count on it being durable.
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import UTC, datetime
from pathlib import Path

from daemon.backend import Backend
from events.store.base import NewEvent, StoredEvent
from events.store.sqlite import SqliteEventStore
from events.types import Event, FactSuperseded, FactWritten, MessageAppended
from projections.runner import ProjectionRunner

TASKS = 4
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def batch_event(batch_id: str, i: int, rng: random.Random) -> Event:
    """Return event ``i`` of a batch: mostly messages, some facts and supersedes."""
    if i % 7 == 3:
        return FactWritten(fact_id=f"{batch_id}-{i}", text=f"fact {i} of {batch_id}", valid_from=T0)
    if i % 7 == 4:
        return FactSuperseded(
            old_fact_id=f"{batch_id}-{i - 1}", new_fact_id=f"{batch_id}-{i}", at=T0
        )
    return MessageAppended(
        conversation_id=batch_id.rsplit("-", 1)[0],
        message_id=f"{batch_id}-{i}",
        role="user",
        content=f"message {i} of batch {batch_id} " + "x" * rng.randrange(0, 400),
        created_at=T0,
    )


def batch_events(batch_id: str, size: int, seed: int = 0) -> list[NewEvent]:
    """Return one batch of ``size`` events, each with its idempotency key."""
    rng = random.Random(seed)
    return [
        NewEvent(batch_event(batch_id, i, rng), idempotency_key=f"{batch_id}/{i}/{size}")
        for i in range(size)
    ]


def batch_of(stored: StoredEvent) -> tuple[str, int, int]:
    """Return (batch id, index, batch size) of an event written by :func:`batch_events`."""
    assert stored.idempotency_key is not None
    batch_id, i, size = stored.idempotency_key.split("/")
    return batch_id, int(i), int(size)


async def appender(store: SqliteEventStore, trial: str, task: int) -> None:
    rng = random.Random(f"{trial}-{task}")
    n = 0
    while True:
        n += 1
        batch_id = f"{trial}.{task}-{n}"
        size = 1 if rng.random() < 0.5 else rng.randrange(2, 40)
        positions = await store.append("default", batch_events(batch_id, size, n))
        sys.stdout.write(f"ack {batch_id} {positions[0]} {len(positions)}\n")
        sys.stdout.flush()


async def main(data_dir: Path, trial: str) -> None:
    store = SqliteEventStore.in_data_dir(data_dir)
    await store.open()
    runner = ProjectionRunner(store, Backend(data_dir).projection_engine(write=True))
    await runner.setup()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    await asyncio.gather(runner.run(), *(appender(store, trial, t) for t in range(TASKS)))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
