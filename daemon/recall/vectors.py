"""The in-memory vector index and the indexer that fills it.

The vector index is built from the search projection (``search_docs``, followed by
``updated_position``) plus the embedding cache (:mod:`daemon.recall.embedding_cache`);
documents whose vector is not cached yet are queued and embedded in the background by
:meth:`VectorIndex.run_indexer`. Switching the embedder (:meth:`VectorIndex.set_embedder`)
re-embeds everything in the background; :attr:`VectorIndex.progress` tells how far it is.

The index keeps one row per document with the filter columns as numpy arrays
(:mod:`daemon.recall.doc_columns`), so the vector leg applies exactly the filters of
:class:`daemon.recall.query.Filters` before it ranks. The vectors are stored dimension-major
(``by_dim[dimension, row]``) and scanned exactly (:mod:`daemon.recall.vector_scan`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from daemon.recall.doc_columns import DocColumns
from daemon.recall.embedding_cache import EmbeddingCache
from daemon.recall.lexical import LexicalDoc, LexicalIndex
from daemon.recall.query import Filters
from daemon.recall.temporal import BoolArray
from daemon.recall.vector_scan import VectorScan
from events.tasks import raise_if_cancelling
from plugins.embedders.base import Embedder, Vectors
from projections.base import chunks
from projections.search import docs_table, embed_text, scope_tokens

EMBED_BATCH = 256
CHANGED_ROWS_READ = 20_000
"""Changed documents a refresh reads per query."""

_D = docs_table.c

_SYNC_COLUMNS = (
    _D.doc_id,
    _D.namespace,
    _D.kind,
    _D.conversation_id,
    _D.name,
    _D.text,
    _D.live,
    _D.known_from,
    _D.forgotten_tx,
    _D.superseded_tx,
    _D.superseded_valid_to,
    _D.valid_from,
    _D.valid_to,
    _D.validated_tx,
    _D.status,
    _D.owner,
    _D.tags_json,
    _D.content_hash,
    _D.updated_position,
    _D.provenance,
    _D.importance,
    _D.created_at,
)
_LEXICAL_COLUMNS = (_D.body, _D.near)
LEXICAL_IN_THREAD = 1000
"""Changed rows from which a refresh tokenizes in a worker thread (the loop stays free), in
parts of this many."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How many live documents have a vector from the current embedder."""

    embedder_id: str
    embedded: int
    total: int

    @property
    def done(self) -> bool:
        """Return True when every live document has its vector."""
        return self.embedded >= self.total


