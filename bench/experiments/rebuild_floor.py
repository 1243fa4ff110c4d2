"""Benchmark: the floor under a SQLite rebuild, the log read and the rows written with no fold.

Usage::

    .venv/bin/python bench/rebuild.py --events 1000000 --dir DIR   # first: a rebuilt data dir
    .venv/bin/python -m bench.experiments.rebuild_floor --dir DIR [--batch-size 5000]

Two parts, each timed alone, in one process:

- read: the runner's read path, ``store.read`` in batches with every event decoded into its
  class (what any fold written in Python starts from);
- write: the rows the rebuild left in the projection tables, written again with plain
  ``sqlite3.executemany`` into fresh tables of the same schema, under the runner's pragmas.
  Each table's rows go in the order they were inserted, split over as many transactions as
  the rebuild had batches, one commit per batch with every table's share in it. The indexes
  a rebuild builds only at the end (``deferred_indexes``) are left out here too.

Their sum is a lower bound for a rebuild on one core: the real one also decides every row in
Python, reads a little back, and writes some rows twice (a message's context changes when
the next turns arrive). Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sqlite3
import tempfile
import time
from pathlib import Path

from bench.calibration import calibration_seconds
from bench.report import print_result
from daemon.backend import PROJECTIONS_FILE, Backend
from projections.runner import REBUILD_WAL_PAGES, default_projections

FTS_TABLE = "search_fts"
"""The one virtual table: written through its columns, its shadow tables follow."""
COMMIT = "(commit)"
"""The breakdown's name for the commits (WAL writes and checkpoints)."""


def relax(conn: sqlite3.Connection) -> None:
    """Set a rebuild's pragmas on a plain ``sqlite3`` connection."""
    # The projection engine's pragmas (events.store.sqlite, plus the runner's
    # synchronous=NORMAL and a rebuild's WAL): the floor is measured under the rules the
    # rebuild writes by.
    for pragma in (
        "journal_mode=WAL",
        "synchronous=NORMAL",
        "secure_delete=ON",
        "cache_size=-65536",
        f"wal_autocheckpoint={REBUILD_WAL_PAGES}",
    ):
        conn.execute(f"PRAGMA {pragma}")


def _schema(source: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """Return (the DDL of every table and kept index, the tables holding rows)."""
    deferred = {name for p in default_projections() for name in p.deferred_indexes}
    ddl, tables = [], []
    for kind, name, sql in source.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ):
        if name.startswith(f"{FTS_TABLE}_") or name in deferred:
            continue  # FTS5 creates its shadow tables itself
        ddl.append(sql)
        if kind == "table" and source.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone():
            tables.append(name)
    return ddl, tables


def _select(source: sqlite3.Connection, table: str) -> sqlite3.Cursor:
    """Return a cursor over ``table``'s rows in the order they were inserted (rowid order)."""
    if table == FTS_TABLE:
        return source.execute(f"SELECT rowid, * FROM {FTS_TABLE} ORDER BY rowid")
    return source.execute(f'SELECT * FROM "{table}" ORDER BY rowid')


def write_floor(source_path: Path, batches: int) -> tuple[float, dict[str, float]]:
    """Write ``source_path``'s projection rows into a fresh database; return (seconds in
    executemany and commit, seconds by table and in :data:`COMMIT`)."""
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
    ddl, tables = _schema(source)
    counts = {t: source.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    with tempfile.TemporaryDirectory(prefix="memoryd-floor-", dir=source_path.parent) as tmp:
        target = sqlite3.connect(Path(tmp) / PROJECTIONS_FILE, isolation_level=None)
        relax(target)
        for statement in ddl:
            target.execute(statement)
        cursors = {t: _select(source, t) for t in tables}
        inserts = {}
        for table, cursor in cursors.items():
            width = len(cursor.description)
            columns = "rowid, body, near, scope" if table == FTS_TABLE else None
            into = f"{table}({columns})" if columns else f'"{table}"'
            inserts[table] = f"INSERT INTO {into} VALUES ({', '.join('?' * width)})"
        by_table = dict.fromkeys([*tables, COMMIT], 0.0)
        total = 0.0
        for _ in range(batches):
            shares = {
                t: cursors[t].fetchmany(math.ceil(counts[t] / batches)) for t in tables
            }  # read outside the timed part
            began = time.perf_counter()
            target.execute("BEGIN")
            for table, rows in shares.items():
                if rows:
                    started = time.perf_counter()
                    target.executemany(inserts[table], rows)
                    by_table[table] += time.perf_counter() - started
            started = time.perf_counter()
            target.execute("COMMIT")
            by_table[COMMIT] += time.perf_counter() - started
            total += time.perf_counter() - began
        began = time.perf_counter()
        target.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # as a rebuild ends
        by_table[COMMIT] += time.perf_counter() - began
        total += time.perf_counter() - began
        target.close()
    source.close()
    return total, by_table


async def read_floor(data_dir: Path, batch_size: int) -> tuple[int, float]:
    """Read and decode the whole log the way the runner does; return (events, seconds)."""
    store = Backend(data_dir).open_store(readonly=True)
    await store.open()
    try:
        began, after, count = time.perf_counter(), 0, 0
        while True:
            batch = [e async for e in store.read(after, limit=batch_size)]
            if not batch:
                return count, time.perf_counter() - began
            count += len(batch)
            after = batch[-1].position
    finally:
        await store.close()


def main() -> None:
    """Time the two parts and print them with the rate they allow together."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="a data dir bench/rebuild.py built")
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    calibration = calibration_seconds()
    events, read_seconds = asyncio.run(read_floor(args.dir, args.batch_size))
    batches = max(1, math.ceil(events / args.batch_size))
    write_seconds, by_table = write_floor(args.dir / PROJECTIONS_FILE, batches)
    floor = read_seconds + write_seconds
    result = {
        "events": events,
        "calibration_s": round(calibration, 3),
        "read_decode_s": round(read_seconds, 2),
        "read_decode_us_per_event": round(read_seconds / events * 1e6, 1),
        "write_s": round(write_seconds, 2),
        "write_us_per_event": round(write_seconds / events * 1e6, 1),
        "write_us_per_event_by_table": {
            t: round(s / events * 1e6, 1) for t, s in sorted(by_table.items(), key=lambda x: -x[1])
        },
        "floor_events_per_s": round(events / floor),
    }
    print_result(result, as_json=args.json, width=27)


if __name__ == "__main__":
    main()
