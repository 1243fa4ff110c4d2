"""The ingest gate and write-time dedupe, called by ``daemon/api/facts.py``.

- :func:`admit` runs before a new fact is appended. The gate quarantines a fact whose text
  matches a prompt-injection pattern or whose provenance is untrusted (the flags are returned
  to the caller as ``gate_flags``). Dedupe (unless the body says ``"dedupe": false``): a fact
  whose normalised text equals a current fact's, or whose embedding is at cosine >= 0.95 to
  one (and no conflict rule fires: "Bob is 34" is not a duplicate of "Bob is 35"), is not
  written; the existing fact is reinforced (``FactReinforced``) and the answer is 200
  ``{fact_id: <existing>, deduplicated: true}``.
- :func:`check_validation` runs before a validation: a fact whose text the gate flags is
  refused (409 ``validation_refused``) unless ``force`` is true, and the refusal is appended
  as ``ValidationRefused``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.api.common import async_append
from daemon.api.errors import ApiError, json_response
from daemon.api.search import RECALL
from daemon.app import PLUGINS, namespace_of, state_of
from daemon.consolidation.facts_view import embed
from daemon.consolidation.rules import DUPLICATE_COSINE, gate_flags, judge_pair, scan
from daemon.recall.query import Filters
from events.consolidation_events import FactReinforced, ValidationRefused
from events.store.base import NewEvent, StoredEvent
from events.types import FactWritten, fact_stream
from plugins.embedders.base import Embedder
from projections.consolidation import archived_ids, same_text
from projections.facts import FactRow, fact_versions_table, get_fact
from projections.search import docs_table

CANDIDATES = 10
"""Nearest current facts (by the vector index) compared with a new one."""
RECENT = 20
"""Latest facts compared too (the index may not have embedded them yet)."""

_FALLBACK: dict[str, Embedder] = {}


@dataclass(slots=True)
class Admission:
    """The gate's and dedupe's answer for one new fact."""

    fact: FactWritten
    response: web.Response | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def embedder_of(app: web.Application) -> Embedder:
    """Return the recall service's embedder (the hashed one when recall is not running)."""
    service = app.get(RECALL)
    if service is not None:
        return service.index.embedder
    if "hashed" not in _FALLBACK:
        _FALLBACK["hashed"] = app[PLUGINS].embedder("hashed")
    return _FALLBACK["hashed"]


async def find_duplicate(request: web.Request, fact: FactWritten) -> tuple[str, float] | None:
    """Return ``(existing fact id, similarity)`` of a current duplicate of ``fact``, if any.

    Exact: an indexed lookup of the normalised text's hash. Near: the nearest facts in recall's
    vector index as it stands (no refresh on the write path) and the latest facts, compared by
    the embedder's cosine and the conflict rules.
    """
    state = state_of(request)
    if state.read_engine is None:
        return None
    namespace = namespace_of(request)
    engine = await state.async_reads()
    async with engine.connect() as conn:
        for fact_id in await same_text(conn, namespace, fact.text):
            if await _current(conn, namespace, fact_id) is not None:
                return fact_id, 1.0
        service = request.app.get(RECALL)
        if service is None:
            return None
        # The vector index as it stands (no refresh on the write path): the nearest facts.
        index = service.index
        query = (await index.embedder.embed([fact.text]))[0]
        filters = Filters(namespace=namespace, scope=("facts",), include_quarantined=True)
        near = [doc for doc, cosine in index.search(query, filters, CANDIDATES) if cosine >= 0.5]
        # Plus the latest facts, which the background indexer may not have embedded yet.
        ids = [*await _fact_ids_of_docs(conn, near), *await _latest(conn, namespace)]
        candidates = []
        for ref_id in dict.fromkeys(ids):
            row = await _current(conn, namespace, ref_id)
            if row is not None:
                candidates.append(row)
    if not candidates:
        return None
    vectors = await embed(embedder_of(request.app), [fact.text, *(c.text for c in candidates)])
    sims = vectors[1:] @ vectors[0]
    best: tuple[str, float] | None = None
    for row, sim in zip(candidates, sims.tolist(), strict=True):
        verdict = judge_pair(
            fact.text,
            row.text,
            float(sim),
            duplicate_cosine=DUPLICATE_COSINE,
            triple_a=(fact.subject, fact.predicate, fact.object),
            triple_b=(row.subject, row.predicate, row.object),
        )
        if verdict.duplicate and (best is None or verdict.similarity > best[1]):
            best = (row.fact_id, verdict.similarity)
    return best


