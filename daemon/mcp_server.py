"""``memoryd mcp``: an MCP server (stdio) over a running daemon's API.

The tools are the memory an assistant uses on its own: remember a fact (answering what
reconciliation did with it), recall, forget, a fact's history, add a message to a
conversation, the context for a conversation's next turn, and the review queue. Each tool
is one call of :class:`memoryd_client.AsyncMemorydClient`; the daemon does the work. Bad
arguments, an API error and a daemon that is not running come back as tool errors
(``isError``) whose text says what to change, never as a crash of the server.

Built on the official MCP SDK (``mcp`` 2.x: :class:`mcp.server.MCPServer`). The command
line imports this module only when ``memoryd mcp`` runs, so the other commands work without
the SDK and the client library installed.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from datetime import datetime
from importlib import metadata
from typing import Annotated, Any, Literal, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from memoryd_client import ApiError, AsyncMemorydClient, DaemonUnavailable
from pydantic import Field

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Awaitable[dict[str, Any]]])

INSTRUCTIONS = """\
memoryd is this user's long-term memory: facts about them (with when each was true) and
every conversation they had with assistants. Use it without being asked:
- At the start of a task or when the user refers to something from before, call
  get_context (with the conversation id) or recall to learn what is known.
- When the user tells you something durable about themselves, their people, plans or
  preferences, call remember with one short fact in the third person ("The user is
  vegetarian."). The answer says whether it was added, updated (it replaced an older
  fact), deduplicated (already known) or is a conflict a person must review.
- When the user asks you to forget something, recall it, then forget the fact by id.
Cite fact ids when you rely on them. Facts and messages are in one namespace ({namespace}).
"""

ISO_TIME = "an ISO 8601 time with a zone, e.g. 2024-05-01T09:00:00Z"

Id = Annotated[str, Field(min_length=1, max_length=300)]
Tag = Annotated[str, Field(min_length=1, max_length=200)]


def check_time(name: str, value: str | None) -> str | None:
    """``value`` when it is an ISO 8601 time with a zone; a :class:`ToolError` otherwise."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} must be {ISO_TIME}; got {value!r}") from None
    if parsed.tzinfo is None:
        raise ToolError(f"{name} must have a time zone (Z or +HH:MM); got {value!r}")
    return value


