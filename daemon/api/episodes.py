"""``/v1/episodes``: what the conversations' slices were about, listed, searched, validated.

- ``GET /v1/episodes?conversation_id&status&limit`` -> ``{episodes: [episode]}``, newest
  first (``status``: ``quarantined``, ``active`` or ``all``, the default).
- ``GET /v1/episodes/{episode_id}`` -> one episode (404 for an unknown one).
- ``POST /v1/episodes/search`` ``{query, top_k?, include_quarantined?, conversation_id?}`` ->
  ``{episodes: [episode + score + factors]}`` ranked by recency x relevance x importance
  (:mod:`daemon.recall.episodes`).
- ``POST /v1/episodes/{episode_id}/validate`` ``{note?}`` -> ``{episode_id, status,
  position}`` (404 unknown, 409 ``already_active``).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import ApiError, json_response, not_found
from daemon.api.keys import RECALL, actor_of, namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body, parse_query
from daemon.consolidation.episode_validation import validate_episode
from daemon.consolidation.plans import PlanError
from daemon.recall.episodes import EpisodeQuery, search_episodes
from daemon.services.consolidation import consolidation_config
from daemon.services.recall import current_embedder
from projections.consolidation import get_episode, recent_episodes

_CONVERSATION = Field("conversation_id", "string", min_length=1, max_length=300)
LIST_QUERY = Schema(
    "EpisodesQuery",
    (
        _CONVERSATION,
        Field("status", "string", enum=("quarantined", "active", "all")),
        Field("limit", "integer", minimum=1, maximum=1000),
    ),
)
SEARCH_BODY = Schema(
    "EpisodeSearchIn",
    (
        Field("query", "string", required=True, min_length=1, max_length=4000),
        Field("top_k", "integer", minimum=1, maximum=100, description="default 10"),
        Field(
            "include_quarantined",
            "boolean",
            description="default false: only validated episodes",
        ),
        _CONVERSATION,
    ),
)
VALIDATE_BODY = Schema("EpisodeValidateIn", (Field("note", "string", max_length=2000),))


async def list_episodes(request: web.Request) -> web.Response:
    """The namespace's episodes, newest first."""
    query = parse_query(request.query, LIST_QUERY)
    status = query.get("status", "all")
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        rows = await recent_episodes(
            conn,
            namespace_of(request),
            limit=query.get("limit", 100),
            conversation_id=query.get("conversation_id"),
            status=None if status == "all" else status,
        )
    return json_response({"episodes": rows})


async def get_one(request: web.Request) -> web.Response:
    """One episode."""
    episode_id = path_id(request, "episode_id")
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        row = await get_episode(conn, namespace_of(request), episode_id)
    if row is None:
        raise not_found("episode", episode_id)
    return json_response(row)


async def search(request: web.Request) -> web.Response:
    """The episodes that answer a query, best first."""
    body: dict[str, Any] = await parse_body(request, SEARCH_BODY)
    if not body["query"].strip():
        raise ApiError(400, "invalid_request", "query: must not be blank", {"field": "query"})
    state = state_of(request)
    engine = await state.async_reads()
    wanted = EpisodeQuery(
        query=body["query"],
        top_k=body.get("top_k", 10),
        include_quarantined=bool(body.get("include_quarantined", False)),
        conversation_id=body.get("conversation_id"),
    )
    recall = request.app.get(RECALL)
    async with engine.connect() as conn:
        hits = await search_episodes(
            conn,
            namespace_of(request),
            current_embedder(request.app),
            wanted,
            state.clock.now(),
            consolidation_config(request.app).episode_half_life,
            cache=None if recall is None else recall.cache,
        )
    return json_response({"episodes": hits})


async def validate(request: web.Request) -> web.Response:
    """Vouch for an episode: its quarantine ends."""
    episode_id = path_id(request, "episode_id")
    body = await parse_body(request, VALIDATE_BODY, allow_empty=True)
    state = state_of(request)
    try:
        position = await validate_episode(
            state.require_store(),
            namespace_of(request),
            episode_id,
            state.clock.now(),
            actor_of(request),
            body.get("note"),
        )
    except PlanError as exc:
        raise ApiError(exc.status, exc.code, str(exc), {"episode_id": episode_id}) from None
    await state.async_note_written(position)
    return json_response({"episode_id": episode_id, "status": "active", "position": position})


def add_routes(app: web.Application) -> None:
    """Register the episode routes."""
    app.router.add_get("/v1/episodes", list_episodes, allow_head=False)
    app.router.add_post("/v1/episodes/search", search)
    app.router.add_get("/v1/episodes/{episode_id}", get_one, allow_head=False)
    app.router.add_post("/v1/episodes/{episode_id}/validate", validate)


OPENAPI_OPERATIONS: tuple[dict[str, Any], ...] = (
    {
        "method": "GET",
        "path": "/v1/episodes",
        "summary": "The episodes consolidation formed, newest first",
        "response": "Episodes",
        "query": LIST_QUERY,
    },
    {
        "method": "POST",
        "path": "/v1/episodes/search",
        "summary": "Episodic recall: episodes ranked by recency x relevance x importance",
        "response": "Episodes",
        "body": SEARCH_BODY,
    },
    {
        "method": "GET",
        "path": "/v1/episodes/{episode_id}",
        "summary": "One episode",
        "response": "Episode",
    },
    {
        "method": "POST",
        "path": "/v1/episodes/{episode_id}/validate",
        "summary": "Vouch for an episode (a quarantined episode becomes active)",
        "body": VALIDATE_BODY,
        "body_optional": True,
    },
)
