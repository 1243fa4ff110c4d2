"""Graph expansion: facts sharing an entity with the pool's best ``top_k``, at most
``candidate_top_k`` per hop. ``flat`` gives each such fact half the best connected seed's score
per hop; ``ppr`` sums seed scores damped by :data:`HOP_DAMPING` per hop and divided by the
entity's document count, as one step of personalised PageRank would. Entities mentioned by
more than :data:`HUB_LIMIT` documents are not expanded through.
"""

from __future__ import annotations

import math
from typing import Any

import sqlalchemy as sa

from daemon.recall.documents import admit, load_rows, mentions, row_trust
from daemon.recall.fusion import Candidate, order
from daemon.recall.query import Filters, SearchRequest
from daemon.recall.vectors import VectorIndex
from projections.search import entities_table

HOP_DAMPING = 0.5
HUB_LIMIT = 500
"""Entities mentioned by more documents than this are hubs and not expanded through."""


def expand(
    conn: sa.Connection,
    req: SearchRequest,
    pool: dict[int, Candidate],
    rows: dict[int, Any],
    index: VectorIndex,
) -> None:
    """Add to ``pool`` the facts sharing an entity with its best ``top_k``, hop by hop."""
    seeds = order({d: c.score for d, c in pool.items()})[: req.top_k]
    frontier = {d: pool[d].score for d in seeds}
    fact_filters = Filters(**{**_filters_dict(req.filters), "scope": ("facts",)})
    seen = set(pool)
    for hop in range(1, req.expand_hops + 1):
        if not frontier:
            break
        by_entity: dict[str, list[int]] = {}
        for doc_id, key in mentions(conn, "doc_id", sorted(frontier)):
            by_entity.setdefault(key, []).append(doc_id)
        if not by_entity:
            break
        e = entities_table.c
        degrees = {
            key: int(n)
            for key, n in conn.execute(
                sa.select(e.entity_key, e.doc_count).where(
                    e.namespace == req.filters.namespace,
                    e.entity_key.in_(sorted(by_entity)),
                )
            )
        }
        keys = sorted(k for k in by_entity if 0 < degrees.get(k, 0) <= HUB_LIMIT)
        if not keys:
            break
        # Mentions by entity (index on entity_key), then the filter on just those ids: a
        # join here lets the planner walk the whole namespace.
        reach = mentions(conn, "entity_key", keys)
        allowed = admit(conn, index, sorted({d for d, _ in reach} - seen), fact_filters)
        # What one entity passes on: flat, half its best seed; ppr, its seeds' sum shared
        # among the documents mentioning it, damped per hop.
        if req.graph_scoring == "ppr":
            passed = {
                k: sum(frontier[s] for s in by_entity[k]) / degrees[k] * HOP_DAMPING**hop
                for k in keys
            }
        else:
            passed = {k: max(frontier[s] for s in by_entity[k]) * HOP_DAMPING for k in keys}
        gained: dict[int, float] = {}
        via: dict[int, set[str]] = {}
        for d, key in reach:
            if d in seen or d not in allowed:
                continue
            if req.graph_scoring == "ppr":
                gained[d] = gained.get(d, 0.0) + passed[key]
            else:
                gained[d] = max(gained.get(d, 0.0), passed[key])
            via.setdefault(d, set()).add(key)
        # Keep each hop to the best candidate_top_k (a hub-ish entity can reach many).
        best = order(gained)[: req.candidate_top_k]
        gained = {d: gained[d] for d in best}
        new_rows = load_rows(conn, index, best)
        rows.update(new_rows)
        for d, score in gained.items():
            cand = Candidate(d, 0.0)
            cand.graph = {"hop": hop, "via": sorted(via[d]), "score": score}
            row = new_rows.get(d)
            if row is not None and req.trust_weighting:
                cand.multipliers["trust"] = row_trust(row, req.filters.known_at)
            cand.score = score * math.prod(cand.multipliers.values())
            pool[d] = cand
            seen.add(d)
        frontier = gained


def _filters_dict(filters: Filters) -> dict[str, Any]:
    return {name: getattr(filters, name) for name in Filters.__dataclass_fields__}
