"""``/v1/consolidation`` and ``/v1/review``: preview -> analyze -> apply, the log, runs, restore,
the learned_context block, and the review queue of agent actions.

- ``POST /v1/consolidation/preview`` ``{stale_days?, min_score?}`` -> ``{duplicates, stale,
  low_score, orphans, conflicts}`` (no model, no writes).
- ``POST /v1/consolidation/analyze`` (same body) -> ``{plan_id, recommendations, position}``;
  the plan is a ``PlanCreated`` event.
- ``GET /v1/consolidation/plans/{plan_id}``; ``POST .../apply`` ``{min_confidence?, purge?}``
  (``purge``: delete items erase the facts' text instead of forgetting them) ->
  ``{plan_id, applied, refused, results, position}`` (409 ``plan_applied`` the second time).
- ``GET /v1/consolidation/log?after&limit`` -> every action with plan id, source and time.
- ``POST /v1/consolidation/run`` ``{phases?}`` (manual trigger), ``GET /v1/consolidation/runs``.
- ``POST /v1/consolidation/facts/{fact_id}/restore`` brings an archived fact back.
- ``GET /v1/consolidation/learned-context``.
- ``GET /v1/review?status``; ``POST /v1/review/{item_id}/approve`` / ``reject`` ``{reason?}``.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import ApiError, json_response
from daemon.api.keys import CONSOLIDATION, GRANT, namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body, parse_query
from daemon.consolidation import review
from daemon.consolidation.apply import apply_plan, restore_fact
from daemon.consolidation.plans import PlanError, analyze
from daemon.consolidation.preview import PreviewSettings, preview
from daemon.consolidation.service import ConsolidationService
from daemon.logging import get_logger
from daemon.services.consolidation import consolidation_config
from daemon.services.recall import current_embedder
from events.clock import from_micros
from projections.consolidation import (
    get_plan,
    learned_context,
    list_runs,
    read_log,
    review_items,
)

log = get_logger("memoryd.consolidation")


PREVIEW_BODY = Schema(
    "ConsolidationPreviewIn",
    (
        Field(
            "stale_days",
            "number",
            minimum=0.0,
            maximum=36500.0,
            description="default [consolidation] stale_days (90)",
        ),
        Field(
            "min_score",
            "number",
            minimum=0.0,
            maximum=10.0,
            description="default [consolidation] min_score (0.3)",
        ),
        Field(
            "tau_days",
            "number",
            minimum=0.01,
            maximum=36500.0,
            description="default [consolidation] tau_days (30)",
        ),
    ),
)
APPLY_BODY = Schema(
    "ConsolidationApplyIn",
    (
        Field("min_confidence", "number", minimum=0.0, maximum=1.0, nullable=True),
        Field("purge", "boolean", description="delete items purge (erase the text) instead"),
    ),
)
RUN_BODY = Schema(
    "ConsolidationRunIn",
    (
        Field(
            "phases",
            "array",
            max_length=3,
            items=Field("phase", "string", enum=("light", "standard", "deep")),
        ),
    ),
)
LOG_QUERY = Schema(
    "ConsolidationLogQuery",
    (
        Field("after", "integer", minimum=0),
        Field("limit", "integer", minimum=1, maximum=1000),
    ),
)
REVIEW_QUERY = Schema(
    "ReviewQuery",
    (
        Field("status", "string", enum=("pending", "approved", "rejected", "all")),
        Field("limit", "integer", minimum=1, maximum=1000),
    ),
)
REJECT_BODY = Schema("ReviewRejectIn", (Field("reason", "string", max_length=2000),))


def _actor(request: web.Request) -> str:
    grant = request.get(GRANT)
    return f"api:{grant}" if grant is not None else "api"


def _plan_error(exc: PlanError) -> ApiError:
    return ApiError(exc.status, exc.code, str(exc))


def _settings(request: web.Request, body: dict[str, Any]) -> PreviewSettings:
    """``[consolidation]``'s settings, overridden by what the request says."""
    return PreviewSettings.configured(
        consolidation_config(request.app),
        **{k: float(body[k]) for k in ("stale_days", "min_score", "tau_days") if k in body},
    )


