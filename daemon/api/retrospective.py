"""Retrospectives over HTTP.

- ``POST /v1/conversations/{cid}/retrospective:run``: the ``manual`` trigger. 202 with
  ``{action: schedule|merge|skip, run_id, reason, not_before}``; 404 for an unknown
  conversation (it runs with the kill switch off too: a person asked). With
  ``{"wait": true, "timeout": seconds}`` the run starts now (no cooldown) and the answer comes
  when it ends: 200 with the run (``status``, ``fact_ids`` it left current, ``error``), or 202
  with ``finished: false`` if the timeout came first.
- ``GET /v1/conversations/{cid}/retrospective``: ``{cursor, last_attempt_at,
  last_success_at, remembered, runs: [{run_id, trigger, status, facts_written, error?}]}``
  (newest run first) from the ``retrospective`` projection, read-your-writes.
- ``GET /v1/retrospective``: the service's counters, queue and model budget (for
  ``memoryd status``).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from daemon.api.common import path_id
from daemon.api.errors import ApiError, json_response, not_found
from daemon.api.keys import RETROSPECTIVE, namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body
from daemon.retrospective.service import RetrospectiveError, RetrospectiveService
from projections.messages import get_conversation
from projections.retrospective import get_retrospective

DEFAULT_WAIT = 60.0
MAX_WAIT = 600.0


def _service(request: web.Request) -> RetrospectiveService:
    holder = request.app.get(RETROSPECTIVE)
    if holder is None or holder.service is None:
        reason = "retrospectives are not running in this daemon"
        if holder is not None and holder.error:
            reason = f"{reason}: {holder.error}"
        elif holder is not None:
            reason = "retrospectives are starting (folding the log)"
        raise ApiError(503, "not_ready", reason, headers={"Retry-After": "1"})
    return holder.service


RUN_BODY = Schema(
    "RetrospectiveRunIn",
    (
        Field(
            "wait",
            "boolean",
            description="default false; true runs it now (no cooldown) and answers when it ends",
        ),
        Field(
            "timeout",
            "number",
            minimum=0.1,
            maximum=MAX_WAIT,
            description=f"seconds to wait with wait=true (default {DEFAULT_WAIT:g})",
        ),
    ),
)


async def post_run(request: web.Request) -> web.Response:
    """Schedule a manual retrospective of a conversation (and wait for it, if asked)."""
    cid = path_id(request, "cid")
    body = await parse_body(request, RUN_BODY, allow_empty=True)
    wait = bool(body.get("wait", False))
    service = _service(request)
    namespace = namespace_of(request)
    try:
        if wait:
            result, run, fact_ids = await service.run_now(
                namespace, cid, float(body.get("timeout", DEFAULT_WAIT))
            )
        else:
            result, run, fact_ids = await service.request_run(namespace, cid), None, []
    except RetrospectiveError as exc:
        if exc.code == "unknown_conversation":
            raise not_found("conversation", cid) from exc
        raise ApiError(409, exc.code, exc.message, {"conversation_id": cid}) from exc
    answer = {"conversation_id": cid, **result.to_json()}
    if not wait:
        return json_response(answer, status=202)
    if run is None:
        return json_response({**answer, "finished": result.run_id is None, "fact_ids": []})
    # What the runs wrote is read back by this client's next reads (read-your-writes).
    state = state_of(request)
    await state.async_note_written(await state.require_store().head())
    finished = run.status in ("succeeded", "skipped", "abandoned", "failed")
    answer.update(run.to_json())
    answer["fact_ids"] = fact_ids
    answer["finished"] = finished
    return json_response(answer, status=200 if finished else 202)


async def get_state(request: web.Request) -> web.Response:
    """Return a conversation's retrospective state."""
    cid = path_id(request, "cid")
    namespace = namespace_of(request)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        retro = await get_retrospective(conn, namespace, cid)
        if retro is None:
            conversation = await get_conversation(conn, namespace, cid)
            if conversation is None or conversation.deleted:
                raise not_found("conversation", cid)
    body: dict[str, Any]
    if retro is None:
        body = {
            "conversation_id": cid,
            "cursor": None,
            "last_attempt_at": None,
            "last_success_at": None,
            "remembered": [],
            "runs": [],
        }
    else:
        body = retro.view()
    return json_response(body)


async def get_service(request: web.Request) -> web.Response:
    """Return the retrospective service's counters and the model budget."""
    return json_response(_service(request).snapshot())


def add_routes(app: web.Application) -> None:
    """Register the retrospective routes."""
    app.router.add_post("/v1/conversations/{cid}/retrospective:run", post_run)
    app.router.add_get("/v1/conversations/{cid}/retrospective", get_state, allow_head=False)
    app.router.add_get("/v1/retrospective", get_service, allow_head=False)
