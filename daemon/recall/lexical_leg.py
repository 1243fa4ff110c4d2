"""The lexical leg: bm25 over the contextual document (own text weighted 1, neighbouring
turns :data:`daemon.recall.lexical.LEXICAL_NEAR_WEIGHT`), filtered exactly.

On SQLite it is computed from the in-memory postings (:mod:`daemon.recall.lexical`) or, for a
phrase-like word, by FTS5 itself, without scoring the documents that match only frequent
terms when that provably changes nothing (:mod:`daemon.recall.fts5`); on PostgreSQL it is
``ts_rank`` over the same two weighted fields.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from daemon.recall import lexical as lexical_module
from daemon.recall.documents import admit, raw_cursor
from daemon.recall.fts5 import fts5_row_count, pruned_scores, split_terms, term_counts
from daemon.recall.query import SearchRequest, fts5_match, fts5_scope, query_terms, tsquery
from daemon.recall.vectors import VectorIndex
from projections.search import PG_TS_CONFIG, docs_table

_D = docs_table.c

LEXICAL_PREFETCH = 4
"""Matches fetched per wanted one before the exact filter (a leg filters only those ids)."""

SubmitQuery = Callable[[str, tuple[Any, ...]], concurrent.futures.Future[Any]]
"""Runs one read on another pooled connection in a worker thread (SQLite only)."""


def bm25_sql() -> str:
    """Return the FTS5 rank expression: own text 1, neighbouring turns
    :data:`daemon.recall.lexical.LEXICAL_NEAR_WEIGHT`, scope tokens 0 (unranked)."""
    body, near, scope = lexical_module.column_weights()
    return f"bm25(search_fts, {body}, {near}, {scope})"


def lexical_leg(
    conn: sa.Connection, req: SearchRequest, index: VectorIndex, submit: SubmitQuery
) -> list[tuple[int, float]]:
    """The best ``candidate_top_k`` documents by bm25 (SQLite) or ``ts_rank`` (PostgreSQL)."""
    terms = query_terms(req.query)
    if not terms:
        return []
    if index.lexical is not None:  # SQLite: FTS5's bm25 from the postings in memory
        mask = index.mask(req.filters)
        found = index.lexical.search(terms, mask, index.doc_id, req.candidate_top_k)
        if found is not None:
            return found
    if conn.dialect.name == "sqlite":
        return _fts5(conn, req, terms, index, submit)
    where = req.filters.where()
    text = tsquery(terms)
    if not text:
        return []
    tsq = sa.func.to_tsquery(PG_TS_CONFIG, text)
    tsv: sa.ColumnElement[Any] = sa.literal_column("search_docs.tsv")
    weights: sa.ColumnElement[Any] = sa.literal_column(
        f"'{{0.1, 0.2, {lexical_module.LEXICAL_NEAR_WEIGHT}, 1.0}}'::float4[]"
    )
    pg_rank: sa.ColumnElement[Any] = sa.func.ts_rank(weights, tsv, tsq)
    query = (
        sa.select(_D.doc_id, pg_rank)
        .where(tsv.op("@@")(tsq), where)
        .order_by(pg_rank.desc(), _D.doc_id.desc())
        .limit(req.candidate_top_k)
    )
    result = conn.execute(query)
    return [(int(d), float(s)) for d, s in result]


def _fts5(
    conn: sa.Connection,
    req: SearchRequest,
    terms: list[str],
    index: VectorIndex,
    submit: SubmitQuery,
) -> list[tuple[int, float]]:
    """bm25 over FTS5, filtered exactly.

    When some query terms are frequent, :func:`_pruned` first tries to get the
    result without scoring the documents that match only those. Otherwise: the best
    ``LEXICAL_PREFETCH x candidate_top_k`` matches inside the namespace / kind /
    conversation scope (an FTS5-only query, no join), then the full filter on just those
    ids: if enough pass, they are exactly the first rows the filtered query would give
    (same order, same tie-break). Otherwise the filtered join query runs.
    """
    ns_size = index.namespace_size(req.filters.namespace)
    scope = fts5_scope(req.filters, namespace_token=2 * ns_size < index.live_count())
    want = req.candidate_top_k
    fetch = LEXICAL_PREFETCH * want
    cursor = raw_cursor(conn)
    try:
        split = None
        if len(terms) > 1:
            split = split_terms(terms, term_counts(cursor, terms), fts5_row_count(cursor))
        if split is not None:
            pruned = _pruned(conn, cursor, req, scope, split, index, submit)
            if pruned is not None:
                return pruned
            # Phrases in the pruned queries' order: bm25 adds them up in the same order.
            terms = split[1] + split[0]
        match = f"{scope} AND ({fts5_match(terms)})" if scope else fts5_match(terms)
        ranked = cursor.execute(
            f"SELECT rowid, {bm25_sql()} AS r FROM search_fts WHERE search_fts MATCH ? "
            "ORDER BY r, rowid DESC LIMIT ?",
            (match, fetch),
        ).fetchall()
    finally:
        cursor.close()
    allowed = admit(conn, index, [d for d, _ in ranked], req.filters)
    kept = [(int(d), -float(s)) for d, s in ranked if d in allowed][:want]
    if len(kept) >= want or len(ranked) < fetch:
        return kept
    fts = sa.table("search_fts", sa.column("rowid"))
    rank: sa.ColumnElement[Any] = sa.literal_column(bm25_sql())
    query = (
        sa.select(_D.doc_id, rank)
        .select_from(fts.join(docs_table, _D.doc_id == fts.c.rowid))
        .where(sa.text("search_fts MATCH :match"), req.filters.where())
        .order_by(rank, _D.doc_id.desc())
        .limit(want)
    )
    return [(int(d), -float(s)) for d, s in conn.execute(query, {"match": match})]


def _pruned(
    conn: sa.Connection,
    cursor: Any,
    req: SearchRequest,
    scope: str,
    split: tuple[list[str], list[str], float],
    index: VectorIndex,
    submit: SubmitQuery,
) -> list[tuple[int, float]] | None:
    """The full query's best filtered matches without scoring the documents that match
    only frequent terms (see :mod:`daemon.recall.fts5`), or None when that cannot be
    shown to give the same result."""
    essential, frequent, bound = split
    fetch = LEXICAL_PREFETCH * req.candidate_top_k
    scores, rest = pruned_scores(
        cursor,
        scope,
        essential,
        frequent,
        bm25_sql(),
        fetch,
        submit,
        index.halfway_doc(),
    )
    allowed = admit(conn, index, list(scores), req.filters)
    kept = [(d, s) for d, s in scores.items() if d in allowed]
    kept.sort(key=lambda hit: (-hit[1], -hit[0]))
    kept = kept[: req.candidate_top_k]
    if len(kept) < req.candidate_top_k or kept[-1][1] <= max(bound, rest):
        return None
    return kept
