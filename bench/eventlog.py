"""Benchmark: the SQLite event log against raw ``sqlite3.executemany`` on the same disk.

Usage::

    .venv/bin/python -m bench.eventlog [--events 1000000] [--batch 10000]
        [--concurrent-events 20000] [--tasks 16] [--dir DIR] [--no-rebuild]

In one run, with durable commits on both sides (WAL, ``synchronous=FULL``), files side by
side in one directory:

1. raw: ``sqlite3.executemany`` of prebuilt tuples into an equivalent table (the store's own
   DDL: same columns, constraints and indexes), one transaction per batch; and
2. store, batched: ``append`` of ``--batch`` MessageAppended events per call, the same
   batches (timed: the ``append`` calls, which include encoding, ids, checks). Raw and store
   batches alternate, so that both see the same disk, cache and machine load;
3. store, concurrent: ``--tasks`` tasks each appending single events, one ``append`` per
   event, into that same log (now ``--events`` long), until ``--concurrent-events`` are in;
   in rounds alternating with raw transactions of ``--tasks`` rows each, the ceiling of a
   group commit that size on this disk (each commit waits for an fsync);
4. rebuild of every projection from that log (``ProjectionRunner.rebuild``), in a child
   process so that its peak RSS (``resource.getrusage``) is the rebuild's alone.

Targets: batched >= 50% of raw; concurrent >= 2,000 events/s; rebuild >= 50,000
events/s; peak RSS < 300 MB. Prints a table and a JSON line. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.schema import CreateIndex, CreateTable

from events.clock import to_micros
from events.codec import default_codec
from events.ids import new_event_ids
from events.store.base import NewEvent
from events.store.schema import events_table
from events.store.sqlite import SqliteEventStore
from events.types import MessageAppended, conversation_stream

START = datetime(2026, 1, 1, tzinfo=UTC)
CONVERSATIONS = 1000
NAMESPACE = "default"
RAW_GROUPS = 300
ROUNDS = 10


def message(n: int) -> MessageAppended:
    """Return the ``n``-th benchmark message (round-robin over the conversations)."""
    return MessageAppended(
        conversation_id=f"conv-{n % CONVERSATIONS}",
        message_id=f"msg-{n}",
        role="user" if n % 2 else "assistant",
        content=f"message number {n} with some ordinary chat text in it, about tea and trains",
        created_at=START + timedelta(seconds=n),
        metadata={"client": "bench"},
    )


def batches(total: int, size: int) -> Iterator[range]:
    """Yield the 1-based message numbers of each batch."""
    for first in range(1, total + 1, size):
        yield range(first, min(first + size, total + 1))


# -- raw baseline ---------------------------------------------------------------------------


def raw_schema() -> list[str]:
    """Return the store's own DDL for the events table, compiled for SQLite."""
    dialect = sqlite_dialect.dialect()
    statements = [str(CreateTable(events_table).compile(dialect=dialect))]
    statements += [str(CreateIndex(i).compile(dialect=dialect)) for i in events_table.indexes]
    return statements


def raw_rows(numbers: range) -> list[tuple[Any, ...]]:
    """Return the rows the store would write for these messages, as tuples."""
    ids = new_event_ids(len(numbers), time.time_ns() // 1_000_000)
    recorded = to_micros(START)
    rows = []
    for event_id, n in zip(ids, numbers, strict=True):
        event = message(n)
        rows.append(
            (
                n,
                event_id,
                NAMESPACE,
                conversation_stream(event.conversation_id),
                (n - 1) // CONVERSATIONS + 1,
                event.event_type,
                event.schema_version,
                default_codec.encode(event),
                recorded,
                None,
                None,
                None,
            )
        )
    return rows


class RawTable:
    """The baseline: an equivalent table written with ``sqlite3.executemany`` directly."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "cache_size=-65536"):
            self.conn.execute(f"PRAGMA {pragma}")
        for statement in raw_schema():
            self.conn.execute(statement)
        columns = ", ".join(c.name for c in events_table.columns)
        marks = ", ".join("?" for _ in events_table.columns)
        self.insert = f"INSERT INTO events ({columns}) VALUES ({marks})"

    def write(self, numbers: range) -> float:
        """Insert these messages (rows prebuilt, untimed) in one durable transaction."""
        rows = raw_rows(numbers)
        began = time.perf_counter()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany(self.insert, rows)
        self.conn.execute("COMMIT")
        return time.perf_counter() - began


@dataclass
class Timings:
    raw_batched: float = 0.0
    store_batched: float = 0.0
    raw_groups: float = 0.0
    concurrent_events: int = 0
    concurrent: float = 0.0


async def bench_appends(
    root: Path, total: int, batch: int, concurrent_events: int, tasks: int, limit: float
) -> Timings:
    """Time raw and store batches alternately (so both see the same disk and load), then
    raw transactions of ``tasks`` rows, then ``tasks`` concurrent single-event appenders."""
    raw = RawTable(root / "raw.sqlite3")
    store = SqliteEventStore.in_data_dir(root / "data")
    await store.open()
    timings = Timings()
    try:
        for numbers in batches(total, batch):
            timings.raw_batched += raw.write(numbers)
            events = [NewEvent(message(n)) for n in numbers]
            began = time.perf_counter()
            await store.append(NAMESPACE, events)
            timings.store_batched += time.perf_counter() - began
            if numbers[-1] % (batch * 20) == 0:
                print(f"  {numbers[-1]:,} events appended (raw and store)", file=sys.stderr)

        # Concurrent appenders, in rounds that alternate with raw transactions of as many
        # rows as there are appenders (what one full group commit could do on this disk).
        raw_next = total + 1
        to_append = iter(range(total + 1, total + concurrent_events + 1))
        deadline = time.perf_counter() + limit
        per_round = max(1, concurrent_events // ROUNDS)

        async def appender(quota: list[int]) -> None:
            while quota[0] > 0 and time.perf_counter() < deadline:
                n = next(to_append, None)
                if n is None:
                    return
                quota[0] -= 1
                await store.append(NAMESPACE, [NewEvent(message(n))])
                timings.concurrent_events += 1

        for _ in range(ROUNDS):
            for _ in range(RAW_GROUPS // ROUNDS):
                timings.raw_groups += raw.write(range(raw_next, raw_next + tasks))
                raw_next += tasks
            quota = [per_round]
            began = time.perf_counter()
            await asyncio.gather(*(appender(quota) for _ in range(tasks)))
            timings.concurrent += time.perf_counter() - began
        raw.conn.close()
        assert await store.head() == total + timings.concurrent_events
        return timings
    finally:
        await store.close()


def rebuild_in_child(data_dir: Path) -> dict[str, float]:
    """Rebuild the projections in a fresh process; return its rate and peak RSS."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.eventlog", "--rebuild-child", str(data_dir)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out.splitlines()[-1])
    return result


