"""``POST /v1/search``: hybrid recall over the namespace's messages and facts.

The body is validated field by field (unknown fields are refused, a 400 names the field);
the answer is ``{hits: [{kind, id, text, score, created_at, conversation_id, metadata,
signals?}]}``. Each search is recorded (in batches) as a ``RecallRecorded`` event. The recall
service itself runs in :mod:`daemon.services.recall`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.errors import invalid, json_response
from daemon.api.keys import MODEL, RECALL, RECORDER, SHADOWS, namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body
from daemon.config import RecallConfig, key_default
from daemon.logging import get_logger
from daemon.recall import staleness
from daemon.recall.difficulty import DEFAULT_THRESHOLD
from daemon.recall.engine import DEFAULT_WEIGHTS, Hit
from daemon.recall.expansion import MAX_MULTI_QUERY, with_model_passes
from daemon.recall.grader import GRADER_TIMEOUT
from daemon.recall.iterative import (
    DEFAULT_MAX_ITERATIONS,
    MAX_ITERATIONS,
    IterativeOptions,
    iterative_search,
)
from daemon.recall.newest_first import newest_first
from daemon.recall.query import SCOPES, Filters, Fusion, SearchRequest
from daemon.recall.recorder import RecallRecorder
from daemon.recall.service import RecallService
from events.clock import to_micros
from events.types import OWNERS
from projections.facts import replaced_sources

log = get_logger("memoryd.recall")

DEFAULT_TOP_K = key_default(RecallConfig, "top_k")
DEFAULT_CANDIDATES = key_default(RecallConfig, "candidate_top_k")
"""What the OpenAPI text names as defaults: the configuration's, unless ``[recall]`` sets others."""

SEARCH_BODY = Schema(
    "SearchIn",
    (
        Field("query", "string", required=True, min_length=1, max_length=4000),
        Field(
            "top_k",
            "integer",
            minimum=1,
            maximum=1000,
            description=f"default {DEFAULT_TOP_K}",
        ),
        Field(
            "candidate_top_k",
            "integer",
            minimum=1,
            maximum=10_000,
            description=f"default {DEFAULT_CANDIDATES}",
        ),
        Field(
            "scope",
            "array",
            min_length=1,
            max_length=2,
            items=Field("scope", "string", enum=SCOPES),
        ),
        Field("conversation_id", "string", nullable=True, min_length=1, max_length=300),
        Field("as_of", "datetime", nullable=True),
        Field("known_at", "datetime", nullable=True),
        Field("include_superseded", "boolean"),
        Field("include_quarantined", "boolean"),
        Field(
            "tags",
            "array",
            nullable=True,
            max_length=100,
            items=Field("tag", "string", min_length=1, max_length=200),
        ),
        Field(
            "owner",
            "any",
            nullable=True,
            one_of=(
                Field("owner", "string", enum=OWNERS),
                Field(
                    "owner",
                    "array",
                    min_length=1,
                    max_length=len(OWNERS),
                    items=Field("owner", "string", enum=OWNERS),
                ),
            ),
            description="one owner, or a list of owners (any of them)",
        ),
        Field(
            "decay",
            "object",
            nullable=True,
            items=Schema(
                "Decay",
                (Field("tau_days", "number", required=True, minimum=1e-6, maximum=1e6),),
            ),
        ),
        Field("trust_weighting", "boolean"),
        Field("expand_hops", "integer", minimum=0, maximum=2),
        Field("graph_scoring", "string", enum=("flat", "ppr")),
        Field("entity_match", "boolean"),
        Field(
            "fusion",
            "object",
            nullable=True,
            items=Schema(
                "Fusion",
                (
                    Field("strategy", "string", enum=("rrf", "weighted")),
                    Field("weights", "object", description="leg -> weight >= 0"),
                ),
            ),
        ),
        Field("explain", "boolean"),
        Field(
            "iterative",
            "object",
            nullable=True,
            items=Schema(
                "Iterative",
                (
                    Field(
                        "max_iterations",
                        "integer",
                        description=f"passes at most; default {DEFAULT_MAX_ITERATIONS}, "
                        f"clamped to [1, {MAX_ITERATIONS}]",
                    ),
                    Field(
                        "difficulty_threshold",
                        "number",
                        minimum=0.0,
                        maximum=1.0,
                        description=f"gate score from which a question is hard; default "
                        f"{DEFAULT_THRESHOLD}",
                    ),
                    Field("force_hard", "boolean", description="skip the difficulty gate"),
                ),
            ),
            description="answer through the iterative loop",
        ),
        Field(
            "hyde",
            "boolean",
            description="with a model: fuse in the neighbours of a hypothetical answer",
        ),
        Field(
            "multi_query",
            "integer",
            minimum=1,
            maximum=MAX_MULTI_QUERY,
            description="with a model: fuse in up to N-1 rewordings of the question",
        ),
    ),
)


