"""``memoryd projections rebuild|verify`` and ``memoryd replay``.

- ``projections rebuild`` drops every projection and folds the log again from position 0 (a
  progress bar on stderr when it is a terminal). Safe while a daemon runs: its runner sees
  the checkpoints move back and follows.
- ``projections verify`` folds the log into a scratch SQLite database in a temporary
  directory, up to the position the live projections have reached, and compares the digest
  of every table; it exits 1 naming the tables that differ (0 when all are equal). It only
  reads the live data, so it also works on a replayed (read-only) data dir.
- ``replay --until POSITION --into DIR`` copies the log up to POSITION into a new data dir,
  folds the projections there and marks it read-only (``READONLY``): the daemon and the CLI
  open it without writing, for audits and debugging.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.backend import READONLY_MARKER, Backend
from daemon.cli import add_backend_options, backend_from_args, fail
from daemon.cli.progress import progress_bar
from events.store.base import EventRecord, EventStore
from events.store.sqlite import EVENTS_FILE, sqlite_engine
from projections.runner import (
    ProjectionRunner,
    default_projections,
    read_checkpoints,
    table_digests,
)

IMPORT_CHUNK = 10_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``projections`` and ``replay`` commands."""
    group = subparsers.add_parser("projections", help="rebuild and verify the projections")
    actions = group.add_subparsers(dest="projections_command", required=True, metavar="ACTION")

    rebuild = actions.add_parser(
        "rebuild", help="drop every projection and fold the log again from position 0"
    )
    add_backend_options(rebuild)
    rebuild.set_defaults(handler=rebuild_command)

    verify = actions.add_parser(
        "verify",
        help="fold the log into a scratch database and compare every table's digest",
    )
    add_backend_options(verify)
    verify.set_defaults(handler=verify_command)

    replay = subparsers.add_parser(
        "replay",
        help="materialise the projections as they stood at a position into a new "
        "read-only data dir",
    )
    replay.add_argument("--until", type=int, required=True, metavar="POSITION")
    replay.add_argument("--into", type=Path, required=True, metavar="DIR")
    add_backend_options(replay)
    replay.set_defaults(handler=replay_command)


def _missing_log(backend: Backend) -> str | None:
    if backend.is_sqlite and not (backend.data_dir / EVENTS_FILE).exists():
        return f"no event log in {backend.data_dir}"
    return None


@contextlib.asynccontextmanager
async def _opened(store: EventStore) -> AsyncIterator[EventStore]:
    await store.open()
    try:
        yield store
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def _engine(engine: AsyncEngine) -> AsyncIterator[AsyncEngine]:
    try:
        yield engine
    finally:
        await engine.dispose()


async def rebuild_command(args: argparse.Namespace) -> int:
    """``memoryd projections rebuild``."""
    backend = backend_from_args(args)
    if backend.readonly:
        return fail(f"{backend.data_dir} is a read-only replay; its projections are fixed")
    problem = _missing_log(backend)
    if problem:
        return fail(problem)
    async with backend.open_runner() as runner:
        bar = progress_bar("rebuild")
        began = time.monotonic()
        position = await runner.rebuild(bar.update if bar else None)
        if bar:
            bar.finish()
        seconds = time.monotonic() - began
    names = ", ".join(p.name for p in runner.projections)
    print(f"rebuilt {names} up to position {position} in {seconds:.1f}s")
    return 0


