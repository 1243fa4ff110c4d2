"""The light phase (no model): facts written since the last run that are noise
(``noise_filters``: greetings, acknowledgements, tool chatter) are archived; salience =
retention x importance x trust; archive below ``decay_archive_threshold``; a capacity bound
archives the lowest salience; exact and near duplicates and deterministic conflicts become a
plan (``PlanCreated``, source auto) for a person to apply; then promotion (of facts, then of
the episodes their facts vouch for). Archives are restorable; merges wait for a person."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from daemon.consolidation.facts_view import FactView, current_facts
from daemon.consolidation.phases.episodes import validate_episodes
from daemon.consolidation.phases.promotion import promote
from daemon.consolidation.phases.run_context import expect_facts
from daemon.consolidation.plans import build_plan
from daemon.consolidation.preview import (
    Preview,
    PreviewSettings,
    fact_salience,
    find_pairs,
    recommendations,
)
from events.clock import to_micros
from events.consolidation_events import FactArchived
from plugins.gates.noise import noise_kind
from plugins.protocols import Agent
from projections.consolidation import pending_items

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext


DUPLICATE = 0.95
"""Cosine at or above which two facts are duplicates (for a plan to merge)."""


def _noise(ctx: RunContext, scored: list[tuple[float, FactView]]) -> dict[str, tuple[float, str]]:
    """The facts written since the last run that ``noise_filters`` says are not facts
    (greetings, acknowledgements, tool chatter), save what the user wrote through the API."""
    since = int(((ctx.last_run or {}).get("inputs") or {}).get("activity_position", 0))
    noise: dict[str, tuple[float, str]] = {}
    for score, v in scored:
        if v.row.written_position <= since or v.row.provenance == "user":
            continue
        kind = noise_kind(v.row.text, ctx.config.noise_filters)
        if kind is not None:
            noise[v.fact_id] = (score, f"noise: {kind}")
    ctx.count("noise", len(noise))
    return noise


async def light(ctx: RunContext, _agents: Sequence[Agent]) -> None:
    """Decay, salience, archive, capacity, duplicates (no model)."""
    async with ctx.engine.connect() as conn:
        views = await current_facts(conn, ctx.namespace)
    now_us = to_micros(ctx.now)
    tau = float(ctx.config.tau_days)
    weights = ctx.config.salience_weights.as_tuple()
    scored = sorted(
        ((fact_salience(v, now_us, tau, weights), v) for v in views),
        key=lambda p: (p[0], p[1].fact_id),
    )
    archive = _noise(ctx, scored)
    floor = ctx.config.decay_archive_threshold
    for score, v in scored:
        if v.fact_id in archive:
            continue
        if score < floor:
            archive[v.fact_id] = (score, f"salience {score:.4f} below {floor}")
    capacity = ctx.config.capacity
    remaining = [p for p in scored if p[1].fact_id not in archive]
    if capacity and len(remaining) > capacity:
        for score, v in remaining[: len(remaining) - capacity]:
            archive[v.fact_id] = (score, f"over capacity {capacity} (salience {score:.4f})")
    await expect_facts(ctx, sorted(archive))
    for fact_id, (score, reason) in sorted(archive.items()):
        ctx.effects.append(
            FactArchived(
                fact_id=fact_id,
                at=ctx.now,
                reason=reason,
                run_id=ctx.run_id,
                source="auto",
                salience=round(score, 6),
            )
        )
        ctx.actions.append({"action": "archive", "fact_ids": [fact_id], "reason": reason})
    ctx.count("archived", len(archive))
    kept = sorted(
        (v for _, v in scored if v.fact_id not in archive),
        key=lambda v: (v.row.written_position, v.fact_id),
    )
    settings = PreviewSettings(tau_days=tau, near_duplicate=DUPLICATE)
    duplicates, conflicts = await find_pairs(kept, ctx.embedder, settings)
    ctx.count("duplicates", len(duplicates))
    ctx.count("conflicts", len(conflicts))
    ctx.stats["conflict_pairs"] = [c["fact_ids"] for c in conflicts[:100]]
    items = recommendations(
        Preview(duplicates=duplicates, conflicts=conflicts), {v.fact_id: v for v in kept}
    )
    async with ctx.engine.connect() as conn:
        waiting = await pending_items(conn, ctx.namespace)
    fresh = [i for i in items if (i["action"], frozenset(i["fact_ids"])) not in waiting]
    ctx.count("already_planned", len(items) - len(fresh))
    items = [{**i, "item_id": f"i{n + 1}"} for n, i in enumerate(fresh)]
    if items:
        plan = await build_plan(
            ctx.store,
            ctx.namespace,
            items,
            ctx.now,
            inputs={"run_id": ctx.run_id, "phase": "light"},
            source="auto",
        )
        ctx.effects.append(plan)
        ctx.actions.append({"action": "plan", "plan_id": plan.plan_id, "items": len(items)})
    await promote(ctx, kept)
    await validate_episodes(ctx, kept)
