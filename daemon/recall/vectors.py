"""The embedding cache, the in-memory vector index and the indexer that fills it.

Caches are not projections: embeddings cost a model call, so they are stored by (embedder id,
content hash) in ``embedding_cache`` (its own SQLite file in the data dir, or a table beside the
projections on PostgreSQL) and never recomputed on a projection rebuild. The vector index is
built from the search projection (``search_docs``, followed by ``updated_position``) plus that
cache; documents whose vector is not cached yet are queued and embedded in the background by
:meth:`VectorIndex.run_indexer`. Switching the embedder (:meth:`VectorIndex.set_embedder`)
re-embeds everything in the background; :attr:`VectorIndex.progress` tells how far it is.

The index keeps one row per document with the filter columns as numpy arrays, so the vector
leg applies exactly the filters of :class:`daemon.recall.query.Filters` before it ranks. The
vectors are stored dimension-major (``by_dim[dimension, row]``): a sparse query (the hashed
embedder's) then reads only its non-zero dimensions, a fraction of the matrix, and the scan
stays exact.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from daemon.recall.lexical import LexicalDoc, LexicalIndex
from daemon.recall.query import BoolArray, Filters
from daemon.recall.topk import best_hits
from events.store.postgres import lock_for_migration
from plugins.embedders.base import Embedder, Vectors
from projections.base import chunks
from projections.search import CONTEXT_WINDOW, docs_table, embed_text, scope_tokens

NULL = np.iinfo(np.int64).max
"""Stands for SQL NULL in the time columns (never before any time)."""
EMBED_BATCH = 256
CHANGED_ROWS_READ = 20_000
"""Changed documents a refresh reads per query."""
MASKS_KEPT = 8
SPLIT_MIN_DOCS = 20_000
"""Below this many documents a full-text query is split no further (each part costs a few
fixed lookups)."""
SCAN_BLOCK_FLOATS = 1 << 18
"""Floats gathered per block by the sparse scan (1 MB: about what a core's L2 holds)."""
SCAN_PART_DOCS = 40_000
"""Documents from which the sparse scan runs its blocks on more than one core."""
SCAN_THREADS = max(1, min(4, os.cpu_count() or 1))
"""Cores one sparse scan may use."""

cache_metadata = sa.MetaData()
embedding_cache_table = sa.Table(
    "embedding_cache",
    cache_metadata,
    sa.Column("embedder_id", sa.String(200), primary_key=True),
    sa.Column("content_hash", sa.String(64), primary_key=True),
    sa.Column("vector", sa.LargeBinary, nullable=False),
)
_C = embedding_cache_table.c
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


SPARSE_MARK = 0x01
"""First byte of a vector stored sparse (see :func:`pack_vector`)."""


def pack_vector(raw: bytes) -> bytes:
    """Return how a vector (raw float32 bytes) is stored: as it is, or sparse when smaller.

    Sparse: a mark byte, padding so the length is never a multiple of 4 (a vector as it is
    always is, which tells the two apart), a bitmap of the non-zero components and those
    components' float32 bytes in order. The hashed embedder's vector of a short message has
    a fifth of its components set, so it takes a quarter of the bytes. Lossless: the bits
    of every component come back (a negative zero counts as set).
    """
    words = np.frombuffer(raw, dtype=np.uint32)
    nonzero = words != 0
    bitmap = np.packbits(nonzero, bitorder="little").tobytes()
    head = 1 + (-len(bitmap)) % 4  # mark + padding: len(head + bitmap) % 4 == 1
    packed_size = head + len(bitmap) + 4 * int(np.count_nonzero(nonzero))
    if packed_size >= len(raw):
        return raw
    head_bytes = bytes([SPARSE_MARK]) + bytes(head - 1)
    values: bytes = words[nonzero].tobytes()
    return head_bytes + bitmap + values


def unpack_vector(stored: bytes, dim: int) -> bytes | None:
    """Return the raw float32 bytes of a stored vector of ``dim`` components (None when it
    is not one: another dimension, or damaged)."""
    if len(stored) % 4 == 0:
        return stored if len(stored) == 4 * dim else None
    bitmap_size = (dim + 7) // 8
    head = 1 + (-bitmap_size) % 4
    if stored[0] != SPARSE_MARK or len(stored) < head + bitmap_size:
        return None
    bits = np.frombuffer(stored, dtype=np.uint8, count=bitmap_size, offset=head)
    nonzero = np.unpackbits(bits, count=dim, bitorder="little").astype(bool)
    values = stored[head + bitmap_size :]
    if len(values) != 4 * int(np.count_nonzero(nonzero)):
        return None
    words = np.zeros(dim, dtype=np.uint32)
    words[nonzero] = np.frombuffer(values, dtype=np.uint32)
    return words.tobytes()


class EmbeddingCache:
    """Vectors by (embedder id, content hash) in a table of its own (stored by
    :func:`pack_vector`: sparse vectors take a fraction of the room)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def setup(self) -> None:
        """Create the table if needed."""
        async with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Daemons starting together on one database: one creates, the others wait.
                await lock_for_migration(conn)
            await conn.run_sync(cache_metadata.create_all)

    async def get(self, embedder_id: str, hashes: Sequence[str], dim: int) -> dict[str, bytes]:
        """Return the cached vectors (raw float32 bytes, ``dim`` components) of the hashes
        that have one."""
        out: dict[str, bytes] = {}
        async with self.engine.connect() as conn:
            for part in chunks(sorted(set(hashes))):
                result = await conn.execute(
                    sa.select(_C.content_hash, _C.vector).where(
                        _C.embedder_id == embedder_id, _C.content_hash.in_(part)
                    )
                )
                for content_hash, stored in result:
                    raw = unpack_vector(bytes(stored), dim)
                    if raw is not None:
                        out[content_hash] = raw
        return out

    async def put(self, embedder_id: str, vectors: dict[str, bytes]) -> None:
        """Store vectors (an existing entry is kept: same hash, same embedder, same vector)."""
        if not vectors:
            return
        from projections.base import upsert

        async with self.engine.begin() as conn:
            stmt = upsert(conn, embedding_cache_table, ["embedder_id", "content_hash"])
            await conn.execute(
                stmt,
                [
                    {"embedder_id": embedder_id, "content_hash": h, "vector": pack_vector(v)}
                    for h, v in sorted(vectors.items())
                ],
            )

    async def delete(self, hashes: Sequence[str]) -> None:
        """Forget the vectors of these texts, for every embedder (deleted or purged content)."""
        if not hashes:
            return
        async with self.engine.begin() as conn:
            for part in chunks(sorted(set(hashes))):
                await conn.execute(embedding_cache_table.delete().where(_C.content_hash.in_(part)))

    async def count(self, embedder_id: str) -> int:
        """Return how many vectors the cache holds for an embedder."""
        async with self.engine.connect() as conn:
            value = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(embedding_cache_table)
                .where(_C.embedder_id == embedder_id)
            )
        return int(value or 0)


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


class _Codes:
    """Interned strings -> small integers (for vectorised comparisons)."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.values: list[str] = []
        """``code -> value``."""

    def code(self, value: str) -> int:
        found = self.codes.get(value)
        if found is None:
            found = self.codes[value] = len(self.codes)
            self.values.append(value)
        return found

    def find(self, value: str) -> int:
        return self.codes.get(value, -1)


def _t(value: int | None) -> int:
    return NULL if value is None else int(value)


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
        self.size = 0
        self._slot_of: npt.NDArray[np.int64] = np.full(capacity, -1, dtype=np.int64)
        """``doc_id -> slot`` (-1: not held), read for whole arrays of ids at once; replaced,
        never resized in place, so a search thread holding the old one reads a consistent
        array."""
        self._namespaces = _Codes()
        self._conversations = _Codes()
        self._owners = _Codes()
        self._statuses = _Codes()
        self._provenances = _Codes()
        self._tags = _Codes()
        self._tag_slots: dict[int, set[int]] = {}
        self._slot_tags: dict[int, tuple[int, ...]] = {}
        self._hashes: list[str] = []
        self._pending: dict[int, str] = {}
        self._wake = asyncio.Event()
        self._dropped: set[str] = set()
        self.failures = 0
        self._lock = asyncio.Lock()
        self._masks: dict[Filters, tuple[int, BoolArray]] = {}
        self._quarantine_seen: dict[str, tuple[int, bool]] = {}
        self._changes = 0
        """Bumped after every change of the filter columns: a kept mask is valid while it
        has not moved (searches read masks in worker threads while a refresh writes rows)."""
        self._halfway: tuple[int, int] | None = None
        self._scanners: concurrent.futures.ThreadPoolExecutor | None = None
        self._vector_writes = 0
        """Bumped after every write of vectors (the scores of a kept scan are then stale)."""
        self._last_scan: tuple[tuple[bytes, int, int, int], npt.NDArray[np.float32]] | None = None
        self._alloc(capacity)

    # -- storage --------------------------------------------------------------------------

    def _alloc(self, capacity: int) -> None:
        def grow(
            old: npt.NDArray[Any] | None, dtype: Any, fill: Any, shape: tuple[int, ...]
        ) -> Any:
            new = np.full(shape, fill, dtype=dtype)
            if old is not None:
                new[: old.shape[0]] = old
            return new

        get = self.__dict__.get
        self.doc_id = grow(get("doc_id"), np.int64, -1, (capacity,))
        self.ns = grow(get("ns"), np.int32, -1, (capacity,))
        self.is_message = grow(get("is_message"), np.bool_, False, (capacity,))
        self.conv = grow(get("conv"), np.int32, -1, (capacity,))
        self.live = grow(get("live"), np.bool_, False, (capacity,))
        self.known_from = grow(get("known_from"), np.int64, NULL, (capacity,))
        self.forgotten_tx = grow(get("forgotten_tx"), np.int64, NULL, (capacity,))
        self.superseded_tx = grow(get("superseded_tx"), np.int64, NULL, (capacity,))
        self.superseded_valid_to = grow(get("superseded_valid_to"), np.int64, NULL, (capacity,))
        self.valid_from = grow(get("valid_from"), np.int64, NULL, (capacity,))
        self.valid_to = grow(get("valid_to"), np.int64, NULL, (capacity,))
        self.validated_tx = grow(get("validated_tx"), np.int64, NULL, (capacity,))
        self.quarantined = grow(get("quarantined"), np.bool_, False, (capacity,))
        self.owner = grow(get("owner"), np.int32, -1, (capacity,))
        self.status = grow(get("status"), np.int32, -1, (capacity,))
        self.provenance = grow(get("provenance"), np.int32, -1, (capacity,))
        self.importance = grow(get("importance"), np.float64, 0.0, (capacity,))
        self.created_at = grow(get("created_at"), np.int64, 0, (capacity,))
        self.has_vec = grow(get("has_vec"), np.bool_, False, (capacity,))
        by_dim = np.zeros((self.embedder.dim, capacity), dtype=np.float32)
        old = get("by_dim")
        if old is not None:
            by_dim[:, : old.shape[1]] = old
        self.by_dim: npt.NDArray[np.float32] = by_dim
        self.capacity = capacity
        self._changes += 1

    def _slot(self, doc_id: int) -> int:
        if doc_id < self._slot_of.shape[0] and (slot := int(self._slot_of[doc_id])) >= 0:
            return slot
        if self.size == self.capacity:
            self._alloc(self.capacity * 2)
        slot = self.size
        if doc_id >= self._slot_of.shape[0]:
            grown = np.full(max(doc_id + 1, 2 * self._slot_of.shape[0]), -1, dtype=np.int64)
            grown[: self._slot_of.shape[0]] = self._slot_of
            self._slot_of = grown
        self._slot_of[doc_id] = slot
        self.size += 1
        self._hashes.append("")
        return slot

    def _set_row(self, row: Any) -> str | None:
        """Store one document's columns; return the text to embed if its vector is stale."""
        try:
            return self._store_row(row)
        finally:
            self._changes += 1  # after the change: a mask computed during it is not kept

    def _store_row(self, row: Any) -> str | None:
        slot = self._slot(int(row.doc_id))
        self.doc_id[slot] = row.doc_id
        self.ns[slot] = self._namespaces.code(row.namespace)
        self.is_message[slot] = row.kind == "message"
        self.conv[slot] = self._conversations.code(row.conversation_id)
        self.live[slot] = bool(row.live)
        self.known_from[slot] = row.known_from
        self.forgotten_tx[slot] = _t(row.forgotten_tx)
        self.superseded_tx[slot] = _t(row.superseded_tx)
        self.superseded_valid_to[slot] = _t(row.superseded_valid_to)
        self.valid_from[slot] = row.valid_from
        self.valid_to[slot] = _t(row.valid_to)
        self.validated_tx[slot] = _t(row.validated_tx)
        self.quarantined[slot] = row.status == "quarantined"
        self.owner[slot] = self._owners.code(row.owner)
        self.status[slot] = self._statuses.code(row.status)
        self.provenance[slot] = self._provenances.code(row.provenance)
        self.importance[slot] = row.importance
        self.created_at[slot] = row.created_at
        import orjson

        tags = tuple(sorted({self._tags.code(str(t)) for t in orjson.loads(row.tags_json)}))
        for old in self._slot_tags.get(slot, ()):
            self._tag_slots.get(old, set()).discard(slot)
        for tag in tags:
            self._tag_slots.setdefault(tag, set()).add(slot)
        self._slot_tags[slot] = tags
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
            if total > self.capacity:
                self._alloc(total + total // 8)  # one allocation, not doubling up to it

    async def _update_lexical(self, rows: Sequence[Any]) -> None:
        """Hand the changed rows' FTS5 columns to the lexical postings (when kept)."""
        lexical = self.lexical
        if lexical is None:
            return
        slot_of = self._slot_of
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
        in_use = {self._hashes[s] for s in range(self.size) if self.live[s]}
        gone = sorted(self._dropped - in_use)
        self._dropped.clear()
        await self.cache.delete(gone)

    def reset(self) -> None:
        """Forget every document (kept vectors stay in the cache): the next refresh reloads."""
        self.position = 0
        self.size = 0
        self._changes += 1
        self._halfway = None
        self._slot_of = np.full(self._slot_of.shape[0], -1, dtype=np.int64)
        self._tag_slots.clear()
        self._slot_tags.clear()
        self._hashes.clear()
        self._pending.clear()
        self._dropped.clear()
        self.live[:] = False
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
        live = self.live[: self.size]
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
            self.by_dim = np.zeros((embedder.dim, self.capacity), dtype=np.float32)
            self.has_vec[:] = False
            self._vector_writes += 1
            self._pending.clear()
            by_doc = {int(self.doc_id[s]): s for s in range(self.size) if self.live[s]}
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
        """Return which rows pass ``filters`` (the same rules as :meth:`Filters.where`).

        The last few masks are kept until a row changes (the legs of one search, and the
        searches of one conversation, ask for the same one); treat the result as read-only.
        """
        changes = self._changes
        found = self._masks.get(filters)
        if found is not None and found[0] == changes:
            return found[1]
        m = self._compute_mask(filters)
        if self._changes == changes:  # no row changed while it was computed
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            self._masks[filters] = (changes, m)
        return m

    def _compute_mask(self, filters: Filters) -> BoolArray:
        n = self.size
        ns = self._namespaces.find(filters.namespace)
        m: BoolArray = self.live[:n] & (self.ns[:n] == ns)
        kinds = set(filters.kinds)
        if kinds == {"message"}:
            m &= self.is_message[:n]
        elif kinds == {"fact"}:
            m &= ~self.is_message[:n]
        elif not kinds:
            m &= False
        if filters.conversation_id is not None:
            conv = self._conversations.find(filters.conversation_id)
            in_scope = self.conv[:n] == conv
            for cid, last in filters.inherited:
                code = self._conversations.find(cid)
                in_scope |= (self.conv[:n] == code) & (self.doc_id[:n] <= last)
            m &= ~self.is_message[:n] | in_scope
        if filters.hidden:
            m &= ~np.isin(self.doc_id[:n], np.asarray(filters.hidden, dtype=np.int64))
        k, a = filters.known_at, filters.as_of
        if k is not None:
            m &= self.known_from[:n] <= k
            m &= self.forgotten_tx[:n] > k
        else:
            m &= self.forgotten_tx[:n] == NULL
        superseded = self.superseded_tx[:n] != NULL
        if k is not None:
            superseded &= self.superseded_tx[:n] <= k
        if a is not None:
            effective_to = np.where(superseded, self.superseded_valid_to[:n], self.valid_to[:n])
            m &= self.valid_from[:n] <= a
            m &= effective_to > a
        elif not filters.include_superseded:
            m &= ~superseded
        if not filters.include_quarantined:
            validated = self.validated_tx[:n] != NULL
            if k is not None:
                validated &= self.validated_tx[:n] <= k
            m &= ~self.quarantined[:n] | validated
        if filters.tags is not None:
            allowed = np.zeros(n, dtype=np.bool_)
            for tag in set(filters.tags):
                slots = self._tag_slots.get(self._tags.find(tag))
                if slots:
                    allowed[np.fromiter(slots, dtype=np.int64, count=len(slots))] = True
            m &= allowed
        owners = filters.owners
        if owners is not None:
            codes = [self._owners.find(owner) for owner in set(owners)]
            m &= np.isin(self.owner[:n], [c for c in codes if c >= 0])
        return m

    def halfway_doc(self) -> int | None:
        """Return a doc id that splits the full-text index's work about in half (None below
        :data:`SPLIT_MIN_DOCS` documents): a message weighs its own turn plus its
        neighbours', a fact one. Recomputed when the index has grown or shrunk by a tenth."""
        n = self.size
        if n < SPLIT_MIN_DOCS:
            return None
        if self._halfway is not None and abs(n - self._halfway[0]) * 10 < n:
            return self._halfway[1]
        turns = 1 + 2 * CONTEXT_WINDOW
        weights = np.where(self.is_message[:n], turns, 1) * self.live[:n]
        by_id = np.argsort(self.doc_id[:n])
        total = np.cumsum(weights[by_id])
        middle = int(self.doc_id[by_id[np.searchsorted(total, total[-1] / 2)]])
        self._halfway = (n, middle)
        return middle

    def namespace_size(self, namespace: str) -> int:
        """Return how many live documents a namespace has (at the last refresh)."""
        n = self.size
        code = self._namespaces.find(namespace)
        return int(np.count_nonzero(self.live[:n] & (self.ns[:n] == code)))

    def has_quarantined(self, namespace: str) -> bool:
        """Return True if the namespace holds a live, unvalidated quarantined fact (a default
        search may then have passed one over). Kept until a row changes."""
        changes = self._changes
        found = self._quarantine_seen.get(namespace)
        if found is not None and found[0] == changes:
            return found[1]
        n = self.size
        code = self._namespaces.find(namespace)
        m = self.live[:n] & (self.ns[:n] == code) & self.quarantined[:n]
        m &= (self.validated_tx[:n] == NULL) & (self.forgotten_tx[:n] == NULL)
        answer = bool(m.any())
        if self._changes == changes:
            if len(self._quarantine_seen) >= MASKS_KEPT:
                self._quarantine_seen.clear()
            self._quarantine_seen[namespace] = (changes, answer)
        return answer

    def live_count(self) -> int:
        """Return how many live documents the index holds (every namespace)."""
        return int(np.count_nonzero(self.live[: self.size]))

    def _slots(self, doc_ids: Sequence[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Return ``doc_ids`` as an array and each one's slot (-1: not held)."""
        # Whole arrays, not a dict lookup per id: the pruned lexical leg admits thousands.
        slot_of = self._slot_of
        ids = np.fromiter(doc_ids, dtype=np.int64, count=len(doc_ids))
        inside = (ids >= 0) & (ids < slot_of.shape[0])
        slots = np.full(ids.shape[0], -1, dtype=np.int64)
        slots[inside] = slot_of[ids[inside]]
        return ids, slots

    def passing(self, doc_ids: Sequence[int], filters: Filters) -> tuple[set[int], list[int]]:
        """Return which of ``doc_ids`` the index holds and ``filters`` admit, and which of them
        it does not hold (folded since its last refresh: the caller asks the table)."""
        if not doc_ids:
            return set(), []
        ids, slots = self._slots(doc_ids)
        held = slots >= 0
        admitted = np.zeros(ids.shape[0], dtype=np.bool_)
        if held.any():
            m = self.mask(filters)
            # A slot added by a refresh after the mask was made is left to the table.
            held &= slots < m.shape[0]
            admitted[held] = m[slots[held]]
        return set(ids[admitted].tolist()), ids[~held].tolist()

    def weigh_rows(self, doc_ids: Sequence[int]) -> tuple[list[tuple[Any, ...]], list[int]]:
        """Return ``(doc_id, status, validated_tx, provenance, importance, created_at)`` of
        the live documents among ``doc_ids`` the index holds (what trust and decay weigh,
        as the table has it at the last refresh), and the ids it cannot answer for."""
        if not doc_ids:
            return [], []
        ids, slots = self._slots(doc_ids)
        held = (slots >= 0) & (slots < self.size)
        held[held] = self.live[slots[held]]
        statuses, provenances = self._statuses.values, self._provenances.values
        found = slots[held]
        rows = [
            (
                doc_id,
                statuses[status],
                None if validated == NULL else validated,
                provenances[p],
                w,
                t,
            )
            for doc_id, status, validated, p, w, t in zip(
                ids[held].tolist(),
                self.status[found].tolist(),
                self.validated_tx[found].tolist(),
                self.provenance[found].tolist(),
                self.importance[found].tolist(),
                self.created_at[found].tolist(),
                strict=True,
            )
        ]
        return rows, ids[~held].tolist()

    def search(
        self, query_vector: Vectors, filters: Filters, limit: int
    ) -> list[tuple[int, float]]:
        """Return ``(doc_id, cosine)`` of the best ``limit`` rows that pass ``filters``."""
        n = self.size
        if n == 0 or limit <= 0:
            return []
        m = self.mask(filters) & self.has_vec[:n]
        passing = int(np.count_nonzero(m))
        if passing == 0:
            return []
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        used = np.flatnonzero(q)
        if passing * 64 < n:
            # Few rows pass: gather just their columns (of the query's dimensions).
            rows = np.flatnonzero(m)
            scores = q[used] @ self.by_dim[np.ix_(used, rows)]
            keys = self.doc_id[rows]
        else:
            scores = self._kept_scores(q, used, n)
            keys = self.doc_id[:n]
            if passing < n:
                scores = np.where(m, scores, np.float32(-np.inf))
        return best_hits(scores, keys, limit)

    def _kept_scores(
        self, q: npt.NDArray[np.float32], used: npt.NDArray[np.int64], n: int
    ) -> npt.NDArray[np.float32]:
        """:meth:`_scores`, kept for the next search of the same query while no row or vector
        changes: the searches of one request that differ only in their filters (``POST
        /v1/context`` asks for facts, then for messages) share one scan of the matrix, the
        largest part of a search. The result is shared: read it, never write it."""
        key = (q.tobytes(), n, self._changes, self._vector_writes)
        kept = self._last_scan
        if kept is not None and kept[0] == key:
            return kept[1]
        scores = self._scores(q, used, n)
        if (self._changes, self._vector_writes) == key[2:]:  # nothing was written meanwhile
            self._last_scan = (key, scores)
        return scores

    def _scores(
        self, q: npt.NDArray[np.float32], used: npt.NDArray[np.int64], n: int
    ) -> npt.NDArray[np.float32]:
        """Return the dot product of ``q`` with each of the first ``n`` rows.

        A hashed n-gram query has few non-zero dimensions (a handful of words touch ~60 of
        384 buckets): then only those dimensions' rows of the dimension-major matrix are read,
        a block of documents at a time so the gathered block stays in cache. A dense query
        (a model embedder) reads the whole matrix once.
        """
        if used.size * 2 > q.size:
            return q @ self.by_dim[:, :n]
        weights = q[used]
        out = np.empty(n, dtype=np.float32)
        block = max(1024, SCAN_BLOCK_FLOATS // max(1, used.size))
        starts = range(0, n, block)
        parts = min(SCAN_THREADS, n // SCAN_PART_DOCS, len(starts))
        if parts <= 1:
            self._scan(weights, used, out, starts, block)
            return out
        # The memory reads bound the scan, and each core has its own path to memory: the
        # blocks are dealt out to ``parts`` threads (the same blocks, so the same floats).
        # The helpers only compute, they never wait on other work, so they cannot deadlock.
        pool = self._scan_pool()
        helpers = [
            pool.submit(self._scan, weights, used, out, starts[i::parts], block)
            for i in range(1, parts)
        ]
        self._scan(weights, used, out, starts[::parts], block)
        for helper in helpers:
            helper.result()
        return out

    def _scan(
        self,
        weights: npt.NDArray[np.float32],
        used: npt.NDArray[np.int64],
        out: npt.NDArray[np.float32],
        starts: range,
        block: int,
    ) -> None:
        """Fill ``out`` for the blocks of documents beginning at ``starts``."""
        n = out.shape[0]
        for start in starts:
            stop = min(n, start + block)
            out[start:stop] = weights @ self.by_dim[used, start:stop]

    def _scan_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._scanners is None:
            self._scanners = concurrent.futures.ThreadPoolExecutor(
                max_workers=SCAN_THREADS, thread_name_prefix="memoryd-scan"
            )
        return self._scanners

    def close(self) -> None:
        """Stop the scan helper threads."""
        if self._scanners is not None:
            self._scanners.shutdown(wait=True)
            self._scanners = None
