"""Benchmark: can SQLite's writes run beside the fold's Python? Three ways to insert rows.

Usage::

    .venv/bin/python bench/rebuild.py --events 200000 --dir DIR   # first: a rebuilt data dir
    .venv/bin/python -m bench.experiments.sqlite_gil --dir DIR [--rows 200000]

The ``search_docs`` rows a rebuild left are written again into fresh tables of the same
schema (the indexes a rebuild keeps while folding, its pragmas), 5,000 rows a transaction,
in three ways:

- ``executemany``: what the runner does. ``sqlite3`` releases the GIL around each row's
  ``sqlite3_step`` and takes it back to bind the next row;
- ``values``: ``INSERT .. VALUES (?, ..), (?, ..), ..`` of 1,000 rows a statement, bound in
  one call and then run without the GIL;
- ``json_each``: one ``INSERT .. SELECT value->>0, .. FROM json_each(?)`` a batch, the rows
  passed as one JSON text, unpacked inside SQLite with the GIL released throughout.

Each runs alone and then beside a thread that runs Python without pause, as the fold does.
A write that needs the GIL for every row waits for the other thread's switch interval
(5 ms) each time; that is why a rebuild cannot overlap its SQL with its Python by threads
alone (see ``docs/performance.md``, "Rebuild throughput and its bound"). Not run in CI.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from bench.calibration import calibration_seconds
from bench.experiments.rebuild_floor import relax
from bench.report import print_result
from daemon.backend import PROJECTIONS_FILE
from projections.search import SearchProjection

BATCH = 5000
VALUES_ROWS = 1000


def _schema(source: sqlite3.Connection) -> list[str]:
    """Return the DDL of ``search_docs`` and of the indexes a rebuild keeps while folding."""
    table = source.execute("SELECT sql FROM sqlite_master WHERE name = 'search_docs'").fetchone()
    indexes = source.execute(
        "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'search_docs' AND type = 'index' "
        "AND sql IS NOT NULL"
    ).fetchall()
    deferred = SearchProjection.deferred_indexes
    return [table[0], *(sql for name, sql in indexes if name not in deferred)]


def _fresh(path: Path, ddl: Sequence[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    relax(conn)
    for statement in ddl:
        conn.execute(statement)
    return conn


def _executemany(conn: sqlite3.Connection, rows: list[tuple[Any, ...]], width: int) -> None:
    insert = f"INSERT INTO search_docs VALUES ({', '.join('?' * width)})"
    for i in range(0, len(rows), BATCH):
        conn.execute("BEGIN")
        conn.executemany(insert, rows[i : i + BATCH])
        conn.execute("COMMIT")


def _values(conn: sqlite3.Connection, rows: list[tuple[Any, ...]], width: int) -> None:
    group = "(" + ", ".join("?" * width) + ")"
    for i in range(0, len(rows), BATCH):
        conn.execute("BEGIN")
        for j in range(i, min(i + BATCH, len(rows)), VALUES_ROWS):
            part = rows[j : min(j + VALUES_ROWS, i + BATCH)]
            insert = f"INSERT INTO search_docs VALUES {', '.join([group] * len(part))}"
            conn.execute(insert, [value for row in part for value in row])
        conn.execute("COMMIT")


def _json_each(conn: sqlite3.Connection, batches: list[str], width: int) -> None:
    columns = ", ".join(f"value->>{i}" for i in range(width))
    insert = f"INSERT INTO search_docs SELECT {columns} FROM json_each(?)"
    for batch in batches:
        conn.execute("BEGIN")
        conn.execute(insert, (batch,))
        conn.execute("COMMIT")


def _timed(ddl: Sequence[str], write: Callable[[sqlite3.Connection], None], *, busy: bool) -> float:
    """Return the seconds ``write`` takes into a fresh database (beside a busy thread)."""
    stop = threading.Event()

    def spin() -> None:
        count = 0
        while not stop.is_set():
            count += 1

    with tempfile.TemporaryDirectory(prefix="memoryd-gil-") as tmp:
        conn = _fresh(Path(tmp) / "docs.sqlite3", ddl)
        spinner = threading.Thread(target=spin)
        if busy:
            spinner.start()
        try:
            began = time.perf_counter()
            write(conn)
            return time.perf_counter() - began
        finally:
            stop.set()
            if busy:
                spinner.join()
            conn.close()


def main() -> None:
    """Time each way of writing, alone and beside a busy thread, and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="a data dir bench/rebuild.py built")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    source = sqlite3.connect(f"file:{args.dir / PROJECTIONS_FILE}?mode=ro", uri=True)
    ddl = _schema(source)
    rows = source.execute("SELECT * FROM search_docs ORDER BY doc_id LIMIT ?", (args.rows,))
    fetched: list[tuple[Any, ...]] = rows.fetchall()
    width = len(rows.description)
    source.close()
    batches = [orjson.dumps(fetched[i : i + BATCH]).decode() for i in range(0, len(fetched), BATCH)]
    result: dict[str, Any] = {"rows": len(fetched), "calibration_s": calibration_seconds()}
    for name, write in (
        ("executemany", lambda c: _executemany(c, fetched, width)),
        ("values", lambda c: _values(c, fetched, width)),
        ("json_each", lambda c: _json_each(c, batches, width)),
    ):
        result[f"{name}_s"] = round(_timed(ddl, write, busy=False), 2)
        result[f"{name}_beside_python_s"] = round(_timed(ddl, write, busy=True), 2)
    print_result(result, as_json=args.json, width=30)


if __name__ == "__main__":
    main()
