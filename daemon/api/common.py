"""Helpers shared by the resource modules: ids, path parameters and appending events."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
import shutil
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import orjson
from aiohttp import web

from daemon.api.errors import ApiError
from daemon.api.keys import namespace_of, state_of
from daemon.api.state import WRITES, AppState
from events.ids import random_bits
from events.store.base import (
    ConcurrencyError,
    DamagedLog,
    IdempotencyConflict,
    NewEvent,
    ReadOnlyStoreError,
    StorageFull,
)

ID_PATTERN = r"[A-Za-z0-9._:@~-]{1,200}"
"""Ids in paths; ``~`` included, for the forks retrospectives make (``retro~<run>~1``)."""
_ID_RE = re.compile(ID_PATTERN)
IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 200
_KEY_NAMESPACE = uuid.UUID("6f6b2d7e-3c55-4a9e-9d1c-6d656d6f7279")


def new_id() -> str:
    """Return a fresh random id (a version-4 UUID string)."""
    return new_ids(1)[0]


def new_ids(count: int) -> list[str]:
    """Return ``count`` fresh version-4 UUID strings.

    They come from :func:`events.ids.random_bits` (seeded once per process: ids must be
    unique, not secret, and a getrandom() system call per request costs tens of microseconds
    in sandboxed kernels).
    """
    out = []
    for _ in range(count):
        h = f"{random_bits(128):032x}"
        out.append(
            f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"
        )
    return out


_VARIANT = "89ab"


def derived_id(namespace: str, kind: str, key: str) -> str:
    """Return the id a write with idempotency ``key`` gets, the same on every retry."""
    return str(uuid.uuid5(_KEY_NAMESPACE, f"{namespace}\x00{kind}\x00{key}"))


def path_id(request: web.Request, name: str) -> str:
    """Return a validated id from the URL path."""
    value = request.match_info[name]
    if _ID_RE.fullmatch(value) is None:
        raise ApiError(
            400,
            "invalid_request",
            f"{name}: must match {ID_PATTERN}",
            {"field": name},
        )
    return value


def header_key(request: web.Request) -> str | None:
    """Return the ``Idempotency-Key`` header, validated."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None:
        return None
    if not key or len(key) > MAX_KEY_LENGTH or not is_header_text(key):
        raise ApiError(
            400,
            "invalid_request",
            f"{IDEMPOTENCY_HEADER}: must be 1 to {MAX_KEY_LENGTH} printable UTF-8 characters",
            {"field": IDEMPOTENCY_HEADER},
        )
    return key


