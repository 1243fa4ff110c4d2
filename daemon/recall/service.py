"""Wiring: the recall engine, its vector index and embedding cache, and the indexer task.

One :class:`RecallService` per daemon (or per benchmark / test). It owns the embedding cache
engine (SQLite: ``embeddings.sqlite3`` in the data dir, which survives a projection rebuild;
PostgreSQL: the ``embedding_cache`` table beside the projections) and the background indexer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.backend import Backend
from daemon.config import RecallConfig, key_default
from daemon.logging import get_logger
from daemon.recall.embedding_cache import EmbeddingCache
from daemon.recall.engine import RecallEngine
from daemon.recall.lexical import LexicalIndex
from daemon.recall.vectors import Progress, VectorIndex
from events.clock import Clock
from events.tasks import cancel_and_wait
from plugins.embedders.base import Embedder
from plugins.registry import default_plugins

log = get_logger("memoryd.recall")

EMBEDDINGS_FILE = "embeddings.sqlite3"
DEFAULT_EMBEDDER: str = key_default(RecallConfig, "embedder")


def make_embedder(
    name: str = DEFAULT_EMBEDDER, config: Mapping[str, Any] | None = None
) -> Embedder:
    """Build an embedder plugin by name (``hashed`` by default, ``minilm`` with the extra)."""
    return default_plugins().embedder(name, config or {})


def cache_engine(backend: Backend) -> AsyncEngine:
    """Return the engine the embedding cache lives on for a backend."""
    return backend.side_engine(EMBEDDINGS_FILE)


class RecallService:
    """The engine plus the things it needs kept running."""

    def __init__(
        self,
        read_engine: AsyncEngine,
        cache_db: AsyncEngine,
        embedder: Embedder,
        clock: Clock,
        projection_position: Callable[[], int] | None = None,
    ) -> None:
        self.cache_db = cache_db
        self.cache = EmbeddingCache(cache_db)
        # On SQLite the lexical leg scores FTS5's bm25 from postings in memory (exactly, see
        # daemon.recall.lexical); PostgreSQL ranks with its own full-text search.
        lexical = LexicalIndex() if read_engine.dialect.name == "sqlite" else None
        self.index = VectorIndex(embedder, self.cache, lexical=lexical)
        self.engine = RecallEngine(read_engine, self.index, clock, projection_position)
        self._task: asyncio.Task[None] | None = None
        self._last_logged = 0

    async def start(self) -> None:
        """Create the cache table, load the index and start the background indexer."""
        await self.cache.setup()
        await self.engine.refresh()
        self._task = asyncio.create_task(
            self.index.run_indexer(self._log_progress), name="memoryd-indexer"
        )

    def _log_progress(self, progress: Progress) -> None:
        if progress.done or self._last_logged + 5000 <= progress.embedded:
            self._last_logged = progress.embedded
            log.info(
                "embedding",
                embedder=progress.embedder_id,
                embedded=progress.embedded,
                total=progress.total,
            )

    async def stop(self) -> None:
        """Stop the indexer and release the cache engine."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        self.engine.close()
        await self.cache_db.dispose()

    async def switch_embedder(self, embedder: Embedder) -> None:
        """Use another embedder; vectors the cache lacks are embedded in the background
        (:attr:`progress`, the log and the ``memoryd_recall_*`` gauges tell how far)."""
        self._last_logged = 0
        await self.index.set_embedder(embedder, self.engine.engine)
        log.info("embedder switched", embedder=embedder.embedder_id, pending=self.index.pending)

    @property
    def progress(self) -> Progress:
        """Return how many live documents have a vector from the current embedder."""
        return self.index.progress
