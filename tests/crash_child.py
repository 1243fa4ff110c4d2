"""The child of the crash test: append forever until SIGKILLed, reporting each acknowledgement.

Usage: ``python -m tests.crash_child DATA_DIR TRIAL``. Four concurrent tasks append single
events and batches (so group commits mix several requests). Every event carries its batch id
and batch size in its metadata and every append an idempotency key (the batch id). After an
append returns, the child prints ``ack <batch id> <first position> <size>`` and flushes: from
that moment the parent may count on it being durable.
"""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import UTC, datetime
from pathlib import Path

from events.store.base import NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import MessageAppended

TASKS = 4


def batch_events(batch_id: str, size: int) -> list[NewEvent]:
    """Return one batch: ``size`` messages tagged with the batch id."""
    return [
        NewEvent(
            MessageAppended(
                conversation_id=batch_id.rsplit("-", 1)[0],
                message_id=f"{batch_id}-{i}",
                role="user",
                content=f"message {i} of batch {batch_id} " + "x" * random.randrange(0, 400),
                created_at=datetime(2026, 1, 1, tzinfo=UTC),
                metadata={"batch": batch_id, "size": size},
            ),
            idempotency_key=batch_id if i == 0 else f"{batch_id}/{i}",
        )
        for i in range(size)
    ]


async def appender(store: SqliteEventStore, trial: str, task: int) -> None:
    rng = random.Random(f"{trial}-{task}")
    n = 0
    while True:
        n += 1
        batch_id = f"{trial}.{task}-{n}"
        size = 1 if rng.random() < 0.5 else rng.randrange(2, 40)
        positions = await store.append("default", batch_events(batch_id, size))
        sys.stdout.write(f"ack {batch_id} {positions[0]} {len(positions)}\n")
        sys.stdout.flush()


async def main(data_dir: Path, trial: str) -> None:
    store = SqliteEventStore.in_data_dir(data_dir)
    await store.open()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    await asyncio.gather(*(appender(store, trial, t) for t in range(TASKS)))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
