"""``/v1/blocks`` and ``/v1/profile``: the curated blocks an app reads and writes, and the
read-only profile of the namespace's facts.

- ``GET /v1/blocks`` -> ``{blocks: [block]}``: every registered block (``learned_context`` and
  ``[[consolidation.blocks]]``), written or not, with its purpose and ``max_chars``.
- ``GET /v1/blocks/{name}`` -> ``block`` (404 ``unknown_block`` for a name not registered).
- ``PUT /v1/blocks/{name}`` ``{text}`` -> ``{name, position, chars}``: a ``BlockWritten`` by
  the app (400 ``too_long`` above ``max_chars``, 404 ``unknown_block``; nothing is written).
- ``GET /v1/blocks/{name}/history?limit`` -> ``{name, history: [write]}``, newest first.
- ``GET /v1/profile?subject`` -> ``{topics: [{topic, source, lines, fact_ids}]}``.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import ApiError, json_response
from daemon.api.keys import namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body, parse_query
from daemon.config import BlockSpec
from daemon.consolidation.blocks import BlockRefused, app_write, registered_blocks
from daemon.services.consolidation import consolidation_config
from events.clock import from_micros
from events.store.base import NewEvent
from projections.consolidation import block_history, current_blocks, one_block
from projections.facts import read_profile

BLOCK_BODY = Schema(
    "BlockText",
    (Field("text", "string", required=True, max_length=100_000, description="the new text"),),
)
HISTORY_QUERY = Schema("BlockHistoryQuery", (Field("limit", "integer", minimum=1, maximum=1000),))
PROFILE_QUERY = Schema(
    "ProfileQuery",
    (Field("subject", "string", min_length=1, max_length=300, description="one topic only"),),
)


def _blocks(request: web.Request) -> dict[str, BlockSpec]:
    return registered_blocks(consolidation_config(request.app))


def _spec(request: web.Request) -> tuple[str, BlockSpec]:
    name = path_id(request, "name")
    blocks = _blocks(request)
    if name not in blocks:
        raise ApiError(
            404,
            "unknown_block",
            f"no block named {name!r} is registered (see [[consolidation.blocks]])",
            {"name": name, "registered": list(blocks)},
        )
    return name, blocks[name]


def _render(spec: BlockSpec, written: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": spec.name,
        "purpose": spec.purpose,
        "max_chars": spec.max_chars,
        "text": "",
        "author": None,
        "how": None,
        "at": None,
        "position": None,
        "fact_ids": [],
        "insight_ids": [],
        "episode_ids": [],
        "previous_hash": None,
    }
    if written is not None:
        out.update(_write(written))
    return out


def _write(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "at": None if row.get("at") is None else from_micros(row["at"])}


async def list_blocks(request: web.Request) -> web.Response:
    """Every registered block with its text (empty while never written)."""
    specs = _blocks(request)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        written = await current_blocks(conn, namespace_of(request))
    return json_response({"blocks": [_render(s, written.get(s.name)) for s in specs.values()]})


async def get_block(request: web.Request) -> web.Response:
    """One registered block."""
    name, spec = _spec(request)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        written = await one_block(conn, namespace_of(request), name)
    return json_response(_render(spec, written))


async def put_block(request: web.Request) -> web.Response:
    """Write a block's text as the app."""
    name = path_id(request, "name")
    body = await parse_body(request, BLOCK_BODY)
    state = state_of(request)
    namespace = namespace_of(request)
    engine = await state.async_reads()
    async with engine.connect() as conn:
        previous = await one_block(conn, namespace, name)
    try:
        event = app_write(
            _blocks(request),
            name,
            body["text"],
            None if previous is None else str(previous["text"]),
            state.clock.now(),
        )
    except BlockRefused as exc:
        status = 404 if exc.code == "unknown_block" else 400
        raise ApiError(status, exc.code, exc.message, exc.details) from None
    [position] = await state.require_store().append(namespace, [NewEvent(event)])
    await state.async_note_written(position)
    return json_response({"name": name, "position": position, "chars": len(event.text)})


async def get_block_history(request: web.Request) -> web.Response:
    """A block's writes, newest first."""
    name, _ = _spec(request)
    query = parse_query(request.query, HISTORY_QUERY)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        rows = await block_history(conn, namespace_of(request), name, limit=query.get("limit", 50))
    return json_response({"name": name, "history": [_write(r) for r in rows]})


async def get_profile(request: web.Request) -> web.Response:
    """The profile: current facts grouped by subject and attribute (or a model's wording)."""
    query = parse_query(request.query, PROFILE_QUERY)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        topics = await read_profile(conn, namespace_of(request), subject=query.get("subject"))
    return json_response({"topics": topics})


def add_routes(app: web.Application) -> None:
    """Register the block and profile routes."""
    app.router.add_get("/v1/blocks", list_blocks, allow_head=False)
    app.router.add_get("/v1/blocks/{name}", get_block, allow_head=False)
    app.router.add_put("/v1/blocks/{name}", put_block)
    app.router.add_get("/v1/blocks/{name}/history", get_block_history, allow_head=False)
    app.router.add_get("/v1/profile", get_profile, allow_head=False)


OPENAPI_OPERATIONS: tuple[dict[str, Any], ...] = (
    {"method": "GET", "path": "/v1/blocks", "summary": "Every registered curated block"},
    {"method": "GET", "path": "/v1/blocks/{name}", "summary": "One curated block"},
    {
        "method": "PUT",
        "path": "/v1/blocks/{name}",
        "summary": "Write a curated block's text as the app (400 above its max_chars)",
        "body": BLOCK_BODY,
    },
    {
        "method": "GET",
        "path": "/v1/blocks/{name}/history",
        "summary": "A curated block's writes, newest first",
        "query": HISTORY_QUERY,
    },
    {
        "method": "GET",
        "path": "/v1/profile",
        "summary": "The profile: current facts grouped by subject and attribute, each line "
        "citing its facts (a model's wording while it is fresh)",
        "query": PROFILE_QUERY,
    },
)
