"""The consolidation projection: plans, the consolidation log, runs, the review queue, the
per-fact state consolidation keeps (archived, reinforcements, category, recall evidence),
links, the curated blocks (learned_context among them), the episodes and the activity counters.

One module per table group, each holding its tables, its folds and its reads:
:mod:`.plans`, :mod:`.log`, :mod:`.runs`, :mod:`.review`, :mod:`.fact_state`, :mod:`.links`,
:mod:`.blocks`, :mod:`.episodes`, :mod:`.activity`. :mod:`.projection` folds them all under
one name and version; :mod:`.fold` is what the groups share. Folds are pure: times come from event
payloads and ``recorded_at``.

This module names what the rest of memoryd reads.
"""

from projections.consolidation.activity import activity
from projections.consolidation.blocks import (
    LEARNED_CONTEXT,
    block_history,
    current_blocks,
    learned_context,
    one_block,
)
from projections.consolidation.episodes import (
    get_episode,
    last_episode_of,
    recent_episodes,
    unreflected_episodes,
)
from projections.consolidation.fact_state import (
    FactState,
    archived_ids,
    fact_states,
    one_fact_state,
    same_text,
)
from projections.consolidation.links import all_links, links_of
from projections.consolidation.log import read_log
from projections.consolidation.plans import get_plan, pending_items
from projections.consolidation.projection import ConsolidationProjection
from projections.consolidation.review import review_items
from projections.consolidation.runs import (
    list_runs,
    model_calls_since,
    model_tokens_since,
    model_use_since,
    unfinished_runs,
)

__all__ = [
    "LEARNED_CONTEXT",
    "ConsolidationProjection",
    "FactState",
    "activity",
    "all_links",
    "archived_ids",
    "block_history",
    "current_blocks",
    "fact_states",
    "get_episode",
    "get_plan",
    "last_episode_of",
    "learned_context",
    "links_of",
    "list_runs",
    "model_calls_since",
    "model_tokens_since",
    "model_use_since",
    "one_block",
    "one_fact_state",
    "pending_items",
    "read_log",
    "recent_episodes",
    "review_items",
    "same_text",
    "unfinished_runs",
    "unreflected_episodes",
]
