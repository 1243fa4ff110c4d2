"""``memoryd store copy|verify|digest``: move a log between backends, positions kept.

A location is a PostgreSQL URL (``postgresql+asyncpg://user@host:port/db``, also
``postgresql://`` or ``postgres://``), an SQLite URL naming the log file itself
(``sqlite+aiosqlite:////var/lib/memoryd/events.sqlite3``, also ``sqlite:///...``), or a plain
path naming a data dir (its ``events.sqlite3``). Only the log moves; projections are rebuilt
from it on the target (``memoryd projections rebuild``).

``copy`` takes the source's head when it starts and copies up to it (appends that land on the
source meanwhile are left for a later run), in chunks, each chunk one transaction through
``import_records`` (which refuses gaps and clashes). If the target already holds a prefix of
the source, verified by digest, the copy resumes after it; any other non-empty target is
refused. Afterwards both sides are checked by a digest of the log: sha256 over every record in
position order, every field length-prefixed. A mismatch exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from daemon.cli import fail
from daemon.cli.progress import progress_bar
from events.store.base import DamagedLog, EventRecord, EventStore, StoreError
from events.store.postgres import PostgresEventStore, is_postgres_url
from events.store.sqlite import SqliteEventStore

COPY_CHUNK = 5000
_NONE = struct.pack(">q", -1)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``store`` command group."""
    store = subparsers.add_parser("store", help="copy and verify event logs across backends")
    commands = store.add_subparsers(dest="store_command", required=True, metavar="COMMAND")
    copy = commands.add_parser(
        "copy", help="copy a log to another backend, positions kept, then verify by digest"
    )
    copy.add_argument("--from", dest="source", required=True, help="source location")
    copy.add_argument("--to", dest="target", required=True, help="target location")
    copy.add_argument("--chunk", type=int, default=COPY_CHUNK, help="events per transaction")
    copy.set_defaults(handler=run_copy)
    verify = commands.add_parser("verify", help="compare two logs by digest (exit 1 if differ)")
    verify.add_argument("--from", dest="source", required=True, help="first location")
    verify.add_argument("--to", dest="target", required=True, help="second location")
    verify.set_defaults(handler=run_verify)
    digest = commands.add_parser("digest", help="print the digest of a log")
    digest.add_argument("location", help="a database URL or a data dir")
    digest.add_argument("--until", type=int, default=None, help="last position to include")
    digest.set_defaults(handler=run_digest)


def store_at(location: str, *, readonly: bool = False) -> EventStore:
    """Return an unopened store for a location (see the module docstring)."""
    if is_postgres_url(location):
        return PostgresEventStore(location, readonly=readonly)
    if "://" in location:
        url = make_url(location)
        if url.get_backend_name() != "sqlite" or not url.database:
            raise ValueError(
                f"unsupported location {location!r}: give a postgresql+asyncpg:// URL, "
                "an sqlite:/// URL naming the log file, or a data dir"
            )
        return SqliteEventStore(Path(url.database), readonly=readonly)
    return SqliteEventStore.in_data_dir(Path(location), readonly=readonly)


@asynccontextmanager
async def opened(location: str, *, readonly: bool = False) -> AsyncIterator[EventStore]:
    """Open the store at ``location`` for the duration of the block."""
    store = store_at(location, readonly=readonly)
    await store.open()
    try:
        yield store
    finally:
        await store.close()


def _field(value: str | int | bytes | None) -> bytes:
    if value is None:
        return _NONE
    data = value if isinstance(value, bytes) else str(value).encode()
    return struct.pack(">q", len(data)) + data


def record_digest_bytes(record: EventRecord) -> bytes:
    """Return the bytes of one record that the log digest covers (every stored field; the
    checksum is computed from them)."""
    return b"".join(
        _field(value)
        for value in (
            record.position,
            record.event_id,
            record.namespace,
            record.stream_id,
            record.stream_version,
            record.event_type,
            record.schema_version,
            record.payload,
            record.recorded_at,
            record.causation_id,
            record.correlation_id,
            record.idempotency_key,
            record.request_hash,
        )
    )


