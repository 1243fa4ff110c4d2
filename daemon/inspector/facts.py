"""The Facts pages: the list by status, searchable, and one fact's whole life.

A fact's page shows its supersede chain, every stored version, the reconciliation decisions
that named it, its validations (and refusals) from its own stream in the log, how often recall
returned it, and a picture of its bi-temporal life (:mod:`daemon.inspector.lifeline`).
"""

from __future__ import annotations

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import not_found
from daemon.api.facts import validate_fact
from daemon.api.keys import namespace_of, state_of
from daemon.inspector.lifeline import lifeline
from daemon.inspector.reads import projection_reads
from daemon.inspector.render import page
from daemon.inspector.respond import back_to
from events.consolidation_events import ValidationRefused
from events.types import FactValidated, fact_stream
from projections.consolidation import one_fact_state
from projections.facts import FactRow, decisions_of, fact_history, fact_versions, query_facts

LIST_LIMIT = 1000
STATUSES = ("current", "quarantined", "superseded", "archived")


async def _listed(request: web.Request, status: str) -> list[FactRow]:
    async with projection_reads(request) as conn:
        if status == "quarantined":
            return await query_facts(
                conn, namespace_of(request), status="quarantined", limit=LIST_LIMIT
            )
        rows = await query_facts(
            conn,
            namespace_of(request),
            include_superseded=status == "superseded",
            include_archived=status == "archived",
            limit=LIST_LIMIT,
        )
    if status == "superseded":
        return [r for r in rows if r.superseded_by is not None]
    if status == "archived":
        return [r for r in rows if r.archived]
    return rows


async def facts_page(request: web.Request) -> web.Response:
    """List the facts of one status, those whose text holds ``q`` when it is given."""
    status = request.query.get("status", "current")
    if status not in STATUSES:
        status = "current"
    words = request.query.get("q", "").strip()
    rows = await _listed(request, status)
    if words:
        needle = words.casefold()
        rows = [r for r in rows if needle in r.text.casefold()]
    return page(
        request,
        "facts.html",
        facts=rows,
        status=status,
        statuses=STATUSES,
        q=words,
        limit=LIST_LIMIT,
    )


async def fact_page(request: web.Request) -> web.Response:
    """One fact: chain, versions, decisions, validations and its bi-temporal picture."""
    fact_id = path_id(request, "fact_id")
    namespace = namespace_of(request)
    state = state_of(request)
    async with projection_reads(request) as conn:
        versions = await fact_versions(conn, namespace, fact_id)
        if not versions:
            raise not_found("fact", fact_id)
        chain = await fact_history(conn, namespace, fact_id)
        decisions = await decisions_of(conn, namespace, [fact_id])
        use = await one_fact_state(conn, namespace, fact_id)
    stream = await state.require_store().read_stream(namespace, fact_stream(fact_id))
    validations = [e for e in stream if isinstance(e.event, FactValidated | ValidationRefused)]
    latest = versions[-1]
    return page(
        request,
        "fact.html",
        fact=latest,
        fact_id=fact_id,
        chain=chain,
        versions=versions,
        decisions=decisions.get(fact_id, []),
        validations=validations,
        events=stream,
        use=use,
        picture=lifeline(versions, state.clock.now()),
        done=request.query.get("done"),
    )


async def post_validate(request: web.Request) -> web.Response:
    """Validate a quarantined fact, then go back where the form was."""
    fact_id = path_id(request, "fact_id")
    await validate_fact(request, fact_id, key=None, note="validated in the inspector", force=False)
    return await back_to(request, f"/inspect/facts/{fact_id}", done="validated")


def add_routes(app: web.Application) -> None:
    """Register the Facts pages."""
    app.router.add_get("/facts", facts_page, name="facts", allow_head=False)
    app.router.add_get("/facts/{fact_id}", fact_page, name="fact", allow_head=False)
    app.router.add_post("/facts/{fact_id}/validate", post_validate, name="validate")
