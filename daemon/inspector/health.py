"""The Health page: log head, projection lag, problems, the retrospective service's counters and
model budget, and the namespace's latest consolidation runs.

The retrospective figures cover every namespace, so (as with ``GET /v1/retrospective``) only a
session for all namespaces sees them.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.keys import RETROSPECTIVE, namespace_of, state_of
from daemon.inspector.reads import projection_reads
from daemon.inspector.render import page
from daemon.inspector.session import SESSION
from projections.consolidation import list_runs

RUNS = 20


def _retrospective(request: web.Request) -> dict[str, Any] | None:
    if request[SESSION].namespaces is not None:
        return None
    holder = request.config_dict.get(RETROSPECTIVE)
    if holder is None or holder.service is None:
        return None
    return holder.service.snapshot()


async def health_page(request: web.Request) -> web.Response:
    """The daemon's figures now."""
    state = state_of(request)
    head = await state.require_store().head()
    folded = state.projection_position()
    async with projection_reads(request) as conn:
        runs = await list_runs(conn, namespace_of(request), limit=RUNS)
    status = "starting" if not state.ready.is_set() else "degraded" if state.problems else "ok"
    return page(
        request,
        "health.html",
        status=status,
        head=head,
        folded=folded,
        lag=max(0, head - folded),
        problems=dict(state.problems),
        retrospective=_retrospective(request),
        runs=runs,
    )


def add_routes(app: web.Application) -> None:
    """Register the Health page."""
    app.router.add_get("/health", health_page, name="health", allow_head=False)
