"""Episodic recall: the episodes that answer a query, ranked by recency x relevance x
importance.

For an episode whose last message was said ``age`` ago::

    relevance  = cosine(embed(query), embed(summary))            the configured embedder
    recency    = 0.5 ** (age / episode_half_life)                 1 now, 0.5 a half-life ago
    importance = 0.1 + 0.9 * episode importance                   an episode scored 0 still shows
    score      = relevance * recency * importance

An episode whose relevance is below the vector floor of recall (the embedder's
``similarity_floor``, else :data:`~daemon.recall.engine.VECTOR_FLOOR`, 0.15) does not answer
the query and is left out; ties go to the newer episode. The candidates
are the namespace's :data:`CANDIDATES` newest episodes (active ones only unless
``include_quarantined``). Every hit carries its three factors, so a caller sees why it ranks
where it does. The summaries' vectors are kept in recall's embedding cache (by embedder and
text hash), so a search embeds only its query and the summaries new since the last one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.consolidation.facts_view import embed
from daemon.recall.embedding_cache import EmbeddingCache
from daemon.recall.engine import VECTOR_FLOOR
from plugins.embedders.base import Embedder, Vectors
from projections.consolidation import recent_episodes
from projections.search.documents import content_hash

CANDIDATES = 5000
"""Most episodes (the newest) one search ranks."""
IMPORTANCE_FLOOR = 0.1


@dataclass(frozen=True, slots=True)
class EpisodeQuery:
    """What an episodic search asks."""

    query: str
    top_k: int = 10
    include_quarantined: bool = False
    conversation_id: str | None = None


def recency(age: timedelta, half_life: timedelta) -> float:
    """Return ``0.5 ** (age / half_life)`` (1 for an episode of the future or of now)."""
    return float(0.5 ** (max(age, timedelta(0)) / half_life))


def importance_factor(importance: float) -> float:
    """Return the importance factor of the score (see the module docstring)."""
    return IMPORTANCE_FLOOR + (1 - IMPORTANCE_FLOOR) * min(max(importance, 0.0), 1.0)


async def embed_summaries(
    embedder: Embedder, cache: EmbeddingCache | None, texts: list[str]
) -> Vectors:
    """Return the texts' vectors, from the cache where it has them (the rest embedded and
    stored there)."""
    if cache is None or not texts:
        return await embed(embedder, texts)
    hashes = [content_hash(t) for t in texts]
    found = await cache.get(embedder.embedder_id, hashes, embedder.dim)
    missing = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in found}.items())
    if missing:
        vectors = await embedder.embed([t for _, t in missing])
        fresh = {
            h: np.asarray(v, dtype=np.float32).tobytes()
            for (h, _), v in zip(missing, vectors, strict=True)
        }
        await cache.put(embedder.embedder_id, fresh)
        found.update(fresh)
    return np.stack([np.frombuffer(found[h], dtype=np.float32) for h in hashes])


async def search_episodes(
    conn: AsyncConnection,
    namespace: str,
    embedder: Embedder,
    request: EpisodeQuery,
    now: datetime,
    half_life: timedelta,
    cache: EmbeddingCache | None = None,
) -> list[dict[str, Any]]:
    """Return the best ``top_k`` episodes for the query, best first, each with ``score`` and
    ``factors`` (relevance, recency, importance)."""
    episodes = await recent_episodes(
        conn,
        namespace,
        limit=CANDIDATES,
        include_quarantined=request.include_quarantined,
        conversation_id=request.conversation_id,
    )
    if not episodes:
        return []
    floor = float(getattr(embedder, "similarity_floor", VECTOR_FLOOR))
    query = await embed(embedder, [request.query])
    summaries = await embed_summaries(embedder, cache, [e["summary"] for e in episodes])
    sims = summaries @ query[0]
    hits: list[dict[str, Any]] = []
    for episode, sim in zip(episodes, sims.tolist(), strict=True):
        relevance = float(sim)
        if relevance < floor:
            continue
        fresh = recency(now - episode["ended_at"], half_life)
        weight = importance_factor(float(episode["importance"]))
        factors = {
            "relevance": round(relevance, 6),
            "recency": round(fresh, 6),
            "importance": round(weight, 6),
        }
        hits.append({**episode, "score": relevance * fresh * weight, "factors": factors})
    hits.sort(key=lambda h: (-h["score"], -h["position"]))
    return hits[: request.top_k]
