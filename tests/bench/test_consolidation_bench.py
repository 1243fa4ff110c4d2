"""The consolidation quality benchmark: its corpus and its scoring."""

from __future__ import annotations

from bench.consolidation_quality import DEFAULT_PAIRS, LABELS, evaluate, load_pairs, score


def test_corpus_has_enough_labelled_pairs() -> None:
    pairs = load_pairs(DEFAULT_PAIRS)
    assert len(pairs) >= 200
    assert {p["label"] for p in pairs} == set(LABELS)
    assert len({p["id"] for p in pairs}) == len(pairs)
    assert all(p["a"] != p["b"] for p in pairs)


def test_score_counts() -> None:
    s = score([True, True, False, False], [True, False, True, False])
    assert (s.tp, s.fp, s.fn) == (1, 1, 1)
    assert s.precision == 0.5
    assert s.recall == 0.5
    assert score([], []).precision == 1.0


async def test_evaluate_on_a_tiny_corpus() -> None:
    pairs = [
        {"id": "1", "a": "Ann likes tea.", "b": "ann likes tea", "label": "duplicate"},
        {"id": "2", "a": "Ann likes tea", "b": "Ann dislikes tea", "label": "contradiction"},
        {"id": "3", "a": "Ann is 30", "b": "Ann is 31", "label": "update"},
        {"id": "4", "a": "Ann likes tea", "b": "Ben likes golf", "label": "unrelated"},
    ]
    result = await evaluate(pairs, "hashed")
    assert result["dedupe"]["tp"] == 1
    assert result["dedupe"]["fp"] == 0
    assert result["conflict_vs_contradictions_and_updates"]["tp"] == 2
    assert result["conflict_vs_contradictions_and_updates"]["fp"] == 0
