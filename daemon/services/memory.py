"""Build a :class:`MemoryWriter` from the running daemon: its store, its projections, recall's
vector index (for facts written before claims were recorded) and, with an ``[llm]`` provider
and ``[memory] reconcile_with_model``, a model judge within the provider's daily budget."""

from __future__ import annotations

import sqlalchemy as sa
from aiohttp import web

from daemon.api.keys import RECALL, RETROSPECTIVE, STATE
from daemon.config import MemoryConfig
from daemon.memory.judge import ModelJudge
from daemon.memory.reconcile import Policy
from daemon.memory.writes import MemoryWriter, NearFn
from daemon.recall.query import Filters
from projections.search import docs_table

NEAR = 10
"""Nearest current facts (by the vector index) compared with a new one."""
NEAR_FLOOR = 0.5


def policy_of(config: MemoryConfig) -> Policy:
    """The reconciliation policy ``[memory]`` describes."""
    other = config.update_threshold_other
    return Policy(
        apply_at={
            "user": config.update_threshold_user,
            "extraction": config.update_threshold_extraction,
            "reflection": other,
            "tool": other,
            "imported": other,
        }
    )


def writer_for(app: web.Application) -> MemoryWriter:
    """Return a writer for the app as it is configured now (reloads take effect per call)."""
    state = app[STATE]
    config = state.settings.memory
    judge = None
    holder = app.get(RETROSPECTIVE)
    service = None if holder is None else holder.service
    if config.reconcile_with_model and service is not None and service.uses_model:
        judge = ModelJudge(service.provider, max_tokens=400)
    recall = app.get(RECALL)
    near: NearFn | None = None
    if recall is not None:
        index, reads = recall.index, state.async_reads

        async def near_facts(namespace: str, text: str) -> list[tuple[str, float]]:
            # The index as it stands (no refresh on the write path): nearest facts.
            query = (await index.embedder.embed([text]))[0]
            filters = Filters(namespace=namespace, scope=("facts",), include_quarantined=True)
            found = [(d, c) for d, c in index.search(query, filters, NEAR) if c >= NEAR_FLOOR]
            if not found:
                return []
            engine = await reads()
            d = docs_table.c
            async with engine.connect() as conn:
                rows = await conn.execute(
                    sa.select(d.doc_id, d.ref_id).where(
                        d.doc_id.in_([doc for doc, _ in found]), d.kind == "fact"
                    )
                )
                refs = {int(r[0]): str(r[1]) for r in rows}
            return [(refs[doc], float(c)) for doc, c in found if doc in refs]

        near = near_facts
    return MemoryWriter(
        state.async_reads,
        state.require_store(),
        policy=policy_of(config),
        near=near,
        judge=judge,
        now=state.clock.now,
    )
