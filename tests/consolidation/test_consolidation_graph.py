"""The fact graph's metrics on a small hand-made graph, and the agents' inputs built on it.

a - b        triangle a, b, c plus a tail c - d; e alone; f - g a pair
 \\ /
  c - d      e        f - g
"""

from __future__ import annotations

import numpy as np
import pytest

from daemon.consolidation.graph import (
    Edge,
    build_graph,
    clustering,
    components,
    degree,
    hub_threshold,
    hubs,
    link_kind,
    nearest,
)

EDGES = [
    Edge("a", "b"),
    Edge("b", "c"),
    Edge("c", "a", "distinct"),
    Edge("c", "d", "cites"),
    Edge("d", "c"),  # the same pair again: counted once, its first kind kept
    Edge("f", "g"),
    Edge("e", "e"),  # a self-loop is no link
    Edge("a", "zz"),  # a fact no longer current: dropped
]
GRAPH = build_graph("abcdefg", EDGES)


def test_degree_counts_each_pair_once() -> None:
    assert {n: degree(GRAPH, n) for n in GRAPH.nodes} == {
        "a": 2,
        "b": 2,
        "c": 3,
        "d": 1,
        "e": 0,
        "f": 1,
        "g": 1,
    }
    assert GRAPH.edge_count == 5
    assert degree(GRAPH, "unknown") == 0


def test_local_clustering_is_the_share_of_linked_neighbour_pairs() -> None:
    assert clustering(GRAPH, "a") == 1.0  # b and c are linked
    assert clustering(GRAPH, "c") == pytest.approx(1 / 3)  # of (a,b) (a,d) (b,d) only a-b
    assert clustering(GRAPH, "d") == 0.0  # one neighbour
    assert clustering(GRAPH, "e") == 0.0


def test_components_largest_first() -> None:
    assert components(GRAPH) == [["a", "b", "c", "d"], ["f", "g"], ["e"]]


def test_links_by_kind() -> None:
    assert GRAPH.kinds["c"] == {"related": 1, "distinct": 1, "cites": 1}
    assert GRAPH.kinds["e"] == {}
    assert link_kind(GRAPH, "d", "c") == "cites"
    assert link_kind(GRAPH, "a", "c") == "distinct"
    assert link_kind(GRAPH, "a", "d") is None


def test_hubs_are_three_times_the_mean_degree_and_at_least_five() -> None:
    assert hub_threshold([2, 2, 3, 1, 0, 1, 1]) == 5
    assert hub_threshold([10, 10, 10, 0]) == 23
    star = build_graph(["h", *"123456"], [Edge("h", x) for x in "123456"])
    assert hubs(star, hub_threshold([degree(star, n) for n in star.nodes])) == ["h"]
    assert hubs(GRAPH, 5) == []


def test_nearest_by_embedding_skips_itself_and_the_floor() -> None:
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    near = nearest(vectors, k=2, floor=0.5)
    assert [[j for j, _ in row] for row in near] == [[3, 1], [0, 3], [1], [0, 1]]
    assert near[0][0][1] == pytest.approx(1.0)
    [(j, cosine)] = nearest(vectors, k=1, floor=0.5, block=1)[2]
    assert j == 1
    assert cosine == pytest.approx(0.6)
