"""Promotion: quarantined facts that ordinary use vouched for become active (no model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from daemon.consolidation.facts_view import FactView
from daemon.consolidation.phases.run_context import expect_facts, touched_facts
from daemon.consolidation.rules import scan
from events.clock import to_micros
from events.types import FactValidated

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext


@dataclass(frozen=True, slots=True)
class PromotionRule:
    """What ordinary use must show before a quarantined fact is promoted (``[memory]``)."""

    min_recalls: int = 3
    min_queries: int = 2
    min_age_micros: int = 24 * 3600 * 1_000_000
    max_per_run: int = 10


async def promote(ctx: RunContext, views: list[FactView]) -> None:
    """Validate quarantined facts that ordinary use vouched for (see :class:`PromotionRule`).

    Runs in the light phase, so at every tier. The evidence is what recall recorded: searches
    that returned the fact, and default searches that would have returned it had it not been
    quarantined (``RecallRecorded`` ``shadow`` hits). Each promotion names its evidence.
    """
    rule = ctx.promotion
    now_us = to_micros(ctx.now)
    ready = []
    for v in views:
        st = v.state
        if v.row.status != "quarantined" or v.fact_id in touched_facts(ctx):
            continue
        age = now_us - to_micros(v.row.recorded_from)
        if (
            st.recall_count >= rule.min_recalls
            and st.distinct_queries >= rule.min_queries
            and age >= rule.min_age_micros
        ):
            flags = scan(v.row.text)
            if flags:
                ctx.count("promotion_refused_by_gate")
                ctx.actions.append(
                    {"action": "promotion_refused", "fact_ids": [v.fact_id], "flags": flags}
                )
                continue
            ready.append(v)
    ready.sort(key=lambda v: (-v.state.recall_count, -v.state.distinct_queries, v.fact_id))
    chosen = ready[: rule.max_per_run]
    await expect_facts(ctx, [v.fact_id for v in chosen])
    for v in chosen:
        ctx.effects.append(
            FactValidated(
                fact_id=v.fact_id,
                by="consolidation:promotion",
                note=(
                    f"recalled {v.state.recall_count} times by "
                    f"{v.state.distinct_queries} distinct queries"
                ),
                evidence={
                    "recalls": v.state.recall_count,
                    "distinct_queries": v.state.distinct_queries,
                    "first_recalled_at": v.state.first_recalled_at,
                    "last_recalled_at": v.state.last_recalled_at,
                    "age_hours": round((now_us - to_micros(v.row.recorded_from)) / 3.6e9, 2),
                    "rule": {
                        "min_recalls": rule.min_recalls,
                        "min_queries": rule.min_queries,
                        "min_age_hours": round(rule.min_age_micros / 3.6e9, 2),
                    },
                    "run_id": ctx.run_id,
                },
            )
        )
        ctx.actions.append({"action": "promote", "fact_ids": [v.fact_id]})
    ctx.count("promoted", len(chosen))
