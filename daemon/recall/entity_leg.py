"""The entity leg: documents mentioning an entity of the query, most matched entities first."""

from __future__ import annotations

import math

import sqlalchemy as sa

from daemon.recall.documents import admit
from daemon.recall.lexical_leg import LEXICAL_PREFETCH
from daemon.recall.query import SearchRequest
from daemon.recall.vectors import VectorIndex
from projections.base import chunks
from projections.entities import canonical_key, extract_entities
from projections.search import docs_table, entities_table, mentions_table

_D = docs_table.c
_M = mentions_table.c


def entity_leg(
    conn: sa.Connection, req: SearchRequest, index: VectorIndex
) -> list[tuple[int, float]]:
    """Documents mentioning an entity of the query, scored by the entities' rarity.

    Each matched entity adds ``log(1 + N / df)`` (N: documents in the namespace, df: the
    documents mentioning it), so a rare name counts for more than one on every page.
    """
    keys = _query_entities(conn, req)
    if not keys:
        return []
    e = entities_table.c
    df = dict(
        conn.execute(
            sa.select(e.entity_key, e.doc_count).where(
                e.namespace == req.filters.namespace, e.entity_key.in_(keys)
            )
        ).all()
    )
    n = max(index.namespace_size(req.filters.namespace), max(df.values(), default=1))
    weight = sa.case(
        *((_M.entity_key == k, math.log(1.0 + n / max(1, int(df.get(k, 1))))) for k in keys),
        else_=0.0,
    )
    score = sa.func.sum(weight)
    want = req.candidate_top_k
    fetch = LEXICAL_PREFETCH * want
    # As in the lexical leg: rank the mentions alone, then filter just those ids.
    ranked = [
        (int(d), float(s))
        for d, s in conn.execute(
            sa.select(_M.doc_id, score)
            .where(_M.entity_key.in_(keys))
            .group_by(_M.doc_id)
            .order_by(score.desc(), _M.doc_id.desc())
            .limit(fetch)
        )
    ]
    allowed = admit(conn, index, [d for d, _ in ranked], req.filters)
    kept = [(d, s) for d, s in ranked if d in allowed][:want]
    if len(kept) >= want or len(ranked) < fetch:
        return kept
    query = (
        sa.select(_D.doc_id, score)
        .select_from(mentions_table.join(docs_table, _D.doc_id == _M.doc_id))
        .where(_M.entity_key.in_(keys), req.filters.where())
        .group_by(_D.doc_id)
        .order_by(score.desc(), _D.doc_id.desc())
        .limit(want)
    )
    return [(int(d), float(s)) for d, s in conn.execute(query)]


def _query_entities(conn: sa.Connection, req: SearchRequest) -> list[str]:
    """Entities of the query: extracted ones, and known entity keys its words spell."""
    keys = {e.key for e in extract_entities(req.query)}
    words = [canonical_key(w) for w in req.query.split()]
    words = [w for w in words if w]
    grams = {" ".join(words[i : i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)}
    e = entities_table.c
    candidates = sorted(keys | grams)
    known: set[str] = set()
    for part in chunks(candidates):
        result = conn.execute(
            sa.select(e.entity_key).where(
                e.namespace == req.filters.namespace, e.entity_key.in_(part)
            )
        )
        known.update(r[0] for r in result)
    return sorted(known)
