"""``POST /v1/search``: hybrid recall over the namespace's messages and facts (issue 5).

The body is validated field by field (unknown fields are refused, a 400 names the field);
the answer is ``{hits: [{kind, id, text, score, created_at, conversation_id, metadata,
signals?}]}``. Each search is recorded (in batches) as a ``RecallRecorded`` event. The route
module also owns the recall service's lifetime (vector index, embedding cache, indexer).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from daemon.api.errors import invalid, json_response
from daemon.api.validation import Field, Schema, parse_body
from daemon.app import STATE, namespace_of, state_of
from daemon.logging import get_logger
from daemon.recall import staleness
from daemon.recall.engine import DEFAULT_WEIGHTS, Hit
from daemon.recall.query import SCOPES, Filters, Fusion, SearchRequest
from daemon.recall.recorder import RecallRecorder
from daemon.recall.service import DEFAULT_EMBEDDER, RecallService, cache_engine, make_embedder
from events.clock import to_micros
from events.tasks import cancel_and_wait
from events.types import OWNERS
from projections.facts import replaced_sources

log = get_logger("memoryd.recall")

RECALL: web.AppKey[RecallService] = web.AppKey("memoryd_recall", RecallService)
RECORDER: web.AppKey[RecallRecorder] = web.AppKey("memoryd_recall_recorder", RecallRecorder)


@dataclasses.dataclass
class ShadowSearches:
    """The shadow searches under way (see :func:`_record_with_shadow`)."""

    tasks: set[asyncio.Task[None]] = dataclasses.field(default_factory=set)


SHADOWS: web.AppKey[ShadowSearches] = web.AppKey("memoryd_recall_shadows", ShadowSearches)

SEARCH_BODY = Schema(
    "SearchIn",
    (
        Field("query", "string", required=True, min_length=1, max_length=4000),
        Field("top_k", "integer", minimum=1, maximum=1000, description="default 10"),
        Field("candidate_top_k", "integer", minimum=1, maximum=10_000, description="default 60"),
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
        Field("owner", "string", nullable=True, enum=OWNERS),
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
            owner=body.get("owner"),
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
    settings = state.settings
    defaults = (
        int(getattr(settings, "recall_top_k", 10)),
        int(getattr(settings, "recall_candidate_top_k", 60)),
    )
    req = search_request(body, namespace_of(request), defaults)
    hits = await ranked(request, req)
    service = request.app[RECALL]
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
    return json_response({"hits": [h.to_json() for h in hits]})


async def ranked(request: web.Request, req: SearchRequest) -> list[Hit]:
    """Run a search as ``POST /v1/search`` ranks it (also for ``POST /v1/context``)."""
    engine = await state_of(request).async_reads()  # read-your-writes: acknowledged writes fold
    service = request.app[RECALL]
    if not staleness.applies(req):
        return await service.engine.search(req)
    wider = dataclasses.replace(req, top_k=req.top_k + staleness.HEADROOM)
    hits = await service.engine.search(wider)
    messages = [h.id for h in hits if h.kind == "message"]
    async with engine.connect() as conn:
        replaced = await replaced_sources(conn, req.filters.namespace, messages)
    return staleness.demote(hits, replaced, req.top_k)


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


async def _recall_ctx(app: web.Application) -> AsyncIterator[None]:
    state = app[STATE]
    settings = state.settings
    if state.read_engine is None:
        yield
        return
    embedder = make_embedder(_embedder_name(settings))
    service = RecallService(
        state.read_engine,
        cache_engine(settings.backend),
        embedder,
        state.clock,
        projection_position=state.projection_position,
    )
    await service.start()
    app[RECALL] = service
    state.metrics.gauge(
        "memoryd_recall_embedded_documents",
        "Live documents with a vector from the current embedder.",
        lambda: float(service.progress.embedded),
    )
    state.metrics.gauge(
        "memoryd_recall_documents",
        "Live documents in the search index.",
        lambda: float(service.progress.total),
    )
    recorder = None
    if state.store is not None and not state.store.readonly:
        recorder = RecallRecorder(state.store, state.clock)
        app[RECORDER] = recorder
    app[SHADOWS] = ShadowSearches()
    watcher = asyncio.create_task(_watch_embedder(state, service), name="memoryd-embedder-watch")
    try:
        yield
    finally:
        await cancel_and_wait(watcher)
        for task in list(app[SHADOWS].tasks):
            await cancel_and_wait(task)
        if recorder is not None:
            await recorder.stop()
        await service.stop()


def _embedder_name(settings: Any) -> str:
    """The configured embedder (``recall_embedder`` on the app settings; default hashed)."""
    return str(getattr(settings, "recall_embedder", DEFAULT_EMBEDDER))


async def _watch_embedder(state: Any, service: RecallService, interval: float = 2.0) -> None:
    """Switch embedder when a configuration reload names another one (re-embedding runs in
    the background; the log and the ``memoryd_recall_*`` gauges show its progress)."""
    current = _embedder_name(state.settings)
    while True:
        await asyncio.sleep(interval)
        wanted = _embedder_name(state.settings)
        if wanted == current:
            continue
        try:
            embedder = make_embedder(wanted)
        except Exception as exc:  # an unknown plugin or a missing extra: keep the old one
            log.error("cannot switch embedder", embedder=wanted, error=str(exc))
        else:
            await service.switch_embedder(embedder)
        current = wanted


def add_routes(app: web.Application) -> None:
    """Register the search route and the recall service's lifetime."""
    app.cleanup_ctx.append(_recall_ctx)
    app.router.add_post("/v1/search", post_search)
