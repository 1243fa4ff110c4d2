"""``/v1/events``: read the namespace's slice of the log, or follow it live (Server-Sent Events)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from daemon.api.errors import dumps, invalid, json_response
from daemon.api.validation import Field, Schema, parse_query
from daemon.app import namespace_of, state_of
from events.store.base import EventStore, StoredEvent
from events.tasks import cancel_and_wait

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
            pattern=r"[A-Za-z0-9._:@-]{1,300}",
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
    store: EventStore, namespace: str, after: int, queue: asyncio.Queue[StoredEvent]
) -> None:
    """Copy the namespace's events from the store's subscription into ``queue``."""
    async for stored in store.subscribe(after):
        if stored.namespace == namespace:
            await queue.put(stored)


async def get_event_stream(request: web.Request) -> web.StreamResponse:
    """Stream the namespace's events after ``after`` as Server-Sent Events, then follow."""
    query = parse_query(request.query, STREAM_QUERY)
    after = query.get("after")
    if after is None:
        last_id = request.headers.get("Last-Event-ID")
        if last_id and not last_id.isdigit():
            raise invalid("Last-Event-ID", "expected a position (a non-negative integer)")
        after = int(last_id) if last_id else 0
    state = state_of(request)
    store = state.require_store()
    queue: asyncio.Queue[StoredEvent] = asyncio.Queue(maxsize=STREAM_QUEUE)
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
