"""Recall: run the legs, fuse them, weigh by trust and decay, expand over entities, explain.

Order of work for one request:

1. Legs, each filtered by :class:`~daemon.recall.query.Filters` *inside* its query:
   ``lexical`` (FTS5 bm25 over the contextual document, own text weighted 1, neighbouring turns
   0.5: computed from in-memory postings, see :mod:`daemon.recall.lexical`, or by FTS5 itself
   for a phrase-like word, without scoring the documents that match only frequent terms when
   that provably changes nothing, see :mod:`daemon.recall.fts5`; PostgreSQL ``ts_rank`` over
   the same two weighted fields), ``vector`` (exact cosine over the in-memory index), and
   ``entity`` when ``entity_match`` (documents mentioning an entity of the query, most
   matched entities first). Each returns at most ``candidate_top_k``.
2. Fusion: RRF (k = 60) over the labelled legs, weights per leg when ``weighted``.
3. Post-fusion, on the whole fused pool: trust (quarantined x0.3, tool/imported/reflection
   x0.8), decay when asked, then graph expansion (facts sharing an entity with the pool's
   best ``top_k``, at most ``candidate_top_k`` per hop; ``flat`` gives each such fact half
   the best connected seed's score per hop, ``ppr`` sums seed scores damped by 0.5 per hop
   and divided by the entity's document count, as one step of personalised PageRank would).
4. The top ``top_k`` are returned; ``explain`` adds every leg's rank and score and each
   multiplier.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.recall import lexical as lexical_module
from daemon.recall.fts5 import fts5_row_count, pruned_scores, split_terms, term_counts
from daemon.recall.fusion import (
    LegHit,
    decay_multiplier,
    order,
    rrf,
    trust_multiplier,
)
from daemon.recall.lineage import resolve_lineage
from daemon.recall.query import (
    LEGS,
    Filters,
    SearchRequest,
    fts5_match,
    fts5_scope,
    query_terms,
    tsquery,
)
from daemon.recall.vectors import VectorIndex
from events.clock import Clock, from_micros, to_micros
from plugins.embedders.base import Vectors
from projections.base import chunks
from projections.entities import canonical_key, extract_entities
from projections.messages import conversations_table
from projections.search import PG_TS_CONFIG, docs_table, entities_table, mentions_table

_D = docs_table.c
_M = mentions_table.c
_WEIGH_COLUMNS = (
    _D.doc_id,
    _D.status,
    _D.validated_tx,
    _D.provenance,
    _D.importance,
    _D.created_at,
)
_HIT_COLUMNS = (
    *_WEIGH_COLUMNS,
    _D.kind,
    _D.ref_id,
    _D.conversation_id,
    _D.text,
    _D.metadata_json,
    _D.tags_json,
    _D.owner,
    _D.valid_from,
    _D.valid_to,
    _D.superseded_by,
    _D.name,
)

_WEIGH_ROW = collections.namedtuple("_WEIGH_ROW", [c.name for c in _WEIGH_COLUMNS])  # type: ignore[misc]
_HIT_ROW = collections.namedtuple("_HIT_ROW", [c.name for c in _HIT_COLUMNS])  # type: ignore[misc]


def bm25_sql() -> str:
    """Return the FTS5 rank expression: own text 1, neighbouring turns
    :data:`daemon.recall.lexical.LEXICAL_NEAR_WEIGHT`, scope tokens 0 (unranked)."""
    body, near, scope = lexical_module.column_weights()
    return f"bm25(search_fts, {body}, {near}, {scope})"


LEXICAL_PREFETCH = 4
DEFAULT_WEIGHTS: dict[str, float] = {"lexical": 1.0, "vector": 1.0, "entity": 1.0}
HOP_DAMPING = 0.5
READ_YOUR_WRITES_EMBED = 64
"""New documents a refresh embeds itself (more are left to the background indexer)."""
HUB_LIMIT = 500
VECTOR_FLOOR = 0.15
"""Cosine below which the vector leg adds no hit (an embedder may set its own
``similarity_floor``): below it a "match" is noise, often a negative cosine."""
"""Entities mentioned by more documents than this are hubs and not expanded through."""


@dataclass(slots=True)
class Hit:
    """One result."""

    doc_id: int
    kind: str
    id: str
    text: str
    score: float
    created_at: int
    conversation_id: str | None
    metadata: dict[str, Any]
    signals: dict[str, Any] | None = None
    author: str | None = None
    """A message's ``name`` (who said it); not part of the API form."""

    def to_json(self) -> dict[str, Any]:
        """Return the API form."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "text": self.text,
            "score": self.score,
            "created_at": from_micros(self.created_at),
            "conversation_id": self.conversation_id,
            "metadata": self.metadata,
        }
        if self.signals is not None:
            out["signals"] = self.signals
        return out


@dataclass(slots=True)
class _Candidate:
    doc_id: int
    fused: float
    legs: dict[str, LegHit] = field(default_factory=dict)
    multipliers: dict[str, float] = field(default_factory=dict)
    graph: dict[str, Any] | None = None
    score: float = 0.0


class RecallEngine:
    """Answers search requests from the search projection and the vector index."""

    def __init__(
        self,
        engine: AsyncEngine,
        index: VectorIndex,
        clock: Clock,
        projection_position: Callable[[], int] | None = None,
    ) -> None:
        self.engine = engine
        self.index = index
        self.clock = clock
        self._projection_position = projection_position
        self._refreshed_at = -1
        self._sync: sa.Engine | None = None
        self._threads: concurrent.futures.ThreadPoolExecutor | None = None
        self._forks_known: bool | None = None
        self._last_query: tuple[str, str, Vectors] | None = None

    @property
    def position_source(self) -> Callable[[], int] | None:
        """Return what tells the engine how far the projections are (None: it asks the
        tables for changes before every search)."""
        return self._projection_position

    def set_position_source(self, projection_position: Callable[[], int]) -> None:
        """Tell the engine how far the projections are (refresh only when that moves)."""
        self._projection_position = projection_position

    async def refresh(self) -> None:
        """Bring the vector index up to the projection (cheap when nothing changed)."""
        position = self._projection_position() if self._projection_position else None
        if position is not None and position == self._refreshed_at:
            return
        if position is not None and position < self._refreshed_at:
            # The projections went back (a rebuild): load the index again from the tables.
            self.index.reset()
        waiting = self.index.pending
        await self.index.refresh(self.engine)
        if waiting < self.index.pending <= READ_YOUR_WRITES_EMBED:
            # A fact written a moment ago is found by meaning too, not only once the background
            # indexer gets to it; a bulk load, or an embedder switch, is left to the indexer.
            await self.index.embed_pending(limit=READ_YOUR_WRITES_EMBED)
        if position is not None:
            self._refreshed_at = position

    async def search(self, req: SearchRequest) -> list[Hit]:
        """Run one search.

        Everything that reads SQL runs as one synchronous function: on SQLite in a worker
        thread over a plain ``sqlite3`` connection (one thread hop per search instead of one
        per statement), on PostgreSQL through ``run_sync``. On SQLite the vector leg (numpy,
        which releases the GIL) runs in another thread at the same time as the SQL legs, and
        the pruned lexical leg runs its FTS5 queries on two or three connections at once.
        """
        await self.refresh()
        legs: dict[str, list[tuple[int, float]]] = {}
        sync_engine = self._sync_engine()
        vector = None
        if "vector" in req.legs:
            vector = await self._query_vector(req.query)
        if sync_engine is not None:
            return await asyncio.to_thread(self._search_in_thread, sync_engine, req, vector)
        async with self.engine.connect() as conn:
            req = await conn.run_sync(self._within_lineage, req)
            if vector is not None:
                legs["vector"] = self.index.search(vector, req.filters, req.candidate_top_k)
            return await conn.run_sync(self._search_sync, req, legs)

    async def _query_vector(self, query: str) -> Vectors:
        """The query's embedding; the last one is kept, for the searches of one request that
        differ only in their filters (``POST /v1/context`` asks for facts, then messages)."""
        embedder = self.index.embedder
        kept = self._last_query
        if kept is not None and kept[:2] == (embedder.embedder_id, query):
            return kept[2]
        vector: Vectors = (await embedder.embed([query]))[0]
        self._last_query = (embedder.embedder_id, query, vector)
        return vector

    def _executor(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._threads is None:
            self._threads = concurrent.futures.ThreadPoolExecutor(
                max_workers=4, thread_name_prefix="memoryd-recall"
            )
        return self._threads

    def _sync_engine(self) -> sa.Engine | None:
        if self.engine.dialect.name != "sqlite":
            return None
        if self._sync is None:
            url = self.engine.url.set(drivername="sqlite")
            self._sync = sa.create_engine(
                url,
                connect_args={"check_same_thread": False},
                pool_size=4,
                max_overflow=4,
                # An error's message must not carry the search's values: users' text.
                hide_parameters=True,
            )

            @sa.event.listens_for(self._sync, "connect")
            def _on_connect(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA busy_timeout=30000")
                cursor.execute("PRAGMA query_only=ON")
                # 16 MB a connection: a search uses up to three (the parallel FTS5 queries);
                # 64 MB each added ~150 MB of RSS at 200k documents for no measurable speed.
                cursor.execute("PRAGMA cache_size=-16384")
                cursor.close()

        return self._sync

    def close(self) -> None:
        """Release the synchronous read engine and the vector threads."""
        if self._sync is not None:
            self._sync.dispose()
            self._sync = None
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        self.index.close()

    def _search_in_thread(
        self, engine: sa.Engine, req: SearchRequest, vector: Vectors | None
    ) -> list[Hit]:
        with engine.connect() as conn:
            req = self._within_lineage(conn, req)
            vector_leg = None
            if vector is not None:
                vector_leg = self._executor().submit(
                    self.index.search, vector, req.filters, req.candidate_top_k
                )
            return self._search_sync(conn, req, {}, vector_leg)

    def _within_lineage(self, conn: sa.Connection, req: SearchRequest) -> SearchRequest:
        """Return ``req`` widened to what a forked conversation shows of its ancestors."""
        if req.filters.conversation_id is None:
            return req
        if self._forks_known is None:
            # Fork lineage lives in the messages projection; a database folded without it
            # (a benchmark of the search projection alone) has no forks to follow.
            self._forks_known = sa.inspect(conn).has_table(conversations_table.name)
        if not self._forks_known:
            return req
        filters = resolve_lineage(conn, req.filters)
        return req if filters is req.filters else dataclasses.replace(req, filters=filters)

    def _search_sync(
        self,
        conn: sa.Connection,
        req: SearchRequest,
        legs: dict[str, list[tuple[int, float]]],
        vector_leg: concurrent.futures.Future[list[tuple[int, float]]] | None = None,
    ) -> list[Hit]:
        if "lexical" in req.legs:
            legs["lexical"] = self._lexical(conn, req)
        if req.entity_match or "entity" in req.legs:
            legs["entity"] = self._entity(conn, req)
        if vector_leg is not None:
            legs["vector"] = vector_leg.result()
        if "vector" in legs:
            floor = self.vector_floor
            legs["vector"] = [(d, s) for d, s in legs["vector"] if s >= floor]
        legs = {name: legs[name] for name in LEGS if name in legs}  # one order on every path
        weights = self._weights(req)
        fused = rrf({n: [d for d, _ in hits] for n, hits in legs.items()}, weights)
        pool: dict[int, _Candidate] = {d: _Candidate(d, s) for d, s in fused.items()}
        for name, hits in legs.items():
            for rank, (doc_id, score) in enumerate(hits, start=1):
                if doc_id in pool:
                    pool[doc_id].legs[name] = LegHit(rank, score)
        rows = self._rows(conn, list(pool))
        self._weigh(req, pool, rows)
        if req.expand_hops > 0 and pool:
            self._expand(conn, req, pool, rows)
        ranked = [d for d in order({d: c.score for d, c in pool.items()}) if d in rows]
        ranked = ranked[: req.top_k]
        shown = self._rows(conn, ranked, full=True)
        return [self._hit(req, pool[d], shown[d], weights) for d in ranked if d in shown]

    @property
    def vector_floor(self) -> float:
        """Return the similarity floor of the vector leg (the embedder's, or the default)."""
        return float(getattr(self.index.embedder, "similarity_floor", VECTOR_FLOOR))

    def _weights(self, req: SearchRequest) -> dict[str, float]:
        if req.fusion.strategy == "rrf":
            return {name: 1.0 for name in DEFAULT_WEIGHTS}
        vector = float(getattr(self.index.embedder, "fusion_weight", DEFAULT_WEIGHTS["vector"]))
        return {**DEFAULT_WEIGHTS, "vector": vector, **req.fusion.weights}

    # -- legs -----------------------------------------------------------------------------

    def _lexical(self, conn: sa.Connection, req: SearchRequest) -> list[tuple[int, float]]:
        terms = query_terms(req.query)
        if not terms:
            return []
        index = self.index
        if index.lexical is not None:  # SQLite: FTS5's bm25 from the postings in memory
            mask = index.mask(req.filters)
            found = index.lexical.search(terms, mask, index.doc_id, req.candidate_top_k)
            if found is not None:
                return found
        if conn.dialect.name == "sqlite":
            return self._lexical_fts5(conn, req, terms)
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

    def _lexical_fts5(
        self, conn: sa.Connection, req: SearchRequest, terms: list[str]
    ) -> list[tuple[int, float]]:
        """bm25 over FTS5, filtered exactly.

        When some query terms are frequent, :meth:`_lexical_pruned` first tries to get the
        result without scoring the documents that match only those. Otherwise: the best
        ``LEXICAL_PREFETCH x candidate_top_k`` matches inside the namespace / kind /
        conversation scope (an FTS5-only query, no join), then the full filter on just those
        ids: if enough pass, they are exactly the first rows the filtered query would give
        (same order, same tie-break). Otherwise the filtered join query runs.
        """
        index = self.index
        ns_size = index.namespace_size(req.filters.namespace)
        scope = fts5_scope(req.filters, namespace_token=2 * ns_size < index.live_count())
        want = req.candidate_top_k
        fetch = LEXICAL_PREFETCH * want
        cursor = _raw_cursor(conn)
        try:
            split = None
            if len(terms) > 1:
                split = split_terms(terms, term_counts(cursor, terms), fts5_row_count(cursor))
            if split is not None:
                pruned = self._lexical_pruned(conn, cursor, req, scope, split)
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
        allowed = self._admit(conn, [d for d, _ in ranked], req.filters)
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

    def _lexical_pruned(
        self,
        conn: sa.Connection,
        cursor: Any,
        req: SearchRequest,
        scope: str,
        split: tuple[list[str], list[str], float],
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
            self._submit_query,
            self.index.halfway_doc(),
        )
        allowed = self._admit(conn, list(scores), req.filters)
        kept = [(d, s) for d, s in scores.items() if d in allowed]
        kept.sort(key=lambda hit: (-hit[1], -hit[0]))
        kept = kept[: req.candidate_top_k]
        if len(kept) < req.candidate_top_k or kept[-1][1] <= max(bound, rest):
            return None
        return kept

    def _submit_query(self, sql: str, params: tuple[Any, ...]) -> concurrent.futures.Future[Any]:
        """Run one read on another pooled connection in a worker thread (SQLite only)."""
        engine = self._sync_engine()
        assert engine is not None

        def run() -> list[Any]:
            with engine.connect() as conn:
                cursor = _raw_cursor(conn)
                try:
                    return list(cursor.execute(sql, params).fetchall())
                finally:
                    cursor.close()

        return self._executor().submit(run)

    def _admit(self, conn: sa.Connection, doc_ids: list[int], filters: Filters) -> set[int]:
        """Return which of ``doc_ids`` pass ``filters``: the in-memory index decides for the
        documents it holds (the same rules), the table for any folded since its refresh."""
        allowed, unknown = self.index.passing(doc_ids, filters)
        for part in chunks(unknown):
            allowed.update(
                int(d)
                for (d,) in conn.execute(
                    sa.select(_D.doc_id).where(_D.doc_id.in_(part), filters.where())
                )
            )
        return allowed

    def _entity(self, conn: sa.Connection, req: SearchRequest) -> list[tuple[int, float]]:
        """Documents mentioning an entity of the query, scored by the entities' rarity.

        Each matched entity adds ``log(1 + N / df)`` (N: documents in the namespace, df: the
        documents mentioning it), so a rare name counts for more than one on every page.
        """
        keys = self._query_entities(conn, req)
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
        n = max(self.index.namespace_size(req.filters.namespace), max(df.values(), default=1))
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
        allowed = self._admit(conn, [d for d, _ in ranked], req.filters)
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

    def _query_entities(self, conn: sa.Connection, req: SearchRequest) -> list[str]:
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

    # -- weighing and expansion -----------------------------------------------------------

    def _rows(
        self, conn: sa.Connection, doc_ids: list[int], *, full: bool = False
    ) -> dict[int, Any]:
        """Load documents: the columns weighing needs, or (``full``) everything a hit shows.

        Weighing reads the in-memory index for the documents it holds (refreshed before
        every search) and the table for the rest."""
        rows: dict[int, Any] = {}
        if not full:
            held, doc_ids = self.index.weigh_rows(doc_ids)
            rows.update((row[0], _WEIGH_ROW._make(row)) for row in held)
            if not doc_ids:
                return rows
        columns = _HIT_COLUMNS if full else _WEIGH_COLUMNS
        if conn.dialect.name == "sqlite":
            # The driver's own cursor: SQLAlchemy's IN expansion and row wrapping cost more
            # than the lookups themselves.
            row_type = _HIT_ROW if full else _WEIGH_ROW
            cursor = _raw_cursor(conn)
            try:
                for part in chunks(sorted(doc_ids)):
                    marks = ", ".join("?" * len(part))
                    cursor.execute(
                        f"SELECT {', '.join(row_type._fields)} FROM search_docs "
                        f"WHERE doc_id IN ({marks})",
                        part,
                    )
                    rows.update({int(r[0]): row_type._make(r) for r in cursor})
            finally:
                cursor.close()
            return rows
        for part in chunks(sorted(doc_ids)):
            result = conn.execute(sa.select(*columns).where(_D.doc_id.in_(part)))
            rows.update({int(r.doc_id): r for r in result})
        return rows

    def _weigh(self, req: SearchRequest, pool: dict[int, _Candidate], rows: dict[int, Any]) -> None:
        k = req.filters.known_at
        now = req.filters.as_of if req.filters.as_of is not None else to_micros(self.clock.now())
        for doc_id, cand in pool.items():
            row = rows.get(doc_id)
            score = cand.fused
            if row is not None:
                if req.trust_weighting:
                    validated = row.validated_tx is not None and (
                        k is None or row.validated_tx <= k
                    )
                    quarantined = row.status == "quarantined" and not validated
                    factor = trust_multiplier(quarantined, row.provenance)
                    cand.multipliers["trust"] = factor
                    score *= factor
                if req.decay_tau_days is not None:
                    strength = 2.0 * float(row.importance)
                    factor = decay_multiplier(now - row.created_at, req.decay_tau_days, strength)
                    cand.multipliers["decay"] = factor
                    score *= factor
            cand.score = score

    def _expand(
        self,
        conn: sa.Connection,
        req: SearchRequest,
        pool: dict[int, _Candidate],
        rows: dict[int, Any],
    ) -> None:
        seeds = order({d: c.score for d, c in pool.items()})[: req.top_k]
        frontier = {d: pool[d].score for d in seeds}
        fact_filters = Filters(**{**_filters_dict(req.filters), "scope": ("facts",)})
        seen = set(pool)
        for hop in range(1, req.expand_hops + 1):
            if not frontier:
                break
            by_entity: dict[str, list[int]] = {}
            for doc_id, key in _mentions(conn, "doc_id", sorted(frontier)):
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
            reach = _mentions(conn, "entity_key", keys)
            allowed = self._admit(conn, sorted({d for d, _ in reach} - seen), fact_filters)
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
            new_rows = self._rows(conn, best)
            rows.update(new_rows)
            for d, score in gained.items():
                cand = _Candidate(d, 0.0)
                cand.graph = {"hop": hop, "via": sorted(via[d]), "score": score}
                row = new_rows.get(d)
                if row is not None and req.trust_weighting:
                    cand.multipliers["trust"] = _trust(row, req.filters.known_at)
                cand.score = score * math.prod(cand.multipliers.values())
                pool[d] = cand
                seen.add(d)
            frontier = gained

    def _hit(
        self, req: SearchRequest, cand: _Candidate, row: Any, weights: dict[str, float]
    ) -> Hit:
        meta: dict[str, Any] = orjson.loads(row.metadata_json)
        if row.kind == "fact":
            meta = {
                **meta,
                "tags": orjson.loads(row.tags_json),
                "owner": row.owner,
                "provenance": row.provenance,
                "status": row.status,
                "valid_from": from_micros(row.valid_from),
                "valid_to": None if row.valid_to is None else from_micros(row.valid_to),
                "superseded_by": row.superseded_by,
            }
        signals: dict[str, Any] | None = None
        if req.explain:
            signals = {
                "legs": {
                    name: {"rank": hit.rank, "score": hit.score, "weight": weights.get(name, 1.0)}
                    for name, hit in sorted(cand.legs.items())
                },
                "fused": cand.fused,
                "multipliers": dict(sorted(cand.multipliers.items())),
                "graph": cand.graph,
                "final": cand.score,
            }
        return Hit(
            doc_id=cand.doc_id,
            kind=row.kind,
            id=row.ref_id,
            text=row.text,
            score=cand.score,
            created_at=row.created_at,
            conversation_id=row.conversation_id if row.kind == "message" else None,
            metadata=meta,
            signals=signals,
            author=row.name if row.kind == "message" else None,
        )


def _trust(row: Any, known_at: int | None) -> float:
    """Return a row's trust factor, quarantine judged as known at ``known_at``."""
    validated = row.validated_tx is not None and (known_at is None or row.validated_tx <= known_at)
    return trust_multiplier(row.status == "quarantined" and not validated, row.provenance)


def _mentions(conn: sa.Connection, by: str, values: list[Any]) -> list[tuple[int, str]]:
    """Return the ``(doc_id, entity_key)`` mentions whose column ``by`` is one of ``values``."""
    out: list[tuple[int, str]] = []
    if conn.dialect.name != "sqlite":
        for part in chunks(values):
            result = conn.execute(sa.select(_M.doc_id, _M.entity_key).where(_M[by].in_(part)))
            out.extend((int(d), str(k)) for d, k in result)
        return out
    cursor = _raw_cursor(conn)
    try:
        for part in chunks(values):
            marks = ", ".join("?" * len(part))
            cursor.execute(
                f"SELECT doc_id, entity_key FROM search_mentions WHERE {by} IN ({marks})",
                part,
            )
            out.extend(cursor.fetchall())
    finally:
        cursor.close()
    return out


def _raw_cursor(conn: sa.Connection) -> Any:
    """Return a DBAPI cursor of the connection (rows as plain tuples, no result wrapping)."""
    return conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]


def _filters_dict(filters: Filters) -> dict[str, Any]:
    return {name: getattr(filters, name) for name in Filters.__dataclass_fields__}
