"""The consolidation projection: every table group's folds under one name and version.

Each event is folded by the groups that take its class (looked up, not tested in turn),
then the batch's cached rows are written and the activity counters folded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.store.base import StoredEvent
from projections.base import Projection
from projections.consolidation import (
    blocks,
    episodes,
    fact_state,
    links,
    plans,
    review,
    runs,
)
from projections.consolidation.activity import fold_activity
from projections.consolidation.fold import Batch, dispatch_table, metadata

FOLDS_BY_EVENT = dispatch_table(
    (
        fact_state.FOLDS,
        links.FOLDS,
        plans.FOLDS,
        runs.FOLDS,
        review.FOLDS,
        blocks.FOLDS,
        episodes.FOLDS,
    )
)


class ConsolidationProjection(Projection):
    """Folds consolidation, review and recall-evidence events."""

    name: ClassVar[str] = "consolidation"
    # 3: exact-duplicate keys use projections.text.normalise (apostrophes folded).
    # 4: consolidation_activity counts turns (the after_turns trigger).
    # 5: the episodes table (projections.consolidation.episodes).
    # 6: curated blocks (consolidation_blocks and their history) replace the learned_context
    # table; LearnedContextWritten is folded as the learned_context block.
    version: ClassVar[int] = 6
    metadata: ClassVar[sa.MetaData] = metadata

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        batch = Batch(conn)
        for stored in events:
            for fold in FOLDS_BY_EVENT.get(type(stored.event), ()):
                await fold(batch, stored, stored.event)
        await batch.flush()
        await fold_activity(conn, events)