def rebuild_child(data_dir: Path) -> None:
    """Rebuild (in this process) and print position, seconds and peak RSS as JSON."""
    import resource

    position, seconds = asyncio.run(rebuild(data_dir))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"events": position, "seconds": seconds, "peak_rss_mb": peak_mb}))


async def rebuild(data_dir: Path) -> tuple[int, float]:
    """Drop and refold every projection of a data dir; return (position, seconds)."""
    from daemon.backend import Backend

    async with Backend(data_dir).open_runner() as runner:
        began = time.perf_counter()
        position = await runner.rebuild()
        return position, time.perf_counter() - began


# -- report ---------------------------------------------------------------------------------


def report(results: dict[str, Any]) -> None:
    """Print the table and the JSON line."""
    rows = [
        ("raw executemany (batched)", f"{results['raw_rate']:,.0f} ev/s", ""),
        (
            f"raw executemany, {results['tasks']} rows per commit",
            f"{results['raw_group_rate']:,.0f} ev/s",
            "what this disk allows a full group",
        ),
        (
            "store append (batched)",
            f"{results['batched_rate']:,.0f} ev/s",
            f"{results['batched_ratio']:.0%} of raw (target >= 50%)",
        ),
        (
            f"store, {results['tasks']} concurrent single appends",
            f"{results['concurrent_rate']:,.0f} ev/s",
            "target >= 2,000 ev/s",
        ),
    ]
    if "rebuild_rate" in results:
        rows.append(
            ("rebuild all projections", f"{results['rebuild_rate']:,.0f} ev/s", "target >= 50,000")
        )
        rows.append(
            ("peak RSS during rebuild", f"{results['rebuild_peak_rss_mb']:.0f} MB", "< 300")
        )
    width = max(len(r[0]) for r in rows)
    print(f"\n{results['events']:,} events, batches of {results['batch']:,}, in {results['dir']}")
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:>14}  {note}")
    print(json.dumps(results))


def main() -> None:
    """Run every part of the benchmark and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--concurrent-events", type=int, default=20_000)
    parser.add_argument("--concurrent-seconds", type=float, default=60.0)
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--dir", type=Path, default=None, help="work here (default: a temp dir)")
    parser.add_argument("--no-rebuild", action="store_true", help="skip the projection rebuild")
    parser.add_argument("--rebuild-child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rebuild_child is not None:
        rebuild_child(args.rebuild_child)
        return
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-", dir=args.dir) as tmp:
        root = Path(tmp)
        print("appending ...", file=sys.stderr)
        t = asyncio.run(
            bench_appends(
                root,
                args.events,
                args.batch,
                args.concurrent_events,
                args.tasks,
                args.concurrent_seconds,
            )
        )
        data_dir = root / "data"
        results: dict[str, Any] = {
            "events": args.events,
            "batch": args.batch,
            "dir": str(root),
            "raw_rate": args.events / t.raw_batched,
            "raw_group_rate": args.tasks * (RAW_GROUPS // ROUNDS * ROUNDS) / t.raw_groups,
            "batched_rate": args.events / t.store_batched,
            "batched_ratio": t.raw_batched / t.store_batched,
            "tasks": args.tasks,
            "concurrent_events": t.concurrent_events,
            "concurrent_rate": t.concurrent_events / t.concurrent,
        }
        if not args.no_rebuild:
            print("rebuild ...", file=sys.stderr)
            rebuilt = rebuild_in_child(data_dir)
            results["rebuild_rate"] = rebuilt["events"] / rebuilt["seconds"]
            results["rebuild_peak_rss_mb"] = rebuilt["peak_rss_mb"]
        report(results)


if __name__ == "__main__":
    main()
