"""What one group commit does inside its write transaction: plain synchronous Core code on a
``sqlalchemy.Connection``, run by :meth:`events.store.sql.SqlEventStore._write_transaction`.

Each request is checked (expected versions, idempotency) before anything is inserted, so a
refused request fails alone and the others in its group still commit. Positions and stream
versions are assigned in queue order, every row gets its checksum, and a ``FactPurged``
redacts its stream's earlier events in the same transaction.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from events.codec import EventCodec
from events.store.base import NO_STREAM, ConcurrencyError, EventRecord, IdempotencyConflict
from events.store.checksum import event_checksum
from events.store.driver_sql import fetch_plain, insert_rows
from events.store.schema import events_table
from events.types import FactPurged

_T = events_table.c


@dataclass(slots=True)
class PendingRow:
    """One event of an append, encoded, waiting for its position."""

    event_id: str
    stream_id: str
    event_type: str
    schema_version: int
    payload: bytes
    causation_id: str | None
    correlation_id: str | None
    idempotency_key: str | None
    request_hash: str | None


@dataclass(slots=True)
class AppendRequest:
    """One ``append`` call waiting in the writer's queue, and its answer."""

    namespace: str
    rows: list[PendingRow]
    expected_versions: Mapping[str, int] | None
    future: asyncio.Future[list[int]]
    result: list[int] | None = None
    error: BaseException | None = None


@dataclass(slots=True)
class _GroupState:
    """What one group commit has decided so far (visible only inside its transaction)."""

    head: int
    recorded_at: int
    stream_versions: dict[tuple[str, str], int] = field(default_factory=dict)
    keys: dict[tuple[str, str], tuple[int, str, str, str | None]] = field(default_factory=dict)
    inserts: list[tuple[Any, ...]] = field(default_factory=list)
    purges: list[tuple[str, str, int]] = field(default_factory=list)


def _stream_version(n: int) -> sa.Select[tuple[Any]]:
    """``max(stream_version)`` of stream ``:s<n>`` in namespace ``:ns``."""
    return sa.select(sa.func.max(_T.stream_version)).where(
        _T.namespace == sa.bindparam("ns"), _T.stream_id == sa.bindparam(f"s{n}")
    )


STREAM_VERSION = _stream_version(0)


@functools.cache
def _stream_versions_query(count: int) -> sa.Select[Any]:
    # Built once per chunk size: constructing the statement costs more than running it.
    return sa.select(*(_stream_version(n).scalar_subquery() for n in range(count)))


_HEAD_QUERY = sa.select(_T.position, _T.recorded_at).order_by(_T.position.desc()).limit(1)


def write_group(
    conn: sa.Connection, group: list[AppendRequest], now: int, codec: EventCodec
) -> tuple[int, bool]:
    """Check, number and insert a group's requests in one transaction (each request gets its
    positions or its error); return the new head and whether the group purged a fact."""
    found = fetch_plain(conn, _HEAD_QUERY, {})
    last = found[0] if found else None
    head, last_recorded = (int(last[0]), int(last[1])) if last else (0, 0)
    # Transaction time never runs backwards along positions, even if the clock does.
    state = _GroupState(head, max(now, last_recorded))
    _load_stream_versions(conn, group, state)
    for req in group:
        req.error = None
        req.result = None
        try:
            req.result = _plan_request(conn, req, state)
        except (ConcurrencyError, IdempotencyConflict) as exc:
            req.error = exc
    if state.inserts:
        insert_rows(conn, state.inserts)
        for namespace, stream_id, position in state.purges:
            redact_stream(conn, codec, namespace, stream_id, position)
    return state.head, bool(state.purges)


def _load_stream_versions(
    conn: sa.Connection, group: list[AppendRequest], state: _GroupState
) -> None:
    by_ns: dict[str, set[str]] = {}
    for req in group:
        by_ns.setdefault(req.namespace, set()).update(r.stream_id for r in req.rows)
    for namespace, streams in by_ns.items():
        ids = sorted(streams)
        for i in range(0, len(ids), 200):
            chunk = ids[i : i + 200]
            # One scalar max() per stream: SQLite and PostgreSQL answer each with a single
            # probe of the (namespace, stream_id, stream_version) index. A GROUP BY over
            # ``stream_id IN (...)`` reads every version of every stream instead, which
            # made appends to long conversations slower the longer they got.
            params = {f"s{n}": sid for n, sid in enumerate(chunk)}
            [row] = fetch_plain(
                conn, _stream_versions_query(len(chunk)), {"ns": namespace, **params}
            )
            for sid, version in zip(chunk, row, strict=True):
                state.stream_versions[(namespace, sid)] = (
                    int(version) if version is not None else NO_STREAM
                )


