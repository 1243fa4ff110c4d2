"""``GET /v1/openapi.json``: the OpenAPI 3.1 document of API v1.

Request bodies and query parameters are rendered from the same :class:`Schema` specs the
handlers validate with; the table of operations below is kept apart from the route
registrations on purpose, and ``tests/api/test_api_openapi.py`` checks that the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

from daemon.api import (
    blocks,
    consolidation,
    context,
    conversations,
    episodes,
    events,
    facts,
    health,
    insights,
    messages,
    retrospective,
    search,
)
from daemon.api.common import ID_PATTERN, IDEMPOTENCY_HEADER
from daemon.api.errors import json_response
from daemon.api.middleware import NAMESPACE_HEADER
from daemon.api.validation import Schema, anchored
from daemon.version import package_version

_S = dict[str, Any]


def _obj(required: list[str], **props: _S) -> _S:
    return {"type": "object", "required": required, "properties": props}


_STR: _S = {"type": "string"}
_NSTR: _S = {"type": ["string", "null"]}
_INT: _S = {"type": "integer"}
_TIME: _S = {"type": "string", "format": "date-time"}
_NTIME: _S = {"type": ["string", "null"], "format": "date-time"}
_STRS: _S = {"type": "array", "items": _STR}

COMPONENTS: dict[str, _S] = {
    "Error": _obj(
        ["error"],
        error=_obj(
            ["code", "message", "details"],
            code={"type": "string", "description": "stable machine-readable code"},
            message=_STR,
            details={"type": "object", "description": "e.g. {field: ...} for a 400"},
        ),
    ),
    "Written": _obj(["position"], position=_INT),
    "MessageWritten": _obj(["message_id", "position"], message_id=_STR, position=_INT),
    "BatchWritten": _obj(
        ["results"],
        results={"type": "array", "items": {"$ref": "#/components/schemas/MessageWritten"}},
    ),
    "Message": _obj(
        [
            "message_id",
            "conversation_id",
            "role",
            "name",
            "content",
            "created_at",
            "metadata",
            "position",
        ],
        message_id=_STR,
        conversation_id={
            "type": "string",
            "description": "where it was said (a parent for inherited messages)",
        },
        role=_STR,
        name=_NSTR,
        content={"oneOf": [_STR, {"type": "array", "items": {"type": "object"}}]},
        created_at=_TIME,
        metadata={"type": "object"},
        position=_INT,
    ),
    "Messages": _obj(
        ["messages"], messages={"type": "array", "items": {"$ref": "#/components/schemas/Message"}}
    ),
    "Forked": _obj(["conversation_id", "position"], conversation_id=_STR, position=_INT),
    "FactWritten": _obj(["fact_id", "position"], fact_id=_STR, position=_INT),
    "FactWriteOutcome": _obj(
        ["fact_id", "outcome", "superseded", "deduplicated", "position"],
        fact_id={
            "type": "string",
            "description": "the fact written, or the current fact that already said it",
        },
        outcome={"type": "string", "enum": ["added", "updated", "deduplicated", "conflict"]},
        superseded={"type": "array", "items": _STR, "description": "facts this one replaced"},
        conflicts_with={
            "type": "array",
            "items": _STR,
            "description": "facts it contradicts; a review item waits for a person",
        },
        deduplicated={"type": "boolean", "description": "outcome is deduplicated (answer 200)"},
        similarity={"type": "number", "description": "with deduplicated"},
        reason=_STR,
        gate_flags={"type": "array", "items": _STR},
        archived={
            "type": "boolean",
            "description": "true when the fact only says what stopped being true: it is kept "
            "archived, the reason the facts it superseded ended, and current reads leave it out",
        },
        position=_INT,
    ),
    "Fact": _obj(
        ["fact_id", "text", "status", "provenance", "tags", "owner", "valid_from", "valid_to"],
        fact_id=_STR,
        text=_STR,
        subject=_NSTR,
        predicate=_NSTR,
        object=_NSTR,
        tags=_STRS,
        owner=_STR,
        provenance=_STR,
        status=_STR,
        confidence={"type": "number"},
        importance={"type": "number"},
        valid_from=_TIME,
        valid_to=_NTIME,
        recorded_from=_TIME,
        recorded_to=_NTIME,
        superseded_by=_NSTR,
        supersedes=_NSTR,
        forgotten={"type": "boolean"},
        forgotten_reason=_NSTR,
        archived={"type": "boolean", "description": "archived by consolidation (restorable)"},
        source_message_ids=_STRS,
        validated_by=_NSTR,
        validation_note=_NSTR,
        position=_INT,
        written_position=_INT,
        gate_flags={"type": "array", "items": _STR, "description": "why the gate held it"},
        reconciliation={
            "type": ["object", "null"],
            "description": "the decision that wrote it: outcome, superseded, conflicts_with, "
            "reason, confidence, decided_by, position",
        },
    ),
    "Facts": _obj(
        ["facts"], facts={"type": "array", "items": {"$ref": "#/components/schemas/Fact"}}
    ),
    "FactHistory": _obj(
        ["fact_id", "chain", "versions", "decisions"],
        fact_id=_STR,
        chain={"type": "array", "items": {"$ref": "#/components/schemas/Fact"}},
        versions={"type": "array", "items": {"$ref": "#/components/schemas/Fact"}},
        decisions={
            "type": "array",
            "items": {"type": "object"},
            "description": "every reconciliation decision that named the fact, with its role "
            "(written, superseded, conflict, deduplicated), reason and candidates",
        },
    ),
    "Event": _obj(
        [
            "position",
            "event_id",
            "stream_id",
            "stream_version",
            "event_type",
            "recorded_at",
            "data",
        ],
        position=_INT,
        event_id=_STR,
        stream_id=_STR,
        stream_version=_INT,
        event_type=_STR,
        recorded_at=_TIME,
        causation_id=_NSTR,
        correlation_id=_NSTR,
        idempotency_key=_NSTR,
        data={"type": "object", "description": "the event's fields"},
    ),
    "Events": _obj(
        ["events", "last_position"],
        events={"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
        last_position=_INT,
    ),
    "Progress": _obj(
        ["position", "projection_position", "behind", "done"],
        position=_INT,
        projection_position=_INT,
        behind=_INT,
        done={"type": "boolean"},
    ),
    "Context": _obj(
        [
            "conversation_id",
            "query",
            "query_source",
            "position",
            "learned_context",
            "profile",
            "facts",
            "messages",
            "left_out",
            "text",
        ],
        conversation_id=_STR,
        query={"type": "string", "description": "what was recalled for"},
        query_source={"type": "string", "enum": ["query", "recent_turns", "none"]},
        position={"type": "integer", "description": "the log position the answer reflects"},
        learned_context={
            "type": ["object", "null"],
            "description": "{text, fact_ids, at} (and why, with explain)",
        },
        profile={
            "type": "array",
            "items": {"type": "object"},
            "description": "{topic, text, fact_ids} (and why): the profile's first lines",
        },
        facts={
            "type": "array",
            "items": {"type": "object"},
            "description": "{fact_id, text, valid_from, score} (and why), best first",
        },
        messages={
            "type": "array",
            "items": {"type": "object"},
            "description": "{message_id, conversation_id, text, created_at, score} (and why)",
        },
        left_out={"type": "integer", "description": "items that did not fit in max_chars"},
        text={"type": "string", "description": "the items rendered for a prompt"},
    ),
    "Episode": _obj(
        [
            "episode_id",
            "conversation_id",
            "message_ids",
            "summary",
            "importance",
            "method",
            "status",
            "started_at",
            "ended_at",
            "created_at",
        ],
        episode_id=_STR,
        conversation_id=_STR,
        message_ids={"type": "array", "items": _STR, "description": "the slice, in order"},
        first_position=_INT,
        last_position=_INT,
        started_at=_TIME,
        ended_at=_TIME,
        summary=_STR,
        importance={"type": "number", "minimum": 0, "maximum": 1},
        method={"type": "string", "enum": ["model", "extractive"]},
        importance_inputs={"type": "object", "description": "what decided the importance"},
        status={"type": "string", "enum": ["quarantined", "active"]},
        validated_by=_NSTR,
        validated_at=_NTIME,
        run_id=_NSTR,
        reflected_run_id={
            "type": ["string", "null"],
            "description": "the run whose reflection used it",
        },
        created_at=_TIME,
        position=_INT,
        score={"type": "number", "description": "search only: relevance x recency x importance"},
        factors={"type": "object", "description": "search only: {relevance, recency, importance}"},
    ),
    "Episodes": _obj(
        ["episodes"], episodes={"type": "array", "items": {"$ref": "#/components/schemas/Episode"}}
    ),
    "Health": _obj(
        ["status", "last_position", "projection_position", "projection_lag", "version"],
        status={"type": "string", "enum": ["ok", "degraded", "starting"]},
        reason={"type": "string", "description": "why degraded"},
        problems={"type": "object", "description": "kind -> reason"},
        last_position=_INT,
        projection_position=_INT,
        projection_lag=_INT,
        version=_STR,
    ),
}


@dataclass(frozen=True, slots=True)
class Operation:
    """One documented method on one path."""

    method: str
    path: str
    summary: str
    status: int = 200
    response: str | None = None
    body: Schema | None = None
    body_optional: bool = False
    query: Schema | None = None
    idempotent_header: bool = False
    namespaced: bool = True
    content_type: str = "application/json"
    also: tuple[tuple[int, str | None], ...] = ()
    """Other success answers: (status, schema name or None for any object)."""


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/v1/conversations/{cid}/messages",
        "Append a message (a retried idempotency key returns the original result)",
        201,
        "MessageWritten",
        body=messages.MESSAGE_BODY,
        idempotent_header=True,
    ),
    Operation(
        "POST",
        "/v1/conversations/{cid}/messages:batch",
        "Append many messages in one transaction (all or nothing)",
        201,
        "BatchWritten",
        body=messages.BATCH_BODY,
        idempotent_header=True,
    ),
    Operation(
        "GET",
        "/v1/conversations/{cid}/messages",
        "List messages in order (a fork includes its parent's up to the fork point)",
        response="Messages",
        query=messages.LIST_QUERY,
    ),
    Operation(
        "POST",
        "/v1/conversations/{cid}/fork",
        "Fork a conversation through a message",
        201,
        "Forked",
        body=conversations.FORK_BODY,
        body_optional=True,
        idempotent_header=True,
    ),
    Operation(
        "POST",
        "/v1/conversations/{cid}/compaction",
        "Announce that the chat app is about to compact the conversation",
        201,
        "Forked",
        body=conversations.COMPACTION_BODY,
        body_optional=True,
        idempotent_header=True,
    ),
    Operation(
        "POST",
        "/v1/facts",
        "Write a fact, reconciled with what memory holds (200 when it only restates one)",
        201,
        "FactWriteOutcome",
        body=facts.FACT_BODY,
        idempotent_header=True,
        also=((200, "FactWriteOutcome"),),
    ),
    Operation("GET", "/v1/facts", "Query facts", response="Facts", query=facts.LIST_QUERY),
    Operation("GET", "/v1/facts/{fact_id}", "Read a fact", response="Fact", query=facts.GET_QUERY),
    Operation(
        "DELETE",
        "/v1/facts/{fact_id}",
        "Forget a fact (hidden from queries, kept in history)",
        response="FactWritten",
        query=facts.FORGET_QUERY,
    ),
    Operation(
        "POST",
        "/v1/facts/{fact_id}/supersede",
        "Replace a fact by a new one",
        201,
        "FactWriteOutcome",
        body=facts.FACT_BODY,
        idempotent_header=True,
    ),
    Operation(
        "POST",
        "/v1/facts/{fact_id}/validate",
        "Vouch for a fact (a quarantined fact becomes active)",
        response="FactWritten",
        body=facts.VALIDATE_BODY,
        body_optional=True,
        idempotent_header=True,
    ),
    Operation(
        "POST",
        "/v1/facts/{fact_id}/purge",
        "Erase a fact: its text is redacted from every event of the log (cannot be undone)",
        response="FactWritten",
    ),
    Operation(
        "GET",
        "/v1/facts/{fact_id}/history",
        "The supersede chain through a fact and the fact's versions",
        response="FactHistory",
    ),
    Operation(
        "GET",
        "/v1/insights",
        "The insights reflection wrote, quarantined ones included",
        query=insights.LIST_QUERY,
    ),
    Operation(
        "POST",
        "/v1/insights/generate",
        "Reflect now: the insights written and the ones dropped as duplicates",
    ),
    Operation(
        "DELETE",
        "/v1/insights/{fact_id}",
        "Forget an insight",
        response="FactWritten",
        query=facts.FORGET_QUERY,
    ),
    Operation("POST", "/v1/search", "Hybrid recall", body=search.SEARCH_BODY),
    Operation(
        "POST",
        "/v1/context",
        "What to put in the prompt for a conversation's next turn: facts, learned context and "
        "earlier messages, cited, dated and trimmed to max_chars",
        response="Context",
        body=context.CONTEXT_BODY,
    ),
    Operation(
        "GET",
        "/v1/events",
        "Read the namespace's events",
        response="Events",
        query=events.EVENTS_QUERY,
    ),
    Operation(
        "GET",
        "/v1/events/stream",
        "Follow the namespace's events (Server-Sent Events; id: is the position)",
        query=events.STREAM_QUERY,
        content_type="text/event-stream",
    ),
    Operation(
        "GET",
        "/v1/health",
        "Readiness and progress (503 until the projections caught up)",
        response="Health",
        namespaced=False,
    ),
    Operation(
        "GET",
        "/v1/progress",
        "How far the projections have folded towards a position (waits up to `wait` s)",
        response="Progress",
        query=health.PROGRESS_QUERY,
    ),
    Operation(
        "GET",
        "/metrics",
        "Prometheus text exposition",
        namespaced=False,
        content_type="text/plain",
    ),
    Operation(
        "GET",
        "/v1/openapi.json",
        "This document",
        namespaced=False,
        content_type="application/json",
    ),
    Operation(
        "POST",
        "/v1/conversations/{cid}/retrospective:run",
        "Schedule a manual retrospective (merges into a pending run); with wait, run it now "
        "and answer 200 when it ends",
        202,
        body=retrospective.RUN_BODY,
        body_optional=True,
        also=((200, None),),
    ),
    Operation(
        "GET",
        "/v1/conversations/{cid}/retrospective",
        "Retrospective state: cursor, last attempt/success, remembered log, runs",
    ),
    Operation("GET", "/v1/retrospective", "Retrospective counters, queue and model budget"),
    *(Operation(**op) for op in consolidation.OPENAPI_OPERATIONS),
    *(Operation(**op) for op in episodes.OPENAPI_OPERATIONS),
    *(Operation(**op) for op in blocks.OPENAPI_OPERATIONS),
)

_ERROR_RESPONSES: dict[str, str] = {
    "400": "bad input (the error names the field)",
    "401": "TCP without a valid bearer token",
    "403": "the token may not use this namespace",
    "404": "unknown route or resource",
    "409": "conflict (concurrent change, reused idempotency key, superseded/forgotten fact)",
    "413": "body over the limit",
    "503": "not ready yet, too many connections, or the log is damaged",
    "507": "the disk is full, or below storage.reserved_space: writes are refused",
}


def _path_params(path: str) -> list[_S]:
    out = []
    for part in path.split("/"):
        if part.startswith("{"):
            name = part[1 : part.index("}")]
            out.append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "pattern": anchored(ID_PATTERN)},
                }
            )
    return out


def _operation(op: Operation) -> _S:
    params = _path_params(op.path)
    if op.namespaced:
        params.append(
            {
                "name": NAMESPACE_HEADER,
                "in": "header",
                "required": False,
                "schema": {
                    "type": "string",
                    "pattern": "^[A-Za-z0-9._-]{1,64}$",
                    "default": "default",
                },
            }
        )
    if op.idempotent_header:
        params.append(
            {
                "name": IDEMPOTENCY_HEADER,
                "in": "header",
                "required": False,
                "schema": {"type": "string", "minLength": 1, "maxLength": 200},
            }
        )
    if op.query is not None:
        for field in op.query.fields:
            params.append(
                {
                    "name": field.name,
                    "in": "query",
                    "required": field.required,
                    "schema": field.json_schema(),
                }
            )
    if op.content_type == "application/json" and op.response is not None:
        content: _S = {
            "application/json": {"schema": {"$ref": f"#/components/schemas/{op.response}"}}
        }
    elif op.content_type == "application/json":
        content = {"application/json": {"schema": {"type": "object"}}}
    else:
        content = {op.content_type: {"schema": {"type": "string"}}}
    responses: _S = {str(op.status): {"description": "success", "content": content}}
    for code, schema in op.also:
        ref = {"$ref": f"#/components/schemas/{schema}"} if schema else {"type": "object"}
        responses[str(code)] = {
            "description": "success",
            "content": {"application/json": {"schema": ref}},
        }
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for status, text in _ERROR_RESPONSES.items():
        responses[status] = {"description": text, "content": error}
    out: _S = {
        "summary": op.summary,
        "operationId": f"{op.method.lower()}_{op.path.strip('/').replace('/', '_')}",
        "parameters": params,
        "responses": responses,
    }
    if op.body is not None:
        out["requestBody"] = {
            "required": not op.body_optional,
            "content": {"application/json": {"schema": op.body.json_schema()}},
        }
    return out


def build_document() -> _S:
    """Return the OpenAPI 3.1 document."""
    paths: dict[str, _S] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "memoryd API",
            "version": package_version(),
            "description": (
                "Local memory daemon for chat assistants. Every request is scoped to the "
                f"namespace in {NAMESPACE_HEADER} (default 'default'). Over TCP send "
                "Authorization: Bearer <token>. Every 4xx/5xx body is "
                '{"error": {"code", "message", "details"}}.'
            ),
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": COMPONENTS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


_DOCUMENT: _S | None = None


async def get_openapi(request: web.Request) -> web.Response:
    """Return the OpenAPI document."""
    global _DOCUMENT
    if _DOCUMENT is None:
        _DOCUMENT = build_document()
    return json_response(_DOCUMENT)


def add_routes(app: web.Application) -> None:
    """Register the document's route."""
    app.router.add_get("/v1/openapi.json", get_openapi, allow_head=False)
