"""The health agent's structural audit, no model needed: what in the fact graph and the facts'
use looks unhealthy. Each finding lists the facts (:data:`MAX_LISTED` at most, by priority)
and how many there are; the run records the findings with the thresholds that decided them.

- ``isolated``: facts linked to nothing, reported once the namespace holds
  :data:`ISOLATED_AMONG` facts or more (a handful of facts need no links);
- ``hubs``: facts linked to at least :func:`~daemon.consolidation.graph.hub_threshold`
  others (three times the mean degree, and at least 5);
- ``near_duplicate_clusters``: groups of facts whose wording is this close (cosine >=
  ``near_duplicate``) yet still all current, linked or not;
- ``unresolved_contradictions``: CONFLICT items still pending in the review queue;
- ``quarantined_never_recalled``: quarantined facts no recall ever returned;
- ``stale``: facts with no activity (written, recalled, reinforced) for ``stale_days``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from daemon.consolidation.agent_inputs import AgentInputs
from daemon.consolidation.graph import Edge, build_graph, components, degree, hub_threshold
from daemon.consolidation.preview import idle_days

ISOLATED_AMONG = 10
MAX_LISTED = 50

FLAG_OF: dict[str, str] = {
    "isolated": "isolated",
    "hubs": "hub",
    "near_duplicate_clusters": "near-duplicate",
    "unresolved_contradictions": "unresolved-contradiction",
    "quarantined_never_recalled": "quarantined-never-recalled",
    "stale": "stale",
}
"""finding -> the flag a fact it names carries in the agents' batches."""


@dataclass(frozen=True, slots=True)
class AuditSettings:
    """The thresholds of the audit (recorded with its findings)."""

    stale_days: float
    near_duplicate: float = 0.95

    def to_json(self) -> dict[str, Any]:
        return {
            "stale_days": self.stale_days,
            "near_duplicate": self.near_duplicate,
            "isolated_among": ISOLATED_AMONG,
        }


def audit(
    inputs: AgentInputs,
    open_conflicts: Sequence[dict[str, Any]],
    now_micros: int,
    settings: AuditSettings,
) -> dict[str, Any]:
    """Return the findings: per finding ``{"count", "fact_ids"}`` (clusters and conflicts
    list groups), plus ``inputs`` (what the audit looked at and its thresholds)."""
    graph = inputs.graph
    rank = {v.fact_id: i for i, v in enumerate(inputs.ordered)}

    def listed(ids: Sequence[str]) -> dict[str, Any]:
        ordered = sorted(ids, key=lambda f: rank.get(f, len(rank)))
        return {"count": len(ids), "fact_ids": ordered[:MAX_LISTED]}

    facts = len(graph.nodes)
    isolated = [n for n in graph.nodes if degree(graph, n) == 0] if facts >= ISOLATED_AMONG else []
    threshold = hub_threshold([degree(graph, n) for n in graph.nodes])
    hubs = [n for n in graph.nodes if degree(graph, n) >= threshold]
    close = [
        Edge(fact_id, other)
        for fact_id, near in inputs.similar.items()
        for other, cosine in near
        if cosine >= settings.near_duplicate
    ]
    clusters = [c for c in components(build_graph(graph.nodes, close)) if len(c) > 1]
    current = set(graph.nodes)
    contradictions = [
        {"item_id": item["item_id"], "fact_ids": list(item["action"].get("fact_ids", []))}
        for item in open_conflicts
        if item.get("verb") == "CONFLICT" and set(item["action"].get("fact_ids", [])) & current
    ]
    quarantined = [
        v.fact_id
        for v in inputs.ordered
        if v.row.status == "quarantined" and v.state.recall_count == 0
    ]
    stale = [v.fact_id for v in inputs.ordered if idle_days(v, now_micros) >= settings.stale_days]
    return {
        "isolated": listed(isolated),
        "hubs": {**listed(hubs), "min_degree": threshold},
        "near_duplicate_clusters": {
            "count": len(clusters),
            "clusters": [
                sorted(c, key=lambda f: rank.get(f, len(rank))) for c in clusters[:MAX_LISTED]
            ],
        },
        "unresolved_contradictions": {
            "count": len(contradictions),
            "items": contradictions[:MAX_LISTED],
        },
        "quarantined_never_recalled": listed(quarantined),
        "stale": listed(stale),
        "inputs": {**settings.to_json(), "facts": facts, "links": graph.edge_count},
    }


def flags_of(findings: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Return fact id -> the flags its findings give it (in :data:`FLAG_OF` order)."""
    out: dict[str, list[str]] = {}
    for finding, flag in FLAG_OF.items():
        body = findings.get(finding) or {}
        groups = body.get("clusters") or [i["fact_ids"] for i in body.get("items", [])]
        ids = [*body.get("fact_ids", []), *(f for g in groups for f in g)]
        for fact_id in dict.fromkeys(ids):
            out.setdefault(fact_id, []).append(flag)
    return {k: tuple(v) for k, v in out.items()}


def counts_of(findings: dict[str, Any]) -> dict[str, int]:
    """Return finding -> how many (what the health agent's model is shown of the whole)."""
    return {k: int(findings[k]["count"]) for k in FLAG_OF if k in findings}