async def answer(call: Awaitable[T]) -> T:
    """The daemon's answer to ``call``, or a :class:`ToolError` that says what went wrong."""
    try:
        return await call
    except ApiError as exc:
        field = exc.details.get("field")
        where = f" (field {field})" if field else ""
        raise ToolError(f"memoryd refused the request: {exc.code}: {exc.message}{where}") from exc
    except DaemonUnavailable as exc:
        raise ToolError(
            f"memoryd is not answering at {exc.address}: is the daemon running "
            "(`memoryd serve`)? Retry once it is."
        ) from exc


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def build_server(client: AsyncMemorydClient, namespace: str) -> MCPServer[Any]:
    """The MCP server whose tools call ``client`` (connected in ``namespace``)."""
    server: MCPServer[Any] = MCPServer(
        "memoryd",
        title="memoryd memory",
        instructions=INSTRUCTIONS.format(namespace=namespace),
        version=metadata.version("memoryd"),
        log_level="WARNING",
    )
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(destructive_hint=False, open_world_hint=False)

    def tool(title: str, annotations: ToolAnnotations) -> Callable[[F], F]:
        """Register a tool; its description is its docstring, dedented."""

        def register(fn: F) -> F:
            description = inspect.cleandoc(fn.__doc__ or "")
            server.add_tool(fn, title=title, description=description, annotations=annotations)
            return fn

        return register

    @tool("Remember a fact", writes)
    async def remember(
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=4000,
                description="one durable fact in the third person, e.g. 'The user is vegetarian.'",
            ),
        ],
        subject: Annotated[
            str | None, Field(description="who or what it is about ('user', a name)")
        ] = None,
        tags: Annotated[
            list[Tag] | None, Field(max_length=100, description="labels, e.g. ['food']")
        ] = None,
        valid_from: Annotated[
            str | None, Field(description=f"when it became true ({ISO_TIME}); default now")
        ] = None,
        valid_to: Annotated[
            str | None, Field(description=f"when it stops being true ({ISO_TIME})")
        ] = None,
        importance: Annotated[float | None, Field(ge=0, le=1, description="0 to 1")] = None,
        source_message_ids: Annotated[
            list[Id] | None, Field(description="ids of the messages that said it")
        ] = None,
    ) -> dict[str, Any]:
        """Store a fact about the user in long-term memory. memoryd reconciles it with what it
        already knows and answers `outcome`: `added` (new), `updated` (it replaced the facts
        listed in `superseded`: "moved to Lisbon" ends "lives in Porto"), `deduplicated`
        (already known: `fact_id` is the existing fact) or `conflict` (it contradicts
        `conflicts_with` and waits for a person in the review queue). Write one fact per
        call, short and self-contained."""
        written = await answer(
            client.add_fact(
                text,
                subject=subject,
                tags=tags,
                valid_from=check_time("valid_from", valid_from),
                valid_to=check_time("valid_to", valid_to),
                importance=importance,
                source_message_ids=source_message_ids,
            )
        )
        return dict(written)

    @tool("Recall from memory", reads)
    async def recall(
        query: Annotated[
            str,
            Field(min_length=1, max_length=4000, description="a question or keywords"),
        ],
        top_k: Annotated[int, Field(ge=1, le=100, description="how many hits")] = 10,
        kinds: Annotated[
            list[Literal["facts", "messages"]] | None,
            Field(min_length=1, max_length=2, description="search only these (default both)"),
        ] = None,
        conversation_id: Annotated[
            str | None,
            Field(min_length=1, max_length=300, description="messages of this conversation only"),
        ] = None,
        as_of: Annotated[
            str | None,
            Field(description=f"facts true at this time ({ISO_TIME}); default now"),
        ] = None,
        known_at: Annotated[
            str | None,
            Field(description=f"as memoryd knew it at this time ({ISO_TIME})"),
        ] = None,
        include_superseded: Annotated[
            bool, Field(description="also facts that were replaced (history)")
        ] = False,
        tags: Annotated[
            list[Tag] | None, Field(max_length=100, description="facts with any of these tags")
        ] = None,
        iterative: Annotated[
            bool,
            Field(description="answer a hard, multi-part question in more than one pass"),
        ] = False,
    ) -> dict[str, Any]:
        """Search long-term memory: the user's facts and past conversation messages, best
        first. Each hit has `kind` (fact or message), `id`, `text`, `score`, `created_at`
        and `conversation_id`. Use it before answering anything that depends on what the user
        said before. Facts are current ones unless `as_of` / `include_superseded` ask for the
        past."""
        result = await answer(
            client.search(
                query,
                top_k=top_k,
                scope=kinds,
                conversation_id=conversation_id,
                as_of=check_time("as_of", as_of),
                known_at=check_time("known_at", known_at),
                include_superseded=include_superseded or None,
                tags=tags,
                iterative={} if iterative else None,
            )
        )
        hits = [
            _given(
                kind=h["kind"],
                id=h["id"],
                text=h["text"],
                score=round(h["score"], 4),
                created_at=h["created_at"],
                conversation_id=h["conversation_id"],
            )
            for h in result["hits"]
        ]
        return {"hits": hits, **_given(abstain=result.get("abstain"))}

    @tool(
        "Forget a fact",
        ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    async def forget(
        fact_id: Annotated[Id, Field(description="the fact's id (from recall or remember)")],
        reason: Annotated[
            str | None, Field(max_length=1000, description="why, e.g. 'the user asked'")
        ] = None,
    ) -> dict[str, Any]:
        """Forget a fact: it stops appearing in recall and context. Its history is kept for
        audit. Use when the user asks you to forget something or a fact is wrong; to correct
        a fact, prefer remember with the new one (it replaces the old)."""
        return dict(await answer(client.forget_fact(fact_id, reason=reason)))

    @tool("A fact's history", reads)
    async def fact_history(
        fact_id: Annotated[Id, Field(description="the fact's id")],
    ) -> dict[str, Any]:
        """How a fact came to be: `chain` is the line of facts that replaced one another
        (oldest first, with `valid_from` / `valid_to` and `superseded_by`), `versions` the
        fact as recorded over time, `decisions` every reconciliation or review that named
        it."""
        return dict(await answer(client.fact_history(fact_id)))

    @tool("Add a message to a conversation", writes)
    async def add_message(
        conversation_id: Annotated[Id, Field(description="the conversation's id")],
        content: Annotated[
            str, Field(min_length=1, max_length=1_000_000, description="the message's text")
        ],
        role: Annotated[
            Literal["user", "assistant", "tool", "system"], Field(description="who said it")
        ] = "user",
        name: Annotated[
            str | None, Field(max_length=200, description="the speaker's name, if any")
        ] = None,
    ) -> dict[str, Any]:
        """Append a message to a conversation in memory (the conversation is created by its
        first message). memoryd learns facts from conversations in the background, and recall
        and get_context find their messages. Answers the new `message_id` and `position`."""
        return dict(await answer(client.add_message(conversation_id, role, content, name=name)))

    @tool("Context for the next turn", reads)
    async def get_context(
        conversation_id: Annotated[Id, Field(description="the conversation being answered")],
        query: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=4000,
                description="what to recall for (default: the conversation's last turns)",
            ),
        ] = None,
        max_chars: Annotated[
            int, Field(ge=100, le=100_000, description="size of the rendered text")
        ] = 4000,
    ) -> dict[str, Any]:
        """What memory knows that is relevant to the next turn of a conversation: the current
        facts recall ranks highest, the learned-context summary and earlier messages (of any
        conversation), each cited by id and dated. `text` is a ready block within
        `max_chars`; `facts` and `messages` are the same items as data."""
        got = await answer(client.context(conversation_id, query=query, max_chars=max_chars))
        return dict(got)

    @tool("List review items", reads)
    async def list_review_items(
        status: Annotated[
            Literal["pending", "approved", "rejected", "all"],
            Field(description="which items"),
        ] = "pending",
        limit: Annotated[int, Field(ge=1, le=500, description="at most this many")] = 50,
    ) -> dict[str, Any]:
        """Actions waiting for a person's decision, such as a new fact that conflicts with
        an old one (approve: the new one replaces the old; reject: keep the old). Show them
        to the user and approve or reject only as the user says."""
        return dict(await answer(client.review_items(status=status, limit=limit)))

    @tool("Approve a review item", ToolAnnotations(destructive_hint=True, open_world_hint=False))
    async def approve_review_item(
        item_id: Annotated[Id, Field(description="the item's id (from list_review_items)")],
    ) -> dict[str, Any]:
        """Carry out a queued action the user approved (for a conflict: the new fact replaces
        the old one)."""
        return dict(await answer(client.approve_review_item(item_id)))

    @tool("Reject a review item", ToolAnnotations(destructive_hint=True, open_world_hint=False))
    async def reject_review_item(
        item_id: Annotated[Id, Field(description="the item's id (from list_review_items)")],
        reason: Annotated[
            str | None, Field(max_length=1000, description="why, in the user's words")
        ] = None,
    ) -> dict[str, Any]:
        """Reject a queued action the user turned down (for a conflict: the old fact stays)."""
        return dict(await answer(client.reject_review_item(item_id, reason=reason)))

    return server
