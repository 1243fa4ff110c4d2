"""The search projection: its name, version and tables, and the tails carried between
batches; the fold itself is :mod:`projections.search.fold`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.store.base import StoredEvent
from projections.base import Carried, Projection, cooperate
from projections.search.fold import ConvKey, SearchFold
from projections.search.schema import metadata

TAILS_CARRIED = 2048
"""Conversations whose last turns a fold keeps for the next batch."""


class SearchProjection(Projection):
    """Folds messages and facts into searchable documents (see the module docstring)."""

    name: ClassVar[str] = "search"
    # 3: text and identifiers with NUL are stored with U+FFFD (PostgreSQL cannot store NUL).
    # 4: PostgreSQL's tsv is a generated column.
    # 5: SQLite's index is contentless (search_docs holds the text once; it held it twice).
    # 6: each neighbouring turn in near is cut to NEAR_TURN_CHARS.
    version: ClassVar[int] = 6
    metadata: ClassVar[sa.MetaData] = metadata
    # The fold reads documents by reference, conversation and doc_id, never by these.
    deferred_indexes: ClassVar[tuple[str, ...]] = (
        "ix_search_docs_updated",
        "ix_search_tags_tag",
        "ix_search_mentions_key",
    )

    def __init__(self) -> None:
        # Each conversation's last turns, from one batch to the next: a batch of a busy log
        # touches the same conversations as the one before, and reading their tails back
        # was a tenth of a rebuild.
        self._tails: Carried[ConvKey, list[dict[str, Any]]] = Carried(TAILS_CARRIED)

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        fold = SearchFold(conn, self._tails.take(events))
        await fold.preload(events)
        for i, stored in enumerate(events):
            await cooperate(i)
            await fold.apply(stored)
        await fold.flush()
        self._tails.keep(fold.tails, events)
