"""Recall: run the legs, fuse them, weigh by trust and decay, expand over entities, explain.

Order of work for one request:

1. Legs, each filtered by :class:`~daemon.recall.query.Filters` *inside* its query:
   ``lexical`` (bm25 over the contextual document, :mod:`daemon.recall.lexical_leg`),
   ``vector`` (exact cosine over the in-memory index, :mod:`daemon.recall.vectors`), and
   ``entity`` when ``entity_match`` (documents mentioning an entity of the query, most
   matched entities first, :mod:`daemon.recall.entity_leg`). Each returns at most
   ``candidate_top_k``.
2. Fusion: RRF (k = 60) over the labelled legs, weights per leg when ``weighted``.
3. Post-fusion, on the whole fused pool: trust (quarantined x0.3, tool/imported/reflection
   x0.8), decay when asked, then graph expansion (facts sharing an entity with the pool's
   best ``top_k``, :mod:`daemon.recall.graph`).
4. The top ``top_k`` are returned; ``explain`` adds every leg's rank and score and each
   multiplier.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.recall.about import asked_about
from daemon.recall.documents import load_rows, raw_cursor, row_trust
from daemon.recall.entity_leg import entity_leg
from daemon.recall.fusion import Candidate, LegHit, decay_multiplier, order, rrf
from daemon.recall.graph import expand
from daemon.recall.lexical_leg import lexical_leg
from daemon.recall.lineage import resolve_lineage
from daemon.recall.query import LEGS, SearchRequest
from daemon.recall.vectors import VectorIndex
from events.clock import Clock, from_micros, to_micros
from plugins.embedders.base import Vectors
from projections.messages import conversations_table

ABOUT_WEIGHT = 1.0
"""Weight of the ``about`` leg (:mod:`daemon.recall.about`) in weighted fusion."""
OTHER_SUBJECT_FACTOR = 0.7
"""Score factor of a fact about someone else than the one the question asks about."""
ASSISTANT_FACTOR = 0.6
"""Score factor of an assistant's message for a question about the user ("what do I do for a
living?"): the assistant echoes what the user said before ("here are gyms in York") and
suggests what the user never said; the user's own words and the facts memory holds answer."""
DEFAULT_WEIGHTS: dict[str, float] = {
    "lexical": 1.0,
    "vector": 1.0,
    "entity": 1.0,
    "about": ABOUT_WEIGHT,
}
READ_YOUR_WRITES_EMBED = 64
"""New documents a refresh embeds itself (more are left to the background indexer)."""
VECTOR_FLOOR = 0.15
"""Cosine below which the vector leg adds no hit (an embedder may set its own
``similarity_floor``): below it a "match" is noise, often a negative cosine."""


def _weigh_subject(pool: dict[int, Candidate], rows: dict[int, Any], subject: str) -> None:
    """Scale the facts in ``rows`` whose subject is someone else than ``subject``, and for a
    question about the user, the assistant's messages."""
    wanted = subject.casefold()
    for doc_id, row in rows.items():
        scale = _subject_scale(row, wanted)
        if scale is not None:
            name, factor = scale
            cand = pool[doc_id]
            cand.multipliers[name] = factor
            cand.score *= factor