def is_header_text(value: str) -> bool:
    """Return True for a header value of printable text.

    aiohttp hands over bytes that are not UTF-8 as lone surrogates, which no database (and no
    response header) can take.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return value.isprintable()


FINGERPRINT: web.RequestKey[str] = web.RequestKey("memoryd_fingerprint", str)


async def request_fingerprint(request: web.Request) -> str:
    """Return a fingerprint of what the request asks for: method, path, query and body.

    A JSON body counts by its meaning (keys sorted, whitespace dropped), so a retry that
    encodes the same body differently is the same request. Stored with every keyed event: a
    retry with the key must match it, else it is ``409 idempotency_conflict``.
    """
    if FINGERPRINT in request:
        return request[FINGERPRINT]
    raw = await request.read()  # aiohttp keeps the body: the handler's read is not repeated
    try:
        body = orjson.dumps(orjson.loads(raw), option=orjson.OPT_SORT_KEYS) if raw else b""
    except (orjson.JSONDecodeError, TypeError):
        body = raw
    digest = hashlib.sha256()
    for part in (request.method, request.rel_url.path, request.rel_url.query_string):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
    digest.update(body)
    request[FINGERPRINT] = fingerprint = digest.hexdigest()
    return fingerprint


def insufficient_storage(message: str) -> ApiError:
    """Return the 507 a write gets while the disk is (nearly) full."""
    return ApiError(507, "insufficient_storage", message, headers={"Retry-After": "60"})


PROJECTED_FILES = ("projections.sqlite3", "embeddings.sqlite3")
"""What the data dir holds besides the log, folded from it (each with its ``-wal``)."""
LOG_FILE = "events.sqlite3"
PROJECTED_OVER_LOG_AT_FIRST = 16
"""How many times its size in the log an event is assumed to take in the projections before
enough are folded to tell (``bench/storage.py`` measures 4.5x for short messages and 9.5x for
4 KB ones)."""
FOLDED_TO_TELL = 1000


def _file_bytes(data_dir: Path, name: str) -> int:
    size = 0
    for path in (data_dir / name, data_dir / f"{name}-wal"):
        with contextlib.suppress(OSError):
            size += path.stat().st_size
    return size


def pending_projection_bytes(state: AppState) -> int:
    """Return about how many bytes the projections will add for the acknowledged events they
    have not folded yet: as many as they hold per folded event so far (at first, a multiple
    of what the log holds per event)."""
    behind = state.behind()
    if behind <= 0:
        return 0
    data_dir = state.settings.backend.data_dir
    folded = state.projection_position()
    if folded >= FOLDED_TO_TELL:
        held = sum(_file_bytes(data_dir, name) for name in PROJECTED_FILES)
        return behind * (held // folded + 1)
    per_event = _file_bytes(data_dir, LOG_FILE) // max(1, state.last_head) + 1
    return behind * per_event * PROJECTED_OVER_LOG_AT_FIRST


def check_free_space(state: AppState) -> None:
    """Refuse a write early while the data dir's disk has less than the reserve free, once
    the projections have folded what was acknowledged.

    The reserve keeps room for the daemon to start again, and counting what the projections
    still have to fold keeps their room too: a burst of writes is appended faster than it
    is folded, and a fold that finds the disk full waits until room is made. PostgreSQL's
    disk is the server's: a full one is reported when an append fails.
    """
    backend = state.settings.backend
    reserve = state.settings.reserved_space
    if not backend.is_sqlite or reserve <= 0:
        return
    try:
        free = shutil.disk_usage(backend.data_dir).free
    except OSError:
        return
    pending = pending_projection_bytes(state)
    if free - pending < reserve:
        folding = (
            f"; the projections need about {pending // MIB} MiB of it for the "
            f"{state.behind()} events not folded yet"
            if pending
            else ""
        )
        message = (
            f"the disk holding the data dir has {free // MIB} MiB free{folding}, below "
            f"storage.reserved_space ({reserve // MIB} MiB): writes are refused until space "
            "is freed; reads go on"
        )
        state.note_problem(WRITES, message)
        raise insufficient_storage(message)


MIB = 1024 * 1024


async def async_append(
    request: web.Request,
    events: Sequence[NewEvent],
    *,
    expected_versions: Mapping[str, int] | None = None,
) -> list[int]:
    """Append events for the request's namespace; later reads on this daemon will see them."""
    state: AppState = state_of(request)
    store = state.require_store()
    check_free_space(state)
    if any(e.idempotency_key is not None for e in events):
        fingerprint = await request_fingerprint(request)
        events = [
            e if e.idempotency_key is None else dataclasses.replace(e, request_hash=fingerprint)
            for e in events
        ]
    try:
        positions = await store.append(
            namespace_of(request), events, expected_versions=expected_versions
        )
    except IdempotencyConflict as exc:
        raise ApiError(409, "idempotency_conflict", str(exc)) from None
    except ConcurrencyError as exc:
        raise ApiError(
            409,
            "conflict",
            "the resource changed concurrently; read it again and retry",
            {"expected_version": exc.expected, "actual_version": exc.actual},
        ) from None
    except ReadOnlyStoreError as exc:
        raise ApiError(409, "read_only", str(exc)) from None
    except StorageFull as exc:
        state.note_problem(WRITES, str(exc))
        raise insufficient_storage(str(exc)) from None
    except DamagedLog as exc:
        state.note_problem(WRITES, str(exc))
        raise ApiError(
            503, "log_damaged", f"{exc}; writes are refused until it is repaired"
        ) from None
    except Exception as exc:
        state.note_problem(WRITES, f"writes fail: {exc!r}")
        raise
    state.note_problem(WRITES, None)
    if positions:
        appended = state.metrics.appended
        for e in events:
            appended.inc(e.event.event_type)
        await state.async_note_written(max(positions))
    return positions