async def _latest(conn: AsyncConnection, namespace: str) -> list[str]:
    v = fact_versions_table.c
    result = await conn.execute(
        sa.select(v.fact_id)
        .where(v.namespace == namespace, v.recorded_to.is_(None), v.superseded_by.is_(None))
        .order_by(v.written_position.desc())
        .limit(RECENT)
    )
    return [str(r[0]) for r in result]


async def _fact_ids_of_docs(conn: AsyncConnection, doc_ids: list[int]) -> list[str]:
    if not doc_ids:
        return []
    d = docs_table.c
    result = await conn.execute(
        sa.select(d.doc_id, d.ref_id).where(d.doc_id.in_(doc_ids), d.kind == "fact")
    )
    by_doc = {int(r[0]): str(r[1]) for r in result}
    return [by_doc[doc] for doc in doc_ids if doc in by_doc]


async def _current(conn: AsyncConnection, namespace: str, fact_id: str) -> FactRow | None:
    """Return the fact if it is current: not superseded, forgotten or archived."""
    row = await get_fact(conn, namespace, fact_id)
    if row is None or row.forgotten or row.superseded_by is not None:
        return None
    if fact_id in await archived_ids(conn, namespace, [fact_id]):
        return None
    return row


async def admit(
    request: web.Request, body: dict[str, Any], fact: FactWritten, key: str | None
) -> Admission:
    """Run the ingest gate and write-time dedupe on a fact about to be written."""
    flags = gate_flags(fact.text, fact.provenance)
    extra: dict[str, Any] = {}
    if flags:
        fact = replace(fact, status="quarantined")
        extra["gate_flags"] = flags
    if body.get("dedupe", True) and not await _is_retry(request, fact, key):
        found = await find_duplicate(request, fact)
        if found is not None:
            existing, similarity = found
            event = FactReinforced(
                fact_id=existing,
                at=state_of(request).clock.now(),
                reason="duplicate",
                similarity=round(similarity, 6),
                duplicate_text=fact.text,
            )
            [position] = await async_append(
                request, [NewEvent(event, idempotency_key=None if key is None else f"{key}#dedupe")]
            )
            return Admission(
                fact,
                json_response(
                    {
                        "fact_id": existing,
                        "deduplicated": True,
                        "similarity": round(similarity, 6),
                        "position": position,
                    }
                ),
            )
    return Admission(fact, None, extra)


async def _is_retry(request: web.Request, fact: FactWritten, key: str | None) -> bool:
    """A retried keyed write (its fact already exists) is answered by the facts API as before."""
    if key is None:
        return False
    store = state_of(request).require_store()
    return bool(await store.read_stream(namespace_of(request), fact_stream(fact.fact_id)))


def fact_text(events: list[StoredEvent]) -> str:
    """Return the text of the fact written in ``events`` (empty if none)."""
    for stored in reversed(events):
        if isinstance(stored.event, FactWritten):
            return stored.event.text
    return ""


async def check_validation(
    request: web.Request,
    fact_id: str,
    events: list[StoredEvent],
    version: int,
    *,
    force: bool,
    by: str,
) -> None:
    """Refuse (and record) the validation of a fact the gate flags, unless forced."""
    flags = scan(fact_text(events))
    if not flags or force:
        return
    event = ValidationRefused(fact_id=fact_id, at=state_of(request).clock.now(), flags=flags, by=by)
    await async_append(
        request, [NewEvent(event)], expected_versions={fact_stream(fact_id): version}
    )
    raise ApiError(
        409,
        "validation_refused",
        f"fact {fact_id!r} matches prompt-injection patterns ({', '.join(flags)}); "
        "validate with force=true to vouch for it anyway",
        {"flags": flags},
    )
