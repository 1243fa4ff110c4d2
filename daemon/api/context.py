"""``POST /v1/context``: the block an app puts in its prompt for the next turn.

For ``{conversation_id, query?, max_chars}`` it answers the current facts recall ranks highest
for the query (or, without one, for the conversation's last turns), the learned-context block,
the profile's first lines (the user first; at most ``max_profile_lines`` and a quarter of
``max_chars``, read from the projected profile so it costs one indexed read), and the earlier
messages of any conversation recall ranks highest (the last turns themselves
are left out: the app has them already). Each item is cited by id and dated; items are taken
in that order while the rendered ``text`` stays within ``max_chars`` (an item that does not fit
is left out whole, never cut). The JSON lists hold exactly what ``text`` shows. Nothing is
written: the same request at the same log position gets the same answer.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from aiohttp import web

from daemon.api.errors import json_response
from daemon.api.keys import namespace_of, state_of
from daemon.api.search import ranked
from daemon.api.validation import Field, Schema, parse_body
from daemon.config import RecallConfig
from daemon.recall.engine import Hit
from daemon.recall.query import Filters, SearchRequest
from events.clock import from_micros
from events.types import content_text
from projections.consolidation import learned_context
from projections.facts import read_profile
from projections.messages import MessageRow, recent_messages

DEFAULT_MAX_CHARS = 4000
DEFAULT_ITEMS = 10
DEFAULT_PROFILE_LINES = 10
PROFILE_SHARE = 4
"""The profile takes at most 1/PROFILE_SHARE of ``max_chars``: the facts recalled for the
query matter more."""
RECENT_TURNS = 4
"""Turns of the conversation that stand for the query when there is none (and are not
repeated among the earlier messages)."""
QUERY_CHARS = 2000
"""The recent turns' text used as a query is cut to its last this many characters."""

CONTEXT_BODY = Schema(
    "ContextRequest",
    (
        Field("conversation_id", "string", required=True, min_length=1, max_length=300),
        Field(
            "query",
            "string",
            nullable=True,
            max_length=4000,
            description="what to recall for (default: the conversation's last turns)",
        ),
        Field(
            "max_chars",
            "integer",
            minimum=100,
            maximum=100_000,
            description=f"size of the rendered text (default {DEFAULT_MAX_CHARS})",
        ),
        Field("max_facts", "integer", minimum=0, maximum=100, description="default 10"),
        Field("max_messages", "integer", minimum=0, maximum=100, description="default 10"),
        Field(
            "max_profile_lines",
            "integer",
            minimum=0,
            maximum=100,
            description=f"profile lines (default {DEFAULT_PROFILE_LINES}; 0: no profile)",
        ),
        Field("explain", "boolean", description="say why each item is there"),
    ),
)


def _search(
    recall: RecallConfig, namespace: str, query: str, scope: str, top_k: int, explain: bool
) -> SearchRequest:
    return SearchRequest(
        query=query,
        filters=Filters(namespace=namespace, scope=(scope,)),
        top_k=top_k,
        candidate_top_k=max(recall.candidate_top_k, top_k),
        explain=explain,
    )