def _fusion(value: dict[str, Any] | None) -> Fusion:
    if not value:
        return Fusion()
    weights: dict[str, float] = {}
    for leg, weight in (value.get("weights") or {}).items():
        name = f"fusion.weights.{leg}"
        if leg not in DEFAULT_WEIGHTS:
            raise invalid(name, f"unknown leg; legs are {', '.join(DEFAULT_WEIGHTS)}")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
            raise invalid(name, "must be a number >= 0")
        weights[leg] = float(weight)
    strategy = value.get("strategy", "weighted" if weights else "rrf")
    if strategy == "rrf" and weights:
        raise invalid("fusion.weights", 'weights need strategy "weighted"')
    return Fusion(strategy, weights)


def _owner(value: str | list[str] | None) -> str | tuple[str, ...] | None:
    if value is None or isinstance(value, str):
        return value
    return tuple(dict.fromkeys(value))


def iterative_options(body: dict[str, Any]) -> IterativeOptions | None:
    """The ``iterative`` options of a validated body (None: single-shot)."""
    value = body.get("iterative")
    if value is None:
        return None
    return IterativeOptions(
        max_iterations=int(value.get("max_iterations", DEFAULT_MAX_ITERATIONS)),
        difficulty_threshold=float(value.get("difficulty_threshold", DEFAULT_THRESHOLD)),
        force_hard=bool(value.get("force_hard", False)),
    )


def search_request(
    body: dict[str, Any], namespace: str, defaults: tuple[int, int]
) -> SearchRequest:
    """Build the typed request from a validated body."""
    top_k = body.get("top_k") or defaults[0]
    candidates = body.get("candidate_top_k") or max(defaults[1], top_k)
    if candidates < top_k:
        raise invalid("candidate_top_k", f"must be >= top_k ({top_k})")
    scope = tuple(dict.fromkeys(body.get("scope") or SCOPES))
    as_of, known_at = body.get("as_of"), body.get("known_at")
    tags = body.get("tags")
    decay = body.get("decay")
    return SearchRequest(
        query=body["query"],
        filters=Filters(
            namespace=namespace,
            scope=scope,
            conversation_id=body.get("conversation_id"),
            as_of=None if as_of is None else to_micros(as_of),
            known_at=None if known_at is None else to_micros(known_at),
            include_superseded=bool(body.get("include_superseded", False)),
            include_quarantined=bool(body.get("include_quarantined", False)),
            tags=None if tags is None else tuple(tags),
            owner=_owner(body.get("owner")),
        ),
        top_k=top_k,
        candidate_top_k=candidates,
        decay_tau_days=None if decay is None else float(decay["tau_days"]),
        trust_weighting=bool(body.get("trust_weighting", True)),
        expand_hops=int(body.get("expand_hops", 0)),
        graph_scoring=body.get("graph_scoring", "flat"),
        entity_match=bool(body.get("entity_match", False)),
        fusion=_fusion(body.get("fusion")),
        explain=bool(body.get("explain", False)),
    )


