"""The fact graph the agents are shown: facts are nodes, links are edges (undirected, one per
pair whatever its direction or kind). Pure functions over plain values: degree, local
clustering coefficient, connected components, each fact's links by kind, and its nearest
facts by embedding."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from plugins.embedders.base import Vectors


@dataclass(frozen=True, slots=True)
class Edge:
    """A link between two facts, as the links projection keeps it."""

    a: str
    b: str
    kind: str = "related"
    strength: float = 1.0


@dataclass(slots=True)
class FactGraph:
    """Adjacency of the current facts (edges to facts outside ``nodes`` are dropped)."""

    nodes: tuple[str, ...]
    adjacency: dict[str, set[str]] = field(default_factory=dict)
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    """fact id -> link kind -> how many of its links are of that kind."""
    edge_kinds: dict[tuple[str, str], str] = field(default_factory=dict)
    """(lower id, higher id) -> the kind of the pair's link (the first one read)."""

    @property
    def edge_count(self) -> int:
        return sum(len(n) for n in self.adjacency.values()) // 2


def build_graph(nodes: Iterable[str], edges: Iterable[Edge]) -> FactGraph:
    """Return the graph of ``nodes``; a pair counts once (its first edge's kind), a
    self-loop never."""
    ordered = tuple(sorted(set(nodes)))
    graph = FactGraph(ordered, {n: set() for n in ordered}, {n: {} for n in ordered})
    for edge in edges:
        if edge.a == edge.b or edge.a not in graph.adjacency or edge.b not in graph.adjacency:
            continue
        pair = (min(edge.a, edge.b), max(edge.a, edge.b))
        if pair in graph.edge_kinds:
            continue
        graph.edge_kinds[pair] = edge.kind
        for here, there in ((edge.a, edge.b), (edge.b, edge.a)):
            graph.adjacency[here].add(there)
            kinds = graph.kinds[here]
            kinds[edge.kind] = kinds.get(edge.kind, 0) + 1
    return graph


def degree(graph: FactGraph, node: str) -> int:
    """Return how many facts ``node`` is linked to."""
    return len(graph.adjacency.get(node, ()))


def clustering(graph: FactGraph, node: str) -> float:
    """Return the local clustering coefficient: the share of pairs of ``node``'s neighbours
    that are linked to each other (0 below two neighbours)."""
    neighbours = sorted(graph.adjacency.get(node, ()))
    k = len(neighbours)
    if k < 2:
        return 0.0
    linked = sum(
        1 for i, a in enumerate(neighbours) for b in neighbours[i + 1 :] if b in graph.adjacency[a]
    )
    return 2.0 * linked / (k * (k - 1))


def components(graph: FactGraph) -> list[list[str]]:
    """Return the connected components, each sorted, the largest first (then by first id)."""
    seen: set[str] = set()
    out: list[list[str]] = []
    for start in graph.nodes:
        if start in seen:
            continue
        seen.add(start)
        stack, members = [start], []
        while stack:
            node = stack.pop()
            members.append(node)
            for other in graph.adjacency[node]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        out.append(sorted(members))
    return sorted(out, key=lambda c: (-len(c), c[0]))


def nearest(
    vectors: Vectors, k: int, floor: float, block: int = 512
) -> list[list[tuple[int, float]]]:
    """Return, for each row of unit ``vectors``, up to ``k`` other rows with cosine >=
    ``floor``, the most similar first (ties by index)."""
    n = vectors.shape[0]
    out: list[list[tuple[int, float]]] = []
    for start in range(0, n, block):
        sims = vectors[start : start + block] @ vectors.T
        rows = np.arange(sims.shape[0])
        sims[rows, rows + start] = -np.inf  # a row is not its own neighbour
        # Most pairs fall below the floor: sort only the candidates above it.
        hit_rows, hit_cols = np.nonzero(sims >= floor)
        bounds = np.searchsorted(hit_rows, np.arange(sims.shape[0] + 1))
        for r in range(sims.shape[0]):
            cols = hit_cols[bounds[r] : bounds[r + 1]]
            scores = sims[r, cols]
            order = np.lexsort((cols, -scores))[:k]
            out.append([(int(cols[i]), float(scores[i])) for i in order])
    return out


def link_kind(graph: FactGraph, a: str, b: str) -> str | None:
    """Return the kind of the link between ``a`` and ``b`` (None: not linked)."""
    return graph.edge_kinds.get((min(a, b), max(a, b)))


def hubs(graph: FactGraph, minimum: int) -> list[str]:
    """Return the facts linked to at least ``minimum`` others, the most linked first."""
    found = [n for n in graph.nodes if degree(graph, n) >= minimum]
    return sorted(found, key=lambda n: (-degree(graph, n), n))


def hub_threshold(degrees: Sequence[int], floor: int = 5) -> int:
    """Return the degree from which a fact counts as over-connected: three times the mean
    degree, and at least ``floor`` (a handful of links is never a hub)."""
    mean = sum(degrees) / len(degrees) if degrees else 0.0
    return max(floor, int(np.ceil(3 * mean)))
