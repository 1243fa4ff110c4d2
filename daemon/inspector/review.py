"""The Review page: queued agent actions to approve or reject, quarantined facts to validate,
one keystroke each (the page's script: ``j``/``k`` move, ``a`` approve, ``r`` reject, ``v``
validate); the same buttons work with Tab and Enter."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import ApiError
from daemon.api.keys import namespace_of, state_of
from daemon.consolidation import review
from daemon.consolidation.plans import PlanError
from daemon.inspector.reads import projection_reads
from daemon.inspector.render import page
from daemon.inspector.respond import back_to
from projections.consolidation import review_items
from projections.facts import query_facts

LISTED = 200
ACTOR = "inspector"
T = TypeVar("T")


async def review_page(request: web.Request) -> web.Response:
    """Pending review items and quarantined facts, oldest first."""
    namespace = namespace_of(request)
    async with projection_reads(request) as conn:
        items = await review_items(conn, namespace, status="pending", limit=LISTED)
        quarantined = await query_facts(conn, namespace, status="quarantined", limit=LISTED)
    return page(
        request,
        "review.html",
        items=items,
        quarantined=quarantined,
        done=request.query.get("done"),
    )


async def _decided(decision: Awaitable[T]) -> T:
    """Await a review decision; a refusal (unknown, decided already) is shown to the person."""
    try:
        return await decision
    except PlanError as exc:
        raise ApiError(exc.status, exc.code, str(exc)) from None


async def post_approve(request: web.Request) -> web.Response:
    """Carry out a queued action (or say why it cannot be: the facts changed since)."""
    state = state_of(request)
    store, item_id = state.require_store(), path_id(request, "item_id")
    now = state.clock.now()
    result = await _decided(review.approve(store, namespace_of(request), item_id, now, ACTOR))
    await state.async_note_written(result.position)
    if result.refused:
        reasons = "; ".join(str(r.get("reason", r)) for r in result.refused)
        raise ApiError(409, "refused", f"the action was refused: {reasons}")
    return await back_to(request, "/inspect/review", done="approved")


async def post_reject(request: web.Request) -> web.Response:
    """Reject a queued action."""
    state = state_of(request)
    store, item_id = state.require_store(), path_id(request, "item_id")
    why = "rejected in the inspector"
    now = state.clock.now()
    position = await _decided(review.reject(store, namespace_of(request), item_id, now, ACTOR, why))
    await state.async_note_written(position)
    return await back_to(request, "/inspect/review", done="rejected")


def add_routes(app: web.Application) -> None:
    """Register the Review page and its actions."""
    app.router.add_get("/review", review_page, name="review", allow_head=False)
    app.router.add_post("/review/{item_id}/approve", post_approve, name="approve")
    app.router.add_post("/review/{item_id}/reject", post_reject, name="reject")