def _plan_request(conn: sa.Connection, req: AppendRequest, state: _GroupState) -> list[int]:
    ns = req.namespace
    existing = _existing_idempotent(conn, req, state)
    if existing is not None:
        return existing
    for stream_id, expected in (req.expected_versions or {}).items():
        actual = state.stream_versions.get((ns, stream_id))
        if actual is None:
            value = conn.scalar(STREAM_VERSION, {"ns": ns, "s0": stream_id})
            actual = int(value) if value is not None else NO_STREAM
            state.stream_versions[(ns, stream_id)] = actual
        if actual != expected:
            raise ConcurrencyError(ns, stream_id, expected, actual)
    positions = []
    for row in req.rows:
        state.head += 1
        key = (ns, row.stream_id)
        version = state.stream_versions[key] + 1
        state.stream_versions[key] = version
        if row.idempotency_key is not None:
            state.keys[(ns, row.idempotency_key)] = (
                state.head,
                row.stream_id,
                row.event_type,
                row.request_hash,
            )
        values = (  # in the order of ROW_COLUMNS, checksum excepted
            state.head,
            row.event_id,
            ns,
            row.stream_id,
            version,
            row.event_type,
            row.schema_version,
            row.payload,
            state.recorded_at,
            row.causation_id,
            row.correlation_id,
            row.idempotency_key,
            row.request_hash,
        )
        state.inserts.append((*values, event_checksum(*values)))
        if row.event_type == FactPurged.event_type:
            state.purges.append((ns, row.stream_id, state.head))
        positions.append(state.head)
    return positions


def _existing_idempotent(
    conn: sa.Connection, req: AppendRequest, state: _GroupState
) -> list[int] | None:
    keys = [r.idempotency_key for r in req.rows if r.idempotency_key is not None]
    if not keys:
        return None
    if len(set(keys)) != len(keys):
        raise IdempotencyConflict("an idempotency key appears twice in one append")
    found: dict[str, tuple[int, str, str, str | None]] = {}
    for key in keys:
        pending = state.keys.get((req.namespace, key))
        if pending is not None:
            found[key] = pending
    missing = [k for k in keys if k not in found]
    for i in range(0, len(missing), 500):
        result = conn.execute(
            sa.select(
                _T.idempotency_key, _T.position, _T.stream_id, _T.event_type, _T.request_hash
            ).where(_T.namespace == req.namespace, _T.idempotency_key.in_(missing[i : i + 500]))
        )
        for key, position, stream_id, event_type, request_hash in result:
            found[key] = (int(position), stream_id, event_type, request_hash)
    if not found:
        return None
    if len(found) != len(req.rows):
        raise IdempotencyConflict(
            "some idempotency keys of this append are already used and others are not: "
            + ", ".join(sorted(found))
        )
    positions = []
    for row in req.rows:
        assert row.idempotency_key is not None
        position, stream_id, event_type, request_hash = found[row.idempotency_key]
        if (stream_id, event_type) != (row.stream_id, row.event_type):
            raise IdempotencyConflict(
                f"idempotency key {row.idempotency_key!r} was used for a different event"
            )
        if None not in (request_hash, row.request_hash) and request_hash != row.request_hash:
            raise IdempotencyConflict(
                f"idempotency key {row.idempotency_key!r} was used for a different request"
            )
        positions.append(position)
    return positions


def redact_stream(
    conn: sa.Connection, codec: EventCodec, namespace: str, stream_id: str, before: int
) -> None:
    """Remove a purged fact's text from every earlier event of its stream."""
    # The one sanctioned rewrite of the log: a purge removes the fact's text from every
    # earlier event of its stream in the purge's own transaction.
    result = conn.execute(
        sa.select(events_table).where(
            _T.namespace == namespace, _T.stream_id == stream_id, _T.position < before
        )
    )
    for row in result.all():
        record = EventRecord(*row)
        event = codec.decode(record.event_type, record.schema_version, record.payload)
        event = event.redacted()
        redacted = dataclasses.replace(
            record,
            payload=codec.encode(event),
            schema_version=event.schema_version,
        )
        conn.execute(
            events_table.update()
            .where(_T.position == record.position)
            .values(
                payload=redacted.payload,
                schema_version=redacted.schema_version,
                checksum=redacted.computed_checksum(),
            )
        )