def _times(row: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {**row, **{k: None if row.get(k) is None else from_micros(row[k]) for k in keys}}


async def post_preview(request: web.Request) -> web.Response:
    """Report duplicates, stale, low-score facts and orphans; write nothing."""
    body = await parse_body(request, PREVIEW_BODY, allow_empty=True)
    state = state_of(request)
    engine = await state.async_reads()
    async with engine.connect() as conn:
        result = await preview(
            conn,
            namespace_of(request),
            current_embedder(request.app),
            state.clock.now(),
            _settings(request, body),
        )
    return json_response(result.to_json())


async def post_analyze(request: web.Request) -> web.Response:
    """Make a plan of recommendations and store it as an event."""
    body = await parse_body(request, PREVIEW_BODY, allow_empty=True)
    state = state_of(request)
    service = request.app.get(CONSOLIDATION)
    engine = await state.async_reads()
    async with engine.connect() as conn:
        plan, position = await analyze(
            state.require_store(),
            conn,
            namespace_of(request),
            current_embedder(request.app),
            state.clock.now(),
            _settings(request, body),
            decide=None if service is None or service.provider is None else service.decide,
        )
    await state.async_note_written(position)
    return json_response(
        {
            "plan_id": plan.plan_id,
            "recommendations": plan.items,
            "based_on": plan.based_on,
            "position": position,
        },
        status=201,
    )


async def get_plan_route(request: web.Request) -> web.Response:
    """Return a stored plan and, once applied, what happened."""
    plan_id = path_id(request, "plan_id")
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        plan = await get_plan(conn, namespace_of(request), plan_id)
    if plan is None:
        raise ApiError(404, "not_found", f"no plan {plan_id!r}", {"plan_id": plan_id})
    return json_response(_times(plan, "created_at"))


async def post_apply(request: web.Request) -> web.Response:
    """Apply exactly the stored plan; refuse (and list) items whose facts changed."""
    plan_id = path_id(request, "plan_id")
    body = await parse_body(request, APPLY_BODY, allow_empty=True)
    state = state_of(request)
    try:
        result = await apply_plan(
            state.require_store(),
            namespace_of(request),
            plan_id,
            state.clock.now(),
            min_confidence=body.get("min_confidence"),
            source="user",
            purge=bool(body.get("purge", False)),
        )
    except PlanError as exc:
        raise _plan_error(exc) from None
    await state.async_note_written(result.position)
    return json_response(result.to_json())


async def get_log(request: web.Request) -> web.Response:
    """Every consolidation action with its plan id, source and time."""
    query = parse_query(request.query, LOG_QUERY)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        rows = await read_log(
            conn, namespace_of(request), after=query.get("after", 0), limit=query.get("limit", 100)
        )
    return json_response({"entries": [_times(r, "at") for r in rows]})


async def post_restore(request: web.Request) -> web.Response:
    """Bring an archived fact back into search."""
    fact_id = path_id(request, "fact_id")
    state = state_of(request)
    try:
        position = await restore_fact(
            state.require_store(),
            namespace_of(request),
            fact_id,
            state.clock.now(),
            _actor(request),
        )
    except PlanError as exc:
        raise _plan_error(exc) from None
    await state.async_note_written(position)
    return json_response({"fact_id": fact_id, "position": position})


def consolidation_service(request: web.Request) -> ConsolidationService:
    """The running consolidation service (503 ``not_ready`` before it starts)."""
    service = request.app.get(CONSOLIDATION)
    if service is None:
        raise ApiError(503, "not_ready", "consolidation is not running")
    return service


async def post_run(request: web.Request) -> web.Response:
    """Run consolidation now (manual trigger)."""
    body = await parse_body(request, RUN_BODY, allow_empty=True)
    service = consolidation_service(request)
    wanted = tuple(body["phases"]) if body.get("phases") else None
    result = await service.run(namespace_of(request), "manual", phases_wanted=wanted)
    if result["status"] == "busy":
        raise ApiError(
            409, "busy", "another consolidation run holds the lease", {"holder": result["holder"]}
        )
    if result["position"] is not None:  # None: fenced out, nothing was written
        await state_of(request).async_note_written(int(result["position"]))
    return json_response(result)


async def get_runs(request: web.Request) -> web.Response:
    """The latest runs, newest first."""
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        runs = await list_runs(conn, namespace_of(request))
    return json_response({"runs": [_times(r, "started_at", "completed_at") for r in runs]})


async def get_learned_context(request: web.Request) -> web.Response:
    """The curated learned_context block."""
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        block = await learned_context(conn, namespace_of(request))
    if block is None:
        return json_response({"text": "", "fact_ids": [], "at": None})
    return json_response(_times(block, "at"))


async def get_review(request: web.Request) -> web.Response:
    """Queued agent actions (pending by default)."""
    query = parse_query(request.query, REVIEW_QUERY)
    status = query.get("status", "pending")
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        items = await review_items(
            conn,
            namespace_of(request),
            status=None if status == "all" else status,
            limit=query.get("limit", 100),
        )
    return json_response({"items": [_times(i, "queued_at", "decided_at") for i in items]})


async def post_approve(request: web.Request) -> web.Response:
    """Carry out a queued action."""
    item_id = path_id(request, "item_id")
    state = state_of(request)
    try:
        result = await review.approve(
            state.require_store(),
            namespace_of(request),
            item_id,
            state.clock.now(),
            _actor(request),
        )
    except PlanError as exc:
        raise _plan_error(exc) from None
    await state.async_note_written(result.position)
    return json_response({"item_id": item_id, **result.to_json()})


async def post_reject(request: web.Request) -> web.Response:
    """Reject a queued action."""
    item_id = path_id(request, "item_id")
    body = await parse_body(request, REJECT_BODY, allow_empty=True)
    state = state_of(request)
    try:
        position = await review.reject(
            state.require_store(),
            namespace_of(request),
            item_id,
            state.clock.now(),
            _actor(request),
            body.get("reason"),
        )
    except PlanError as exc:
        raise _plan_error(exc) from None
    await state.async_note_written(position)
    return json_response({"item_id": item_id, "status": "rejected", "position": position})


def add_routes(app: web.Application) -> None:
    """Register the consolidation and review routes."""
    app.router.add_post("/v1/consolidation/preview", post_preview)
    app.router.add_post("/v1/consolidation/analyze", post_analyze)
    app.router.add_get("/v1/consolidation/plans/{plan_id}", get_plan_route, allow_head=False)
    app.router.add_post("/v1/consolidation/plans/{plan_id}/apply", post_apply)
    app.router.add_get("/v1/consolidation/log", get_log, allow_head=False)
    app.router.add_post("/v1/consolidation/run", post_run)
    app.router.add_get("/v1/consolidation/runs", get_runs, allow_head=False)
    app.router.add_post("/v1/consolidation/facts/{fact_id}/restore", post_restore)
    app.router.add_get("/v1/consolidation/learned-context", get_learned_context, allow_head=False)
    app.router.add_get("/v1/review", get_review, allow_head=False)
    app.router.add_post("/v1/review/{item_id}/approve", post_approve)
    app.router.add_post("/v1/review/{item_id}/reject", post_reject)


OPENAPI_OPERATIONS: tuple[dict[str, Any], ...] = (
    {
        "method": "POST",
        "path": "/v1/consolidation/preview",
        "summary": "Duplicates, stale, low-score facts, orphans, conflicts (no writes)",
        "body": PREVIEW_BODY,
        "body_optional": True,
    },
    {
        "method": "POST",
        "path": "/v1/consolidation/analyze",
        "summary": "Make and store a consolidation plan (PlanCreated)",
        "status": 201,
        "body": PREVIEW_BODY,
        "body_optional": True,
    },
    {"method": "GET", "path": "/v1/consolidation/plans/{plan_id}", "summary": "A stored plan"},
    {
        "method": "POST",
        "path": "/v1/consolidation/plans/{plan_id}/apply",
        "summary": "Apply exactly the stored plan; refuse items whose facts changed",
        "body": APPLY_BODY,
        "body_optional": True,
    },
    {
        "method": "GET",
        "path": "/v1/consolidation/log",
        "summary": "Every consolidation action with plan id, source and time",
        "query": LOG_QUERY,
    },
    {
        "method": "POST",
        "path": "/v1/consolidation/run",
        "summary": "Run consolidation now (manual; 409 busy while another run holds the lease)",
        "body": RUN_BODY,
        "body_optional": True,
    },
    {"method": "GET", "path": "/v1/consolidation/runs", "summary": "The latest runs"},
    {
        "method": "POST",
        "path": "/v1/consolidation/facts/{fact_id}/restore",
        "summary": "Bring an archived fact back",
    },
    {
        "method": "GET",
        "path": "/v1/consolidation/learned-context",
        "summary": "The curated learned_context block",
    },
    {
        "method": "GET",
        "path": "/v1/review",
        "summary": "Queued agent actions awaiting review",
        "query": REVIEW_QUERY,
    },
    {
        "method": "POST",
        "path": "/v1/review/{item_id}/approve",
        "summary": "Carry out a queued action (as a one-item plan)",
    },
    {
        "method": "POST",
        "path": "/v1/review/{item_id}/reject",
        "summary": "Reject a queued action",
        "body": REJECT_BODY,
        "body_optional": True,
    },
)
