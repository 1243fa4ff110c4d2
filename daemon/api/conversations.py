"""``/v1/conversations/{cid}``: fork a conversation, announce a compaction."""

from __future__ import annotations

from aiohttp import web

from daemon.api.common import MAX_KEY_LENGTH, async_append, derived_id, header_key, new_id, path_id
from daemon.api.errors import invalid, json_response, not_found
from daemon.api.keys import namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body
from events.daemon_events import CompactionAnnounced
from events.store.base import NO_STREAM, NewEvent
from events.types import FORK_STRATEGIES, ConversationForked, conversation_stream
from projections.messages import get_conversation, get_message

FORK_BODY = Schema(
    "ForkIn",
    (
        Field(
            "through_message_id",
            "string",
            nullable=True,
            max_length=MAX_KEY_LENGTH,
            description="last inherited message (default: everything the parent has now)",
        ),
        Field("strategy", "string", enum=FORK_STRATEGIES, description="default reference"),
    ),
)

COMPACTION_BODY = Schema(
    "CompactionIn",
    (
        Field(
            "through_message_id",
            "string",
            nullable=True,
            max_length=MAX_KEY_LENGTH,
            description="last message the compaction covers (default: all so far)",
        ),
        Field("reason", "string", nullable=True, max_length=1000),
    ),
)


async def _async_require_message(request: web.Request, cid: str, message_id: str | None) -> None:
    """Refuse an unknown conversation (404) or a message it does not show (400)."""
    engine = await state_of(request).async_reads()
    namespace = namespace_of(request)
    async with engine.connect() as conn:
        conversation = await get_conversation(conn, namespace, cid)
        if conversation is None or conversation.deleted:
            raise not_found("conversation", cid)
        if message_id is not None and await get_message(conn, namespace, cid, message_id) is None:
            raise invalid(
                "through_message_id", f"message {message_id!r} is not in conversation {cid!r}"
            )


async def post_fork(request: web.Request) -> web.Response:
    """Fork a conversation through one of its messages; return the new conversation's id."""
    cid = path_id(request, "cid")
    key = header_key(request)
    body = await parse_body(request, FORK_BODY, allow_empty=True)
    through = body.get("through_message_id")
    await _async_require_message(request, cid, through)
    fork_id = derived_id(namespace_of(request), "fork", key) if key is not None else new_id()
    event = ConversationForked(
        fork_id=fork_id,
        parent_conversation_id=cid,
        through_message_id=through,
        strategy=body.get("strategy", "reference"),
    )
    [position] = await async_append(
        request,
        [NewEvent(event, idempotency_key=key)],
        expected_versions={conversation_stream(fork_id): NO_STREAM},
    )
    return json_response({"conversation_id": fork_id, "position": position}, status=201)


async def post_compaction(request: web.Request) -> web.Response:
    """Record that the chat app is about to compact the conversation."""
    cid = path_id(request, "cid")
    key = header_key(request)
    body = await parse_body(request, COMPACTION_BODY, allow_empty=True)
    through = body.get("through_message_id")
    await _async_require_message(request, cid, through)
    event = CompactionAnnounced(
        conversation_id=cid,
        at=state_of(request).clock.now(),
        through_message_id=through,
        reason=body.get("reason"),
    )
    [position] = await async_append(request, [NewEvent(event, idempotency_key=key)])
    return json_response({"conversation_id": cid, "position": position}, status=201)


def add_routes(app: web.Application) -> None:
    """Register the conversation routes."""
    app.router.add_post("/v1/conversations/{cid}/fork", post_fork)
    app.router.add_post("/v1/conversations/{cid}/compaction", post_compaction)