async def verify_command(args: argparse.Namespace) -> int:
    """``memoryd projections verify``."""
    backend = backend_from_args(args)
    problem = _missing_log(backend)
    if problem:
        return fail(problem)
    projections = default_projections()
    async with (
        _opened(backend.open_store(readonly=True)) as store,
        _engine(backend.projection_engine(write=False, readonly=True)) as live,
    ):
        try:
            async with live.connect() as conn:
                if conn.dialect.name == "postgresql":  # one snapshot for checkpoints and rows
                    await conn.execution_options(isolation_level="REPEATABLE READ")
                stored = await read_checkpoints(conn)
                live_digests = await table_digests(conn, projections)
        except Exception as exc:  # a missing file or table: nothing folded here yet
            return fail(f"cannot read the projections ({exc}); run `memoryd projections rebuild`")
        differing: list[str] = []
        by_position: dict[int, list[str]] = {}
        for projection in projections:
            found = stored.get(projection.name)
            if found is None or found[0] != projection.version:
                differing += [t.name for t in projection.tables]
                print(
                    f"{projection.name}: stored version "
                    f"{'none' if found is None else found[0]}, this memoryd folds "
                    f"version {projection.version}",
                    file=sys.stderr,
                )
            else:
                by_position.setdefault(found[1], []).append(projection.name)
        with tempfile.TemporaryDirectory(prefix="memoryd-verify-") as scratch:
            for position, names in sorted(by_position.items()):
                chosen = [p for p in default_projections() if p.name in names]
                path = Path(scratch) / f"projections-{position}.sqlite3"
                async with _engine(sqlite_engine(path, write=True)) as engine:
                    runner = ProjectionRunner(store, engine, chosen)
                    await runner.setup()
                    bar = progress_bar(f"verify @{position}")
                    await runner.rebuild(bar.update if bar else None, until=position)
                    if bar:
                        bar.finish()
                    rebuilt = await runner.digest()
                for table, digest in rebuilt.items():
                    if live_digests.get(table) != digest:
                        differing.append(table)
    if differing:
        print(
            "memoryd: these tables differ from a rebuild: " + ", ".join(sorted(differing)),
            file=sys.stderr,
        )
        return 1
    where = ", ".join(f"{', '.join(n)} at position {p}" for p, n in sorted(by_position.items()))
    print(f"all {len(live_digests)} tables equal a rebuild ({where})")
    return 0


def _target_problem(into: Path) -> str | None:
    if into.exists() and (not into.is_dir() or any(into.iterdir())):
        return f"{into} is not an empty directory; replay only into a new one"
    return None


def _make_target(into: Path) -> bool:
    """Create ``into`` if needed; return whether this created it."""
    created = not into.exists()
    into.mkdir(parents=True, exist_ok=True)
    return created


def _clear_target(into: Path, created: bool) -> None:
    """Remove what a failed replay left (the directory too if the replay created it)."""
    if created:
        shutil.rmtree(into, ignore_errors=True)
        return
    for child in into.iterdir():
        if child.is_dir():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _mark_readonly(into: Path, until: int) -> None:
    (into / READONLY_MARKER).write_text(
        f"materialised by `memoryd replay --until {until}`; opened read-only\n"
    )


async def replay_command(args: argparse.Namespace) -> int:
    """``memoryd replay --until POSITION --into DIR``."""
    backend = backend_from_args(args)
    into: Path = args.into
    problem = _target_problem(into)
    if problem is None and args.until < 0:
        problem = "--until must be a position >= 0"
    problem = problem or _missing_log(backend)
    if problem:
        return fail(problem)
    async with _opened(backend.open_store(readonly=True)) as source:
        head = await source.head()
        if args.until > head:
            return fail(f"position {args.until} is beyond the log's head ({head})")
        created = _make_target(into)
        try:
            position = await _materialise(source, Backend(into), args.until)
        except BaseException:
            _clear_target(into, created)
            raise
    _mark_readonly(into, args.until)
    print(f"replayed positions 1..{position} into {into} (read-only)")
    return 0


async def _materialise(source: EventStore, target: Backend, until: int) -> int:
    async with _opened(target.open_store()) as store:
        batch: list[EventRecord] = []
        async for record in source.read_records(until=until):
            batch.append(record)
            if len(batch) >= IMPORT_CHUNK:
                await store.import_records(batch)
                batch = []
        await store.import_records(batch)
        async with target.open_runner(store=store) as runner:
            bar = progress_bar("replay")
            position = await runner.catch_up(until, bar.update if bar else None)
            if bar:
                bar.finish()
    return position
