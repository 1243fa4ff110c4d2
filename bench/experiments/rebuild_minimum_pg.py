"""Benchmark: the least a Python rebuild of the message tables can cost on PostgreSQL.

Usage::

    .venv/bin/python bench/rebuild.py --events 1000000 --database-url URL   # first: a log
    .venv/bin/python -m bench.experiments.rebuild_minimum_pg --database-url URL \
        [--part messages|index]

The PostgreSQL twin of ``bench.experiments.rebuild_minimum``: the same minimal fold (plain reads,
a payload decoded with ``orjson``, one tuple a row) into the ``messages`` and
``conversations`` tables of the messages projection and a full-text index that is only a
generated ``tsvector`` of each message's text with a GIN index, as the search projection
keeps it. Every batch is written with ``COPY`` (``copy_records_to_table``, PostgreSQL's
fastest way in) in a transaction of its own with ``synchronous_commit`` off, as the runner
commits. The tables live in a scratch schema that is dropped at the end; ``--part`` writes one
half, so two processes can write the halves at once. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Sequence
from typing import Any

import asyncpg
import orjson
from sqlalchemy.dialects import postgresql

from bench.calibration import calibration_seconds
from bench.experiments.rebuild_minimum import PARTS, MinimumFold, message_tables_ddl
from bench.report import print_result
from events.store.postgres import libpq_dsn
from projections.search import PG_TSV

SCHEMA_PREFIX = "memoryd_minimum_"
"""The scratch schema is this and the parts written (so two processes can run at once)."""
_READ = (
    "SELECT position, namespace, event_type, payload FROM public.events "
    "WHERE position > $1 ORDER BY position LIMIT $2"
)
_INDEX_DDL = (
    "CREATE TABLE fts (doc_id BIGINT PRIMARY KEY, body TEXT NOT NULL, near TEXT NOT NULL, "
    f"scope TEXT NOT NULL, tsv tsvector GENERATED ALWAYS AS ({PG_TSV}) STORED)",
    "CREATE INDEX ix_fts_tsv ON fts USING GIN (tsv)",
)
_COLUMNS = {
    "conversations": ["namespace", "conversation_id", "deleted", "created_position"],
    "messages": None,
    "fts": ["doc_id", "body", "near", "scope"],
}


def _ddl() -> list[str]:
    """Return the messages projection's tables and indexes, and the index, for PostgreSQL."""
    out: list[str] = []
    for _, create, indexes in message_tables_ddl(postgresql.dialect()):  # type: ignore[no-untyped-call]
        out += [create, *indexes]
    return [*out, *_INDEX_DDL]


async def measure(url: str, batch_size: int, parts: Sequence[str], near: bool) -> dict[str, Any]:
    """Run the minimum rebuild of ``parts`` from ``url``'s log; return the timings."""
    dsn = libpq_dsn(url)
    reader: asyncpg.Connection = await asyncpg.connect(dsn)
    writer: asyncpg.Connection = await asyncpg.connect(dsn)
    spent = dict.fromkeys(["read", "decode", "fold", *_COLUMNS, "(commit)"], 0.0)
    fold = MinimumFold(parts, near)
    events = 0
    schema = SCHEMA_PREFIX + "_".join(parts)
    try:
        await writer.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await writer.execute(f"CREATE SCHEMA {schema}")
        await writer.execute(f"SET search_path TO {schema}")
        for statement in _ddl():
            await writer.execute(statement)
        began_all, after = time.perf_counter(), 0
        while True:
            began = time.perf_counter()
            stored = await reader.fetch(_READ, after, batch_size)
            spent["read"] += time.perf_counter() - began
            if not stored:
                break
            began = time.perf_counter()
            batch = [(r[0], r[1], r[2], orjson.loads(r[3])) for r in stored]
            spent["decode"] += time.perf_counter() - began
            began = time.perf_counter()
            rows = fold.rows(batch)
            spent["fold"] += time.perf_counter() - began
            transaction = writer.transaction()
            await transaction.start()
            await writer.execute("SET LOCAL synchronous_commit TO OFF")
            for table, table_rows in rows.items():
                if table_rows:
                    began = time.perf_counter()
                    await writer.copy_records_to_table(
                        table, records=table_rows, columns=_COLUMNS[table], schema_name=schema
                    )
                    spent[table] += time.perf_counter() - began
            began = time.perf_counter()
            await transaction.commit()
            spent["(commit)"] += time.perf_counter() - began
            events += len(stored)
            after = stored[-1][0]
        wall = time.perf_counter() - began_all
    finally:
        await writer.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await writer.close()
        await reader.close()
    return {
        "events": events,
        "parts": ",".join(parts),
        "near": near,
        "us_per_event": {k: round(v / events * 1e6, 1) for k, v in spent.items() if v},
        "wall_s": round(wall, 2),
        "events_per_s": round(events / wall),
    }


def main() -> None:
    """Time the minimum rebuild on PostgreSQL and print it beside the calibration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="postgresql+asyncpg://...")
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--near", action="store_true", help="index the two turns before too")
    parser.add_argument("--part", choices=PARTS, help="write only this part (default: both)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, Any] = {"calibration_s": round(calibration_seconds(), 3)}
    parts = [args.part] if args.part else list(PARTS)
    result.update(asyncio.run(measure(args.database_url, args.batch_size, parts, args.near)))
    print_result(result, as_json=args.json, width=14)


if __name__ == "__main__":
    main()
