"""What the agents are given: the current facts in priority order, each with its salience,
graph metrics and neighbours, and the recent episodes.

Priority is salience now (:func:`daemon.consolidation.preview.fact_salience`: retention since
the fact's last activity x importance x trust, weighted by ``salience_weights``), the most
salient first, ties by fact id, so the day's budget is spent on the facts that matter most.
A fact's neighbours are the facts it is linked to (by id), then its
nearest by embedding (cosine >= :data:`NEIGHBOUR_FLOOR`), :data:`MAX_NEIGHBOURS` at most.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from daemon.consolidation.facts_view import FactView, embed
from daemon.consolidation.graph import (
    Edge,
    FactGraph,
    build_graph,
    clustering,
    components,
    degree,
    link_kind,
    nearest,
)
from daemon.consolidation.preview import fact_salience
from plugins.agents.base import BatchFact
from plugins.agents.inputs import EpisodeBrief, FactMetrics, GraphSummary, Neighbour
from plugins.embedders.base import Embedder

MAX_NEIGHBOURS = 5
NEIGHBOUR_FLOOR = 0.5
RECENT_EPISODES = 5
MAX_CONTEXT_FACTS = 20
"""Most neighbours outside a batch added to it as context facts."""


@dataclass(slots=True)
class AgentInputs:
    """The facts in priority order and what each agent is shown about them."""

    ordered: list[FactView]
    salience: dict[str, float]
    graph: FactGraph
    components: list[list[str]]
    neighbours: dict[str, list[tuple[str, str, float]]]
    """fact id -> (other fact id, relation, score), linked first then similar."""
    similar: dict[str, list[tuple[str, float]]]
    """fact id -> (other fact id, cosine) of its nearest by embedding, linked or not."""
    episodes: tuple[EpisodeBrief, ...]
    flags: dict[str, tuple[str, ...]]
    """fact id -> the health audit's findings on it (filled when the audit ran)."""
    by_id: dict[str, FactView] = field(default_factory=dict)
    component_size: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {v.fact_id: v for v in self.ordered}
        self.component_size = {n: len(c) for c in self.components for n in c}

    def metrics(self, fact_id: str) -> FactMetrics:
        return FactMetrics(
            degree=degree(self.graph, fact_id),
            clustering=round(clustering(self.graph, fact_id), 4),
            links=dict(sorted(self.graph.kinds.get(fact_id, {}).items())),
            component_size=self.component_size.get(fact_id, 1),
        )

    def summary(self) -> GraphSummary:
        degrees = [degree(self.graph, n) for n in self.graph.nodes]
        return GraphSummary(
            facts=len(self.graph.nodes),
            links=self.graph.edge_count,
            components=len(self.components),
            isolated=sum(1 for d in degrees if d == 0),
            largest_component=len(self.components[0]) if self.components else 0,
            mean_degree=round(sum(degrees) / len(degrees), 4) if degrees else 0.0,
        )


def priority_order(views: Sequence[FactView], salience: dict[str, float]) -> list[FactView]:
    """Return ``views`` the most salient first (ties by fact id)."""
    return sorted(views, key=lambda v: (-salience[v.fact_id], v.fact_id))


async def gather_inputs(
    views: Sequence[FactView],
    links: Sequence[Mapping[str, Any]],
    episodes: Sequence[Mapping[str, Any]],
    embedder: Embedder,
    *,
    now_micros: int,
    tau_days: float,
    weights: tuple[float, float, float],
) -> AgentInputs:
    """Compute priority, graph metrics and neighbours of ``views`` (``links`` and
    ``episodes`` as the consolidation projection's readers return them)."""
    salience = {v.fact_id: fact_salience(v, now_micros, tau_days, weights) for v in views}
    ordered = priority_order(views, salience)
    edges = [Edge(r["fact_id"], r["other_fact_id"], r["kind"], float(r["strength"])) for r in links]
    graph = build_graph((v.fact_id for v in ordered), edges)
    vectors = await embed(embedder, [v.row.text for v in ordered])
    near = nearest(vectors, MAX_NEIGHBOURS, NEIGHBOUR_FLOOR)
    neighbours: dict[str, list[tuple[str, str, float]]] = {}
    similar = {
        v.fact_id: [(ordered[j].fact_id, round(s, 4)) for j, s in near[i]]
        for i, v in enumerate(ordered)
    }
    for v in ordered:
        linked = [
            (o, f"linked:{link_kind(graph, v.fact_id, o)}", 1.0)
            for o in sorted(graph.adjacency[v.fact_id])
        ]
        seen = {o for o, _, _ in linked}
        close = [(o, "similar", s) for o, s in similar[v.fact_id] if o not in seen]
        neighbours[v.fact_id] = [*linked, *close][:MAX_NEIGHBOURS]
    briefs = tuple(
        EpisodeBrief(
            episode_id=e["episode_id"],
            summary=e["summary"],
            ended_at=e["ended_at"].date().isoformat()
            if isinstance(e["ended_at"], datetime)
            else "",
            importance=float(e["importance"]),
        )
        for e in episodes
    )
    return AgentInputs(
        ordered, salience, graph, components(graph), neighbours, similar, briefs, flags={}
    )


def _day(when: object) -> str:
    return when.date().isoformat() if isinstance(when, datetime) else ""


def batch_of(inputs: AgentInputs, chunk: Sequence[FactView]) -> list[BatchFact]:
    """Return ``chunk`` as keyed facts with their inputs, then their neighbours outside it
    as context facts (keys continue; :data:`MAX_CONTEXT_FACTS` at most)."""
    keys = {v.fact_id: f"F{k + 1}" for k, v in enumerate(chunk)}
    extra: list[str] = []
    for v in chunk:
        for other, _, _ in inputs.neighbours.get(v.fact_id, []):
            if other not in keys and len(extra) < MAX_CONTEXT_FACTS:
                keys[other] = f"F{len(keys) + 1}"
                extra.append(other)
    out = []
    for fact_id, is_context in [*((v.fact_id, False) for v in chunk), *((e, True) for e in extra)]:
        view = inputs.by_id[fact_id]
        out.append(
            BatchFact(
                key=keys[fact_id],
                fact_id=fact_id,
                text=view.row.text,
                tags=tuple(view.row.tags),
                category=view.state.category,
                salience=round(inputs.salience[fact_id], 4),
                metrics=inputs.metrics(fact_id),
                neighbours=tuple(
                    Neighbour(keys[o], relation, score)
                    for o, relation, score in inputs.neighbours.get(fact_id, [])
                    if o in keys
                ),
                flags=inputs.flags.get(fact_id, ()),
                context=is_context,
            )
        )
    return out