async def post_search(request: web.Request) -> web.Response:
    """Search the namespace."""
    body = await parse_body(request, SEARCH_BODY)
    state = state_of(request)
    recall = state.settings.recall
    defaults = (recall.top_k, recall.candidate_top_k)
    req = search_request(body, namespace_of(request), defaults)
    options = iterative_options(body)
    engine = await state.async_reads()  # read-your-writes: wait until acknowledged writes fold
    service = request.app[RECALL]

    async def one_pass(one: SearchRequest) -> list[Hit]:
        return await _ranked(service, engine, one)

    answer: dict[str, Any] = {}
    model = request.app.get(MODEL)
    if options is None:
        hits = await one_pass(req)
    else:
        grader = None if model is None else model.grader()
        result = await iterative_search(one_pass, req, options, grader=grader)
        hits = result.hits
        answer["abstain"] = result.abstain
        if req.explain:
            answer["iterative"] = result.explain()
    hyde, multi_query = bool(body.get("hyde", False)), int(body.get("multi_query", 1))
    if hyde or multi_query > 1:
        hits, passes = await with_model_passes(
            one_pass,
            req,
            hits,
            None if model is None else model.provider,
            hyde=hyde,
            multi_query=multi_query,
            timeout=GRADER_TIMEOUT if model is None else model.timeout,
        )
        if req.explain:
            answer["model_passes"] = passes
    recorder = request.app.get(RECORDER)
    if recorder is not None:
        found = [(h.kind, h.id, h.score) for h in hits]
        shadows = request.app[SHADOWS].tasks
        if _may_pass_over(req, service) and len(shadows) < MAX_SHADOW_SEARCHES:
            # After the answer, off the request's path: which quarantined facts this search
            # would have returned. That is their recall evidence (see promotion).
            task = asyncio.create_task(_record_with_shadow(service, recorder, req, found))
            shadows.add(task)
            task.add_done_callback(shadows.discard)
        else:
            _record(recorder, req, found, ())
    return json_response({"hits": [h.to_json() for h in hits], **answer})


async def _ranked(service: RecallService, engine: AsyncEngine, req: SearchRequest) -> list[Hit]:
    """One search, messages whose facts were all replaced scaled down (see staleness), and
    what answers a question about the user's present alike, newest first (see newest_first)."""
    if not staleness.applies(req):
        return await service.engine.search(req)
    wider = dataclasses.replace(req, top_k=req.top_k + staleness.HEADROOM)
    hits = await service.engine.search(wider)
    messages = [h.id for h in hits if h.kind == "message"]
    async with engine.connect() as conn:
        replaced = await replaced_sources(conn, req.filters.namespace, messages)
    return newest_first(req.query, staleness.demote(hits, replaced, req.top_k))


async def ranked(request: web.Request, req: SearchRequest) -> list[Hit]:
    """Run one search as ``POST /v1/search`` ranks it (also for ``POST /v1/context``)."""
    engine = await state_of(request).async_reads()  # read-your-writes: acknowledged writes fold
    return await _ranked(request.app[RECALL], engine, req)


MAX_SHADOW_SEARCHES = 4
"""Shadow searches running at once; beyond it a search is recorded without one."""


def _may_pass_over(req: SearchRequest, service: RecallService) -> bool:
    return (
        not req.filters.include_quarantined
        and "facts" in req.filters.scope
        and service.index.has_quarantined(req.filters.namespace)
    )


def _record(
    recorder: RecallRecorder,
    req: SearchRequest,
    hits: list[tuple[str, str, float]],
    shadow: list[tuple[str, str, float]] | tuple[()],
) -> None:
    recorder.record(
        req.filters.namespace,
        req.query,
        req.filters.conversation_id,
        req.filters.scope,
        hits,
        shadow,
    )


async def _record_with_shadow(
    service: RecallService,
    recorder: RecallRecorder,
    req: SearchRequest,
    hits: list[tuple[str, str, float]],
) -> None:
    shadow: list[tuple[str, str, float]] = []
    try:
        wider = dataclasses.replace(
            req,
            filters=dataclasses.replace(req.filters, include_quarantined=True),
            trust_weighting=False,
            explain=False,
        )
        returned = {(k, i) for k, i, _ in hits}
        shadow = [
            (hit.kind, hit.id, hit.score)
            for hit in await service.engine.search(wider)
            if hit.kind == "fact"
            and (hit.kind, hit.id) not in returned
            and hit.metadata.get("status") == "quarantined"
        ]
    except Exception as exc:  # evidence is best effort; the search itself was answered
        log.warning("recall.shadow_failed", error=repr(exc))
    _record(recorder, req, hits, shadow)


def add_routes(app: web.Application) -> None:
    """Register the search route."""
    app.router.add_post("/v1/search", post_search)