class _Budget:
    """The rendered text, grown one item at a time while it stays within ``max_chars``."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.lines: list[str] = []
        self.left_out = 0

    def add(self, heading: str, line: str) -> bool:
        """Add ``line`` (under ``heading``, written before a section's first line)."""
        lines = [line] if heading in self.lines else ([""] if self.lines else []) + [heading, line]
        if len("\n".join([*self.lines, *lines])) > self.max_chars:
            self.left_out += 1
            return False
        self.lines += lines
        return True


def _add_profile(
    budget: _Budget,
    answer: dict[str, Any],
    topics: list[dict[str, Any]],
    most: int,
    explain: bool,
) -> None:
    """Add the profile's lines, topic by topic, within ``most`` lines and its share."""
    share = _Budget(budget.max_chars // PROFILE_SHARE)
    for topic in topics:
        for line in topic["lines"]:
            text = f"- [{topic['topic']}] {line['text']}"
            if len(answer["profile"]) >= most or not share.add("Profile:", text):
                budget.left_out += 1
                continue
            if not budget.add("Profile:", text):
                continue
            item: dict[str, Any] = {
                "topic": topic["topic"],
                "text": line["text"],
                "fact_ids": list(line["fact_ids"]),
            }
            if explain:
                item["why"] = f"the profile ({topic['source']})"
            answer["profile"].append(item)


def _day(iso: str) -> str:
    return iso[:10]


def _at(hit: Hit) -> datetime:
    return from_micros(hit.created_at)


async def _turns_and_block(
    request: web.Request, namespace: str, cid: str, profile_lines: int
) -> tuple[list[MessageRow], dict[str, Any] | None, list[dict[str, Any]]]:
    """The conversation's last turns, the learned-context block and the profile's first
    lines."""
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        recent = await recent_messages(conn, namespace, cid, limit=RECENT_TURNS)
        block = await learned_context(conn, namespace)
        profile = (
            await read_profile(conn, namespace, max_lines=profile_lines) if profile_lines else []
        )
        return recent, block, profile


async def post_context(request: web.Request) -> web.Response:
    """Answer the prompt context for a conversation's next turn."""
    body = await parse_body(request, CONTEXT_BODY)
    namespace = namespace_of(request)
    cid: str = body["conversation_id"]
    explain = bool(body.get("explain", False))
    max_facts = int(body.get("max_facts", DEFAULT_ITEMS))
    max_messages = int(body.get("max_messages", DEFAULT_ITEMS))
    profile_lines = int(body.get("max_profile_lines", DEFAULT_PROFILE_LINES))
    state = state_of(request)
    recall = state.settings.recall
    query = (body.get("query") or "").strip()
    source = "query"
    facts: list[Hit] = []
    if query and max_facts:
        # The facts' search needs only the query: it runs while the last turns are read.
        (recent, block, profile), facts = await asyncio.gather(
            _turns_and_block(request, namespace, cid, profile_lines),
            ranked(request, _search(recall, namespace, query, "facts", max_facts, explain)),
        )
    else:
        recent, block, profile = await _turns_and_block(request, namespace, cid, profile_lines)
    if not query:
        source = "recent_turns" if recent else "none"
        query = "\n".join(content_text(m.content) for m in recent)[-QUERY_CHARS:].strip()
        if query and max_facts:
            facts = await ranked(
                request, _search(recall, namespace, query, "facts", max_facts, explain)
            )
    messages: list[Hit] = []
    if query and max_messages:
        wanted = max_messages + len(recent)
        found = await ranked(
            request, _search(recall, namespace, query, "messages", wanted, explain)
        )
        shown = {m.message_id for m in recent}
        messages = [h for h in found if h.id not in shown][:max_messages]

    budget = _Budget(int(body.get("max_chars", DEFAULT_MAX_CHARS)))
    answer: dict[str, Any] = {
        "conversation_id": cid,
        "query": query,
        "query_source": source,
        "position": state.projection_position(),
        "learned_context": None,
        "profile": [],
        "facts": [],
        "messages": [],
    }
    if block is not None and block.get("text"):
        at = None if block.get("at") is None else from_micros(block["at"]).isoformat()
        if budget.add("Learned context:", str(block["text"])):
            item = {"text": block["text"], "fact_ids": list(block.get("fact_ids") or []), "at": at}
            if explain:
                item["why"] = "the namespace's curated learned-context block"
            answer["learned_context"] = item
    _add_profile(budget, answer, profile, profile_lines, explain)
    for rank, hit in enumerate(facts, 1):
        valid_from = hit.metadata.get("valid_from")
        since = (valid_from if isinstance(valid_from, datetime) else _at(hit)).isoformat()
        line = f"- [fact {hit.id}, since {_day(since)}] {hit.text}"
        if budget.add("Facts:", line):
            fact: dict[str, Any] = {
                "fact_id": hit.id,
                "text": hit.text,
                "valid_from": since,
                "score": hit.score,
            }
            if explain:
                fact["why"] = {"rank": rank, "for": source, "signals": hit.signals}
            answer["facts"].append(fact)
    for rank, hit in enumerate(messages, 1):
        said = _at(hit).isoformat()
        line = f"- [message {hit.id}, {hit.conversation_id}, {_day(said)}] {hit.text}"
        if budget.add("Earlier messages:", line):
            message: dict[str, Any] = {
                "message_id": hit.id,
                "conversation_id": hit.conversation_id,
                "text": hit.text,
                "created_at": said,
                "score": hit.score,
            }
            if explain:
                where = "this conversation" if hit.conversation_id == cid else "another one"
                message["why"] = {
                    "rank": rank,
                    "for": source,
                    "from": where,
                    "signals": hit.signals,
                }
            answer["messages"].append(message)
    answer["left_out"] = budget.left_out
    answer["text"] = "\n".join(budget.lines)
    return json_response(answer)


def add_routes(app: web.Application) -> None:
    """Register the context route."""
    app.router.add_post("/v1/context", post_context)
