"""The Plans page: consolidation's preview (what it would look at, nothing written), analyze
(a stored plan of recommendations), and apply (exactly that plan; each item whose facts changed
since is refused, and the plan's page says which and why).

Preview and analyze use ``[consolidation]``'s settings (``stale_days``, ``min_score``,
``tau_days``), as ``memoryd consolidate`` does without options.
"""

from __future__ import annotations

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.api.common import path_id
from daemon.api.errors import ApiError, not_found
from daemon.api.keys import CONSOLIDATION, namespace_of, state_of
from daemon.consolidation.apply import apply_plan
from daemon.consolidation.plans import PlanError, analyze
from daemon.consolidation.preview import PreviewSettings, preview
from daemon.inspector.reads import projection_reads
from daemon.inspector.render import page
from daemon.inspector.respond import back_to
from daemon.services.consolidation import consolidation_config
from daemon.services.recall import current_embedder
from projections.consolidation import get_plan
from projections.facts import get_fact

DAEMON: web.AppKey[web.Application] = web.AppKey("memoryd_inspector_daemon", web.Application)
"""The daemon's own app (its recall service holds the embedder consolidation compares with)."""


async def plans_page(request: web.Request) -> web.Response:
    """What consolidation would look at now, and the form that makes a plan of it."""
    state = state_of(request)
    namespace = namespace_of(request)
    async with projection_reads(request) as conn:
        found = await preview(
            conn,
            namespace,
            current_embedder(request.app[DAEMON]),
            state.clock.now(),
            PreviewSettings.configured(consolidation_config(request.app[DAEMON])),
        )
        named = {f for group in found.to_json().values() for row in group for f in _ids(row)}
        texts = await _texts(conn, namespace, named)
    return page(request, "plans.html", preview=found.to_json(), texts=texts)


async def _texts(conn: AsyncConnection, namespace: str, fact_ids: set[str]) -> dict[str, str]:
    """The current text of each fact named (the pages show texts, not ids)."""
    return {f: row.text for f in fact_ids if (row := await get_fact(conn, namespace, f))}


def _ids(row: dict[str, object]) -> list[str]:
    ids = row.get("fact_ids")
    if isinstance(ids, list):
        return [str(f) for f in ids]
    one = row.get("fact_id")
    return [str(one)] if one is not None else []


async def post_analyze(request: web.Request) -> web.Response:
    """Store a plan of recommendations and show it."""
    state = state_of(request)
    service = request.app[DAEMON].get(CONSOLIDATION)
    # A model, when one is configured, words each item's reasoning (as the API's analyze).
    decide = None if service is None or service.provider is None else service.decide
    store, namespace, now = state.require_store(), namespace_of(request), state.clock.now()
    embedder = current_embedder(request.app[DAEMON])
    settings = PreviewSettings.configured(consolidation_config(request.app[DAEMON]))
    async with projection_reads(request) as conn:
        plan, position = await analyze(
            store, conn, namespace, embedder, now, settings, decide=decide
        )
    await state.async_note_written(position)
    return await back_to(request, f"/inspect/plans/{plan.plan_id}")


async def plan_page(request: web.Request) -> web.Response:
    """One plan: its items, and once applied, what was applied and what was refused."""
    plan_id = path_id(request, "plan_id")
    namespace = namespace_of(request)
    async with projection_reads(request) as conn:
        plan = await get_plan(conn, namespace, plan_id)
        if plan is None:
            raise not_found("plan", plan_id)
        ids = {f for item in plan.get("items", []) for f in item.get("fact_ids", [])}
        texts = await _texts(conn, namespace, ids)
    result = plan.get("result") or {}
    refused = {r["item_id"]: r for r in result.get("refused", [])}
    return page(request, "plan.html", plan=plan, texts=texts, result=result, refused=refused)


async def post_apply(request: web.Request) -> web.Response:
    """Apply the stored plan as it is, then show what happened."""
    plan_id = path_id(request, "plan_id")
    state = state_of(request)
    try:
        result = await apply_plan(
            state.require_store(), namespace_of(request), plan_id, state.clock.now(), source="user"
        )
    except PlanError as exc:
        raise ApiError(exc.status, exc.code, str(exc)) from None
    await state.async_note_written(result.position)
    return await back_to(request, f"/inspect/plans/{plan_id}", done="applied")


def add_routes(app: web.Application) -> None:
    """Register the Plans pages."""
    app.router.add_get("/plans", plans_page, name="plans", allow_head=False)
    app.router.add_post("/plans/analyze", post_analyze, name="analyze")
    app.router.add_get("/plans/{plan_id}", plan_page, name="plan", allow_head=False)
    app.router.add_post("/plans/{plan_id}/apply", post_apply, name="apply")
