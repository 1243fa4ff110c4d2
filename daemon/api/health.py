"""``/v1/health`` (readiness and progress) and ``/metrics`` (Prometheus text)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.errors import ApiError, invalid, json_response
from daemon.api.keys import state_of
from daemon.api.validation import Field, Schema, parse_query
from daemon.version import package_version


async def get_health(request: web.Request) -> web.Response:
    """Return 200 with progress when ready, else a 503 error carrying the same figures."""
    state = state_of(request)
    store = state.store
    head = await store.head() if store is not None else 0
    state.last_head = max(state.last_head, head)
    projected = state.projection_position()
    problems = dict(state.problems)
    ready = state.ready.is_set()
    body: dict[str, Any] = {
        "status": "starting" if not ready else "degraded" if problems else "ok",
        "last_position": head,
        "projection_position": projected,
        "projection_lag": max(0, head - projected),
        "version": package_version(),
    }
    if problems:
        # Writes failing, a damaged log, the projection process restarting: what and why.
        body["problems"] = problems
        body["reason"] = "; ".join(problems.values())
    if not state.ready.is_set() or store is None:
        raise ApiError(
            503,
            "not_ready",
            "memoryd is starting: the projections are catching up with the log",
            body,
            headers={"Retry-After": "1"},
        )
    return json_response(body)


async def get_metrics(request: web.Request) -> web.Response:
    """Return the metrics in the Prometheus text exposition format."""
    state = state_of(request)
    if state.store is not None:
        state.last_head = max(state.last_head, await state.store.head())
    return web.Response(
        text=state.metrics.render(),
        content_type="text/plain",
        headers={"X-Content-Type-Options": "nosniff"},
        charset="utf-8",
    )


MAX_PROGRESS_WAIT = 10.0

PROGRESS_QUERY = Schema(
    "ProgressQuery",
    (
        Field(
            "position",
            "integer",
            required=True,
            minimum=0,
            description="a position a write answered (the last of a batch, say)",
        ),
        Field(
            "wait",
            "number",
            minimum=0.0,
            maximum=MAX_PROGRESS_WAIT,
            description="seconds to wait for the fold to reach it (default 0)",
        ),
    ),
)


async def get_progress(request: web.Request) -> web.Response:
    """Say how far the projections have folded towards ``position``, waiting up to ``wait``.

    An importer (``messages:batch`` in a loop, ``memoryd events import``) calls it until
    ``done`` to show progress instead of reading stale data or timing out.
    """
    query = parse_query(request.query, PROGRESS_QUERY)
    state = state_of(request)
    target: int = query["position"]
    store = state.require_store()
    head = await store.head()
    if target > head:
        raise invalid("position", f"is beyond the log's head ({head})", head=head)
    wait = query.get("wait", 0.0)
    if state.runner is not None and state.projection_position() < target and wait > 0:
        state.fold_now.set()
        await state.runner.wait_for(target, timeout=wait)
    folded = state.projection_position()
    return json_response(
        {
            "position": target,
            "projection_position": folded,
            "behind": max(0, target - folded),
            "done": folded >= target,
        }
    )


def add_routes(app: web.Application) -> None:
    """Register the health, progress and metrics routes."""
    app.router.add_get("/v1/health", get_health, allow_head=False)
    app.router.add_get("/v1/progress", get_progress, allow_head=False)
    app.router.add_get("/metrics", get_metrics, allow_head=False)
