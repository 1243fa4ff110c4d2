"""Benchmark: the least a Python rebuild of the message tables can cost on SQLite.

Usage::

    .venv/bin/python bench/rebuild.py --events 1000000 --dir DIR   # first: a data dir
    .venv/bin/python -m bench.experiments.rebuild_minimum --dir DIR \
        [--near] [--defer] [--part P | --split]

``bench.experiments.rebuild_floor`` bounds a rebuild of *today's* tables. This one bounds any
design that keeps, for every message, what recall cannot do without: its row in ``messages``
(the projection's real schema) and its text in an FTS5 index, and nothing else: no filter
columns, no context window (but see ``--near``), no entities, no checkpoint rows, no other
projection. Every part takes the cheapest way this stack has:

- read: plain ``sqlite3`` on the log, one ``fetchall`` a batch, no SQLAlchemy, no event
  classes;
- decode: ``orjson.loads`` of each payload;
- fold: one tuple per table per event, a dict lookup for the conversation's key, the date
  parsed with ``datetime.fromisoformat``: no upcasting, no validation, no read-back;
- write: ``executemany`` into fresh tables under a rebuild's pragmas, one commit a batch.

``--near`` adds a context column to the index: the text of the two turns before each
message. The search projection also indexes the two after it, which means writing a row
again when they arrive; this leaves that out, so it stays a lower bound. ``--defer`` builds
the messages key and indexes once at the end instead of row by row. ``--part`` writes only
the messages tables or only the index; ``--split`` runs one process for each at once, each
into a file of its own, which is as much of a second core as any design can get.

For one process, the sum of the parts is what one core needs an event; the larger of
(read + decode + fold) and (write) is what two cores would need if the Python and the SQL
overlapped perfectly, which ``executemany`` does not allow (see
``bench.experiments.sqlite_gil``). Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

from bench.calibration import calibration_seconds
from bench.experiments.rebuild_floor import relax
from bench.report import print_result
from events.clock import to_micros
from events.store.sqlite import EVENTS_FILE
from projections.messages import MessagesProjection
from projections.search import FTS_TOKENIZER

_READ = (
    "SELECT position, namespace, event_type, payload FROM events "
    "WHERE position > ? ORDER BY position LIMIT ?"
)
_FTS = f"CREATE VIRTUAL TABLE fts USING fts5(body, near, scope, tokenize='{FTS_TOKENIZER}')"
_WINDOW = 2


def message_tables_ddl(dialect: sa.Dialect) -> list[tuple[sa.Table, str, list[str]]]:
    """Return ``(table, CREATE TABLE, [CREATE INDEX])`` of the messages projection's
    ``conversations`` and ``messages`` tables, compiled for ``dialect``."""
    return [
        (
            table,
            str(CreateTable(table).compile(dialect=dialect)),
            [str(CreateIndex(index).compile(dialect=dialect)) for index in table.indexes],
        )
        for table in MessagesProjection().tables
        if table.name in ("conversations", "messages")
    ]


def _schema(target: sqlite3.Connection, defer: bool) -> list[str]:
    """Create the messages projection's own tables and indexes, and the index; return the
    statements to run at the end (``defer``: the messages key and indexes, built once)."""
    creates: list[str] = []
    indexes: list[str] = []
    later: list[str] = []
    for table, create, table_indexes in message_tables_ddl(sqlite.dialect()):
        if defer and table.name == "messages":
            key = ", ".join(c.name for c in table.primary_key.columns)
            create = create.replace(f", \n\tPRIMARY KEY ({key})", "")
            assert "PRIMARY KEY" not in create, create
            later.append(f"CREATE UNIQUE INDEX minimum_messages_key ON messages ({key})")
            later.extend(table_indexes)
        else:
            indexes.extend(table_indexes)
        creates.append(create)
    for statement in [*creates, *indexes, _FTS]:
        target.execute(statement)
    return later


Rows = list[tuple[Any, ...]]
PARTS = ("messages", "index")
"""What a process can be asked to write: the messages tables, or the full-text index."""


class MinimumFold:
    """The cheapest fold of MessageAppended payloads into rows of the chosen parts."""

    def __init__(self, parts: Sequence[str], near: bool) -> None:
        self.messages, self.index = "messages" in parts, "index" in parts
        self.near = near
        self.keys: dict[tuple[str, str], int] = {}
        self.tails: dict[int, deque[str]] = {}

    def rows(self, batch: list[tuple[int, str, str, dict[str, Any]]]) -> dict[str, Rows]:
        conversations: Rows = []
        messages: Rows = []
        index: Rows = []
        for position, namespace, event_type, payload in batch:
            if event_type != "MessageAppended":
                continue
            ref = (namespace, payload["conversation_id"])
            key = self.keys.get(ref)
            if key is None:
                key = self.keys[ref] = position
                conversations.append((namespace, ref[1], False, position))
            content = payload["content"]
            if self.messages:
                messages.append(
                    (
                        key,
                        payload["message_id"],
                        position,
                        payload["role"],
                        payload["name"],
                        orjson.dumps(content).decode(),
                        to_micros(datetime.fromisoformat(payload["created_at"])),
                        orjson.dumps(payload["metadata"]).decode(),
                        payload["finalized"],
                        position,
                    )
                )
            if self.index:
                text = content if isinstance(content, str) else orjson.dumps(content).decode()
                near = ""
                if self.near:
                    tail = self.tails.setdefault(key, deque(maxlen=_WINDOW))
                    near = " ".join(tail)
                    tail.append(text)
                body = f"{payload['name'] or payload['role']}: {text}"
                index.append((position, body, near, f"n{namespace} kmessage c{key}"))
        out = {"conversations": conversations, "messages": messages} if self.messages else {}
        if self.index:
            out["fts"] = index
        return out


_INSERTS = {
    "conversations": "INSERT INTO conversations (namespace, conversation_id, deleted, "
    "created_position) VALUES (?, ?, ?, ?)",
    "messages": f"INSERT INTO messages VALUES ({', '.join('?' * 10)})",
    "fts": "INSERT INTO fts(rowid, body, near, scope) VALUES (?, ?, ?, ?)",
}


def measure(
    data_dir: Path,
    batch_size: int,
    parts: Sequence[str],
    near: bool,
    defer: bool = False,
    into: Path | None = None,
) -> dict[str, Any]:
    """Run the minimum rebuild of ``parts`` over ``data_dir``'s log; return the timings.

    The tables go into a scratch file that is removed, or into ``into`` (a new file), kept.
    """
    source = sqlite3.connect(f"file:{data_dir / EVENTS_FILE}?mode=ro", uri=True)
    spent = dict.fromkeys(["read", "decode", "fold", *_INSERTS, "(commit)", "(indexes)"], 0.0)
    fold = MinimumFold(parts, near)
    events = 0
    began_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memoryd-minimum-", dir=data_dir) as tmp:
        path = into or Path(tmp) / "minimum.sqlite3"
        target = sqlite3.connect(path, isolation_level=None)
        relax(target)
        later = _schema(target, defer and "messages" in parts)
        after = 0
        while True:
            began = time.perf_counter()
            stored = source.execute(_READ, (after, batch_size)).fetchall()
            spent["read"] += time.perf_counter() - began
            if not stored:
                break
            began = time.perf_counter()
            batch = [(p, ns, t, orjson.loads(payload)) for p, ns, t, payload in stored]
            spent["decode"] += time.perf_counter() - began
            began = time.perf_counter()
            rows = fold.rows(batch)
            spent["fold"] += time.perf_counter() - began
            target.execute("BEGIN")
            for table, table_rows in rows.items():
                began = time.perf_counter()
                target.executemany(_INSERTS[table], table_rows)
                spent[table] += time.perf_counter() - began
            began = time.perf_counter()
            target.execute("COMMIT")
            spent["(commit)"] += time.perf_counter() - began
            events += len(stored)
            after = stored[-1][0]
        began = time.perf_counter()
        for statement in later:
            target.execute(statement)
        spent["(indexes)"] += time.perf_counter() - began
        began = time.perf_counter()
        target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        spent["(commit)"] += time.perf_counter() - began
        target.close()
    source.close()
    wall = time.perf_counter() - began_all
    python = spent["read"] + spent["decode"] + spent["fold"]
    sql = sum(spent.values()) - python
    return {
        "events": events,
        "parts": ",".join(parts),
        "near": near,
        "defer": defer,
        "us_per_event": {k: round(v / events * 1e6, 1) for k, v in spent.items() if v},
        "wall_s": round(wall, 2),
        "one_core_events_per_s": round(events / (python + sql)),
        "two_cores_bound_events_per_s": round(events / max(python, sql)),
    }


def measure_split(data_dir: Path, batch_size: int, near: bool, defer: bool) -> dict[str, Any]:
    """Write each part in a process and a database file of its own, both at once."""
    began = time.perf_counter()
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.experiments.rebuild_minimum",
                "--dir",
                str(data_dir),
                "--batch-size",
                str(batch_size),
                "--part",
                part,
                "--json",
                *(["--near"] if near else []),
                *(["--defer"] if defer else []),
            ],
            stdout=subprocess.PIPE,
        )
        for part in PARTS
    ]
    results = [json.loads(child.communicate()[0].decode().splitlines()[-1]) for child in children]
    wall = time.perf_counter() - began
    events = results[0]["events"]
    return {
        "events": events,
        "parts": "messages | index, a process each",
        "near": near,
        "defer": defer,
        "wall_s_by_part": {r["parts"]: r["wall_s"] for r in results},
        "wall_s": round(wall, 2),
        "events_per_s": round(events / wall),
    }


def main() -> None:
    """Time the minimum rebuild and print it beside the machine's calibration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="a data dir bench/rebuild.py built")
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--near", action="store_true", help="index the two turns before too")
    parser.add_argument("--part", choices=PARTS, help="write only this part (default: both)")
    parser.add_argument("--split", action="store_true", help="both parts at once, a process each")
    parser.add_argument(
        "--defer", action="store_true", help="build the messages key and indexes at the end"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, Any] = {"calibration_s": round(calibration_seconds(), 3)}
    if args.split:
        result.update(measure_split(args.dir, args.batch_size, args.near, args.defer))
    else:
        parts = [args.part] if args.part else list(PARTS)
        result.update(measure(args.dir, args.batch_size, parts, args.near, args.defer))
    print_result(result, as_json=args.json, width=28)


if __name__ == "__main__":
    main()