def _subject_scale(row: Any, wanted: str) -> tuple[str, float] | None:
    """The multiplier a row takes for a question about ``wanted``, if any."""
    if row.kind == "message":
        if row.role == "assistant" and wanted == "user":
            return "speaker", ASSISTANT_FACTOR
        return None
    if row.kind != "fact":
        return None
    theirs = orjson.loads(row.metadata_json).get("subject")
    if isinstance(theirs, str) and theirs and theirs.casefold() != wanted:
        return "subject", OTHER_SUBJECT_FACTOR
    return None


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
    role: str | None = None
    """A message's role (``user``, ``assistant``, ...); not part of the API form."""
    said_at: int | None = None
    """When what it says became so: a message's time, a fact's ``valid_from`` (micros)."""

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
            legs["lexical"] = lexical_leg(conn, req, self.index, self._submit_query)
        if req.entity_match or "entity" in req.legs:
            legs["entity"] = entity_leg(conn, req, self.index)
        about = asked_about(req.query) if "fact" in req.filters.kinds else None
        if ABOUT_WEIGHT > 0 and "lexical" in req.legs and about is not None:
            facts = dataclasses.replace(req.filters, scope=("facts",))
            asked = dataclasses.replace(req, query=about.query(), filters=facts)
            legs["about"] = lexical_leg(conn, asked, self.index, self._submit_query)
        if vector_leg is not None:
            legs["vector"] = vector_leg.result()
        if "vector" in legs:
            floor = self.vector_floor
            legs["vector"] = [(d, s) for d, s in legs["vector"] if s >= floor]
        legs = {name: legs[name] for name in LEGS if name in legs}  # one order on every path
        weights = self._weights(req)
        fused = rrf({n: [d for d, _ in hits] for n, hits in legs.items()}, weights)
        pool: dict[int, Candidate] = {d: Candidate(d, s) for d, s in fused.items()}
        for name, hits in legs.items():
            for rank, (doc_id, score) in enumerate(hits, start=1):
                if doc_id in pool:
                    pool[doc_id].legs[name] = LegHit(rank, score)
        rows = load_rows(conn, self.index, list(pool))
        self._weigh(req, pool, rows)
        if req.expand_hops > 0 and pool:
            expand(conn, req, pool, rows, self.index)
        ranked = [d for d in order({d: c.score for d, c in pool.items()}) if d in rows]
        subject = None if about is None else about.subject
        if subject is None or (OTHER_SUBJECT_FACTOR == 1.0 and ASSISTANT_FACTOR == 1.0):
            ranked = ranked[: req.top_k]
            shown = load_rows(conn, self.index, ranked, full=True)
        else:
            # A fact's subject is in its metadata, which only the full rows carry: weigh the
            # best twice top_k, enough for a fact weighed down to give its place to the next.
            ranked = ranked[: 2 * req.top_k]
            shown = load_rows(conn, self.index, ranked, full=True)
            _weigh_subject(pool, shown, subject)
            ranked = order({d: pool[d].score for d in ranked})[: req.top_k]
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

    def _submit_query(self, sql: str, params: tuple[Any, ...]) -> concurrent.futures.Future[Any]:
        """Run one read on another pooled connection in a worker thread (SQLite only)."""
        engine = self._sync_engine()
        assert engine is not None

        def run() -> list[Any]:
            with engine.connect() as conn:
                cursor = raw_cursor(conn)
                try:
                    return list(cursor.execute(sql, params).fetchall())
                finally:
                    cursor.close()

        return self._executor().submit(run)

    # -- weighing and expansion -----------------------------------------------------------

    def _weigh(self, req: SearchRequest, pool: dict[int, Candidate], rows: dict[int, Any]) -> None:
        k = req.filters.known_at
        now = req.filters.as_of if req.filters.as_of is not None else to_micros(self.clock.now())
        for doc_id, cand in pool.items():
            row = rows.get(doc_id)
            score = cand.fused
            if row is not None:
                if req.trust_weighting:
                    factor = row_trust(row, k)
                    cand.multipliers["trust"] = factor
                    score *= factor
                if req.decay_tau_days is not None:
                    strength = 2.0 * float(row.importance)
                    factor = decay_multiplier(now - row.created_at, req.decay_tau_days, strength)
                    cand.multipliers["decay"] = factor
                    score *= factor
            cand.score = score

    def _hit(self, req: SearchRequest, cand: Candidate, row: Any, weights: dict[str, float]) -> Hit:
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
            role=row.role if row.kind == "message" else None,
            said_at=row.valid_from,
        )
