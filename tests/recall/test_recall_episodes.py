"""Episodic recall's factors and its use of the embedding cache."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import numpy as np

from daemon.recall.embedding_cache import EmbeddingCache
from daemon.recall.episodes import embed_summaries, importance_factor, recency
from events.store.sqlite import sqlite_engine
from plugins.embedders.base import Vectors
from plugins.embedders.hashed import HashedNgramEmbedder


class CountingEmbedder(HashedNgramEmbedder):
    """The hashed embedder, counting the texts it embeds."""

    embedded: int = 0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded += len(texts)
        return await super().embed(texts)


def test_the_factors() -> None:
    week = timedelta(days=7)
    assert recency(timedelta(0), week) == 1.0
    assert recency(-week, week) == 1.0  # said "in the future": as fresh as now
    assert recency(2 * week, week) == 0.25
    assert (importance_factor(0.0), importance_factor(1.0)) == (0.1, 1.0)
    assert importance_factor(7.0) == 1.0


async def test_summaries_are_embedded_once(tmp_path: Path) -> None:
    engine = sqlite_engine(tmp_path / "embeddings.sqlite3", write=True)
    try:
        cache = EmbeddingCache(engine)
        await cache.setup()
        embedder = CountingEmbedder()
        texts = ["Yara went kayaking", "Bob fixed the printer", "Yara went kayaking"]
        first = await embed_summaries(embedder, cache, texts)
        assert embedder.embedded == 2  # the same text once
        again = await embed_summaries(embedder, cache, [*texts, "Ana moved to Porto"])
        assert embedder.embedded == 3  # only the new one
        assert np.allclose(first, again[:3])
        assert np.allclose(first, await embed_summaries(embedder, None, texts))
    finally:
        await engine.dispose()
