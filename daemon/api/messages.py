"""``/v1/conversations/{cid}/messages``: append one or many messages, list a conversation."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.common import MAX_KEY_LENGTH, async_append, derived_id, header_key, new_ids, path_id
from daemon.api.errors import invalid, json_response, not_found
from daemon.api.keys import namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body, parse_query
from events.store.base import NewEvent
from events.types import ROLES, MessageAppended
from projections.messages import MessageRow, UnknownMessage, get_conversation, list_messages

MAX_BATCH = 10_000
MAX_LIST = 1000

LIST_QUERY = Schema(
    "MessagesQuery",
    (
        Field("after", "string", max_length=MAX_KEY_LENGTH, description="a message id"),
        Field("limit", "integer", minimum=1, maximum=MAX_LIST, description="default 100"),
    ),
)

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


def _message_events(
    request: web.Request, cid: str, bodies: list[dict[str, Any]], keys: list[str | None]
) -> list[NewEvent]:
    namespace = namespace_of(request)
    now = state_of(request).clock.now()
    fresh = iter(new_ids(sum(1 for k in keys if k is None)))
    out = []
    for body, key in zip(bodies, keys, strict=True):
        message_id = derived_id(namespace, "message", key) if key is not None else next(fresh)
        event = MessageAppended(
            conversation_id=cid,
            message_id=message_id,
            role=body["role"],
            content=body["content"],
            created_at=body.get("created_at") or now,
            name=body.get("name"),
            metadata=body.get("metadata") or {},
        )
        out.append(NewEvent(event, idempotency_key=key))
    return out


async def post_message(request: web.Request) -> web.Response:
    """Append one message; a retried idempotency key returns the original result."""
    cid = path_id(request, "cid")
    header = header_key(request)
    body = await parse_body(request, MESSAGE_BODY)
    key = body.get("idempotency_key") or header
    [new] = _message_events(request, cid, [body], [key])
    [position] = await async_append(request, [new])
    assert isinstance(new.event, MessageAppended)
    return json_response({"message_id": new.event.message_id, "position": position}, status=201)


async def post_batch(request: web.Request) -> web.Response:
    """Append many messages in one transaction: all or nothing."""
    cid = path_id(request, "cid")
    header = header_key(request)
    body = await parse_body(request, BATCH_BODY)
    items: list[dict[str, Any]] = body["messages"]
    keys: list[str | None] = []
    for i, item in enumerate(items):
        key = item.get("idempotency_key")
        if key is None and header is not None:
            key = f"{header}#{i}"
        keys.append(key)
    news = _message_events(request, cid, items, keys)
    positions = await async_append(request, news)
    results = []
    for new, position in zip(news, positions, strict=True):
        assert isinstance(new.event, MessageAppended)
        results.append({"message_id": new.event.message_id, "position": position})
    return json_response({"results": results}, status=201)


def message_json(row: MessageRow) -> dict[str, Any]:
    """Return the API's view of one message."""
    return {
        "message_id": row.message_id,
        "conversation_id": row.conversation_id,
        "role": row.role,
        "name": row.name,
        "content": row.content,
        "created_at": row.created_at,
        "metadata": row.metadata,
        "position": row.position,
    }


async def get_messages(request: web.Request) -> web.Response:
    """List a conversation's messages in order (a fork shows its parent's up to the fork)."""
    cid = path_id(request, "cid")
    query = parse_query(request.query, LIST_QUERY)
    namespace = namespace_of(request)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        conversation = await get_conversation(conn, namespace, cid)
        if conversation is None or conversation.deleted:
            raise not_found("conversation", cid)
        try:
            rows = await list_messages(
                conn,
                namespace,
                cid,
                after_message_id=query.get("after"),
                limit=query.get("limit", 100),
            )
        except UnknownMessage as exc:
            raise invalid("after", str(exc)) from None
    return json_response({"messages": [message_json(r) for r in rows]})


def add_routes(app: web.Application) -> None:
    """Register the message routes."""
    app.router.add_get("/v1/conversations/{cid}/messages", get_messages, allow_head=False)
    app.router.add_post("/v1/conversations/{cid}/messages", post_message)
    app.router.add_post("/v1/conversations/{cid}/messages:batch", post_batch)
