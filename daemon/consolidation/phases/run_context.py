"""What every phase does with its run's context: make the run's append expect the versions
of the facts its effects depend on, see which facts the run already touched, make a model
call within the day's budget, and queue an action for a person."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from daemon.consolidation.facts_view import stream_versions
from daemon.consolidation.models import model_for
from events.consolidation_events import ReviewItemQueued
from events.types import fact_stream
from plugins.llm.types import ChatMessage, CompletionRequest, LLMError

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext


def _expect(ctx: RunContext, versions: dict[str, tuple[int, int, Any]]) -> None:
    for fact_id, (_, version, _) in versions.items():
        ctx.expected.setdefault(fact_stream(fact_id), version)


async def expect_facts(ctx: RunContext, fact_ids: Sequence[str]) -> None:
    """Make the run's append expect each fact's stream at the version it has now."""
    _expect(ctx, await stream_versions(ctx.store, ctx.namespace, fact_ids))


def touched_facts(ctx: RunContext) -> set[str]:
    """Return the facts an earlier effect of this run depends on (left alone by later ones)."""
    return {s.removeprefix("fact:") for s in ctx.expected}


async def ask(
    ctx: RunContext, system: str, user: str, *, site: str, max_tokens: int = 300
) -> str | None:
    """One model call from call site ``site`` (its model: :mod:`daemon.consolidation.models`)
    within the day's budget (None: no model, or the budget is spent)."""
    if ctx.provider is None or not ctx.budget.take():
        return None
    try:
        completion = await ctx.provider.complete(
            CompletionRequest(
                system=system,
                messages=[ChatMessage(role="user", content=user)],
                max_tokens=max_tokens,
                model=model_for(ctx.config, site),
            )
        )
    except LLMError as exc:
        # The provider's own daily budget ([llm.budget]) refused: the same ceiling as ours,
        # so ``on_exceed`` decides, rather than failing the run and losing its work.
        if exc.kind != "budget":
            raise
        ctx.budget.spent(exc.message)
        return None
    return completion.text


async def queue_review(
    ctx: RunContext, agent: str, action: dict[str, Any], fact_ids: Sequence[str]
) -> None:
    """Queue ``action`` on ``fact_ids`` for a person, based on the facts' versions now."""
    item_id = f"rev-{uuid.uuid4().hex[:16]}"
    versions = await stream_versions(ctx.store, ctx.namespace, fact_ids)
    ctx.effects.append(
        ReviewItemQueued(
            item_id=item_id,
            at=ctx.now,
            agent=agent,
            action={**action, "fact_ids": list(fact_ids)},
            run_id=ctx.run_id,
            based_on={f: v[0] for f, v in versions.items()},
        )
    )
    ctx.actions.append({"action": "queue", "item_id": item_id, "verb": action.get("verb")})
    ctx.count("queued")
