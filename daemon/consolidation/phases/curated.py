"""The deep phase's curated blocks: each registered block (``learned_context`` and
``[[consolidation.blocks]]``) rewritten by one budgeted model call from its previous text,
recent episodes, recent insights and the most salient facts, fitted to its ``max_chars``.

A block whose inputs are the ones its last rewrite read is left alone (no call). A failed call
(no budget, a provider error, an empty answer) keeps the previous text and the run's actions
say why. Without a model, ``learned_context`` is the most salient facts and insights, bounded
(and so is it when the model fails before the block was ever written); the other blocks are
the app's to write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from daemon.config import BUILT_IN_BLOCK, BlockSpec
from daemon.consolidation.blocks import (
    Item,
    RewriteInputs,
    registered_blocks,
    rewrite_request,
    rewritten_text,
    text_hash,
)
from daemon.consolidation.facts_view import FactView
from daemon.consolidation.phases.run_context import ask
from daemon.consolidation.preview import fact_salience
from events.clock import to_micros
from events.consolidation_events import BlockWritten
from plugins.llm.types import LLMError
from projections.consolidation import current_blocks

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext

SHOWN_FACTS = 30
SHOWN_INSIGHTS = 10


def _ranked(ctx: RunContext, views: Sequence[FactView]) -> list[FactView]:
    """Active facts and insights, insights first, then by salience."""
    now_us = to_micros(ctx.now)
    tau = float(ctx.config.tau_days)
    weights = ctx.config.salience_weights.as_tuple()
    active = [v for v in views if v.row.status == "active" or "insight" in v.row.tags]
    salient = {v.fact_id: fact_salience(v, now_us, tau, weights) for v in active}
    return sorted(
        active, key=lambda v: (-("insight" in v.row.tags), -salient[v.fact_id], v.fact_id)
    )


async def write_blocks(
    ctx: RunContext, views: Sequence[FactView], episodes: Sequence[Item]
) -> None:
    """Rewrite every registered block (see the module docstring); ``episodes`` are
    ``(episode_id, summary)`` of the recent episodes, newest first."""
    async with ctx.engine.connect() as conn:
        current = await current_blocks(conn, ctx.namespace)
    ranked = _ranked(ctx, views)
    insights = sorted(
        (v for v in ranked if "insight" in v.row.tags), key=lambda v: -v.row.written_position
    )
    inputs = RewriteInputs(
        facts=[(v.fact_id, v.row.text) for v in ranked if "insight" not in v.row.tags][
            :SHOWN_FACTS
        ],
        insights=[(v.fact_id, v.row.text) for v in insights[:SHOWN_INSIGHTS]],
        episodes=list(episodes),
    )
    for spec in registered_blocks(ctx.config).values():
        previous = current.get(spec.name)
        if ctx.provider is not None:
            kept_why = await _model_rewrite(ctx, spec, previous, inputs)
            # Kept as it was, unless learned_context was never written: then the offline one.
            if kept_why is None or previous is not None or spec.name != BUILT_IN_BLOCK:
                continue
        if spec.name == BUILT_IN_BLOCK:
            _offline_learned_context(ctx, spec, ranked, previous)


async def _model_rewrite(
    ctx: RunContext, spec: BlockSpec, previous: dict[str, Any] | None, inputs: RewriteInputs
) -> str | None:
    """Rewrite one block by one model call; return why it was kept as it was (None: done)."""
    fact_ids, insight_ids, episode_ids = inputs.ids()
    # Sets: salience reorders the same facts from one run to the next without saying more.
    if previous is not None and [
        set(previous["fact_ids"]),
        set(previous["insight_ids"]),
        set(previous["episode_ids"]),
    ] == [set(fact_ids), set(insight_ids), set(episode_ids)]:
        return _kept(ctx, spec, "nothing new since its last rewrite")
    old_text = None if previous is None else str(previous["text"])
    system, user = rewrite_request(spec, old_text, inputs)
    try:
        tokens = min(4000, spec.max_chars // 3 + 64)
        answer = await ask(ctx, system, user, site="blocks", max_tokens=tokens)
    except LLMError as exc:
        return _kept(ctx, spec, f"the model failed: {exc}")
    if answer is None:
        return _kept(ctx, spec, "no model call left in the budget")
    text = rewritten_text(answer, spec)
    if text is None:
        return _kept(ctx, spec, "the model answered nothing")
    if text == old_text:
        return _kept(ctx, spec, "the model kept the text as it was")
    ctx.effects.append(
        BlockWritten(
            name=spec.name,
            text=text,
            at=ctx.now,
            author=ctx.run_id,
            how="model",
            previous_hash=text_hash(old_text),
            fact_ids=fact_ids,
            insight_ids=insight_ids,
            episode_ids=episode_ids,
            model=None if ctx.provider is None else ctx.provider.model,
        )
    )
    ctx.actions.append({"action": "block", "name": spec.name, "chars": len(text), "by": "model"})
    if spec.name == BUILT_IN_BLOCK:
        ctx.actions.append(
            {"action": "learned_context", "chars": len(text), "facts": len(fact_ids)}
        )
    ctx.count("blocks_written")
    return None


def _kept(ctx: RunContext, spec: BlockSpec, why: str) -> str:
    ctx.actions.append({"action": "block_kept", "name": spec.name, "reason": why})
    return why


def _offline_learned_context(
    ctx: RunContext, spec: BlockSpec, ranked: Sequence[FactView], previous: dict[str, Any] | None
) -> None:
    """The most salient facts and insights, one line each, while they fit ``max_chars``."""
    lines: list[str] = []
    ids: list[str] = []
    used = 0
    for v in ranked:
        line = "- " + " ".join(v.row.text.split())
        if used + len(line) + 1 > spec.max_chars:
            continue
        lines.append(line)
        ids.append(v.fact_id)
        used += len(line) + 1
    text = "\n".join(lines)
    old_text = None if previous is None else str(previous["text"])
    if text == old_text:
        return
    ctx.effects.append(
        BlockWritten(
            name=spec.name,
            text=text,
            at=ctx.now,
            author=ctx.run_id,
            how="offline",
            previous_hash=text_hash(old_text),
            fact_ids=ids,
        )
    )
    ctx.actions.append({"action": "learned_context", "chars": len(text), "facts": len(ids)})
