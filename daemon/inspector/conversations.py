"""The Conversations pages: every conversation with its forks drawn as a tree; one
conversation's messages, its forks, the retrospective cursor, the runs (trigger, status,
attempts, facts written) and what they remembered."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import not_found
from daemon.api.keys import namespace_of
from daemon.inspector.reads import projection_reads
from daemon.inspector.render import page
from projections.messages import (
    ConversationRow,
    get_conversation,
    list_conversations,
    list_messages,
)
from projections.retrospective import get_retrospective

LISTED = 500
MESSAGES = 500


@dataclass(slots=True)
class Branch:
    """A conversation and the forks made from it, in a tree."""

    conversation: ConversationRow
    forks: list[Branch] = field(default_factory=list)


def fork_tree(rows: list[ConversationRow]) -> list[Branch]:
    """Hang each fork under its parent; a conversation whose parent is not listed is a root."""
    branches = {row.conversation_id: Branch(row) for row in rows}
    roots = []
    for branch in branches.values():
        parent = branch.conversation.parent_conversation_id
        if (
            parent is not None
            and parent in branches
            and parent != branch.conversation.conversation_id
        ):
            branches[parent].forks.append(branch)
        else:
            roots.append(branch)
    return roots


async def _conversations(request: web.Request) -> list[ConversationRow]:
    namespace = namespace_of(request)
    async with projection_reads(request) as conn:
        ids = await list_conversations(conn, namespace, limit=LISTED)
        rows = [await get_conversation(conn, namespace, cid) for cid in ids]
    return [row for row in rows if row is not None]


async def conversations_page(request: web.Request) -> web.Response:
    """Every conversation (up to :data:`LISTED`), forks under their parents."""
    rows = await _conversations(request)
    return page(request, "conversations.html", tree=fork_tree(rows), count=len(rows))


async def conversation_page(request: web.Request) -> web.Response:
    """One conversation: messages, forks, retrospective cursor, runs and what they remembered."""
    cid = path_id(request, "cid")
    namespace = namespace_of(request)
    async with projection_reads(request) as conn:
        conversation = await get_conversation(conn, namespace, cid)
        if conversation is None:
            raise not_found("conversation", cid)
        messages = await list_messages(conn, namespace, cid, limit=MESSAGES)
        retro = await get_retrospective(conn, namespace, cid)
    forks = [row for row in await _conversations(request) if row.parent_conversation_id == cid]
    return page(
        request,
        "conversation.html",
        conversation=conversation,
        messages=messages,
        forks=forks,
        retro=retro,
        runs=list(reversed(retro.runs.values())) if retro is not None else [],
    )


def add_routes(app: web.Application) -> None:
    """Register the Conversations pages."""
    app.router.add_get("/conversations", conversations_page, name="conversations", allow_head=False)
    app.router.add_get(
        "/conversations/{cid}", conversation_page, name="conversation", allow_head=False
    )
