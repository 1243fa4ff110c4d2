"""Benchmark: the event log on SQLite and PostgreSQL side by side.

Usage::

    .venv/bin/python bench/eventlog_backends.py [--events 100000] [--batch 1000]
        [--appenders 16] [--per-appender 500] [--processes 4]
        [--pg-url postgresql+asyncpg://postgres@127.0.0.1:5432/postgres] [--skip-sqlite]

Stages, each on a fresh log per backend:

- batched append: ``--events`` MessageAppended events in appends of ``--batch`` events each
  (one transaction per append), one after another;
- concurrent appenders: ``--appenders`` tasks on one store, each appending single events and
  waiting for each to be durable (group commit folds them into shared transactions);
- concurrent appenders in ``--processes`` processes (each with its own store on the same log):
  the several-daemons case, where processes serialise on the database's write lock;
- rebuild: every projection (or ``--projections a,b``) rebuilt from position 0 over the log.

PostgreSQL runs in a scratch database created on the ``--pg-url`` server and dropped after.
Targets: PostgreSQL 16 concurrent appenders >= 3,000 events/s, rebuild >= 30,000
events/s. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from daemon.backend import Backend
from events.store.base import EventStore, NewEvent
from events.store.postgres import libpq_dsn
from events.types import MessageAppended
from projections.runner import default_projections

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def message(conversation: str, n: int) -> MessageAppended:
    """Return an ordinary chat message."""
    return MessageAppended(
        conversation_id=conversation,
        message_id=f"{conversation}-{n}",
        role="user" if n % 2 else "assistant",
        content=f"message number {n} of {conversation} with some ordinary chat text in it",
        created_at=T0 + timedelta(seconds=n),
        metadata={"client": "bench"},
    )


@dataclass
class Results:
    """events/s per stage."""

    batched: float = 0.0
    concurrent: float = 0.0
    processes: float = 0.0
    rebuild: float = 0.0
    total_events: int = 0


async def timed(
    store_factory: Callable[[], EventStore], work: Callable[[EventStore], Awaitable[None]]
) -> float:
    """Open a store, run ``work`` on it, return the seconds the work took."""
    store = store_factory()
    await store.open()
    try:
        began = time.perf_counter()
        await work(store)
        return time.perf_counter() - began
    finally:
        await store.close()


async def batched_append(store: EventStore, events: int, batch: int) -> None:
    """Append ``events`` events in appends of ``batch``."""
    n = 0
    while n < events:
        size = min(batch, events - n)
        await store.append(
            "default", [NewEvent(message(f"b{(n + i) % 100}", n + i)) for i in range(size)]
        )
        n += size


async def concurrent_append(store: EventStore, appenders: int, each: int, tag: str) -> None:
    """Run ``appenders`` tasks, each appending ``each`` single events one by one."""

    async def appender(k: int) -> None:
        for n in range(each):
            await store.append("default", [NewEvent(message(f"{tag}{k}", n))])

    await asyncio.gather(*(appender(k) for k in range(appenders)))


def child_main(
    database_url: str | None, data_dir: str, appenders: int, each: int, tag: str
) -> None:
    """One process of the multi-process stage."""
    backend = Backend(Path(data_dir), database_url)
    asyncio.run(timed(backend.open_store, lambda s: concurrent_append(s, appenders, each, tag)))


async def multi_process_append(
    backend: Backend, processes: int, appenders: int, each: int
) -> float:
    """Run the concurrent stage split over processes; return seconds."""
    per = max(1, appenders // processes)
    began = time.perf_counter()
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--child",
            backend.database_url or "",
            str(backend.data_dir),
            str(per),
            str(each),
            f"p{p}-",
        )
        for p in range(processes)
    ]
    codes = [await c.wait() for c in children]
    if any(codes):
        raise RuntimeError(f"a child failed: {codes}")
    return time.perf_counter() - began


async def rebuild(backend: Backend, only: list[str] | None) -> tuple[int, float]:
    """Rebuild every projection (or those named in ``only``); return (events, seconds)."""
    projections = default_projections()
    if only:
        projections = [p for p in projections if p.name in only]
    async with backend.open_runner(projections) as runner:
        began = time.perf_counter()
        position = await runner.rebuild()
        return position, time.perf_counter() - began


async def run_backend(backend: Backend, args: argparse.Namespace) -> Results:
    """Run every stage on one backend."""
    out = Results()
    seconds = await timed(backend.open_store, lambda s: batched_append(s, args.events, args.batch))
    out.batched = args.events / seconds
    count = args.appenders * args.per_appender
    seconds = await timed(
        backend.open_store,
        lambda s: concurrent_append(s, args.appenders, args.per_appender, "c"),
    )
    out.concurrent = count / seconds
    if args.processes > 1:
        seconds = await multi_process_append(
            backend, args.processes, args.appenders, args.per_appender
        )
        per = max(1, args.appenders // args.processes)
        out.processes = per * args.processes * args.per_appender / seconds
    events, seconds = await rebuild(backend, args.projections)
    out.rebuild = events / seconds
    out.total_events = events
    return out


async def with_pg_database(server: str, body: Callable[[str], Awaitable[Results]]) -> Results:
    """Create a scratch database on ``server``, run ``body(url)``, drop the database."""
    name = f"memoryd_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = await asyncpg.connect(libpq_dsn(server))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = make_url(server).set(database=name).render_as_string(hide_password=False)
        return await body(url)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def main() -> None:
    """Run the stages on each backend and print a table."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, url, data_dir, appenders, each, tag = sys.argv
        child_main(url or None, data_dir, int(appenders), int(each), tag)
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--appenders", type=int, default=16)
    parser.add_argument("--per-appender", type=int, default=500)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("MEMORYD_TEST_PG_URL"),
        help="PostgreSQL server to create a scratch database on (default $MEMORYD_TEST_PG_URL)",
    )
    parser.add_argument("--skip-sqlite", action="store_true")
    parser.add_argument(
        "--projections",
        type=lambda text: [name for name in text.split(",") if name],
        default=None,
        help="rebuild only these projections (comma-separated names; default: all)",
    )
    args = parser.parse_args()

    results: dict[str, Results] = {}
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp:
        if not args.skip_sqlite:
            results["sqlite"] = asyncio.run(run_backend(Backend(Path(tmp) / "sqlite"), args))
        if args.pg_url:
            results["postgresql"] = asyncio.run(
                with_pg_database(
                    args.pg_url,
                    lambda url: run_backend(Backend(Path(tmp) / "pg", url), args),
                )
            )
    names = list(results)
    print(f"{'events/s':<44}" + "".join(f"{n:>14}" for n in names))
    rows = [
        (f"batched append ({args.events:,} in {args.batch}s)", "batched"),
        (f"{args.appenders} concurrent appenders, 1 process", "concurrent"),
        (f"{args.appenders} concurrent appenders, {args.processes} processes", "processes"),
        (
            "rebuild " + (",".join(args.projections) if args.projections else "all projections"),
            "rebuild",
        ),
    ]
    for label, key in rows:
        print(f"{label:<44}" + "".join(f"{getattr(results[n], key):>14,.0f}" for n in names))
    print(
        f"{'(log size at rebuild)':<44}" + "".join(f"{results[n].total_events:>14,}" for n in names)
    )


if __name__ == "__main__":
    main()
