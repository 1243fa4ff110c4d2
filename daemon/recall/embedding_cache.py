"""The embedding cache: vectors by (embedder id, content hash), never recomputed.

Caches are not projections: embeddings cost a model call, so they are stored by (embedder id,
content hash) in ``embedding_cache`` (its own SQLite file in the data dir, or a table beside the
projections on PostgreSQL) and survive a projection rebuild. A vector is stored as it is, or
sparse when that is smaller (:func:`pack_vector`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from events.store.postgres import lock_for_migration
from projections.base import chunks, upsert

cache_metadata = sa.MetaData()
embedding_cache_table = sa.Table(
    "embedding_cache",
    cache_metadata,
    sa.Column("embedder_id", sa.String(200), primary_key=True),
    sa.Column("content_hash", sa.String(64), primary_key=True),
    sa.Column("vector", sa.LargeBinary, nullable=False),
)
_C = embedding_cache_table.c


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
