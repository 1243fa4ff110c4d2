"""The tier's agents, in the standard phase. Each is given the current facts in priority order
with their salience, graph metrics and neighbours, and the recent episodes
(:mod:`daemon.consolidation.agent_inputs`); a batch agent reviews them in batches, a per-item
agent (split) one fact and its neighbours per call. The health agent first audits the graph
(:mod:`daemon.consolidation.health`), with or without a model, and the run records what it
found; its model then reviews the facts the audit flagged first. Calls go in waves of
``llm_concurrency``, each call taking one from the budget in priority order before its wave
starts, so a spent budget stops the run between calls and always at the same item; answers
are applied in a fixed order (by agent, then by item: the fact id of a per-item call, the
batch's index otherwise) whatever order they came back in. LINK, CATEGORIZE and NOTE apply
at once, the rest queue for review."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from daemon.consolidation.agent_inputs import (
    RECENT_EPISODES,
    AgentInputs,
    batch_of,
    gather_inputs,
)
from daemon.consolidation.facts_view import FactView
from daemon.consolidation.health import AuditSettings, audit, counts_of, flags_of
from daemon.consolidation.models import choose
from daemon.consolidation.phases.run_context import queue_review
from events.consolidation_events import FactCategorized, FactLinked
from plugins.agents.actions import Action
from plugins.agents.base import AgentAnswer, BatchFact
from plugins.agents.inputs import AgentContext
from plugins.llm.types import LLMError
from plugins.protocols import Agent
from projections.consolidation import all_links, recent_episodes, review_items

if TYPE_CHECKING:
    from daemon.consolidation.service import RunContext

HEALTH = "health"
"""The agent whose presence makes the run audit the graph."""
MAX_PENDING = 1000
"""Most pending review items the audit reads for unresolved contradictions."""


@dataclass(frozen=True, slots=True)
class AgentCall:
    """One model call an agent will make: the facts it reviews and where its answer goes in
    the order (its batch, with the inputs, is built only when the budget grants the call)."""

    agent_index: int
    agent: Agent
    item: str
    chunk: list[FactView]


async def run_agents(ctx: RunContext, agents: Sequence[Agent], views: list[FactView]) -> None:
    """Give the agents their inputs, audit the graph when the health agent runs, then make
    the agents' calls (see the module docstring)."""
    audits = any(a.name == HEALTH for a in agents)
    if ctx.provider is None and not audits:
        return
    inputs = await _inputs(ctx, views)
    context = AgentContext(episodes=inputs.episodes, graph=inputs.summary())
    if audits:
        findings = await _audit(ctx, inputs)
        context = dataclasses.replace(context, findings=counts_of(findings))
    if ctx.provider is None:
        return
    calls = plan_calls(agents, inputs)
    answers: list[tuple[AgentCall, list[BatchFact], AgentAnswer]] = []
    wave = max(1, ctx.config.llm_concurrency)
    done, spent = 0, False
    while done < len(calls) and not spent:  # once the budget is spent the rest wait
        granted = []
        for call in calls[done : done + wave]:
            if not ctx.budget.take():
                spent = True
                break
            granted.append((call, batch_of(inputs, call.chunk)))
        done += len(granted)
        if granted:
            results = await asyncio.gather(*(_ask(ctx, c, b, context) for c, b in granted))
            answers += [
                (c, b, a) for (c, b), a in zip(granted, results, strict=True) if a is not None
            ]
    ctx.count("agent_calls", done)
    ctx.count("agent_calls_skipped", len(calls) - done)
    for call, batch, answer in sorted(answers, key=lambda cba: (cba[0].agent_index, cba[0].item)):
        await _apply(ctx, call.agent.name, batch, answer)


def plan_calls(agents: Sequence[Agent], inputs: AgentInputs) -> list[AgentCall]:
    """Return every call the agents would make, in priority order within each agent."""
    calls: list[AgentCall] = []
    for index, agent in enumerate(agents):
        if getattr(agent, "per_item", False):
            items = [v for v in inputs.ordered if inputs.neighbours.get(v.fact_id)]
            most = int(getattr(agent, "max_items", 0) or 0)
            for v in items[:most] if most else items:
                calls.append(AgentCall(index, agent, v.fact_id, [v]))
            continue
        order = inputs.ordered
        if agent.name == HEALTH:  # what the audit found first, so the budget goes to it
            order = sorted(order, key=lambda v: not inputs.flags.get(v.fact_id))
        size = max(1, agent.batch_size)
        for n, start in enumerate(range(0, len(order), size)):
            chunk = order[start : start + size]
            calls.append(AgentCall(index, agent, f"batch-{n:06d}", chunk))
    return calls


async def _inputs(ctx: RunContext, views: list[FactView]) -> AgentInputs:
    async with ctx.engine.connect() as conn:
        links = await all_links(conn, ctx.namespace)
        episodes = await recent_episodes(conn, ctx.namespace, limit=RECENT_EPISODES)
    return await gather_inputs(
        views,
        links,
        episodes,
        ctx.embedder,
        now_micros=int(ctx.now.timestamp() * 1_000_000),
        tau_days=float(ctx.config.tau_days),
        weights=ctx.config.salience_weights.as_tuple(),
    )


async def _audit(ctx: RunContext, inputs: AgentInputs) -> dict[str, object]:
    async with ctx.engine.connect() as conn:
        pending = await review_items(conn, ctx.namespace, limit=MAX_PENDING)
    settings = AuditSettings(stale_days=ctx.config.stale_days)
    findings = audit(inputs, pending, int(ctx.now.timestamp() * 1_000_000), settings)
    inputs.flags.update(flags_of(findings))
    ctx.actions.append({"action": "health_audit", "agent": HEALTH, **findings})
    ctx.count("health_findings", sum(counts_of(findings).values()))
    return findings


async def _ask(
    ctx: RunContext, call: AgentCall, batch: list[BatchFact], context: AgentContext
) -> AgentAnswer | None:
    """One budgeted call (the budget was taken); None when it failed (the run goes on)."""
    assert ctx.provider is not None
    try:
        return await call.agent.review(choose(ctx.provider, ctx.config, "agents"), batch, context)
    except LLMError as exc:
        if exc.kind == "budget":
            ctx.budget.spent(exc.message)
        ctx.errors.append(f"agent {call.agent.name} {call.item}: {exc!r}")
    except Exception as exc:
        ctx.errors.append(f"agent {call.agent.name} {call.item}: {exc!r}")
    return None


async def _apply(ctx: RunContext, agent: str, batch: list[BatchFact], answer: AgentAnswer) -> None:
    for error in answer.parsed.errors:
        ctx.errors.append(f"agent {agent} line {error.line}: {error.message}")
    ctx.count("agent_parse_errors", len(answer.parsed.errors))
    # A digest rests on the facts under review, not on the neighbours shown beside them.
    keys = {f.key: f.fact_id for f in batch}
    reviewed = {f.key: f.fact_id for f in batch if not f.context}
    for action in answer.parsed.actions:
        await apply_agent_action(ctx, agent, action, reviewed if action.verb == "DIGEST" else keys)


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
