"""``/v1/events``: read the namespace's slice of the log, or follow it live (Server-Sent Events)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from aiohttp import web

from daemon.api.errors import dumps, invalid, json_response
from daemon.api.keys import namespace_of, state_of
from daemon.api.validation import INT64_MAX, Field, Schema, parse_query
from daemon.logging import get_logger
from events.store.base import EventStore, StoredEvent
from events.tasks import cancel_and_wait

log = get_logger("memoryd.api")

MAX_LIMIT = 1000
STREAM_QUEUE = 1000

EVENTS_QUERY = Schema(
    "EventsQuery",
    (
        Field("after", "integer", minimum=0, description="position to read after (default 0)"),
        Field("limit", "integer", minimum=1, maximum=MAX_LIMIT, description="default 100"),
        Field(
            "stream",
            "string",
            max_length=300,
            pattern=r"[A-Za-z0-9._:@~-]{1,300}",
            description="only this stream, e.g. conversation:c1 or fact:<id>",
        ),
    ),
)

STREAM_QUERY = Schema(
    "EventStreamQuery",
    (Field("after", "integer", minimum=0, description="default: Last-Event-ID, else 0"),),
)


def event_json(stored: StoredEvent) -> dict[str, Any]:
    """Return the API's view of one stored event."""
    return {
        "position": stored.position,
        "event_id": stored.event_id,
        "stream_id": stored.stream_id,
        "stream_version": stored.stream_version,
        "event_type": stored.event_type,
        "recorded_at": stored.recorded_at,
        "causation_id": stored.causation_id,
        "correlation_id": stored.correlation_id,
        "idempotency_key": stored.idempotency_key,
        "data": stored.event,
    }


async def get_events(request: web.Request) -> web.Response:
    """Return up to ``limit`` of the namespace's events after ``after``."""
    query = parse_query(request.query, EVENTS_QUERY)
    store = state_of(request).require_store()
    after = query.get("after", 0)
    limit = query.get("limit", 100)
    items = [
        event_json(e)
        async for e in store.read(
            after,
            limit=limit,
            namespace=namespace_of(request),
            stream_id=query.get("stream"),
        )
    ]
    last = items[-1]["position"] if items else after
    return json_response({"events": items, "last_position": last})


async def _async_feed(
    store: EventStore, namespace: str, after: int, queue: asyncio.Queue[StoredEvent | None]
) -> None:
    """Copy the namespace's events from the store's subscription into ``queue``; then None."""
    try:
        async for stored in store.subscribe(after):
            if stored.namespace == namespace:
                await queue.put(stored)
    except Exception as exc:
        log.error("event stream feed failed", error=repr(exc))
        raise
    finally:
        # The stream ends at once when its feed does (a closing store, a failed read), instead
        # of at the next heartbeat; a full queue is noticed at the heartbeat.
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait(None)


def _last_event_id(value: str | None) -> int:
    """Return the position a reconnecting client's ``Last-Event-ID`` names (0 without one)."""
    if not value:
        return 0
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
    if re.fullmatch(r"[0-9]{1,19}", value) is None or int(value) > INT64_MAX:
        raise invalid("Last-Event-ID", "expected a position (a non-negative 64-bit integer)")
    return int(value)


async def get_event_stream(request: web.Request) -> web.StreamResponse:
    """Stream the namespace's events after ``after`` as Server-Sent Events, then follow."""
    query = parse_query(request.query, STREAM_QUERY)
    after = query.get("after")
    if after is None:
        after = _last_event_id(request.headers.get("Last-Event-ID"))
    state = state_of(request)
    store = state.require_store()
    queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue(maxsize=STREAM_QUEUE)
    feed = asyncio.create_task(
        _async_feed(store, namespace_of(request), after, queue), name="memoryd-sse-feed"
    )
    me = asyncio.current_task()
    if me is not None:
        state.streams.add(me)
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        }
    )
    try:
        await response.prepare(request)
        await response.write(b": memoryd event stream\n\n")
        heartbeat = state.settings.sse_heartbeat
        while not state.stopping.is_set():
            try:
                async with asyncio.timeout(heartbeat):
                    stored = await queue.get()
            except TimeoutError:
                if feed.done():
                    break
                await response.write(b": keepalive\n\n")
                continue
            if stored is None:
                break
            data = dumps(event_json(stored))
            await response.write(b"id: %d\ndata: %s\n\n" % (stored.position, data))
    except ConnectionResetError:
        pass
    finally:
        if me is not None:
            state.streams.discard(me)
        await cancel_and_wait(feed, errors=(Exception,))
    return response


def add_routes(app: web.Application) -> None:
    """Register the event routes."""
    app.router.add_get("/v1/events", get_events, allow_head=False)
    app.router.add_get("/v1/events/stream", get_event_stream, allow_head=False)
