"""``memoryd doctor``: check the data dir and the log thoroughly, and say what is wrong.

It checks what the daemon's quick check at start does, and more: the log file page by page
(SQLite's ``integrity_check``), positions gapless from 1 to the head, every event's checksum,
the projections file, and that others cannot read the data dir or the tokens. Exit status 0
when all is well, 1 listing every problem. It opens everything read-only; it may run beside a
running daemon.
"""

from __future__ import annotations

import argparse
import sqlite3

from daemon.backend import PROJECTIONS_FILE
from daemon.cli import add_backend_options, backend_from_args
from daemon.paths import loose_permissions
from events.store.base import StoreError
from events.store.sql import SqlEventStore


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``doctor``."""
    doctor = subparsers.add_parser(
        "doctor", help="check the log, the projections and the data dir for damage"
    )
    add_backend_options(doctor)
    doctor.set_defaults(handler=doctor_command)


def _sqlite_problems(path: str) -> list[str]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            found = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(20)")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return [f"{path}: {exc}"]
    return [] if found == ["ok"] else [f"{path}: {line}" for line in found]


async def doctor_command(args: argparse.Namespace) -> int:
    """Check everything; print each finding; return 1 if anything is wrong."""
    backend = backend_from_args(args)
    problems: list[str] = []
    notes: list[str] = []
    store = backend.open_store(readonly=True)
    try:
        await store.open()
    except (StoreError, FileNotFoundError) as exc:
        problems.append(f"cannot open the event log: {exc}")
    else:
        try:
            assert isinstance(store, SqlEventStore)
            found = await store.integrity_problems(full=True)
            problems.extend(found)
            if not found:
                notes.append(f"event log: {await store.head()} events, every checksum matches")
        finally:
            await store.close()
    if backend.is_sqlite:
        projections = backend.data_dir / PROJECTIONS_FILE
        if projections.exists():
            found = _sqlite_problems(str(projections))
            problems.extend(
                f"{line} (the projections can be rebuilt: `memoryd projections rebuild`)"
                for line in found
            )
            if not found:
                notes.append("projections file: ok")
        problems.extend(loose_permissions(backend.data_dir))
    for line in notes:
        print(f"ok: {line}")
    for line in problems:
        print(f"problem: {line}")
    if problems:
        print(f"memoryd doctor: {len(problems)} problem(s) found")
        return 1
    print("memoryd doctor: no problems found")
    return 0
