"""The embedding cache stores vectors sparse when that is smaller, and gives back every bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from daemon.recall.embedding_cache import (
    EmbeddingCache,
    embedding_cache_table,
    pack_vector,
    unpack_vector,
)
from events.store.sqlite import sqlite_engine
from plugins.embedders.hashed import HashedNgramEmbedder


@st.composite
def vectors(draw: st.DrawFn) -> tuple[int, bytes]:
    """A float32 vector of any dimension, mostly zeros or mostly set, with odd values."""
    dim = draw(st.integers(1, 70))
    values = st.one_of(
        st.just(0.0),
        st.just(-0.0),
        st.floats(width=32, allow_nan=True, allow_infinity=True),
    )
    components = draw(st.lists(values, min_size=dim, max_size=dim))
    return dim, np.asarray(components, dtype=np.float32).tobytes()


@settings(max_examples=300, deadline=None)
@given(vectors())
def test_a_packed_vector_unpacks_to_the_same_bits(case: tuple[int, bytes]) -> None:
    dim, raw = case
    packed = pack_vector(raw)
    assert len(packed) <= len(raw)
    assert unpack_vector(packed, dim) == raw


def test_short_texts_pack_small_and_long_ones_stay_as_they_are() -> None:
    embedder = HashedNgramEmbedder()
    short, long = (
        np.asarray(v, dtype=np.float32).tobytes()
        for v in embedder.embed_sync(
            ["Sounds fun, see you Tuesday!", " ".join(f"word{i} thing{i}" for i in range(400))]
        )
    )
    assert len(pack_vector(short)) < len(short) // 3
    assert pack_vector(long) == long  # dense: stored as it is


def test_unpack_refuses_what_is_not_a_vector_of_that_dimension() -> None:
    raw = np.arange(16, dtype=np.float32).tobytes()
    assert unpack_vector(raw, 16) == raw
    assert unpack_vector(raw, 8) is None  # a vector of another embedder's dimension
    packed = pack_vector(np.eye(1, 64, 3, dtype=np.float32).tobytes())
    assert unpack_vector(packed, 64) is not None
    assert unpack_vector(packed[:-1] + b"\x00\x00\x00\x00", 64) is None  # a value too many
    assert unpack_vector(b"\x02" + packed[1:], 64) is None  # not the sparse mark


async def test_the_cache_reads_vectors_stored_as_they_are_and_packed(tmp_path: Path) -> None:
    engine = sqlite_engine(tmp_path / "embeddings.sqlite3", write=True)
    try:
        cache = EmbeddingCache(engine)
        await cache.setup()
        dim = 384
        embedder = HashedNgramEmbedder(dim=dim)
        old, new = (
            np.asarray(v, dtype=np.float32).tobytes()
            for v in embedder.embed_sync(["written by an older memoryd", "written now"])
        )
        async with engine.begin() as conn:  # as versions before packing stored it
            await conn.execute(
                embedding_cache_table.insert().values(
                    embedder_id=embedder.embedder_id, content_hash="old", vector=old
                )
            )
        await cache.put(embedder.embedder_id, {"new": new})
        async with engine.connect() as conn:
            stored = await conn.scalar(
                sa.select(embedding_cache_table.c.vector).where(
                    embedding_cache_table.c.content_hash == "new"
                )
            )
        assert stored is not None
        assert len(stored) < len(new)
        found = await cache.get(embedder.embedder_id, ["old", "new", "missing"], dim)
        assert found == {"old": old, "new": new}
    finally:
        await engine.dispose()
