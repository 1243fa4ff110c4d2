"""``/v1/insights``: what reflection concluded about the user, listed, made on demand, removed.

- ``GET /v1/insights?limit`` -> ``{insights: [fact]}``: the facts reflection wrote (tagged
  ``insight``), quarantined ones included (they wait for a person).
- ``POST /v1/insights/generate`` -> ``{run_id, status, insights: [{fact_id, cites}],
  duplicates: [{text, duplicate_of}], model_calls}``: a consolidation run of the deep phase
  that reflects now, whatever importance has accumulated (the run is logged like any other).
- ``DELETE /v1/insights/{fact_id}?reason`` forgets one insight (404 for a fact that is not).
"""

from __future__ import annotations

from aiohttp import web

from daemon.api import consolidation, facts
from daemon.api.common import path_id
from daemon.api.errors import ApiError, json_response, not_found
from daemon.api.keys import namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_query
from events.types import FactWritten, fact_stream
from projections.facts import query_facts

INSIGHT_TAG = "insight"
LIST_QUERY = Schema("InsightsQuery", (Field("limit", "integer", minimum=1, maximum=1000),))


async def list_insights(request: web.Request) -> web.Response:
    """The insights reflection wrote, quarantined ones included."""
    query = parse_query(request.query, LIST_QUERY)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        rows = await query_facts(
            conn,
            namespace_of(request),
            tag=INSIGHT_TAG,
            include_quarantined=True,
            limit=query.get("limit", 100),
        )
    return json_response({"insights": [facts.fact_json(r) for r in rows]})


async def generate_insights(request: web.Request) -> web.Response:
    """Reflect now: one deep-phase run, its insights and the ones dropped as duplicates."""
    service = consolidation.consolidation_service(request)
    run = await service.run(
        namespace_of(request), "manual", phases_wanted=("deep",), reflect_now=True
    )
    if run["status"] == "busy":
        raise ApiError(
            409, "busy", "another consolidation run holds the lease", {"holder": run["holder"]}
        )
    if run["position"] is not None:
        await state_of(request).async_note_written(int(run["position"]))
    actions = run.get("actions") or []
    return json_response(
        {
            "run_id": run.get("run_id"),
            "status": run["status"],
            "insights": [
                {"fact_id": a["fact_id"], "cites": a["cites"]}
                for a in actions
                if a["action"] == "reflect"
            ],
            "duplicates": [
                {"text": a["text"], "duplicate_of": a["duplicate_of"]}
                for a in actions
                if a["action"] == "insight_duplicate"
            ],
            "model_calls": (run.get("stats") or {}).get("model_calls", 0),
        }
    )


async def delete_insight(request: web.Request) -> web.Response:
    """Forget an insight; a fact reflection did not write is not one (404)."""
    fact_id = path_id(request, "fact_id")
    events = (
        await state_of(request)
        .require_store()
        .read_stream(namespace_of(request), fact_stream(fact_id))
    )
    written = [e.event for e in events if isinstance(e.event, FactWritten)]
    if not written or INSIGHT_TAG not in written[-1].tags:
        raise not_found("insight", fact_id)
    return await facts.delete_fact(request)


def add_routes(app: web.Application) -> None:
    """Register the insight routes."""
    app.router.add_get("/v1/insights", list_insights, allow_head=False)
    app.router.add_post("/v1/insights/generate", generate_insights)
    app.router.add_delete("/v1/insights/{fact_id}", delete_insight)
