"""What consolidation reads about facts: the current ones with their consolidation state, and
the versions of their streams that a plan is based on.

A fact's *version* for a plan is the stream version of the last event in ``fact:<id>`` that
changes the fact (:data:`events.consolidation_events.SUBSTANTIVE_FACT_EVENTS`); reinforcements,
links and categories do not make a plan stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from events.consolidation_events import SUBSTANTIVE_FACT_EVENTS
from events.store.base import EventStore, StoredEvent
from events.types import fact_stream
from plugins.embedders.base import Embedder, Vectors
from projections.consolidation import FactState, fact_states
from projections.facts import FactRow, query_facts

MAX_FACTS = 100_000
"""Most current facts one consolidation pass looks at."""


@dataclass(frozen=True, slots=True)
class FactView:
    """A current fact and what consolidation knows about it."""

    row: FactRow
    state: FactState

    @property
    def fact_id(self) -> str:
        return self.row.fact_id


def substantive_version(events: Sequence[StoredEvent]) -> int:
    """Return the stream version of the last event that changed the fact (0: none)."""
    for stored in reversed(events):
        if stored.event.event_type in SUBSTANTIVE_FACT_EVENTS:
            return stored.stream_version
    return 0


async def stream_versions(
    store: EventStore, namespace: str, fact_ids: Iterable[str]
) -> dict[str, tuple[int, int, list[StoredEvent]]]:
    """Return ``fact id -> (substantive version, stream version, events)``."""
    out: dict[str, tuple[int, int, list[StoredEvent]]] = {}
    for fact_id in sorted(set(fact_ids)):
        events = await store.read_stream(namespace, fact_stream(fact_id))
        version = events[-1].stream_version if events else 0
        out[fact_id] = (substantive_version(events), version, events)
    return out


async def current_facts(
    conn: AsyncConnection, namespace: str, *, include_archived: bool = False
) -> list[FactView]:
    """Return the current facts (active and quarantined, not superseded, not forgotten)."""
    rows = await query_facts(
        conn, namespace, include_quarantined=True, include_archived=True, limit=MAX_FACTS
    )
    states = await fact_states(conn, namespace)
    out = []
    for row in rows:
        state = states.get(row.fact_id) or FactState(fact_id=row.fact_id)
        if state.archived and not include_archived:
            continue
        out.append(FactView(row, state))
    return out


async def embed(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Embed ``texts`` (an empty list gives a ``(0, dim)`` array)."""
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return await embedder.embed(list(texts))


def similar_pairs(
    vectors: Vectors, threshold: float, block: int = 512
) -> list[tuple[int, int, float]]:
    """Return ``(i, j, cosine)`` for every pair ``i < j`` at or above ``threshold``."""
    n = vectors.shape[0]
    out: list[tuple[int, int, float]] = []
    for start in range(0, n, block):
        sims = vectors[start : start + block] @ vectors.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if i < c:
                out.append((i, c, float(sims[r, c])))
    return out
