"""Iterative recall's domain parts: the difficulty gate, offline reformulation and
fusion across passes, with a scripted search function instead of an index."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from daemon.recall.difficulty import WEIGHTS, assess, signals
from daemon.recall.engine import Hit
from daemon.recall.iterative import (
    AUTHOR_DEPTH,
    AUTHOR_FACTOR,
    WHEN_FACTOR,
    WINDOW_FACTOR,
    IterativeOptions,
    author_rerank,
    fuse_passes,
    iterative_search,
    named_authors,
    reformulations,
)
from daemon.recall.query import Filters, SearchRequest
from daemon.recall.reformulate import bridge_queries
from daemon.recall.time_cues import named_window
from events.clock import to_micros


def _hit(doc_id: int, text: str = "", score: float = 1.0) -> Hit:
    return Hit(doc_id, "message", f"m{doc_id}", text, score, 0, "c", {})


def _req(query: str, top_k: int = 10) -> SearchRequest:
    return SearchRequest(query=query, filters=Filters(namespace="ns"), top_k=top_k)


# -- the gate --------------------------------------------------------------------------------


def test_signals_stay_in_range_and_score_combines_them() -> None:
    for question in (
        "hi",
        "When did Alice and Bob both move to Lyon, before or after 2020, and why?",
        "Which is better, tea or coffee, and how long before bed?",
        "x " * 200,
    ):
        found = signals(question)
        assert set(found) == set(WEIGHTS)
        assert all(0.0 <= v <= 1.0 for v in found.values())
        verdict = assess(question)
        assert 0.0 <= verdict.score <= 1.0


def test_the_gate_tells_a_hard_question_from_an_easy_one() -> None:
    easy = assess("where does the user live?")
    assert not easy.hard
    assert easy.score < 0.5
    temporal = assess("When did Caroline go to the support group?")
    assert temporal.hard
    assert temporal.signals["temporal"] == 1.0
    multi_hop = assess("What activities do Alice's kids and Bob's dog both like?")
    assert multi_hop.hard
    assert multi_hop.signals["multi_hop"] > 0.5
    comparison = assess("Is tea better than coffee?")
    assert comparison.signals["comparison"] > 0.0


def test_threshold_and_force() -> None:
    question = "When did Caroline go to the support group?"
    assert not assess(question, threshold=0.99).hard
    forced = assess("hello", force=True)
    assert forced.hard
    assert forced.forced
    assert forced.to_json()["forced"] is True


# -- reformulation ---------------------------------------------------------------------------


def test_bridge_queries_name_entities_the_question_does_not() -> None:
    texts = [
        "Alice adopted a dog from Paws Shelter in Lyon.",
        "The dog came from Paws Shelter, Alice said.",
        "Lyon was sunny near Paws Shelter.",
    ]
    found = bridge_queries("Where did Alice get her dog?", texts, limit=2)
    assert [r.detail for r in found] == ["Paws Shelter", "Lyon"]
    assert all(r.source == "bridge" for r in found)
    assert found[0].query.startswith("Paws Shelter ")
    assert "alice" in found[0].query
    assert bridge_queries("Where did Alice get her dog?", texts, limit=0) == []


def test_reformulations_are_distinct_and_capped() -> None:
    texts = ["Alice met Bob in Paris.", "Bob and Carol went to Rome."]
    out = reformulations("who did Dave meet?", texts, 2, ("bridge",))
    assert len(out) == 2
    assert len({r.query for r in out}) == 2
    assert reformulations("who?", texts, 0, ("bridge",)) == []
    assert reformulations("who?", texts, 3) == []  # none by default (see STRATEGIES)
    with pytest.raises(ValueError, match="unknown strategy"):
        reformulations("who?", texts, 1, ("nope",))


# -- fusion across passes and the loop -------------------------------------------------------


def test_fuse_passes_sums_weighted_ranks_and_caps() -> None:
    first = [_hit(1), _hit(2), _hit(3)]
    second = [_hit(3), _hit(4)]
    fused = fuse_passes([first, second], [1.0, 0.5], top_k=3)
    assert [h.doc_id for h in fused] == [3, 1, 2]
    assert fused[0].score == pytest.approx(1 / 63 + 0.5 / 61)
    assert len(fuse_passes([first, second], [1.0, 0.5], top_k=10)) == 4


def test_options_clamp_max_iterations() -> None:
    assert IterativeOptions(max_iterations=0).max_iterations == 1
    assert IterativeOptions(max_iterations=9).max_iterations == 5
    assert IterativeOptions().max_iterations == 3


async def test_an_easy_question_takes_one_pass() -> None:
    asked: list[str] = []

    async def search(req: SearchRequest) -> list[Hit]:
        asked.append(req.query)
        return [_hit(1, "Alice lives in Lyon")]

    result = await iterative_search(search, _req("where does the user live"), IterativeOptions())
    assert asked == ["where does the user live"]
    assert not result.difficulty.hard
    assert len(result.passes) == 1
    assert result.explain()["gate"]["hard"] is False


async def test_a_hard_question_takes_bridging_passes_capped_by_max_iterations() -> None:
    corpus = {
        "question": [_hit(1, "Alice adopted Rex from Paws Shelter."), _hit(2, "Rex is a dog.")],
    }
    asked: list[str] = []

    async def search(req: SearchRequest) -> list[Hit]:
        asked.append(req.query)
        if len(asked) == 1:
            return corpus["question"]
        return [_hit(10 + len(asked), f"found by {req.query}"), _hit(2, "Rex is a dog.")]

    req = _req("When did Alice adopt her dog?", top_k=3)
    default = await iterative_search(search, req, IterativeOptions())
    assert default.difficulty.hard
    assert len(asked) == 1  # no offline reformulation by default: pass 1 only
    assert len(default.passes) == 1
    asked.clear()
    bridging = ("bridge",)
    result = await iterative_search(search, req, IterativeOptions(max_iterations=2), bridging)
    assert result.difficulty.hard
    assert len(asked) == 2
    assert asked[1].startswith("Rex ") or asked[1].startswith("Paws Shelter ")
    assert len(result.hits) == 3
    assert result.hits[0].doc_id == 2  # found by both passes
    explained = result.explain()
    assert [p["source"] for p in explained["passes"]] == ["question", "bridge"]
    assert explained["passes"][1]["added"] == ["m12"]
    assert explained["passes"][1]["found"] == 2

    asked.clear()
    one = await iterative_search(search, req, IterativeOptions(1, force_hard=True), bridging)
    assert len(asked) == 1
    assert len(one.passes) == 1


async def test_the_loop_keeps_top_k_and_hit_fields() -> None:
    async def search(req: SearchRequest) -> list[Hit]:
        base = 0 if req.query.startswith("When") else 100
        return [_hit(base + i, f"Zed Qux number {i}", score=1.0 / (i + 1)) for i in range(5)]

    req = _req("When did Alice meet Bob?", top_k=4)
    result = await iterative_search(search, req, IterativeOptions(force_hard=True), ("bridge",))
    assert len(result.hits) == 4
    assert result.hits[0].doc_id == 0
    assert all(dataclasses.is_dataclass(h) for h in result.hits)


def test_author_rerank_lifts_what_the_named_person_said() -> None:
    names = named_authors("What do Melanie Smith's kids like?")
    assert names == ["melanie smith", "melanie"]
    hits = [
        dataclasses.replace(_hit(1, "Thanks, Melanie!", score=1.0), author="Caroline"),
        dataclasses.replace(_hit(2, "They love dinosaurs", score=0.9), author="Melanie"),
        _hit(3, "a fact", score=0.85),
    ]
    hits[1].signals = {"multipliers": {"trust": 1.0}, "final": 0.9}
    ranked = author_rerank(hits, names)
    assert [h.doc_id for h in ranked] == [2, 1, 3]
    assert ranked[0].score == pytest.approx(0.9 * AUTHOR_FACTOR)
    assert ranked[0].signals == {
        "multipliers": {"trust": 1.0, "author": AUTHOR_FACTOR},
        "final": ranked[0].score,
    }
    assert author_rerank(hits, []) == hits


async def test_pass_one_reads_deeper_when_the_question_names_someone() -> None:
    asked: list[int] = []

    async def search(req: SearchRequest) -> list[Hit]:
        asked.append(req.top_k)
        hits = [_hit(i, f"turn {i}", score=1.0 - i / 100) for i in range(req.top_k)]
        return [dataclasses.replace(h, author="Ann" if h.doc_id == 5 else "Bo") for h in hits]

    result = await iterative_search(search, _req("what does Ann like", top_k=3), IterativeOptions())
    assert asked == [AUTHOR_DEPTH]
    assert [h.doc_id for h in result.hits] == [5, 0, 1]
    assert result.explain()["authors"] == {
        "names": ["ann"],
        "factor": AUTHOR_FACTOR,
        "hits": ["m5"],
    }
    asked.clear()
    plain = await iterative_search(search, _req("what is liked", top_k=3), IterativeOptions())
    assert asked == [3]
    assert "authors" not in plain.explain()


def _said(doc_id: int, text: str, score: float, when: datetime) -> Hit:
    return Hit(doc_id, "message", f"m{doc_id}", text, score, to_micros(when), "c", {})


async def test_a_when_question_lifts_the_messages_that_say_when() -> None:
    day = datetime(2023, 5, 4, tzinfo=UTC)
    texts = [
        "My tournament got pushed back, so I tried cooking.",
        "Gaming tournaments are such a rush.",
        "I won another regional tournament last week!",
    ]

    async def search(req: SearchRequest) -> list[Hit]:
        return [_said(i, t, 1.0 - i / 10, day) for i, t in enumerate(texts)]

    asked = await iterative_search(
        search, _req("When did Nate win the tournament?", 3), IterativeOptions()
    )
    assert [h.doc_id for h in asked.hits] == [2, 0, 1]
    assert asked.explain()["time"] == {"asks_when": {"factor": WHEN_FACTOR}}
    plain = await iterative_search(
        search, _req("Which tournament did Nate win?", 3), IterativeOptions()
    )
    assert [h.doc_id for h in plain.hits] == [0, 1, 2]
    assert "time" not in plain.explain()


async def test_a_named_span_adds_what_was_said_then_to_the_pool_and_lifts_it() -> None:
    early, then = datetime(2022, 1, 5, tzinfo=UTC), datetime(2022, 5, 2, tzinfo=UTC)
    asked: list[tuple[int, int] | None] = []

    async def search(req: SearchRequest) -> list[Hit]:
        asked.append(req.filters.said_between)
        if req.filters.said_between is not None:
            return [_said(9, "I watched the trilogy last night!", 0.9, then)]
        return [_said(i, f"movie talk {i}", 1.0 - i / 100, early) for i in range(3)]

    question = "What movie did Joanna watch on 1 May, 2022?"
    result = await iterative_search(search, _req(question, 2), IterativeOptions())
    window = named_window(question)
    assert window is not None
    assert sorted(asked, key=str) == sorted([None, window], key=str)
    assert [h.doc_id for h in result.hits] == [9, 0]
    assert result.hits[0].score > result.hits[1].score
    span = result.explain()["time"]["window"]
    assert (span["from"], span["factor"]) == ("2022-05-01T00:00:00+00:00", WINDOW_FACTOR)
