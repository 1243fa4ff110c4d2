"""Benchmark: one caller appending single events, one after another (no group to share).

Usage::

    .venv/bin/python -m bench.append_latency [--appends 2000] [--dir DIR]

What a chat app that writes one message at a time waits for, and what each durable append
costs the process: wall time, process CPU (every thread, fsync's system time included) and
the event loop thread's own CPU, per append, on the embedded SQLite store. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from events.store.base import NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import MessageAppended

WARM_UP = 200


def _message(i: int) -> MessageAppended:
    return MessageAppended(
        conversation_id="c1",
        message_id=f"m{i}",
        role="user",
        content="hello there, this is one chat message",
        created_at=datetime.now(UTC),
    )


async def measure(data_dir: Path, appends: int) -> dict[str, float]:
    """Append ``appends`` single events in turn; return microseconds per append."""
    store = SqliteEventStore.in_data_dir(data_dir)
    await store.open()
    try:
        for i in range(WARM_UP):
            await store.append("default", [NewEvent(_message(i))])
        wall, cpu, loop_cpu = time.perf_counter(), time.process_time(), time.thread_time()
        for i in range(WARM_UP, WARM_UP + appends):
            await store.append("default", [NewEvent(_message(i))])
        return {
            "wall_us": (time.perf_counter() - wall) / appends * 1e6,
            "process_cpu_us": (time.process_time() - cpu) / appends * 1e6,
            "loop_thread_cpu_us": (time.thread_time() - loop_cpu) / appends * 1e6,
        }
    finally:
        await store.close()


def main() -> None:
    """Run and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=None, help="work here (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-", dir=args.dir) as tmp:
        figures = asyncio.run(measure(Path(tmp), args.appends))
    print(
        f"{args.appends:,} single appends: wall {figures['wall_us']:.0f} us, process CPU "
        f"{figures['process_cpu_us']:.0f} us, loop thread CPU "
        f"{figures['loop_thread_cpu_us']:.0f} us per append"
    )


if __name__ == "__main__":
    main()