@dataclass(frozen=True, slots=True)
class LogDigest:
    """A digest of a log up to a position."""

    until: int
    count: int
    sha256: str

    def __str__(self) -> str:
        return f"sha256:{self.sha256} ({self.count} events through position {self.until})"


async def log_digest(store: EventStore, until: int | None = None) -> LogDigest:
    """Return the digest of ``store``'s log through ``until`` (default: its head)."""
    last = await store.head() if until is None else until
    digest = hashlib.sha256()
    count = 0
    async for record in store.read_records(until=last):
        digest.update(record_digest_bytes(record))
        count += 1
    return LogDigest(last, count, digest.hexdigest())


@dataclass(frozen=True, slots=True)
class CopyResult:
    """What a copy did and how both sides compare afterwards."""

    copied: int
    resumed_after: int
    source: LogDigest
    target: LogDigest

    @property
    def verified(self) -> bool:
        """Return True if both sides hold the same log through the copied head."""
        return self.source == self.target


class CopyRefused(StoreError):
    """The target holds events that are not a prefix of the source."""


async def copy_log(
    source: EventStore, target: EventStore, *, chunk: int = COPY_CHUNK, progress: bool = False
) -> CopyResult:
    """Copy ``source``'s log (through its current head) into ``target``, then verify both;
    with ``progress``, a bar on stderr when it is a terminal."""
    until = await source.head()
    start = await target.head()
    if start > until:
        raise CopyRefused(f"the target's log (head {start}) is longer than the source's ({until})")
    if start and await log_digest(source, start) != await log_digest(target, start):
        raise CopyRefused(
            f"the target already holds {start} events that differ from the source's; "
            "copy into an empty database or data dir"
        )
    copied = 0
    batch: list[EventRecord] = []
    bar = progress_bar("copy") if progress else None
    async for record in source.read_records(after=start, until=until):
        batch.append(record)
        if len(batch) >= chunk:
            copied += await target.import_records(batch)
            batch = []
            if bar is not None:
                bar.update(start + copied, until)
    copied += await target.import_records(batch)
    if bar is not None:
        bar.update(start + copied, until)
        bar.finish()
    return CopyResult(copied, start, await log_digest(source, until), await log_digest(target))


async def run_copy(args: argparse.Namespace) -> int:
    """Copy a log between locations and verify it."""
    if args.chunk < 1:
        return fail("--chunk must be at least 1")
    try:
        async with (
            opened(args.source, readonly=True) as source,
            opened(args.target) as target,
        ):
            result = await copy_log(source, target, chunk=args.chunk, progress=True)
    except (StoreError, ValueError, FileNotFoundError) as exc:
        return fail(str(exc))
    resumed = f" (resumed after {result.resumed_after})" if result.resumed_after else ""
    print(f"copied {result.copied} events{resumed}")
    if not result.verified:
        print(
            f"memoryd: digest mismatch: source {result.source}, target {result.target}",
            file=sys.stderr,
        )
        return 1
    print(f"verified: both logs are {result.target}")
    return 0


async def _digest_or_damage(store: EventStore) -> LogDigest | str:
    """Return the log's digest, or where it is damaged (a damaged log matches nothing)."""
    try:
        return await log_digest(store)
    except DamagedLog as exc:
        return f"damaged ({exc})"


async def run_verify(args: argparse.Namespace) -> int:
    """Compare two whole logs by digest."""
    try:
        async with (
            opened(args.source, readonly=True) as first,
            opened(args.target, readonly=True) as second,
        ):
            a, b = await _digest_or_damage(first), await _digest_or_damage(second)
    except (StoreError, ValueError, FileNotFoundError) as exc:
        return fail(str(exc))
    if a != b:
        print(f"logs differ: {args.source} is {a}; {args.target} is {b}")
        return 1
    print(f"logs match: {a}")
    return 0


async def run_digest(args: argparse.Namespace) -> int:
    """Print one log's digest."""
    try:
        async with opened(args.location, readonly=True) as store:
            print(await log_digest(store, args.until))
    except (StoreError, ValueError, FileNotFoundError) as exc:
        return fail(str(exc))
    return 0
