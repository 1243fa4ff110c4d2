"""Pass 1's pool scored again, part by rank fusion, part by the legs' own scores."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from daemon.recall.engine import Hit
from daemon.recall.fusion import RRF_K
from daemon.recall.iterative import AUTHOR_FACTOR, IterativeOptions, iterative_search
from daemon.recall.pool_mix import SCORE_SHARE, mix_pool
from daemon.recall.query import Filters, SearchRequest


def _hit(doc_id: int, legs: dict[str, tuple[int, float, float]], author: str = "Bo") -> Hit:
    """A hit as the engine explains it: ``legs`` maps a leg to (rank, score, weight)."""
    fused = sum(weight / (RRF_K + rank) for rank, _, weight in legs.values())
    signals: dict[str, Any] = {
        "legs": {n: {"rank": r, "score": s, "weight": w} for n, (r, s, w) in legs.items()},
        "fused": fused,
        "multipliers": {"trust": 1.0},
        "graph": None,
        "final": fused,
    }
    text = f"turn {doc_id}"
    return Hit(doc_id, "message", f"m{doc_id}", text, fused, 0, "c", {}, signals, author)


def _pool() -> list[Hit]:
    """Rank fusion puts 2 first: second by bm25 but first in the vector leg, on a cosine of
    0.2. Its bm25 is a quarter of 1's: the question's words are 1's, not 2's."""
    strong = _hit(1, {"lexical": (1, 12.0, 1.0)})
    weak = _hit(2, {"lexical": (2, 3.0, 1.0), "vector": (1, 0.2, 0.1)})
    tail = _hit(3, {"lexical": (3, 2.9, 1.0)})
    return sorted([strong, weak, tail], key=lambda h: -h.score)


def test_rank_fusion_alone_ranks_the_weak_match_first() -> None:
    assert [h.doc_id for h in _pool()] == [2, 1, 3]
    assert [h.doc_id for h in mix_pool(_pool(), share=0.0)] == [2, 1, 3]


def test_the_legs_scores_put_the_strong_match_first() -> None:
    mixed = mix_pool(_pool())
    assert [h.doc_id for h in mixed] == [1, 2, 3]
    best = mixed[0]
    assert best.signals is not None
    pool = best.signals["pool"]
    rank_part = (1 / 61) / (1 / 62 + 0.1 / 61)
    assert pool["rank_part"] == pytest.approx(rank_part)
    assert pool["score_part"] == pytest.approx(1.0)  # 12 over the pool's best bm25, 12
    assert best.score == pytest.approx((1 - SCORE_SHARE) * rank_part + SCORE_SHARE * 1.0)
    assert best.signals["final"] == best.score
    # the cosine is taken as it is (a similarity on a fixed scale), bm25 over the best
    assert mixed[1].signals is not None
    assert mixed[1].signals["pool"]["score_part"] == pytest.approx(3.0 / 12.0 + 0.1 * 0.2)


def test_multipliers_carry_into_the_score_part() -> None:
    pool = _pool()
    # trust halved the strong match's fused score: its score part is halved too
    strong = next(h for h in pool if h.doc_id == 1)
    halved = dataclasses.replace(strong, score=strong.score * 0.5)
    mixed = mix_pool([h if h.doc_id != 1 else halved for h in pool])
    found = next(h for h in mixed if h.doc_id == 1)
    assert found.signals is not None
    assert found.signals["pool"]["score_part"] == pytest.approx(0.5)


def test_hits_without_leg_scores_keep_their_order() -> None:
    plain = [dataclasses.replace(h, signals=None) for h in _pool()]
    assert [h.doc_id for h in mix_pool(plain)] == [2, 1, 3]
    assert mix_pool([]) == []


async def test_pass_one_mixes_the_pool_and_hides_the_signals_it_was_not_asked_for() -> None:
    asked: list[bool] = []

    async def search(req: SearchRequest) -> list[Hit]:
        asked.append(req.explain)
        return _pool()

    req = SearchRequest(query="what does Ann like", filters=Filters(namespace="ns"), top_k=3)
    result = await iterative_search(search, req, IterativeOptions())
    assert asked == [True]  # the pool's leg scores come from explain's signals
    assert [h.doc_id for h in result.hits] == [1, 2, 3]
    assert all(h.signals is None for h in result.hits)
    explained = await iterative_search(
        search, dataclasses.replace(req, explain=True), IterativeOptions()
    )
    assert explained.hits[0].signals is not None
    assert "pool" in explained.hits[0].signals


async def test_the_author_factor_applies_to_the_mixed_score() -> None:
    async def search(req: SearchRequest) -> list[Hit]:
        return [h if h.doc_id != 3 else dataclasses.replace(h, author="Ann") for h in _pool()]

    req = SearchRequest(query="what does Ann like", filters=Filters(namespace="ns"), top_k=3)
    result = await iterative_search(search, req, IterativeOptions())
    mixed = {h.doc_id: h.score for h in mix_pool(await search(req))}
    by_ann = next(h for h in result.hits if h.doc_id == 3)
    assert by_ann.score == pytest.approx(mixed[3] * AUTHOR_FACTOR)
