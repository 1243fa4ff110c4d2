"""What the daemon hands an agent besides its batch: per fact its salience, graph metrics and
neighbours (:class:`plugins.agents.base.BatchFact`), and for the whole review an
:class:`AgentContext` (recent episodes, the graph's shape, the health audit's findings).

Neighbours name other facts by their batch keys: a neighbour outside the batch proper is
added to it as a *context* fact, keyed like the rest, so an action may name it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class FactMetrics:
    """A fact's place in the link graph."""

    degree: int = 0
    clustering: float = 0.0
    """Local clustering coefficient: the share of its neighbours' pairs linked to each other."""
    links: Mapping[str, int] = field(default_factory=dict)
    """Link kind -> how many of its links are of that kind."""
    component_size: int = 1


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A fact close to another: linked to it (``relation`` is ``linked:<kind>``) or near it
    by embedding (``similar``, ``score`` the cosine)."""

    key: str
    relation: str
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class EpisodeBrief:
    """A recent episode as an agent sees it (the id is for the record, not the model)."""

    episode_id: str
    summary: str
    ended_at: str = ""
    importance: float = 0.5


@dataclass(frozen=True, slots=True)
class GraphSummary:
    """The shape of the whole fact graph (every current fact, not only the batch)."""

    facts: int = 0
    links: int = 0
    components: int = 0
    isolated: int = 0
    largest_component: int = 0
    mean_degree: float = 0.0


@dataclass(frozen=True, slots=True)
class AgentContext:
    """What one review shares across its batch."""

    episodes: tuple[EpisodeBrief, ...] = ()
    graph: GraphSummary = field(default_factory=GraphSummary)
    findings: Mapping[str, Any] = field(default_factory=dict)
    """The health audit's counts by finding (``isolated``, ``hubs``...)."""
