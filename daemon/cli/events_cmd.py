"""``memoryd events tail|export|import``: read, copy and restore the event log as NDJSON.

``tail`` prints decoded events (payloads upcast to their current schema version); ``export``
prints the stored records unchanged (positions, schema versions and payload bytes as stored),
which ``import`` writes back with their positions into a log that ends right before them.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import IO, cast

import orjson

from daemon.cli import add_backend_options, backend_from_args
from daemon.cli.progress import progress_bar
from events.store.base import EventRecord, EventStore, ImportRefused, StoredEvent, StoreError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``events`` command group."""
    events = subparsers.add_parser("events", help="read, export and import the event log")
    commands = events.add_subparsers(dest="events_command", required=True, metavar="SUBCOMMAND")

    tail = commands.add_parser(
        "tail",
        help="print events as NDJSON, one per line, each with its position",
        description="Print events (decoded, upcast to their current version) as NDJSON.",
    )
    add_backend_options(tail)
    tail.add_argument("--after", type=_position, default=0, help="start after this position")
    tail.add_argument("--stream", default=None, help="only this stream, e.g. conversation:c1")
    tail.add_argument("--namespace", default=None, help="only this namespace")
    tail.add_argument("--limit", type=_position, default=None, help="stop after N events")
    tail.add_argument(
        "--follow", action="store_true", help="keep printing new events as they are committed"
    )
    tail.set_defaults(handler=tail_events)

    export = commands.add_parser(
        "export",
        help="write the stored records as NDJSON (positions kept)",
        description="Write the log's records, exactly as stored, as NDJSON.",
    )
    add_backend_options(export)
    export.add_argument("--after", type=_position, default=0, help="start after this position")
    export.add_argument("--until", type=_position, default=None, help="stop at this position")
    export.add_argument(
        "-o", "--output", type=Path, default=None, help="write to FILE (default: stdout)"
    )
    export.set_defaults(handler=export_events)

    imp = commands.add_parser(
        "import",
        help="append exported NDJSON records, keeping their positions",
        description=(
            "Append records written by `memoryd events export`. They must continue the log "
            "exactly (first position = head + 1, no gaps); otherwise nothing is written."
        ),
    )
    add_backend_options(imp)
    imp.add_argument("file", help="NDJSON file, or - for stdin")
    imp.add_argument(
        "--wait",
        action="store_true",
        help="then fold the projections up to the imported events here, showing progress "
        "(reads of a running daemon are current when it returns)",
    )
    imp.set_defaults(handler=import_events)


