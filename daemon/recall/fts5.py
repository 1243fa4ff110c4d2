"""The SQLite lexical leg without scoring every match: FTS5 bm25 with MaxScore-style pruning.

FTS5 computes ``bm25`` for every row an OR query matches before it sorts, so a query with one
common term (a first name in 15% of the documents) costs as much as scoring 15% of the
index. bm25 is a sum over the query's phrases, and one phrase adds at most
``idf * (k1 + 1)`` (``k1 = 1.2``; the tf factor ``f (k1 + 1) / (f + k1 norm)`` stays below
``k1 + 1`` because ``norm >= 1 - b > 0``), where FTS5's ``idf = log((N - n + 0.5) / (n + 0.5))``
(at least 1e-6) with ``N`` the index's rows and ``n`` the rows matching the phrase alone.

So the frequent terms are *non-essential*: the documents matching only them score at most
the sum of their bounds. The leg takes the best documents on the essential (rarer) terms
alone (query 1) and the best matching a non-essential *and* an essential term (query 2:
``(non-essential) AND (essential)``, whose bm25 is the full query's sum of the same
per-phrase shares, added in the same order), filters them, and keeps the result only if its
last kept score beats that bound and the cut-off scores of both lists: then no document left
out can enter it, and the result is the full query's, bit for bit. Otherwise the caller runs
the full query (its phrases in the same order).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

BM25_K1 = 1.2
"""FTS5's built-in bm25 constant k1."""
PRUNE_FRACTION = 0.02
"""Only a term matching more than this fraction of the index's rows may be non-essential."""
PRUNE_BOUND = 6.0
"""The most the non-essential terms may add together (bm25 units)."""


def fts5_row_count(cursor: sqlite3.Cursor) -> int:
    """Return FTS5's own row count N (the averages record, as ``bm25`` reads it)."""
    found = cursor.execute("SELECT block FROM search_fts_data WHERE id = 1").fetchone()
    if found is None or not found[0]:
        return 0
    return _varint(bytes(found[0]))


def _varint(data: bytes) -> int:
    """Decode the SQLite varint at the start of ``data`` (up to 9 bytes, big-endian)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return value


def phrase_bound(rows: int, matching: int) -> float:
    """Return the most one phrase matching ``matching`` of ``rows`` rows adds to bm25."""
    idf = math.log((rows - matching + 0.5) / (matching + 0.5)) if rows else 0.0
    return (BM25_K1 + 1.0) * max(idf, 1e-6)


def quote(term: str) -> str:
    """Return one FTS5 phrase for a term."""
    return '"' + term.replace('"', '""') + '"'


def any_of(terms: Sequence[str]) -> str:
    """Return an FTS5 expression matching any of the terms."""
    return " OR ".join(quote(t) for t in terms)


def term_counts(cursor: sqlite3.Cursor, terms: Sequence[str]) -> list[int]:
    """Return how many rows each term matches alone (what bm25's idf counts)."""
    sql = "SELECT count(*) FROM search_fts WHERE search_fts MATCH ?"
    return [int(cursor.execute(sql, (quote(t),)).fetchone()[0]) for t in terms]


def split_terms(
    terms: Sequence[str], counts: Sequence[int], rows: int
) -> tuple[list[str], list[str], float] | None:
    """Split terms into essential ones (in query order) and non-essential ones (most frequent
    first), plus the latter's bound; None when pruning has nothing to skip.

    The most frequent terms are non-essential while their bounds add up to at most
    :data:`PRUNE_BOUND` (a larger bound would rarely be beaten by the kept results, and the
    caller would run the full query after all); at least one term stays essential.
    """
    if len(terms) < 2:
        return None
    by_count = sorted(zip(counts, terms, strict=True), key=lambda c: -c[0])
    frequent: list[str] = []
    bound = 0.0
    for n, term in by_count[:-1]:
        share = phrase_bound(rows, n)
        if n <= PRUNE_FRACTION * rows or bound + share > PRUNE_BOUND:
            break
        frequent.append(term)
        bound += share
    if not frequent:
        return None
    return [t for t in terms if t not in frequent], frequent, bound


Rows = list[tuple[int, float]]


def pruned_scores(
    cursor: sqlite3.Cursor,
    scope: str,
    essential: Sequence[str],
    frequent: Sequence[str],
    rank: str,
    fetch: int,
    elsewhere: Callable[[str, tuple[Any, ...]], Future[Rows]] | None = None,
    split_at: int | None = None,
) -> tuple[dict[int, float], float]:
    """Return the full query's bm25 (negated: larger is better) of the ``fetch`` documents
    that score best on the essential terms alone and of the ``fetch`` best that match both
    an essential and a frequent term, plus a bound on the score of any other document that
    matches an essential term (0 when there is none).

    ``elsewhere`` runs queries on another connection while ``cursor`` runs one (SQLite
    releases the GIL while it works): the second query, and with ``split_at`` the rowids
    below it of the first (a rowid range is a seek in FTS5; the scores do not depend on it).
    """
    prefix = f"{scope} AND " if scope else ""
    select = f"SELECT rowid, -{rank} AS s FROM search_fts WHERE search_fts MATCH ?"
    # Frequent phrases first, as in the full query the caller falls back to: bm25 then adds
    # the same per-phrase shares in the same order (a document's frequent shares are 0.0 in
    # the essential-only query), so the scores are bit-identical to the full query's.
    both = f"{prefix}({any_of(frequent)}) AND ({any_of(essential)})"
    essential_only = f"{prefix}({any_of(essential)})"
    queries: list[tuple[str, tuple[Any, ...]]] = [
        (f"{select} ORDER BY s DESC LIMIT ?", (both, fetch))
    ]
    if split_at is None:
        queries.append((f"{select} ORDER BY s DESC LIMIT ?", (essential_only, fetch)))
    else:
        for side in ("<", ">="):
            queries.append(
                (
                    f"{select} AND rowid {side} ? ORDER BY s DESC LIMIT ?",
                    (essential_only, split_at, fetch),
                )
            )
    if elsewhere is None:
        results = [cursor.execute(*q).fetchall() for q in queries]
    else:
        pending = [elsewhere(*q) for q in queries[:-1]]
        last = cursor.execute(*queries[-1]).fetchall()
        results = [p.result() for p in pending] + [last]
    # A document left out scores its essential share (no frequent term) or matches both and
    # is past the first list: at most the last score of the list it was cut from.
    rest = max((rows[-1][1] for rows in results if len(rows) == fetch), default=0.0)
    scores: dict[int, float] = {}
    for rows in results[::-1]:  # a full score (both terms) replaces an essential share
        scores.update((int(d), float(s)) for d, s in rows)
    return scores, rest
