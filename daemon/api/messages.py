"""``/v1/conversations/{cid}/messages``: append one or many messages, list a conversation."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.common import (
    MAX_KEY_LENGTH,
    async_append,
    derived_id,
    header_key,
    new_id,
    path_id,
)
from daemon.api.errors import json_response
from daemon.api.validation import Field, Schema, parse_body
from daemon.app import namespace_of, state_of
from events.store.base import NewEvent
from events.types import ROLES, MessageAppended

MAX_BATCH = 10_000

MESSAGE_BODY = Schema(
    "MessageIn",
    (
        Field("role", "string", required=True, enum=ROLES),
        Field("content", "content", required=True, description="text, or an array of blocks"),
        Field("name", "string", nullable=True, max_length=200),
        Field("created_at", "datetime", description="valid time; default: now"),
        Field("metadata", "object"),
        Field("idempotency_key", "string", min_length=1, max_length=MAX_KEY_LENGTH),
    ),
)

BATCH_BODY = Schema(
    "MessageBatchIn",
    (
        Field(
            "messages",
            "array",
            required=True,
            min_length=1,
            max_length=MAX_BATCH,
            items=MESSAGE_BODY,
        ),
    ),
)


def _message_event(
    request: web.Request, cid: str, body: dict[str, Any], key: str | None
) -> NewEvent:
    state = state_of(request)
    message_id = derived_id(namespace_of(request), "message", key) if key is not None else new_id()
    event = MessageAppended(
        conversation_id=cid,
        message_id=message_id,
        role=body["role"],
        content=body["content"],
        created_at=body.get("created_at") or state.clock.now(),
        name=body.get("name"),
        metadata=body.get("metadata") or {},
    )
    return NewEvent(event, idempotency_key=key)


async def post_message(request: web.Request) -> web.Response:
    """Append one message; a retried idempotency key returns the original result."""
    cid = path_id(request, "cid")
    header = header_key(request)
    body = await parse_body(request, MESSAGE_BODY)
    key = body.get("idempotency_key") or header
    new = _message_event(request, cid, body, key)
    [position] = await async_append(request, [new])
    assert isinstance(new.event, MessageAppended)
    return json_response({"message_id": new.event.message_id, "position": position}, status=201)


async def post_batch(request: web.Request) -> web.Response:
    """Append many messages in one transaction: all or nothing."""
    cid = path_id(request, "cid")
    header = header_key(request)
    body = await parse_body(request, BATCH_BODY)
    news = []
    for i, item in enumerate(body["messages"]):
        key = item.get("idempotency_key")
        if key is None and header is not None:
            key = f"{header}#{i}"
        news.append(_message_event(request, cid, item, key))
    positions = await async_append(request, news)
    results = []
    for new, position in zip(news, positions, strict=True):
        assert isinstance(new.event, MessageAppended)
        results.append({"message_id": new.event.message_id, "position": position})
    return json_response({"results": results}, status=201)


def add_routes(app: web.Application) -> None:
    """Register the message routes."""
    app.router.add_post("/v1/conversations/{cid}/messages", post_message)
    app.router.add_post("/v1/conversations/{cid}/messages:batch", post_batch)
