"""The tier's agents, in the standard phase: each reviews batches of facts, in parallel up to
``llm_concurrency``; LINK, CATEGORIZE and NOTE apply at once, the rest queue for review."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from daemon.consolidation.facts_view import FactView
from daemon.consolidation.models import choose
from daemon.consolidation.phases.run_context import queue_review
from events.consolidation_events import FactCategorized, FactLinked
from plugins.agents.actions import Action
from plugins.agents.base import BatchFact
from plugins.protocols import Agent

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext


async def run_agents(ctx: RunContext, agents: Sequence[Agent], views: list[FactView]) -> None:
    """Run each agent over batches of facts, in parallel up to ``llm_concurrency``."""
    gate = asyncio.Semaphore(ctx.config.llm_concurrency)
    jobs: list[Callable[[], Awaitable[None]]] = []
    for agent in agents:
        size = max(1, agent.batch_size)
        for start in range(0, len(views), size):
            chunk = views[start : start + size]
            jobs.append(_agent_job(ctx, agent, chunk, gate))
    await asyncio.gather(*(job() for job in jobs))


def _agent_job(
    ctx: RunContext, agent: Agent, chunk: list[FactView], gate: asyncio.Semaphore
) -> Callable[[], Awaitable[None]]:
    async def job() -> None:
        batch = [
            BatchFact(
                key=f"F{k + 1}",
                fact_id=v.fact_id,
                text=v.row.text,
                tags=tuple(v.row.tags),
                category=v.state.category,
            )
            for k, v in enumerate(chunk)
        ]
        async with gate:
            if ctx.provider is None or not ctx.budget.take():
                return
            try:
                answer = await agent.review(choose(ctx.provider, ctx.config, "agents"), batch)
            except Exception as exc:
                ctx.errors.append(f"agent {agent.name}: {exc!r}")
                return
        for error in answer.parsed.errors:
            ctx.errors.append(f"agent {agent.name} line {error.line}: {error.message}")
        ctx.count("agent_parse_errors", len(answer.parsed.errors))
        keys = {f.key: f.fact_id for f in batch}
        for action in answer.parsed.actions:
            await apply_agent_action(ctx, agent.name, action, keys)

    return job


async def apply_agent_action(
    ctx: RunContext, agent: str, action: Action, keys: dict[str, str]
) -> None:
    """Apply a low-risk action at once; queue any other for review."""
    ids = [keys[k] for k in action.keys]
    if action.verb == "LINK":
        ctx.effects.append(
            FactLinked(
                fact_id=ids[0],
                other_fact_id=ids[1],
                at=ctx.now,
                strength=1.0 if action.strength is None else action.strength,
                by=f"agent:{agent}",
            )
        )
        ctx.actions.append({"action": "link", "fact_ids": ids, "agent": agent})
    elif action.verb == "CATEGORIZE":
        ctx.effects.append(
            FactCategorized(
                fact_id=ids[0], category=action.texts[0], at=ctx.now, by=f"agent:{agent}"
            )
        )
        ctx.actions.append({"action": "categorize", "fact_ids": ids, "agent": agent})
    elif action.verb == "NOTE":
        ctx.actions.append({"action": "note", "text": action.texts[0][:500], "agent": agent})
    elif action.verb == "DIGEST":
        # A digest names no keys: it rests on the whole batch the agent read, which it cites.
        await queue_review(ctx, agent, action.to_json(), list(keys.values()))
        return
    else:
        await queue_review(ctx, agent, action.to_json(), ids)
        return
    ctx.count("applied_low_risk")
