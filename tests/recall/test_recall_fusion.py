"""Fusion and trust/decay arithmetic (property tests)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from daemon.recall.fusion import (
    FOREIGN_FACTOR,
    QUARANTINE_FACTOR,
    decay_multiplier,
    order,
    rrf,
    trust_multiplier,
)
from events.types import PROVENANCES

rankings = st.lists(st.integers(0, 40), unique=True, max_size=25)
legs = st.dictionaries(st.sampled_from(["lexical", "vector", "entity"]), rankings, max_size=3)


@given(legs, st.integers(0, 100))
def test_rrf_is_the_sum_of_reciprocal_ranks(ranked: dict[str, list[int]], k: int) -> None:
    fused = rrf(ranked, k=k)
    expected: dict[int, float] = {}
    for ranking in ranked.values():
        for i, doc in enumerate(ranking):
            expected[doc] = expected.get(doc, 0.0) + 1.0 / (k + i + 1)
    assert fused.keys() == expected.keys()
    for doc, score in expected.items():
        assert math.isclose(fused[doc], score)


@given(legs, st.dictionaries(st.sampled_from(["lexical", "vector", "entity"]), st.floats(0, 5)))
def test_weighted_rrf_scales_each_leg(
    ranked: dict[str, list[int]], weights: dict[str, float]
) -> None:
    fused = rrf(ranked, weights)
    for doc, score in fused.items():
        expected = sum(
            weights.get(name, 1.0) / (60 + ranking.index(doc) + 1)
            for name, ranking in ranked.items()
            if doc in ranking
        )
        assert math.isclose(score, expected)
    # A leg of weight 0 contributes nothing, not even membership.
    zeroed = {name for name, w in weights.items() if w == 0.0}
    only_zero = {d for name, r in ranked.items() if name in zeroed for d in r} - {
        d for name, r in ranked.items() if name not in zeroed for d in r
    }
    assert not only_zero & fused.keys()


@given(st.lists(st.integers(0, 1000), unique=True, min_size=1, max_size=30))
def test_a_single_leg_keeps_its_order(ranking: list[int]) -> None:
    assert order(rrf({"lexical": ranking})) == ranking


@given(rankings, rankings)
def test_better_everywhere_scores_higher(a: list[int], b: list[int]) -> None:
    fused = rrf({"x": a, "y": b})
    for d1 in fused:
        for d2 in fused:
            better = all(
                (d1 in r and (d2 not in r or r.index(d1) < r.index(d2))) for r in (a, b) if d2 in r
            ) and any(d1 in r for r in (a, b))
            if better and d1 != d2 and all(d1 in r for r in (a, b) if d2 in r):
                assert fused[d1] >= fused[d2]


@given(st.booleans(), st.sampled_from(PROVENANCES))
def test_trust_multiplier(quarantined: bool, provenance: str) -> None:
    factor = trust_multiplier(quarantined, provenance)
    expected = (QUARANTINE_FACTOR if quarantined else 1.0) * (
        FOREIGN_FACTOR if provenance in ("tool", "imported", "reflection") else 1.0
    )
    assert math.isclose(factor, expected)
    assert 0 < factor <= 1


@given(
    st.integers(0, 10**15),
    st.integers(0, 10**15),
    st.floats(0.01, 1000),
    st.floats(0, 10),
)
def test_decay_is_the_formula_and_monotone(e1: int, e2: int, tau: float, strength: float) -> None:
    d1 = decay_multiplier(e1, tau, strength)
    days = e1 / 86_400_000_000
    assert math.isclose(d1, math.exp(-days / (tau * max(0.5, strength))))
    assert 0 <= d1 <= 1
    if e1 <= e2:
        assert d1 >= decay_multiplier(e2, tau, strength)
    assert decay_multiplier(0, tau, strength) == 1.0
    assert decay_multiplier(-5, tau, strength) == 1.0
