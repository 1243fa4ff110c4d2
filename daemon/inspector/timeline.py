"""The Timeline: the namespace's events newest first, filtered; one event with its payload and
the events it was caused by, caused, and shares a correlation with.

The log is read a window of positions at a time (``before``, going back :data:`WINDOW`), or one
stream whole (a conversation's, a fact's); the type and time filters apply within it.
"""

from __future__ import annotations

from datetime import datetime

from aiohttp import web

from daemon.api.errors import not_found
from daemon.api.keys import namespace_of, state_of
from daemon.inspector.params import moment, position
from daemon.inspector.render import page
from events.store.base import StoredEvent
from events.types import conversation_stream, fact_stream

WINDOW = 500
"""Positions of the log one page reads (every namespace's count, this one's shown)."""
SHOWN = 200
NEARBY = 1000
"""How far either side of an event its causation and correlation are looked for."""


def _stream(query: dict[str, str]) -> str | None:
    if query.get("conversation"):
        return conversation_stream(query["conversation"])
    if query.get("fact"):
        return fact_stream(query["fact"])
    return None


def _kept(
    event: StoredEvent, query: dict[str, str], since: datetime | None, until: datetime | None
) -> bool:
    kind = query.get("type", "").strip()
    if kind and event.event_type != kind:
        return False
    if since is not None and event.recorded_at < since:
        return False
    return until is None or event.recorded_at <= until


async def timeline_page(request: web.Request) -> web.Response:
    """Events newest first within the window (or the stream), with the filters applied."""
    query = dict(request.query)
    store = state_of(request).require_store()
    namespace = namespace_of(request)
    head = await store.head()
    before = min(position(query.get("before"), head, "before"), head)
    since, until = (
        moment(query.get("since", ""), "since"),
        moment(query.get("until", ""), "until"),
    )
    stream = _stream(query)
    if stream is not None:
        read = store.read(namespace=namespace, stream_id=stream)
        after = 0
    else:
        after = max(0, before - WINDOW)
        read = store.read(after, until=before, namespace=namespace)
    events = [e async for e in read if _kept(e, query, since, until)]
    events.reverse()
    return page(
        request,
        "timeline.html",
        events=events[:SHOWN],
        more=len(events) > SHOWN,
        older=after if stream is None and after > 0 else None,
        head=head,
        before=before,
        filters={k: query.get(k, "") for k in ("type", "conversation", "fact", "since", "until")},
    )


async def event_page(request: web.Request) -> web.Response:
    """One event: payload, its causation and correlation, and its stream's other events, among
    the events near it."""
    raw = request.match_info["position"]
    if not raw.isdigit() or len(raw) > 18:
        raise not_found("event", raw)
    position = int(raw)
    store = state_of(request).require_store()
    namespace = namespace_of(request)
    nearby = [
        e
        async for e in store.read(
            max(0, position - NEARBY), until=position + NEARBY, namespace=namespace
        )
    ]
    event = next((e for e in nearby if e.position == position), None)
    if event is None:
        raise not_found("event", raw)
    causes = [e for e in nearby if event.causation_id and e.event_id == event.causation_id]
    caused = [e for e in nearby if e.causation_id == event.event_id]
    correlated = [
        e
        for e in nearby
        if event.correlation_id and e.correlation_id == event.correlation_id and e is not event
    ]
    same_stream = [e for e in nearby if e.stream_id == event.stream_id and e is not event]
    return page(
        request,
        "event.html",
        event=event,
        causes=causes,
        caused=caused,
        correlated=correlated,
        same_stream=same_stream,
    )


def add_routes(app: web.Application) -> None:
    """Register the Timeline pages."""
    app.router.add_get("/timeline", timeline_page, name="timeline", allow_head=False)
    app.router.add_get("/events/{position}", event_page, name="event", allow_head=False)