def _position(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _refuse(message: str) -> int:
    print(f"memoryd: {message}", file=sys.stderr)
    return 1


def event_line(stored: StoredEvent) -> bytes:
    """Return one decoded event as an NDJSON line (with the newline)."""
    return orjson.dumps(
        {
            "position": stored.position,
            "event_id": stored.event_id,
            "namespace": stored.namespace,
            "stream_id": stored.stream_id,
            "stream_version": stored.stream_version,
            "event_type": stored.event_type,
            "schema_version": stored.event.schema_version,
            "recorded_at": stored.recorded_at,
            "causation_id": stored.causation_id,
            "correlation_id": stored.correlation_id,
            "idempotency_key": stored.idempotency_key,
            "payload": stored.event,
        },
        option=orjson.OPT_APPEND_NEWLINE,
    )


async def _open(args: argparse.Namespace, *, readonly: bool) -> EventStore:
    store = backend_from_args(args).open_store(readonly=readonly)
    await store.open()
    return store


async def _tail(store: EventStore, args: argparse.Namespace) -> AsyncGenerator[StoredEvent, None]:
    if not args.follow:
        async for stored in store.read(
            args.after, limit=args.limit, namespace=args.namespace, stream_id=args.stream
        ):
            yield stored
        return
    count = 0
    # Every store's subscribe() is an async generator; close it when the limit is reached.
    subscription = cast("AsyncGenerator[StoredEvent, None]", store.subscribe(args.after))
    async with contextlib.aclosing(subscription) as events:
        async for stored in events:
            if args.namespace is not None and stored.namespace != args.namespace:
                continue
            if args.stream is not None and stored.stream_id != args.stream:
                continue
            yield stored
            count += 1
            if args.limit is not None and count >= args.limit:
                return


async def tail_events(args: argparse.Namespace) -> int:
    """Print events as NDJSON; with ``--follow``, keep going as new ones commit."""
    if args.limit == 0:
        return 0
    try:
        store = await _open(args, readonly=True)
    except (FileNotFoundError, StoreError) as exc:
        return _refuse(str(exc))
    out = sys.stdout.buffer
    try:
        async with contextlib.aclosing(_tail(store, args)) as events:
            async for stored in events:
                out.write(event_line(stored))
                if args.follow:
                    out.flush()
    finally:
        out.flush()
        await store.close()
    return 0


async def export_events(args: argparse.Namespace) -> int:
    """Write the stored records after ``--after`` up to ``--until`` as NDJSON."""
    try:
        store = await _open(args, readonly=True)
    except (FileNotFoundError, StoreError) as exc:
        return _refuse(str(exc))
    try:
        if args.output is None:
            count = await _write_records(store, args, sys.stdout.buffer)
        else:
            with args.output.open("wb") as target:
                count = await _write_records(store, args, target)
            print(f"exported {count} events to {args.output}", file=sys.stderr)
    except OSError as exc:
        return _refuse(f"cannot write {args.output}: {exc.strerror}")
    except StoreError as exc:
        return _refuse(f"export stopped: {exc}")
    finally:
        await store.close()
    return 0


async def _write_records(store: EventStore, args: argparse.Namespace, target: IO[bytes]) -> int:
    count = 0
    chunk: list[bytes] = []
    last = min(args.until, await store.head()) if args.until is not None else await store.head()
    bar = progress_bar("export")
    try:
        async for record in store.read_records(args.after, until=args.until):
            chunk.append(record.to_json() + b"\n")
            count += 1
            if len(chunk) >= 1000:
                target.write(b"".join(chunk))
                chunk.clear()
                if bar is not None:
                    bar.update(record.position - args.after, max(0, last - args.after))
    except StoreError as exc:
        # What was read before the damage is written: `--after` past it salvages the rest.
        target.write(b"".join(chunk))
        target.flush()
        raise StoreError(f"{exc}; {count} events before it were exported") from exc
    target.write(b"".join(chunk))
    target.flush()
    if bar is not None:
        bar.update(max(0, last - args.after), max(0, last - args.after))
        bar.finish()
    return count


def _parse_records(lines: Iterator[bytes], source: str) -> list[EventRecord]:
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(EventRecord.from_json(line))
        except ImportRefused as exc:
            raise ImportRefused(f"{source}, line {number}: not an exported event: {exc}") from exc
    return records


async def import_events(args: argparse.Namespace) -> int:
    """Append exported records with their positions; all or nothing."""
    source = "stdin" if args.file == "-" else args.file
    try:
        if args.file == "-":
            records = _parse_records(iter(sys.stdin.buffer), source)
        else:
            with Path(args.file).open("rb") as handle:  # noqa: ASYNC230 - before the loop runs anything
                records = _parse_records(iter(handle), source)
    except OSError as exc:
        return _refuse(f"cannot read {source}: {exc.strerror}")
    except ImportRefused as exc:
        return _refuse(f"import refused, nothing was written: {exc}")
    try:
        store = await _open(args, readonly=False)
    except StoreError as exc:
        return _refuse(str(exc))
    try:
        try:
            count = await store.import_records(records)
        except StoreError as exc:
            return _refuse(f"import refused, nothing was written: {exc}")
        if count:
            span = f"positions {records[0].position}..{records[-1].position}"
            print(f"imported {count} events ({span})", file=sys.stderr)
        else:
            print("imported 0 events (the file holds none)", file=sys.stderr)
        if args.wait:
            position = await fold_with_progress(args, store, await store.head())
            print(f"the projections hold the log up to position {position}", file=sys.stderr)
    finally:
        await store.close()
    return 0


FOLD_REPORT_EVERY = 2.0
"""Seconds between two progress lines when stderr is not a terminal."""


async def fold_with_progress(args: argparse.Namespace, store: EventStore, until: int) -> int:
    """Fold the projections of the command's backend up to ``until``, saying how far on
    stderr (a bar on a terminal, a line every few seconds otherwise); return the position.

    Safe while a daemon runs on the same data: each batch re-reads the checkpoints, so what
    either one folded the other skips (its reads are current once this returns).
    """
    bar = progress_bar("folding")
    last = 0.0

    def report(done: int, total: int) -> None:
        nonlocal last
        if bar is not None:
            bar.update(done, total)
            return
        now = time.monotonic()
        if now - last >= FOLD_REPORT_EVERY:
            last = now
            print(f"folded {done:,} of {total:,} events", file=sys.stderr, flush=True)

    async with backend_from_args(args).open_runner(store=store) as runner:
        position = await runner.catch_up(until=until, progress=report)
    if bar is not None:
        bar.finish()
    return position
