"""Benchmark: rebuild every projection from a log of MessageAppended events.

Usage::

    .venv/bin/python bench/rebuild.py [--events 1000000] [--conversations 1000] [--dir DIR]
        [--only messages,facts] [--database-url postgresql+asyncpg://...]

The log is generated first in a child process (``import_records`` in big batches), so the
peak RSS reported (``resource.getrusage``) is that of the process doing only the rebuild.
With ``--database-url`` the log and projections live in that PostgreSQL database instead (it
must be empty, or already hold this benchmark's log, which is then reused).
Targets: >= 50,000 events/s, peak RSS < 300 MB. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.backend import Backend
from events.clock import to_micros
from events.codec import default_codec
from events.store.base import EventRecord, StoredEvent
from events.types import MessageAppended, conversation_stream
from projections.base import Projection
from projections.runner import default_projections

CHUNK = 50_000


async def generate(backend: Backend, events: int, conversations: int) -> None:
    """Write ``events`` MessageAppended records spread round-robin over conversations."""
    store = backend.open_store()
    await store.open()
    if await store.head():
        await store.close()
        return
    try:
        start = datetime(2026, 1, 1, tzinfo=UTC)
        recorded = to_micros(start)
        position = 0
        while position < events:
            batch = []
            for _ in range(min(CHUNK, events - position)):
                position += 1
                conv = f"conv-{position % conversations}"
                event = MessageAppended(
                    conversation_id=conv,
                    message_id=f"msg-{position}",
                    role="user" if position % 2 else "assistant",
                    content=f"message number {position} with some ordinary chat text in it",
                    created_at=start + timedelta(seconds=position),
                    metadata={"client": "bench"},
                )
                batch.append(
                    EventRecord(
                        position=position,
                        event_id=f"00000000-0000-4000-8000-{position:012d}",
                        namespace="default",
                        stream_id=conversation_stream(conv),
                        stream_version=position // conversations + 1,
                        event_type=event.event_type,
                        schema_version=event.schema_version,
                        payload=default_codec.encode(event),
                        recorded_at=recorded + position,
                    )
                )
            await store.import_records(batch)
    finally:
        await store.close()


class _Timed(Projection):
    """Wraps a projection to add up the time its ``apply`` takes."""

    def __init__(self, inner: Projection) -> None:
        self.inner = inner
        self.name = inner.name  # type: ignore[misc]
        self.version = inner.version  # type: ignore[misc]
        self.metadata = inner.metadata  # type: ignore[misc]
        self.seconds = 0.0
        self.cpu = 0.0

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        began, cpu = time.perf_counter(), time.thread_time()
        await self.inner.apply(conn, events)
        self.seconds += time.perf_counter() - began
        # The fold's own Python work: the loop thread's CPU (the driver's SQL runs on another
        # thread), far less disturbed by a busy machine than wall time.
        self.cpu += time.thread_time() - cpu


async def rebuild(
    backend: Backend, batch_size: int, only: set[str] | None
) -> tuple[int, float, dict[str, tuple[float, float]]]:
    """Rebuild the projections of a backend; return (position, seconds, (wall, loop CPU)
    seconds in apply by projection name)."""
    chosen = [_Timed(p) for p in default_projections() if only is None or p.name in only]
    async with backend.open_runner(chosen, batch_size=batch_size) as runner:
        began = time.perf_counter()
        position = await runner.rebuild()
        spent = {p.name: (p.seconds, p.cpu) for p in chosen}
        return position, time.perf_counter() - began, spent


def main() -> None:
    """Generate (in a child process), rebuild, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--dir", type=Path, default=None, help="reuse or create this data dir")
    parser.add_argument(
        "--only", default=None, help="comma-separated projection names (default: all)"
    )
    parser.add_argument("--database-url", default=None, help="PostgreSQL instead of SQLite")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_only:
        asyncio.run(generate(Backend(args.dir, args.database_url), args.events, args.conversations))
        return
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp:
        data_dir = args.dir or Path(tmp)
        backend = Backend(data_dir, args.database_url)
        if backend.is_postgres or not (data_dir / "events.sqlite3").exists():
            began = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--generate-only",
                    "--dir",
                    str(data_dir),
                    "--events",
                    str(args.events),
                    "--conversations",
                    str(args.conversations),
                    *(["--database-url", args.database_url] if args.database_url else []),
                ],
                check=True,
            )
            print(f"generated {args.events:,} events in {time.perf_counter() - began:.1f}s")
        only = set(args.only.split(",")) if args.only else None
        cpu_before = time.process_time()
        position, seconds, spent = asyncio.run(rebuild(backend, args.batch_size, only))
        cpu = time.process_time() - cpu_before
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"rebuild: {position:,} events in {seconds:.1f}s = {position / seconds:,.0f} events/s "
            f"(batch {args.batch_size}, process CPU {cpu:.1f}s); peak RSS {peak_mb:.0f} MB"
        )
        print(
            "  time in apply (wall / loop-thread CPU): "
            + ", ".join(f"{n} {wall:.1f}s / {cpu:.1f}s" for n, (wall, cpu) in spent.items())
        )


if __name__ == "__main__":
    main()