class VectorIndex:
    """Every live document's filter columns and vector, in memory."""

    def __init__(
        self,
        embedder: Embedder,
        cache: EmbeddingCache,
        capacity: int = 1024,
        lexical: LexicalIndex | None = None,
    ) -> None:
        self.embedder = embedder
        self.cache = cache
        self.lexical = lexical
        """The in-memory FTS5 postings (SQLite), kept on the same slots and refreshes."""
        self.position = 0
        self.columns = DocColumns(capacity)
        self.scan = VectorScan()
        self.has_vec: BoolArray = np.zeros(capacity, dtype=np.bool_)
        self.by_dim: npt.NDArray[np.float32] = np.zeros((embedder.dim, capacity), np.float32)
        self._hashes: list[str] = []
        self._pending: dict[int, str] = {}
        self._wake = asyncio.Event()
        self._dropped: set[str] = set()
        self.failures = 0
        self._lock = asyncio.Lock()
        self._vector_writes = 0
        """Bumped after every write of vectors (the scores of a kept scan are then stale)."""

    # -- storage --------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Return how many slots are in use."""
        return self.columns.size

    @property
    def doc_id(self) -> npt.NDArray[np.int64]:
        """Return each slot's document id."""
        return self.columns.doc_id

    def _alloc(self, capacity: int) -> None:
        self.columns.alloc(capacity)
        self._fit_vectors()

    def _fit_vectors(self) -> None:
        """Grow the vector arrays to the columns' capacity (replaced, not resized: a search
        thread holding the old ones reads a consistent array)."""
        capacity = self.columns.capacity
        if self.by_dim.shape[1] == capacity:
            return
        has_vec = np.zeros(capacity, dtype=np.bool_)
        has_vec[: self.has_vec.shape[0]] = self.has_vec
        by_dim = np.zeros((self.embedder.dim, capacity), dtype=np.float32)
        by_dim[:, : self.by_dim.shape[1]] = self.by_dim
        self.has_vec = has_vec
        self.by_dim = by_dim

    def _slot(self, doc_id: int) -> int:
        slot = self.columns.slot(doc_id)
        self._fit_vectors()
        if slot == len(self._hashes):
            self._hashes.append("")
        return slot

    def _set_row(self, row: Any) -> str | None:
        """Store one document's columns; return the text to embed if its vector is stale."""
        slot = self._slot(int(row.doc_id))
        self.columns.store(row)
        if not row.live:
            self.has_vec[slot] = False
            self._pending.pop(slot, None)
            if self._hashes[slot]:
                self._dropped.add(self._hashes[slot])
            self._hashes[slot] = ""
            return None
        if self._hashes[slot] == row.content_hash and (self.has_vec[slot] or slot in self._pending):
            return None
        self._hashes[slot] = row.content_hash
        self.has_vec[slot] = False
        return str(embed_text(row.name, row.text))

    # -- sync with the projection ----------------------------------------------------------

    async def refresh(self, engine: AsyncEngine) -> int:
        """Load documents changed since the last refresh; return how many changed."""
        async with self._lock:
            changed = 0
            first = True
            while True:
                async with engine.connect() as conn:
                    if first:  # on the connection of the first read: one checkout less
                        await self._check_size(conn)
                        first = False
                    rows, complete = await self._changed_rows(conn)
                if not rows:
                    break
                changed += len(rows)
                stale: dict[int, str] = {}
                for row in rows:
                    text = self._set_row(row)
                    if text is not None:
                        stale[self._slot(int(row.doc_id))] = text
                await self._update_lexical(rows)
                self.position = max(self.position, max(int(r.updated_position) for r in rows))
                await self._fill_from_cache(stale)
                if complete:
                    break
            await self._forget_dropped()
            return changed

    async def _check_size(self, conn: AsyncConnection) -> None:
        """Start again after a rebuild of the tables; size a first load in one allocation."""
        if self.position > 0:
            top = await conn.scalar(sa.select(sa.func.max(_D.updated_position)))
            if int(top or 0) < self.position:
                self.reset()  # the tables were rebuilt and hold less than we had seen
        if self.position == 0:
            total = int(await conn.scalar(sa.select(sa.func.count()).select_from(docs_table)) or 0)
            if total > self.columns.capacity:
                self._alloc(total + total // 8)  # one allocation, not doubling up to it

    async def _update_lexical(self, rows: Sequence[Any]) -> None:
        """Hand the changed rows' FTS5 columns to the lexical postings (when kept)."""
        lexical = self.lexical
        if lexical is None:
            return
        slot_of = self.columns.slot_of
        docs = [
            LexicalDoc(
                int(slot_of[r.doc_id]),
                bool(r.live),
                r.body,
                r.near,
                scope_tokens(r.namespace, r.kind, r.conversation_id),
            )
            for r in rows
        ]
        if len(docs) < LEXICAL_IN_THREAD:
            lexical.update(docs)
            return
        # In a worker thread, and in parts: a search waits for the index's lock at most
        # one part long (a refresh after a restart brings 20,000 rows at a time).
        for part in chunks(docs, LEXICAL_IN_THREAD):
            await asyncio.to_thread(lexical.update, part)

    async def _forget_dropped(self) -> None:
        """Delete the cached vectors of deleted or purged texts no live document shares."""
        if not self._dropped:
            return
        in_use = {self._hashes[s] for s in range(self.size) if self.columns.live[s]}
        gone = sorted(self._dropped - in_use)
        self._dropped.clear()
        await self.cache.delete(gone)

    def reset(self) -> None:
        """Forget every document (kept vectors stay in the cache): the next refresh reloads."""
        self.position = 0
        self.columns.reset()
        self._hashes.clear()
        self._pending.clear()
        self._dropped.clear()
        self.has_vec[:] = False
        if self.lexical is not None:
            self.lexical.reset()

    async def _changed_rows(self, conn: AsyncConnection) -> tuple[list[Any], bool]:
        """Return the next changed rows, and whether they are all there are (a read that
        stopped short of its limit: no need to ask again for nothing)."""
        columns = (*_SYNC_COLUMNS, *(_LEXICAL_COLUMNS if self.lexical is not None else ()))
        result = await conn.execute(
            sa.select(*columns)
            .where(_D.updated_position > self.position)
            .order_by(_D.updated_position, _D.doc_id)
            .limit(CHANGED_ROWS_READ)
        )
        rows = list(result.all())
        if len(rows) < CHANGED_ROWS_READ:
            return rows, True
        # Never stop inside one position: the next query starts after it.
        last = rows[-1].updated_position
        before = [r for r in rows if r.updated_position < last]
        if before:
            return before, False
        # One event changed more documents than a read takes (a deleted conversation's): all
        # of them now, or those past the limit would never be read.
        result = await conn.execute(
            sa.select(*columns).where(_D.updated_position == last).order_by(_D.doc_id)
        )
        return list(result.all()), False

    async def _fill_from_cache(self, stale: dict[int, str]) -> None:
        if not stale:
            return
        embedder_id = self.embedder.embedder_id
        hashes = {slot: self._hashes[slot] for slot in stale}
        cached = await self.cache.get(embedder_id, list(hashes.values()), self.embedder.dim)
        found: list[int] = []
        raws: list[bytes] = []
        for slot, text in stale.items():
            raw = cached.get(hashes[slot])
            if raw is not None and len(raw) == 4 * self.embedder.dim:
                found.append(slot)
                raws.append(raw)
                self._pending.pop(slot, None)
            else:
                self._pending[slot] = text
        if found:
            # One scatter of the whole batch into the dimension-major matrix.
            block = np.frombuffer(b"".join(raws), dtype=np.float32).reshape(len(found), -1)
            self.by_dim[:, found] = block.T
            self.has_vec[found] = True
            self._vector_writes += 1
        if self._pending:
            self._wake.set()

    # -- embedding ------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Return how many documents wait for a vector."""
        return len(self._pending)

    @property
    def progress(self) -> Progress:
        """Return the current embedder's progress over live documents."""
        live = self.columns.live[: self.size]
        return Progress(
            self.embedder.embedder_id,
            int(np.count_nonzero(self.has_vec[: self.size] & live)),
            int(np.count_nonzero(live)),
        )

    async def embed_pending(
        self, limit: int | None = None, progress: Callable[[Progress], None] | None = None
    ) -> int:
        """Embed up to ``limit`` queued documents now (all by default); return the count.

        ``progress`` is called after every batch with how far the current embedder is.
        """
        done = 0
        while self._pending and (limit is None or done < limit):
            batch = list(self._pending.items())[:EMBED_BATCH]
            embedder = self.embedder
            vectors = await embedder.embed([text for _, text in batch])
            if embedder is not self.embedder:
                continue  # switched while embedding: the queue was rebuilt
            fresh: dict[str, bytes] = {}
            for (slot, _), vector in zip(batch, vectors, strict=True):
                if self._pending.get(slot) is None:
                    continue
                self.by_dim[:, slot] = vector
                self.has_vec[slot] = True
                self._vector_writes += 1
                del self._pending[slot]
                fresh[self._hashes[slot]] = np.asarray(vector, dtype=np.float32).tobytes()
            await self.cache.put(embedder.embedder_id, fresh)
            done += len(batch)
            if progress is not None:
                progress(self.progress)
        return done

    async def run_indexer(self, progress: Callable[[Progress], None] | None = None) -> None:
        """Embed queued documents in the background, forever (cancel to stop)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.embed_pending(progress=progress)
            except asyncio.CancelledError:
                raise
            except Exception:
                raise_if_cancelling()
                self.failures += 1
                await asyncio.sleep(1.0)
                self._wake.set()

    async def set_embedder(self, embedder: Embedder, engine: AsyncEngine) -> None:
        """Switch embedder: vectors come from the cache or are re-embedded in the background.

        The index's texts are read back from the projection; until the background indexer
        has caught up, the vector leg ranks only the documents that already have a vector.
        """
        async with self._lock:
            self.embedder = embedder
            self.by_dim = np.zeros((embedder.dim, self.columns.capacity), dtype=np.float32)
            self.has_vec[:] = False
            self._vector_writes += 1
            self._pending.clear()
            by_doc = {int(self.doc_id[s]): s for s in range(self.size) if self.columns.live[s]}
            texts: dict[int, str] = {}
            async with engine.connect() as conn:
                for part in chunks(sorted(by_doc)):
                    result = await conn.execute(
                        sa.select(_D.doc_id, _D.name, _D.text).where(_D.doc_id.in_(part))
                    )
                    for doc_id, name, text in result:
                        texts[by_doc[int(doc_id)]] = embed_text(name, text)
            await self._fill_from_cache(texts)

    # -- search ---------------------------------------------------------------------------

    def mask(self, filters: Filters) -> BoolArray:
        """Return which rows pass ``filters`` (see :meth:`DocColumns.mask`)."""
        return self.columns.mask(filters)

    def halfway_doc(self) -> int | None:
        """Return a doc id that splits the full-text index's work about in half."""
        return self.columns.halfway_doc()

    def namespace_size(self, namespace: str) -> int:
        """Return how many live documents a namespace has (at the last refresh)."""
        return self.columns.namespace_size(namespace)

    def has_quarantined(self, namespace: str) -> bool:
        """Return True if the namespace holds a live, unvalidated quarantined fact."""
        return self.columns.has_quarantined(namespace)

    def live_count(self) -> int:
        """Return how many live documents the index holds (every namespace)."""
        return self.columns.live_count()

    def passing(self, doc_ids: Sequence[int], filters: Filters) -> tuple[set[int], list[int]]:
        """Return which of ``doc_ids`` the index holds and ``filters`` admit, and which it
        does not hold (see :meth:`DocColumns.passing`)."""
        return self.columns.passing(doc_ids, filters)

    def weigh_rows(self, doc_ids: Sequence[int]) -> tuple[list[tuple[Any, ...]], list[int]]:
        """Return what trust and decay weigh of the held live documents among ``doc_ids``,
        and the ids the index cannot answer for (see :meth:`DocColumns.weigh_rows`)."""
        return self.columns.weigh_rows(doc_ids)

    def search(
        self, query_vector: Vectors, filters: Filters, limit: int
    ) -> list[tuple[int, float]]:
        """Return ``(doc_id, cosine)`` of the best ``limit`` rows that pass ``filters``."""
        n = self.size
        if n == 0 or limit <= 0:
            return []
        m = self.mask(filters) & self.has_vec[:n]
        return self.scan.best(self.by_dim, self.doc_id, m, query_vector, limit, self._version)

    def _version(self) -> tuple[int, int]:
        """What a kept scan's scores depend on: the rows and the vectors written."""
        return (self.columns.changes, self._vector_writes)

    def close(self) -> None:
        """Stop the scan helper threads."""
        self.scan.close()
