"""Promotion: quarantined facts that ordinary use vouched for become active (no model).

The policy is ``[consolidation.promotion]``: the recalls and distinct queries a fact needs,
its least age, the provenances that may be promoted, and the most promotions per run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from daemon.config import PromotionConfig
from daemon.consolidation.facts_view import FactView
from daemon.consolidation.phases.run_context import expect_facts, touched_facts
from events.clock import to_micros
from events.types import FactValidated
from plugins.gates.injection import scan

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext

HOUR_MICROS = 3.6e9


def rule_inputs(policy: PromotionConfig) -> dict[str, Any]:
    """The policy as a promotion records it in its evidence."""
    return {
        "min_recalls": policy.min_recalls,
        "min_queries": policy.min_queries,
        "min_age_hours": round(policy.min_age.total_seconds() / 3600, 2),
        "provenances": list(policy.provenances),
        "max_per_run": policy.max_per_run,
    }


async def promote(ctx: RunContext, views: list[FactView]) -> None:
    """Validate quarantined facts that ordinary use vouched for (``[consolidation.promotion]``).

    Runs in the light phase, so at every tier. The evidence is what recall recorded: searches
    that returned the fact, and default searches that would have returned it had it not been
    quarantined (``RecallRecorded`` ``shadow`` hits). Each promotion names its evidence.
    """
    policy = ctx.config.promotion
    if not policy.enabled:
        return
    now_us = to_micros(ctx.now)
    min_age = policy.min_age.total_seconds() * 1_000_000
    ready = []
    for v in views:
        st = v.state
        if v.row.status != "quarantined" or v.fact_id in touched_facts(ctx):
            continue
        age = now_us - to_micros(v.row.recorded_from)
        if (
            st.recall_count >= policy.min_recalls
            and st.distinct_queries >= policy.min_queries
            and age >= min_age
        ):
            if v.row.provenance not in policy.provenances:
                ctx.count("promotion_refused_by_provenance")
                continue
            flags = scan(v.row.text)
            if flags:
                ctx.count("promotion_refused_by_gate")
                ctx.actions.append(
                    {"action": "promotion_refused", "fact_ids": [v.fact_id], "flags": flags}
                )
                continue
            ready.append(v)
    ready.sort(key=lambda v: (-v.state.recall_count, -v.state.distinct_queries, v.fact_id))
    chosen = ready[: policy.max_per_run]
    ctx.count("promotion_deferred", len(ready) - len(chosen))
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
                    "age_hours": round((now_us - to_micros(v.row.recorded_from)) / HOUR_MICROS, 2),
                    "provenance": v.row.provenance,
                    "rule": rule_inputs(policy),
                    "run_id": ctx.run_id,
                },
            )
        )
        ctx.actions.append({"action": "promote", "fact_ids": [v.fact_id]})
    ctx.count("promoted", len(chosen))
