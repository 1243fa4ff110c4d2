"""Benchmark: rebuild every projection from a log of MessageAppended events.

Usage::

    .venv/bin/python bench/rebuild.py [--events 1000000] [--conversations 1000] [--dir DIR]

The log is generated first in a child process (``import_records`` in big batches), so the
peak RSS reported (``resource.getrusage``) is that of the process doing only the rebuild.
Targets (issue 2): >= 50,000 events/s, peak RSS < 300 MB. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from daemon.backend import Backend
from events.clock import to_micros
from events.codec import default_codec
from events.store.base import EventRecord
from events.types import MessageAppended, conversation_stream
from projections.runner import ProjectionRunner

CHUNK = 50_000


async def generate(data_dir: Path, events: int, conversations: int) -> None:
    """Write ``events`` MessageAppended records spread round-robin over conversations."""
    store = Backend(data_dir).open_store()
    await store.open()
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


async def rebuild(data_dir: Path, batch_size: int) -> tuple[int, float]:
    """Rebuild the projections of a data dir; return (position, seconds)."""
    backend = Backend(data_dir)
    store = backend.open_store()
    await store.open()
    engine = backend.projection_engine(write=True)
    try:
        runner = ProjectionRunner(store, engine, batch_size=batch_size)
        await runner.setup()
        began = time.perf_counter()
        position = await runner.rebuild()
        return position, time.perf_counter() - began
    finally:
        await engine.dispose()
        await store.close()


def main() -> None:
    """Generate (in a child process), rebuild, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=None, help="reuse or create this data dir")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_only:
        asyncio.run(generate(args.dir, args.events, args.conversations))
        return
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp:
        data_dir = args.dir or Path(tmp)
        if not (data_dir / "events.sqlite3").exists():
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
                ],
                check=True,
            )
            print(f"generated {args.events:,} events in {time.perf_counter() - began:.1f}s")
        position, seconds = asyncio.run(rebuild(data_dir, args.batch_size))
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"rebuild: {position:,} events in {seconds:.1f}s = {position / seconds:,.0f} events/s "
            f"(batch {args.batch_size}); peak RSS {peak_mb:.0f} MB"
        )


if __name__ == "__main__":
    main()
